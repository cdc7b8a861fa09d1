// The outbox sweep reads entries another writer may have left malformed: each is refused
// with FailedToParse naming the execution, the entry's seq and the field, and well-formed
// entries are read whatever their seq's numeric type (an int32 from another writer).
#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/exec/execution_store.h"
#include "support/backend.h"

namespace mongostore::exec {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;
using testing::Backend;

class QueueEntries : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    client_ = backend_.connect(GetParam());
    store_.emplace(client_, ExecutionStoreOptions{});
  }
  void insert_with_outbox(const std::string& id, Document entry) {
    client_->database("harel")
        .collection("executions")
        .insert_one(make_document("_id", id, "version", 1, "outbox", make_array(entry)));
  }
  void insert_with_spawns(const std::string& id, Document entry) {
    client_->database("harel")
        .collection("executions")
        .insert_one(make_document("_id", id, "version", 1, "spawns", make_array(entry)));
  }
  // The message of the error pending_outbox() (pending_spawns() with `spawns`) throws, or ""
  // when it throws none.
  std::string sweep_error(int32_t* code, bool spawns = false) {
    try {
      if (spawns) {
        store_->pending_spawns();
      } else {
        store_->pending_outbox();
      }
    } catch (const Error& e) {
      *code = e.code();
      return e.what();
    }
    return "";
  }

  testing::BackendHolder backend_;
  std::shared_ptr<client::Client> client_;
  std::optional<ExecutionStore> store_;
};

TEST_P(QueueEntries, AnEventThatIsNotAStringIsRefusedNamingTheEntry) {
  insert_with_outbox("e1", make_document("seq", int64_t{7}, "target_id", bson::Null{}, "event", 5));
  int32_t code = 0;
  std::string message = sweep_error(&code);
  EXPECT_EQ(code, static_cast<int32_t>(ErrorCode::kFailedToParse));
  EXPECT_NE(message.find("execution 'e1' outbox entry 7"), std::string::npos) << message;
  EXPECT_NE(message.find("`event` is not a string"), std::string::npos) << message;
}

TEST_P(QueueEntries, ATargetThatIsNotAStringIsRefusedNamingTheEntry) {
  insert_with_outbox("e2", make_document("seq", int64_t{8}, "target_id", 3, "event", "{}"));
  int32_t code = 0;
  std::string message = sweep_error(&code);
  EXPECT_EQ(code, static_cast<int32_t>(ErrorCode::kFailedToParse));
  EXPECT_NE(message.find("execution 'e2' outbox entry 8: `target_id`"), std::string::npos)
      << message;
}

TEST_P(QueueEntries, AFractionalSeqIsRefused) {
  insert_with_outbox("e3", make_document("seq", 1.5, "event", "{}"));
  int32_t code = 0;
  std::string message = sweep_error(&code);
  EXPECT_EQ(code, static_cast<int32_t>(ErrorCode::kFailedToParse));
  EXPECT_NE(message.find("execution 'e3' outbox entry: `seq` is not an integer"), std::string::npos)
      << message;
}

TEST_P(QueueEntries, AnEventThatDoesNotParseIsRefusedNamingTheEntry) {
  insert_with_outbox("e4", make_document("seq", 9, "event", "not json"));
  int32_t code = 0;
  std::string message = sweep_error(&code);
  EXPECT_EQ(code, static_cast<int32_t>(ErrorCode::kFailedToParse));
  EXPECT_NE(message.find("execution 'e4' outbox entry 9: "), std::string::npos) << message;
}

TEST_P(QueueEntries, AnInt32SeqIsRead) {
  Event event;
  event.id = "ev";
  event.kind = "go";
  insert_with_outbox("e5", make_document("seq", 11, "target_id", "t", "event", event.to_json()));
  std::vector<OutboxEntry> entries = store_->pending_outbox();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].seq, 11);
  EXPECT_EQ(entries[0].source_id, "e5");
  EXPECT_EQ(entries[0].target_id, "t");
  EXPECT_EQ(entries[0].event.id, "ev");
}

// (The sweep reads documents through their seq index: one well-formed entry puts a document
// in range, and every entry of it is then read.)
TEST_P(QueueEntries, AnOutboxEntryThatIsNotADocumentIsRefused) {
  client_->database("harel")
      .collection("executions")
      .insert_one(make_document("_id", "e6", "version", 1, "outbox",
                                make_array(3, make_document("seq", 1, "event", "{}"))));
  int32_t code = 0;
  std::string message = sweep_error(&code);
  EXPECT_EQ(code, static_cast<int32_t>(ErrorCode::kFailedToParse));
  EXPECT_NE(message.find("execution 'e6' outbox entry is not a document"), std::string::npos)
      << message;
}

// The spawn queue reads through the same loop as the outbox: the same errors, named "spawn".
TEST_P(QueueEntries, ASpawnFieldThatIsNotAStringIsRefusedNamingTheEntry) {
  insert_with_spawns("p1", make_document("seq", int64_t{4}, "child_id", 5, "root_path", "r"));
  int32_t code = 0;
  std::string message = sweep_error(&code, /*spawns=*/true);
  EXPECT_EQ(code, static_cast<int32_t>(ErrorCode::kFailedToParse));
  EXPECT_NE(message.find("execution 'p1' spawn entry 4: `child_id` is not a string"),
            std::string::npos)
      << message;
}

TEST_P(QueueEntries, ASpawnSeqThatIsNotAnIntegerIsRefused) {
  insert_with_spawns("p2", make_document("seq", 2.5, "child_id", "c", "root_path", "r"));
  int32_t code = 0;
  std::string message = sweep_error(&code, /*spawns=*/true);
  EXPECT_EQ(code, static_cast<int32_t>(ErrorCode::kFailedToParse));
  EXPECT_NE(message.find("execution 'p2' spawn entry: `seq` is not an integer"), std::string::npos)
      << message;
}

TEST_P(QueueEntries, ASpawnContextThatIsNotADocumentIsRefused) {
  insert_with_spawns("p3",
                     make_document("seq", 6, "child_id", "c", "root_path", "r", "context", "x"));
  int32_t code = 0;
  std::string message = sweep_error(&code, /*spawns=*/true);
  EXPECT_EQ(code, static_cast<int32_t>(ErrorCode::kFailedToParse));
  EXPECT_NE(message.find("execution 'p3' spawn entry 6: `context` is not a document"),
            std::string::npos)
      << message;
}

TEST_P(QueueEntries, SpawnEntriesAreReadInSeqOrderWithTheirParent) {
  client_->database("harel")
      .collection("executions")
      .insert_one(make_document(
          "_id", "p4", "version", 1, "spawns",
          make_array(make_document("seq", 9, "child_id", "c9", "root_path", "r"),
                     make_document("seq", 2, "child_id", "c2", "root_path", "r", "parent_id",
                                   "other", "context", make_document("k", 1)))));
  std::vector<SpawnEntry> entries = store_->pending_spawns();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].seq, 2);
  EXPECT_EQ(entries[0].child_id, "c2");
  EXPECT_EQ(entries[0].parent_id, "other");
  EXPECT_EQ(entries[0].context.get("k").number_as_double(), 1.0);
  EXPECT_EQ(entries[1].seq, 9);
  EXPECT_EQ(entries[1].parent_id, "p4");
}

INSTANTIATE_TEST_SUITE_P(Backends, QueueEntries, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::exec
