// pending_outbox returns entries in seq order, entries of equal seq in the order read
// (document order, then array order), whether they were read in that order already (the
// usual case, which is not re-sorted) or not (documents whose entries interleave), on every
// backend.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution_store.h"
#include "support/backend.h"

namespace mongostore::exec {
namespace {

using bson::make_array;
using bson::make_document;
using testing::Backend;

class OutboxOrder : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    client_ = backend_.connect(GetParam());
    store_.emplace(client_, ExecutionStoreOptions{});
  }
  // An execution `id` whose outbox holds one entry per (seq, event id).
  void insert(const std::string& id, const std::vector<std::pair<int64_t, std::string>>& entries) {
    bson::DocumentBuilder b;
    b.append("_id", id).append("version", 1).open_array("outbox");
    for (const auto& [seq, event_id] : entries) {
      Event e;
      e.id = event_id;
      e.kind = "go";
      b.push(make_document("seq", seq, "event", e.to_json()));
    }
    b.close();
    client_->database("harel").collection("executions").insert_one(b.finish());
  }
  std::vector<std::string> read() {
    std::vector<std::string> out;
    for (const OutboxEntry& e : store_->pending_outbox()) {
      out.push_back(std::to_string(e.seq) + ":" + e.event.id);
    }
    return out;
  }

  testing::BackendHolder backend_;
  std::shared_ptr<client::Client> client_;
  std::optional<ExecutionStore> store_;
};

TEST_P(OutboxOrder, InterleavedEntriesComeBackInSeqOrder) {
  insert("a", {{1, "a1"}, {4, "a4"}, {6, "a6"}});
  insert("b", {{2, "b2"}, {3, "b3"}, {6, "b6"}});
  EXPECT_EQ(read(), (std::vector<std::string>{"1:a1", "2:b2", "3:b3", "4:a4", "6:a6", "6:b6"}));
}

TEST_P(OutboxOrder, SortedEntriesAndEqualSeqsKeepTheirOrder) {
  insert("c", {{7, "c7"}, {7, "c7b"}, {8, "c8"}});
  insert("d", {{9, "d9"}, {9, "d9b"}});
  EXPECT_EQ(read(), (std::vector<std::string>{"7:c7", "7:c7b", "8:c8", "9:d9", "9:d9b"}));
}

TEST_P(OutboxOrder, EqualSeqsOutOfOrderKeepTheOrderRead) {
  insert("e", {{5, "e5"}, {3, "e3"}, {5, "e5b"}});  // not in push order: another writer
  EXPECT_EQ(read(), (std::vector<std::string>{"3:e3", "5:e5", "5:e5b"}));
}

// More entries than the sweep makes room for at first (16): every one, in seq order.
TEST_P(OutboxOrder, ManyEntriesAcrossDocuments) {
  std::vector<std::string> expected;
  for (int d = 0; d < 5; ++d) {
    std::vector<std::pair<int64_t, std::string>> entries;
    for (int i = 0; i < 8; ++i) {
      const int64_t seq = 100 + i * 5 + d;  // documents interleave
      entries.emplace_back(seq, "x" + std::to_string(seq));
    }
    insert("m" + std::to_string(d), entries);
  }
  for (int64_t seq = 100; seq < 140; ++seq) {
    expected.push_back(std::to_string(seq) + ":x" + std::to_string(seq));
  }
  EXPECT_EQ(read(), expected);
}

INSTANTIATE_TEST_SUITE_P(Backends, OutboxOrder, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::exec
