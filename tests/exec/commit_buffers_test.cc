// The commit's update and guard written into a reused buffer (CommitPlan::update_in /
// guard_in, exec/commit_buffers.h) are byte for byte the Documents update() / guard() build,
// whatever the buffer held before; and the per-thread buffers are never shared by two leases.
#include "exec/commit_buffers.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "exec/commit_plan.h"
#include "mongostore/bson/builder.h"

namespace mongostore::exec {
namespace {

using bson::Document;
using bson::DocumentView;
using bson::make_document;

std::vector<uint8_t> bytes_of(DocumentView d) {
  return std::vector<uint8_t>(d.data(), d.data() + d.size());
}

// A plan with every part (emits, a spawn, a counted trace step, a mark, armed and cancelled
// timers), `data` of `data_size` bytes.
struct Plan {
  explicit Plan(size_t data_size) : data(data_size, 'd') {
    plan.execution_id = "e1";
    plan.definition_id = "def";
    plan.status = "RUNNING";
    plan.new_version = 7;
    plan.data = data;
    plan.outbox.push_back({41, std::string_view(target), event});
    plan.outbox.push_back({42, std::nullopt, long_event});
    plan.spawns.push_back(make_document("seq", int64_t{7}, "child_id", "c1"));
    plan.trace_step = step.view();
    plan.processed_event = std::string_view(mark);
    plan.timers = net_timer_changes(
        {TimerOp::schedule("Fork.A", 30), TimerOp::cancel("B"), TimerOp::schedule("C", 20)});
    plan.trace_max = 50;
    plan.count_trace = true;
  }
  std::string data;
  std::string long_event = std::string(300, 'x');
  std::string target = "target-execution";
  std::string event = R"({"id":"ev-1","kind":"go"})";
  std::string mark = "mark-1";
  Document step = make_document("state", "A", "at", 12.5);
  CommitPlan plan;
};

TEST(CommitBuffers, UpdateInABufferIsTheUpdate) {
  Plan p(1200);
  std::vector<uint8_t> buffer;
  EXPECT_EQ(bytes_of(p.plan.update_in(buffer)), bytes_of(p.plan.update().view()));
}

TEST(CommitBuffers, AReusedBufferHoldsOnlyTheNewDocument) {
  // A larger document first leaves bytes beyond the next one: they are not part of it.
  Plan large(5000);
  Plan small(10);
  std::vector<uint8_t> buffer(3, 0xAB);
  DocumentView first = large.plan.update_in(buffer);
  EXPECT_EQ(bytes_of(first), bytes_of(large.plan.update().view()));
  const size_t grown = buffer.size();
  DocumentView second = small.plan.update_in(buffer);
  EXPECT_EQ(bytes_of(second), bytes_of(small.plan.update().view()));
  EXPECT_EQ(buffer.size(), grown);  // kept: the next commit zeroes nothing
  // And a larger one again after the small one.
  EXPECT_EQ(bytes_of(large.plan.update_in(buffer)), bytes_of(large.plan.update().view()));
}

TEST(CommitBuffers, AnUpdateLargerThanItsEstimateGrowsTheBuffer) {
  // A timer path the estimate does not foresee being long: the writer grows mid-document.
  Plan p(100);
  std::vector<TimerOp> ops;
  for (int i = 0; i < 40; ++i) {
    ops.push_back(TimerOp::schedule(
        "Region" + std::string(60, char('a' + i % 26)) + std::to_string(i), double(i)));
  }
  p.plan.timers = net_timer_changes(ops);
  std::vector<uint8_t> buffer(16);
  EXPECT_EQ(bytes_of(p.plan.update_in(buffer)), bytes_of(p.plan.update().view()));
}

TEST(CommitBuffers, GuardInABufferIsTheGuard) {
  Plan p(10);
  std::vector<uint8_t> buffer(500, 0xCD);
  for (bool needs_trace_next : {false, true}) {
    EXPECT_EQ(bytes_of(p.plan.guard_in(buffer, 6, needs_trace_next)),
              bytes_of(p.plan.guard(6, needs_trace_next).view()));
  }
}

TEST(CommitBuffers, ALeaseHasTheThreadsBuffersUntilItEnds) {
  std::vector<uint8_t>* first = nullptr;
  {
    CommitBuffers::Lease lease;
    EXPECT_TRUE(lease.is_thread_own());
    first = &lease->update;
  }
  CommitBuffers::Lease again;
  EXPECT_TRUE(again.is_thread_own());
  EXPECT_EQ(&again->update, first);
}

TEST(CommitBuffers, ANestedLeaseGetsBuffersOfItsOwn) {
  CommitBuffers::Lease outer;
  CommitBuffers::Lease inner;
  EXPECT_TRUE(outer.is_thread_own());
  EXPECT_FALSE(inner.is_thread_own());
  EXPECT_NE(&outer->update, &inner->update);
  EXPECT_NE(&outer->guard, &inner->guard);
}

TEST(CommitBuffers, AnotherThreadHasOtherBuffers) {
  CommitBuffers::Lease mine;
  std::vector<uint8_t>* theirs = nullptr;
  bool own = false;
  std::thread t([&] {
    CommitBuffers::Lease lease;
    own = lease.is_thread_own();
    theirs = &lease->update;
  });
  t.join();
  EXPECT_TRUE(own);
  EXPECT_NE(theirs, &mine->update);
}

TEST(CommitBuffers, ABufferGrownPastTheLimitIsReleased) {
  {
    CommitBuffers::Lease lease;
    lease->update.resize(CommitBuffers::kKeepBytes + 1);
    lease->guard.resize(64);
  }
  CommitBuffers::Lease lease;
  EXPECT_EQ(lease->update.capacity(), 0u);
  EXPECT_GE(lease->guard.size(), 64u);  // a small one is kept
}

}  // namespace
}  // namespace mongostore::exec
