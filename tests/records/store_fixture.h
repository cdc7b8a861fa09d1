// The fixture of the RecordStore contract suites: a backend (memory, durable, remote through
// `mongostore serve`) and a transaction mode (transactions or degraded), stores opened on one
// database of it, and raw access to its collections.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/records/record_store.h"
#include "support/backend.h"

namespace mongostore::records::testing {

/// One axis point of the contract suites: a backend and whether the store runs in transaction
/// mode (`require`) or degraded (`never`).
struct StoreParam {
  mongostore::testing::Backend backend;
  bool transactions;
};

/// Every (backend, mode) a contract suite must pass on: each backend in both modes (the
/// remote one through `mongostore serve`, a one-member replica set).
inline auto store_params() {
  using mongostore::testing::Backend;
  return ::testing::Values(StoreParam{Backend::kMemory, true}, StoreParam{Backend::kMemory, false},
                           StoreParam{Backend::kDurable, true},
                           StoreParam{Backend::kDurable, false}, StoreParam{Backend::kRemote, true},
                           StoreParam{Backend::kRemote, false});
}
/// Each backend once, the modes alternating: for suites whose subject does not depend on the
/// mode (queries), so their larger data sets are not written six times.
inline auto backend_params() {
  using mongostore::testing::Backend;
  return ::testing::Values(StoreParam{Backend::kMemory, true}, StoreParam{Backend::kDurable, false},
                           StoreParam{Backend::kRemote, true});
}
/// Only the transaction-mode points of store_params().
inline auto transaction_params() {
  using mongostore::testing::Backend;
  return ::testing::Values(StoreParam{Backend::kMemory, true}, StoreParam{Backend::kDurable, true},
                           StoreParam{Backend::kRemote, true});
}

inline std::string store_param_name(const ::testing::TestParamInfo<StoreParam>& info) {
  return mongostore::testing::backend_name(info.param.backend) +
         (info.param.transactions ? "_txn" : "_degraded");
}

class StoreFixture : public ::testing::TestWithParam<StoreParam> {
 protected:
  explicit StoreFixture(std::string database) : database_(std::move(database)) {}
  void SetUp() override { client_ = backend_.connect(GetParam().backend); }

  bool transactions() const { return GetParam().transactions; }

  /// Options for this fixture's database, in its transaction mode; the degraded-mode warning
  /// is kept in warnings_. Stores opened on several threads at once call the sink
  /// concurrently, so it takes warnings_mutex_.
  RecordStoreOptions options(std::vector<EntryFamily> families = {}) {
    RecordStoreOptions o;
    o.database = database_;
    o.transactions = transactions() ? TransactionMode::kRequire : TransactionMode::kNever;
    o.families = std::move(families);
    o.warn = [this](std::string_view w) {
      std::lock_guard lock(warnings_mutex_);
      warnings_.emplace_back(w);
    };
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
  std::mutex warnings_mutex_;
  std::vector<std::string> warnings_;  // read only while no other thread opens a store
};

}  // namespace mongostore::records::testing
