// The outbox sweep reads an execution's `_id` and `outbox`, and each entry's `seq`,
// `target_id` and `event`, in one pass over each document: whatever the fields' order, with
// fields it does not know, a repeated key (the first one counts, as DocumentView::get finds
// it) and an `_id` that is not a string (named by its JSON), each entry decodes to what the
// fields say, on every backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution_store.h"
#include "support/backend.h"

namespace mongostore::exec {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;
using testing::Backend;

class OutboxEntryFields : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    client_ = backend_.connect(GetParam());
    store_.emplace(client_, ExecutionStoreOptions{});
  }
  client::Collection executions() const {
    return client_->database("harel").collection("executions");
  }
  static std::string event_json(const std::string& id) {
    Event e;
    e.id = id;
    e.kind = "go";
    return e.to_json();
  }

  testing::BackendHolder backend_;
  std::shared_ptr<client::Client> client_;
  std::optional<ExecutionStore> store_;
};

TEST_P(OutboxEntryFields, AnyOrderExtraFieldsAndRepeatedKeys) {
  // Fields in another order, with fields the store does not write.
  bson::DocumentBuilder reordered;
  reordered.append("event", event_json("a")).append("x", 1).append("target_id", "ta");
  reordered.append("seq", int64_t{21});
  // Repeated keys: the first of each counts.
  bson::DocumentBuilder repeated;
  repeated.append("seq", int64_t{22}).append("event", event_json("b")).append("seq", 99);
  repeated.append("target_id", bson::Null{}).append("target_id", "ignored");
  repeated.append("event", "not json");
  bson::DocumentBuilder outer;  // the execution's own fields repeated too
  outer.append("_id", "x1")
      .append("version", 1)
      .append("outbox", make_array(reordered.finish(), repeated.finish()))
      .append("outbox", make_array(make_document("seq", 5, "event", "not json")));
  executions().insert_one(outer.finish());
  // An `_id` that is not a string: the entry's source is its JSON.
  executions().insert_one(
      make_document("_id", 42, "version", 1, "outbox",
                    make_array(make_document("seq", int64_t{23}, "event", event_json("c")))));

  std::vector<OutboxEntry> entries = store_->pending_outbox();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].seq, 21);
  EXPECT_EQ(entries[0].target_id, std::optional<std::string>("ta"));
  EXPECT_EQ(entries[0].event.id, "a");
  EXPECT_EQ(entries[0].source_id, "x1");
  EXPECT_EQ(entries[1].seq, 22);
  EXPECT_EQ(entries[1].target_id, std::nullopt);
  EXPECT_EQ(entries[1].event.id, "b");
  EXPECT_EQ(entries[1].source_id, "x1");
  EXPECT_EQ(entries[2].seq, 23);
  EXPECT_EQ(entries[2].event.id, "c");
  EXPECT_EQ(entries[2].source_id, "42");
}

INSTANTIATE_TEST_SUITE_P(Backends, OutboxEntryFields, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::exec
