// The shape of the ExecutionStore's commit update, applied in one pass.
#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

constexpr const char* kCommit = R"({
  "$set": {"data": "state-v2", "version": 2, "timers.Fork．A": 100.0},
  "$push": {
    "outbox": {"$each": [{"seq": 1, "kind": "emit"}, {"seq": 2, "kind": "emit"}]},
    "trace": {"$each": [{"t": 1, "what": "step"}], "$slice": -2}
  },
  "$addToSet": {"processed": "evt-1"},
  "$unset": {"timers.X": ""}
})";

TEST(UpdateCommitShape, FreshDocument) {
  auto r = run(R"({"_id": "wf-1", "version": 1})", kCommit);
  EXPECT_TRUE(r.modified);
  EXPECT_EQ(canon(r.document), canon(R"({
    "_id": "wf-1", "version": 2, "data": "state-v2",
    "outbox": [{"seq": 1, "kind": "emit"}, {"seq": 2, "kind": "emit"}],
    "processed": ["evt-1"],
    "timers": {"Fork．A": 100.0},
    "trace": [{"t": 1, "what": "step"}]})"));
}

TEST(UpdateCommitShape, ExistingDocument) {
  auto r = run(R"({"_id": "wf-1", "version": 1, "data": "state-v1",
                   "timers": {"X": 5.0, "Y": 6.0},
                   "outbox": [{"seq": 0, "kind": "emit"}],
                   "trace": [{"t": -1}, {"t": 0}],
                   "processed": ["evt-0", "evt-1"]})",
               kCommit);
  EXPECT_EQ(canon(r.document), canon(R"({
    "_id": "wf-1", "version": 2, "data": "state-v2",
    "timers": {"Y": 6.0, "Fork．A": 100.0},
    "outbox": [{"seq": 0, "kind": "emit"}, {"seq": 1, "kind": "emit"}, {"seq": 2, "kind": "emit"}],
    "trace": [{"t": 0}, {"t": 1, "what": "step"}],
    "processed": ["evt-0", "evt-1"]})"));
}

TEST(UpdateCommitShape, PullAcknowledgedOutbox) {
  auto r = run(R"({"_id": "wf-1", "outbox": [{"seq": 2, "k": 1}, {"seq": 3, "k": 2}, {"seq": 4}]})",
               R"({"$pull": {"outbox": {"seq": 3}}})");
  EXPECT_EQ(canon(r.document),
            canon(R"({"_id": "wf-1", "outbox": [{"seq": 2, "k": 1}, {"seq": 4}]})"));
  auto again =
      run(R"({"_id": "wf-1", "outbox": [{"seq": 2}]})", R"({"$pull": {"outbox": {"seq": 3}}})");
  EXPECT_FALSE(again.modified);
  auto le = run(R"({"_id": "wf-1", "outbox": [{"seq": 2}, {"seq": 3}, {"seq": 4}]})",
                R"({"$pull": {"outbox": {"seq": {"$lte": 3}}}})");
  EXPECT_EQ(canon(le.document), canon(R"({"_id": "wf-1", "outbox": [{"seq": 4}]})"));
}

}  // namespace
}  // namespace mongostore::engine::update_test
