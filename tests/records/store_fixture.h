// The fixture of the RecordStore contract suites: a backend (memory, durable, remote through
// `mongostore serve`), stores opened on one database of it, and raw access to its collections.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/records/record_store.h"
#include "support/backend.h"

namespace mongostore::records::testing {

class StoreFixture : public ::testing::TestWithParam<mongostore::testing::Backend> {
 protected:
  explicit StoreFixture(std::string database) : database_(std::move(database)) {}
  void SetUp() override { client_ = backend_.connect(GetParam()); }

  /// Options for this fixture's database; the degraded-mode warning is kept in warnings_.
  RecordStoreOptions options(std::vector<EntryFamily> families = {}) {
    RecordStoreOptions o;
    o.database = database_;
    o.families = std::move(families);
    o.warn = [this](std::string_view w) { warnings_.emplace_back(w); };
    return o;
  }
  RecordStore open(RecordStoreOptions o) { return RecordStore::open(client_, std::move(o)); }
  RecordStore open() { return open(options()); }
  client::Collection coll(const std::string& name) const {
    return client_->database(database_).collection(name);
  }

  std::string database_;
  mongostore::testing::BackendHolder backend_;
  std::shared_ptr<client::Client> client_;
  std::vector<std::string> warnings_;
};

}  // namespace mongostore::records::testing
