// CommitPlan (src/exec/commit_plan.h): the update and the first save's insert, byte for byte
// the documents its contract describes, built here field by field with DocumentBuilder. The
// plan writes them its own way (one reserved buffer); what is stored must not change.
#include "exec/commit_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/trace_index.h"
#include "mongostore/bson/builder.h"

namespace mongostore::exec {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::make_document;

std::vector<uint8_t> bytes_of(const Document& d) {
  return std::vector<uint8_t>(d.view().data(), d.view().data() + d.view().size());
}

// Equal bytes, with the JSON of both in the message when they differ.
void expect_same(const Document& actual, const Document& expected) {
  EXPECT_EQ(bytes_of(actual), bytes_of(expected))
      << "actual:   " << actual.view().to_json() << "\nexpected: " << expected.view().to_json();
}

struct Fixture {
  std::string event_a = R"({"id":"ev-1","kind":"go","payload":{"n":1}})";
  std::string event_b = std::string(300, 'x');
  std::string target = "target-execution-with-a-long-id";
  std::string mark = "processed-event-id";
  Document step = make_document("state", "A", "at", 12.5);
  Document spawn = make_document("seq", int64_t{7}, "parent_id", "e1", "child_id", "c1",
                                 "root_path", "Fork.A", "context", make_document("k", 1));
};

// Every part a commit can have: two emits (with and without a target), a spawn, a ring-trimmed
// counted trace step, a dedupe mark, armed and cancelled timers.
void fill_full(CommitPlan& plan, const Fixture& f) {
  plan.execution_id = "e1";
  plan.definition_id = "def";
  plan.status = "running";
  plan.parent_id = std::nullopt;
  plan.new_version = 5;
  plan.data = R"({"id":"e1","version":5,"context":{"a":[1,2,3]}})";
  plan.outbox.push_back({41, f.target, f.event_a});
  plan.outbox.push_back({42, std::nullopt, f.event_b});
  plan.spawns.push_back(Document::copy_of(f.spawn.view()));
  plan.trace_step = f.step.view();
  plan.processed_event = f.mark;
  plan.timers = net_timer_changes(
      {TimerOp::schedule("Fork.A", 30), TimerOp::cancel("B"), TimerOp::schedule("C", 20)});
  plan.trace_max = 50;
  plan.count_trace = true;
}

TEST(CommitPlan, UpdateHasEveryPartInItsPlace) {
  Fixture f;
  CommitPlan plan;
  fill_full(plan, f);
  DocumentBuilder b;
  b.open_document("$set")
      .append("data", plan.data)
      .append("version", int64_t{5})
      .append("status", "running")
      .append("parent_id", bson::Null{})
      .append(
          "timers.Fork\xEF\xBC\x8E"
          "A",
          30.0)
      .append("timers.C", 20.0)
      .close();
  b.open_document("$push");
  b.open_document("outbox").open_array("$each");
  b.push(make_document("seq", int64_t{41}, "target_id", f.target, "event", f.event_a));
  b.push(make_document("seq", int64_t{42}, "target_id", bson::Null{}, "event", f.event_b));
  b.close().close();
  b.open_document("spawns").open_array("$each").push(f.spawn).close().close();
  b.open_document("trace")
      .open_array("$each")
      .push(f.step)
      .close()
      .append("$slice", int64_t{-50})
      .close();
  b.close();
  b.open_document("$addToSet").append("processed", f.mark).close();
  b.open_document("$inc").append(kTraceNext, int64_t{1}).close();
  b.open_document("$min").append("next_fire_at", 20.0).close();
  b.open_document("$unset").append("timers.B", "").close();
  expect_same(plan.update(), b.finish());
}

// The usual commit: no spawn, no cancel, an unbounded ring, a parent; the seed's layout
// (no trace_next to count).
TEST(CommitPlan, UpdateOfAPlainCommit) {
  Fixture f;
  CommitPlan plan;
  plan.execution_id = "e1";
  plan.status = "waiting";
  plan.parent_id = "p1";
  plan.new_version = 2;
  plan.data = "{}";
  plan.outbox.push_back({1, std::nullopt, f.event_a});
  plan.trace_step = f.step.view();
  plan.timers = net_timer_changes({TimerOp::schedule("T", 9)});
  DocumentBuilder b;
  b.open_document("$set")
      .append("data", "{}")
      .append("version", int64_t{2})
      .append("status", "waiting")
      .append("parent_id", "p1")
      .append("timers.T", 9.0)
      .close();
  b.open_document("$push");
  b.open_document("outbox").open_array("$each");
  b.push(make_document("seq", int64_t{1}, "target_id", bson::Null{}, "event", f.event_a));
  b.close().close();
  b.open_document("trace").open_array("$each").push(f.step).close().close();
  b.close();
  b.open_document("$min").append("next_fire_at", 9.0).close();
  expect_same(plan.update(), b.finish());
}

// Nothing but the snapshot: $set alone.
TEST(CommitPlan, UpdateOfAnEmptyBatch) {
  CommitPlan plan;
  plan.status = "done";
  plan.new_version = 3;
  plan.data = "{}";
  DocumentBuilder b;
  b.open_document("$set")
      .append("data", "{}")
      .append("version", int64_t{3})
      .append("status", "done")
      .append("parent_id", bson::Null{})
      .close();
  expect_same(plan.update(), b.finish());
}

// The first save's document: the fields the sweeps read (next_fire_at, timers, outbox,
// spawns) before the data and the trace, so that a sweep's walk of the stored document ends
// early (collect_due, pending_entries).
TEST(CommitPlan, InsertSeedsEveryField) {
  Fixture f;
  CommitPlan plan;
  fill_full(plan, f);
  plan.new_version = 1;
  DocumentBuilder b;
  b.append("_id", "e1")
      .append("definition_id", "def")
      .append("version", int64_t{1})
      .append("next_fire_at", 20.0);
  b.open_document("timers")
      .append(
          "Fork\xEF\xBC\x8E"
          "A",
          30.0)
      .append("C", 20.0)
      .close();
  b.open_array("outbox");
  b.push(make_document("seq", int64_t{41}, "target_id", f.target, "event", f.event_a));
  b.push(make_document("seq", int64_t{42}, "target_id", bson::Null{}, "event", f.event_b));
  b.close();
  b.open_array("spawns").push(f.spawn).close();
  b.append("data", plan.data).append("status", "running").append("parent_id", bson::Null{});
  b.open_array("trace").push(f.step).close();
  b.append(kTraceNext, int64_t{1});
  b.open_array("processed").push(f.mark).close();
  expect_same(plan.insert(), b.finish());
}

TEST(CommitPlan, InsertOfAnEmptyBatch) {
  CommitPlan plan;
  plan.execution_id = "e2";
  plan.definition_id = "def";
  plan.status = "created";
  plan.parent_id = "p";
  plan.new_version = 1;
  plan.data = "{}";
  DocumentBuilder b;
  b.append("_id", "e2")
      .append("definition_id", "def")
      .append("version", int64_t{1})
      .append("next_fire_at", kNoTimer);
  b.open_document("timers").close();
  b.open_array("outbox").close();
  b.open_array("spawns").close();
  b.append("data", "{}").append("status", "created").append("parent_id", "p");
  b.open_array("trace").close();
  b.open_array("processed").close();
  expect_same(plan.insert(), b.finish());
}

// More than ten array elements: the keys "10", "11", ... are two digits.
TEST(CommitPlan, ManyEmitsKeepTheirArrayKeys) {
  CommitPlan plan;
  plan.status = "running";
  plan.new_version = 2;
  plan.data = "{}";
  std::vector<std::string> events;  // the plan holds views of them
  for (int64_t i = 0; i < 12; ++i) events.push_back("e" + std::to_string(i));
  for (int64_t i = 0; i < 12; ++i) {
    plan.outbox.push_back({i, std::nullopt, events[static_cast<size_t>(i)]});
  }
  DocumentBuilder b;
  b.open_document("$set")
      .append("data", "{}")
      .append("version", int64_t{2})
      .append("status", "running")
      .append("parent_id", bson::Null{})
      .close();
  b.open_document("$push").open_document("outbox").open_array("$each");
  for (int64_t i = 0; i < 12; ++i) {
    b.push(make_document("seq", i, "target_id", bson::Null{}, "event", "e" + std::to_string(i)));
  }
  expect_same(plan.update(), b.finish());
}

}  // namespace
}  // namespace mongostore::exec

namespace mongostore::exec {
namespace {

TEST(CommitPlan, GuardIsIdAndVersion) {
  CommitPlan plan;
  plan.execution_id = "an-execution-id-longer-than-sso";
  expect_same(plan.guard(7, false),
              make_document("_id", "an-execution-id-longer-than-sso", "version", int64_t{7}));
}

TEST(CommitPlan, GuardOfACountedStepNeedsTraceNext) {
  CommitPlan plan;
  plan.execution_id = "e1";
  DocumentBuilder b;
  b.append("_id", "e1").append("version", int64_t{3});
  b.open_document(kTraceNext).append("$exists", true).close();
  expect_same(plan.guard(3, true), b.finish());
}

}  // namespace
}  // namespace mongostore::exec
