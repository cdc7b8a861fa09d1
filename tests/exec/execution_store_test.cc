// The ExecutionStore's contract, written once and run on every backend: embedded memory,
// embedded durable, and remote (libmongoc) through a `mongostore serve` child.
//
// Each behaviour of seeds/000 is asserted through the store's API and, where the layout is
// the contract (the seed's document shape, the promoted fields), through the raw collection.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution_store.h"
#include "support/backend.h"

namespace mongostore::exec {
namespace {

using bson::Document;
using bson::make_document;
using testing::Backend;

class ExecutionStoreContract : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    client_ = backend_.connect(GetParam());
    store_.emplace(client_, options());
  }
  virtual ExecutionStoreOptions options() const { return {}; }

  ExecutionStore& store() { return *store_; }
  client::Collection executions() const {
    return client_->database("harel").collection("executions");
  }
  Document raw(const std::string& id) const {
    auto doc = executions().find_one(make_document("_id", id));
    EXPECT_TRUE(doc) << id;
    return doc ? *doc : Document();
  }
  Execution make(const std::string& id, const std::string& definition = "order",
                 std::optional<std::string> parent = std::nullopt) {
    NewExecution spec;
    spec.id = id;
    spec.definition_id = definition;
    spec.parent_id = parent;
    spec.context = make_document("n", 1);
    return store().create(spec);
  }

  testing::BackendHolder backend_;
  std::shared_ptr<client::Client> client_;
  std::optional<ExecutionStore> store_;
};

// --- create, commit, load ------------------------------------------------------------------

TEST_P(ExecutionStoreContract, CreateSavesVersionOneAndLoadReturnsAnEqualCopy) {
  Execution exe = make("e1");
  EXPECT_EQ(exe.version, 1);
  auto loaded = store().load("e1");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, exe);
  EXPECT_FALSE(store().load("nope"));

  // The seed's layout, plus the promoted fields.
  Document doc = raw("e1");
  EXPECT_EQ(doc.get("definition_id").as_string(), "order");
  EXPECT_EQ(doc.get("version").number_as_double(), 1);
  EXPECT_TRUE(doc.get("data").is_string());
  EXPECT_TRUE(doc.get("outbox").is_array());
  EXPECT_TRUE(doc.get("spawns").is_array());
  EXPECT_TRUE(doc.get("processed").is_array());
  EXPECT_TRUE(doc.get("timers").is_document());
  EXPECT_TRUE(doc.get("trace").is_array());
  EXPECT_EQ(doc.get("status").as_string(), "PENDING");
  EXPECT_TRUE(doc.get("parent_id").is_null());
}

TEST_P(ExecutionStoreContract, GeneratedIdsAreFreshAndChosenIdsAreUnique) {
  NewExecution spec;
  spec.definition_id = "d";
  Execution a = store().create(spec);
  Execution b = store().create(spec);
  EXPECT_NE(a.id, b.id);
  EXPECT_EQ(a.id.size(), 32u);
  make("taken");
  try {
    make("taken");
    FAIL() << "a taken id must raise ExecutionAlreadyExists";
  } catch (const ExecutionAlreadyExists& e) {
    EXPECT_EQ(e.execution_id(), "taken");
    EXPECT_EQ(e.code(), 11000);
  }
}

TEST_P(ExecutionStoreContract, CommitBumpsVersionAndConflictsNameBothVersions) {
  Execution exe = make("e1");
  Execution stale = exe;
  exe.status = ExecutionStatus::kRunning;
  store().commit(exe);
  EXPECT_EQ(exe.version, 2);
  EXPECT_EQ(raw("e1").get("status").as_string(), "RUNNING");

  stale.context = make_document("lost", true);
  try {
    store().commit(stale);
    FAIL() << "a stale commit must conflict";
  } catch (const StoreConflict& e) {
    EXPECT_EQ(e.execution_id(), "e1");
    EXPECT_EQ(e.expected(), 1);
    EXPECT_EQ(e.found(), 2);
    EXPECT_EQ(e.code(), 112);
  }
  EXPECT_EQ(stale.version, 1);  // restored: the commit did not happen
  EXPECT_EQ(store().load("e1")->context, exe.context);

  // A commit to an execution that is gone conflicts with no found version.
  executions().delete_one(make_document("_id", "e1"));
  try {
    store().commit(exe);
    FAIL();
  } catch (const StoreConflict& e) {
    EXPECT_FALSE(e.found().has_value());
  }
  EXPECT_EQ(exe.version, 2);
}

TEST_P(ExecutionStoreContract, RacingFirstSavesHaveOneWinner) {
  Execution a, b;
  a.id = b.id = "race";
  a.definition_id = b.definition_id = "d";
  store().save(a);
  EXPECT_THROW(store().save(b), StoreConflict);
  EXPECT_EQ(b.version, 0);
  EXPECT_EQ(store().load("race")->version, 1);
}

TEST_P(ExecutionStoreContract, EverythingInABatchLandsTogether) {
  Execution exe = make("e1");
  CommitBatch batch;
  batch.emits.push_back({"target", Event::make("Go", make_document("x", 1))});
  batch.emits.push_back({std::nullopt, Event::make("Broadcast")});
  batch.processed_event_id = "ev-1";
  batch.timers.push_back(TimerOp::schedule("Fork.A", 100.5));
  batch.spawns.push_back({"child-1", "Fork.A", make_document("k", "v")});
  batch.trace = make_document("event", "ev-1", "to", "S2");
  store().commit(exe, batch);

  auto outbox = store().pending_outbox();
  ASSERT_EQ(outbox.size(), 2u);
  EXPECT_EQ(outbox[0].target_id, "target");
  EXPECT_EQ(outbox[0].event, batch.emits[0].event);
  EXPECT_EQ(outbox[0].source_id, "e1");
  EXPECT_FALSE(outbox[1].target_id);
  EXPECT_EQ(outbox[1].seq, outbox[0].seq + 1);  // one block for the commit's emits
  EXPECT_TRUE(store().is_processed("e1", "ev-1"));
  EXPECT_FALSE(store().is_processed("e1", "ev-2"));
  auto due = store().due_timers(1000);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].path, "Fork.A");
  EXPECT_DOUBLE_EQ(due[0].fire_at, 100.5);
  // The stored key encodes "." as U+FF0E.
  EXPECT_TRUE(
      raw("e1").get("timers").as_document().has("Fork\xEF\xBC\x8E"
                                                "A"));
  auto spawns = store().pending_spawns();
  ASSERT_EQ(spawns.size(), 1u);
  EXPECT_EQ(spawns[0].child_id, "child-1");
  EXPECT_EQ(spawns[0].parent_id, "e1");
  EXPECT_EQ(spawns[0].context, make_document("k", "v"));
  auto trace = store().read_trace("e1");
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].get("index").number_as_double(), 0);
  EXPECT_EQ(trace[0].get("to").as_string(), "S2");
}

TEST_P(ExecutionStoreContract, AFailedCommitLeavesNothingBehind) {
  Execution exe = make("e1");
  Execution stale = exe;
  store().save(exe);
  CommitBatch batch;
  batch.emits.push_back({"t", Event::make("E")});
  batch.processed_event_id = "ev";
  batch.timers.push_back(TimerOp::schedule("T", 1));
  batch.spawns.push_back({"c", "R", {}});
  batch.trace = make_document("step", 1);
  EXPECT_THROW(store().commit(stale, batch), StoreConflict);

  // A commit that fails validation part-way (a bad timer path after good ops) writes nothing.
  CommitBatch bad = batch;
  bad.timers.push_back(TimerOp::schedule("$bad", 2));
  EXPECT_THROW(store().commit(exe, bad), Error);
  EXPECT_EQ(exe.version, 2);

  EXPECT_TRUE(store().pending_outbox().empty());
  EXPECT_TRUE(store().pending_spawns().empty());
  EXPECT_TRUE(store().due_timers(1e12).empty());
  EXPECT_FALSE(store().is_processed("e1", "ev"));
  EXPECT_TRUE(store().read_trace("e1").empty());
  EXPECT_EQ(store().load("e1")->version, 2);
}

TEST_P(ExecutionStoreContract, LoadForEventFoldsTheDedupeCheckIn) {
  Execution exe = make("e1");
  CommitBatch batch;
  batch.processed_event_id = "seen";
  store().commit(exe, batch);
  auto [loaded, seen] = store().load_for_event("e1", "seen");
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(seen);
  EXPECT_EQ(loaded->version, 2);
  auto [again, fresh] = store().load_for_event("e1", "new");
  EXPECT_FALSE(fresh);
  auto [none, none_seen] = store().load_for_event("nope", "seen");
  EXPECT_FALSE(none);
  EXPECT_FALSE(none_seen);
  // Marking twice keeps one mark ($addToSet).
  store().commit(exe, batch);
  Document doc = raw("e1");
  EXPECT_EQ(
      std::distance(doc.get("processed").as_array().begin(), doc.get("processed").as_array().end()),
      1);
}

// --- outbox, spawns ------------------------------------------------------------------------

TEST_P(ExecutionStoreContract, OutboxAndSpawnsDrainInSeqOrderAcrossExecutions) {
  Execution a = make("a"), b = make("b");
  std::vector<int64_t> seqs;
  for (int i = 0; i < 3; ++i) {
    CommitBatch batch;
    batch.emits.push_back({"x", Event::make("E" + std::to_string(i))});
    batch.spawns.push_back({"child" + std::to_string(i), "R", {}});
    store().commit(i % 2 == 0 ? b : a, batch);
  }
  auto outbox = store().pending_outbox();
  ASSERT_EQ(outbox.size(), 3u);
  for (size_t i = 0; i < outbox.size(); ++i) {
    EXPECT_EQ(outbox[i].event.kind, "E" + std::to_string(i));
    if (i > 0) {
      EXPECT_GT(outbox[i].seq, outbox[i - 1].seq);
    }
  }
  store().ack_outbox(outbox[1].seq);
  store().ack_outbox(outbox[1].seq);  // acking twice is a no-op
  store().ack_outbox(999999);         // so is an unknown seq
  auto left = store().pending_outbox();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].seq, outbox[0].seq);
  EXPECT_EQ(left[1].seq, outbox[2].seq);

  auto spawns = store().pending_spawns();
  ASSERT_EQ(spawns.size(), 3u);
  store().ack_spawn(spawns[0].seq);
  EXPECT_EQ(store().pending_spawns().size(), 2u);
  EXPECT_EQ(store().pending_spawns()[0].child_id, "child1");
}

TEST_P(ExecutionStoreContract, SeqBlocksAreAllocatedFromTheCounter) {
  Execution exe = make("e1");
  CommitBatch batch;
  for (int i = 0; i < 5; ++i) batch.emits.push_back({"t", Event::make("E")});
  store().commit(exe, batch);
  auto counter =
      client_->database("harel").collection("counters").find_one(make_document("_id", "outbox"));
  ASSERT_TRUE(counter);
  int64_t n = 0;
  ASSERT_TRUE(counter->get("n").number_as_exact_int64(&n));
  auto outbox = store().pending_outbox();
  ASSERT_EQ(outbox.size(), 5u);
  EXPECT_EQ(outbox.back().seq, outbox.front().seq + 4);
  if (client_->backend_name() == "embedded") {
    // A block of kSeqBlock (1024) reserved by the commit, handed out from its start.
    EXPECT_EQ(outbox.front().seq, n - 1024 + 1);
  } else {
    // The block is (n - count, n]: n - count + 1 .. n.
    EXPECT_EQ(outbox.front().seq, n - 5 + 1);
    EXPECT_EQ(outbox.back().seq, n);
  }
}

TEST_P(ExecutionStoreContract, StoresOfOneClientShareTheOrderOfSeqs) {
  // Two stores over one client interleave their commits: the seqs still grow in commit
  // order (an execution's emits drain in the order it made them, whichever store wrote
  // them), and the embedded engine touched the counter once for all of them.
  ExecutionStore other(client_);
  Execution a = make("a");
  std::vector<int64_t> seqs;
  for (int i = 0; i < 8; ++i) {
    CommitBatch batch;
    batch.emits.push_back({"t", Event::make("E" + std::to_string(i))});
    batch.spawns.push_back({"child" + std::to_string(i), "R", {}});
    (i % 2 == 0 ? store() : other).commit(a, batch);
  }
  auto outbox = store().pending_outbox();
  ASSERT_EQ(outbox.size(), 8u);
  auto spawns = other.pending_spawns();
  ASSERT_EQ(spawns.size(), 8u);
  for (size_t i = 0; i < outbox.size(); ++i) {
    EXPECT_EQ(outbox[i].event.kind, "E" + std::to_string(i));
    EXPECT_EQ(spawns[i].child_id, "child" + std::to_string(i));
    if (i > 0) {
      EXPECT_GT(outbox[i].seq, outbox[i - 1].seq);
      EXPECT_GT(spawns[i].seq, spawns[i - 1].seq);
    }
  }
  auto n_of = [&](const char* name) {
    auto counter =
        client_->database("harel").collection("counters").find_one(make_document("_id", name));
    int64_t n = 0;
    EXPECT_TRUE(counter && counter->get("n").number_as_exact_int64(&n)) << name;
    return n;
  };
  if (client_->backend_name() == "embedded") {
    EXPECT_EQ(n_of("outbox"), 1024);
    EXPECT_EQ(n_of("spawn"), 1024);
  } else {
    EXPECT_EQ(n_of("outbox"), 8);
    EXPECT_EQ(n_of("spawn"), 8);
  }
}

TEST_P(ExecutionStoreContract, SeqsKeepGrowingAfterARestart) {
  if (GetParam() != Backend::kDurable) GTEST_SKIP() << "needs a data directory to reopen";
  Execution exe = make("e1");
  CommitBatch batch;
  batch.emits.push_back({"t", Event::make("before")});
  store().commit(exe, batch);
  const int64_t before = store().pending_outbox().at(0).seq;
  // The rest of the block dies with the process; the next one starts past it.
  store_.reset();
  client_.reset();
  client_ = backend_.connect(GetParam());
  store_.emplace(client_, options());
  std::optional<Execution> again = store().load("e1");
  ASSERT_TRUE(again);
  batch.emits = {{"t", Event::make("after")}};
  store().commit(*again, batch);
  auto outbox = store().pending_outbox();
  ASSERT_EQ(outbox.size(), 2u);
  EXPECT_EQ(outbox[0].seq, before);
  EXPECT_EQ(outbox[0].event.kind, "before");
  EXPECT_EQ(outbox[1].event.kind, "after");
  EXPECT_GT(outbox[1].seq, before);
}

TEST_P(ExecutionStoreContract, StoresOfBothLayoutsKeepAnExecutionsEmitsInOrder) {
  // A seed-layout store and a default store commit one execution in turn: its emits drain in
  // the order they were made, and no seq is handed out twice. On the embedded engine both
  // take their seqs from the same blocks; remote, both reserve per commit.
  ExecutionStoreOptions seed;
  seed.processed_in_document = 0;
  ExecutionStore seed_store(client_, seed);
  Execution a = make("a");
  auto emit = [](const std::string& kind) {
    CommitBatch batch;
    batch.emits.push_back({"t", Event::make(kind)});
    return batch;
  };
  seed_store.commit(a, emit("seed1"));
  store().commit(a, emit("mine1"));
  seed_store.commit(a, emit("seed2"));
  store().commit(a, emit("mine2"));
  std::set<int64_t> seqs;
  std::vector<std::string> kinds;
  for (const OutboxEntry& e : seed_store.pending_outbox()) {
    seqs.insert(e.seq);
    kinds.push_back(e.event.kind);
  }
  EXPECT_EQ(seqs.size(), 4u);
  EXPECT_EQ(kinds, (std::vector<std::string>{"seed1", "mine1", "seed2", "mine2"}));
}

// --- timers --------------------------------------------------------------------------------

TEST_P(ExecutionStoreContract, TimersArmCancelAndFireEarliestFirst) {
  Execution a = make("a"), b = make("b");
  CommitBatch arm_a;
  arm_a.timers = {TimerOp::schedule("X", 30), TimerOp::schedule("Y.Z", 10)};
  store().commit(a, arm_a);
  CommitBatch arm_b;
  arm_b.timers = {TimerOp::schedule("X", 20)};
  store().commit(b, arm_b);

  auto due = store().due_timers(25);
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].execution_id, "a");
  EXPECT_EQ(due[0].path, "Y.Z");
  EXPECT_EQ(due[1].execution_id, "b");
  EXPECT_TRUE(store().due_timers(5).empty());

  // Ops apply in order: cancel then re-arm one path is a re-arm (harel's conflicting
  // $set/$unset of one path would fail on a real server).
  CommitBatch rearm;
  rearm.timers = {TimerOp::cancel("Y.Z"), TimerOp::schedule("Y.Z", 40), TimerOp::cancel("X")};
  store().commit(a, rearm);
  due = store().due_timers(100);
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].execution_id, "b");
  EXPECT_EQ(due[1].path, "Y.Z");
  EXPECT_DOUBLE_EQ(due[1].fire_at, 40);
  EXPECT_TRUE(store().due_timers(25).size() == 1u);  // the cancelled X at 30 is gone
}

TEST_P(ExecutionStoreContract, DeleteTimerIsGuardedOnTheStoredFireTime) {
  Execution exe = make("e1");
  CommitBatch arm;
  arm.timers = {TimerOp::schedule("T", 10), TimerOp::schedule("U", 50)};
  store().commit(exe, arm);
  auto due = store().due_timers(20);
  ASSERT_EQ(due.size(), 1u);

  // The execution re-arms T while the sweep still holds the old fire_at.
  CommitBatch rearm;
  rearm.timers = {TimerOp::schedule("T", 15)};
  store().commit(exe, rearm);
  store().delete_timer("e1", "T", due[0].fire_at);  // stale: must not delete the re-armed T
  due = store().due_timers(20);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_DOUBLE_EQ(due[0].fire_at, 15);
  store().delete_timer("e1", "T", 15);
  EXPECT_TRUE(store().due_timers(20).empty());
  due = store().due_timers(60);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].path, "U");
  store().delete_timer("e1", "U", 50);
  EXPECT_TRUE(store().due_timers(1e12).empty());
  EXPECT_TRUE(raw("e1").get("timers").as_document().empty());
  store().delete_timer("nope", "T", 1);  // unknown execution: no-op
}

TEST_P(ExecutionStoreContract, ABadTimerPathFailsLoudlyAndWritesNothing) {
  Execution exe = make("e1");
  for (std::string bad : {std::string(""), std::string("$x"),
                          std::string("a\xEF\xBC\x8E"
                                      "b"),
                          std::string("a\0b", 3), std::string("\xFF")}) {
    CommitBatch batch;
    batch.timers = {TimerOp::schedule(bad, 1)};
    try {
      store().commit(exe, batch);
      FAIL() << "path '" << bad << "' must be rejected";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), 2) << e.what();
    }
  }
  EXPECT_EQ(store().load("e1")->version, 1);
}

// --- trace ring ----------------------------------------------------------------------------

class TraceRing : public ExecutionStoreContract {
 protected:
  ExecutionStoreOptions options() const override {
    ExecutionStoreOptions o;
    o.trace_max = 200;
    return o;
  }
};

TEST_P(TraceRing, KeepsTheLastTraceMaxStepsWithIndexesThatSurviveEviction) {
  Execution exe = make("e1");
  for (int i = 0; i < 250; ++i) {
    CommitBatch batch;
    batch.trace = make_document("step", i);
    store().commit(exe, batch);
  }
  for (int i = 250; i < 500; ++i) store().append_trace("e1", make_document("step", i));
  auto trace = store().read_trace("e1");
  ASSERT_EQ(trace.size(), 200u);
  for (size_t i = 0; i < trace.size(); ++i) {
    int64_t index = -1;
    ASSERT_TRUE(trace[i].get("index").number_as_exact_int64(&index));
    EXPECT_EQ(index, 300 + static_cast<int64_t>(i));
    EXPECT_EQ(trace[i].get("step").number_as_double(), 300 + static_cast<double>(i));
  }
  // An unknown execution has no trace, and appending to one creates nothing.
  store().append_trace("ghost", make_document("step", 1));
  EXPECT_TRUE(store().read_trace("ghost").empty());
  EXPECT_FALSE(executions().find_one(make_document("_id", "ghost")));
}

// --- trace indexes without a counter (issue 29) ------------------------------------------

TEST_P(ExecutionStoreContract, TraceIndexesComeFromTheDocumentNotACounter) {
  Execution exe = make("e1");
  for (int i = 0; i < 3; ++i) {
    CommitBatch batch;
    batch.trace = make_document("step", i, "index", 99);  // a caller's index is not kept
    store().commit(exe, batch);
  }
  store().append_trace("e1", make_document("step", 3));
  // No counter document per execution: the commit is one engine write fewer.
  auto counters = client_->database("harel").collection("counters");
  EXPECT_FALSE(counters.find_one(make_document("_id", "trace:e1")));
  Document doc = raw("e1");
  EXPECT_EQ(doc.get("trace_next").number_as_double(), 4);
  for (const bson::Element& e : doc.get("trace").as_array()) {
    EXPECT_FALSE(e.value.as_document().has("index"));  // stamped on read
  }
  auto trace = store().read_trace("e1");
  ASSERT_EQ(trace.size(), 4u);
  for (size_t i = 0; i < trace.size(); ++i) {
    EXPECT_EQ(trace[i].get("index").as_int64(), static_cast<int64_t>(i));
    EXPECT_EQ(trace[i].get("step").number_as_double(), static_cast<double>(i));
  }
}

TEST_P(ExecutionStoreContract, ASeedWrittenTraceKeepsItsIndexesAndNewStepsFollowThem) {
  Execution exe = make("s1");
  // The seed's layout: stamped steps 0..4, no trace_next, and a counter that has handed out
  // 0..6 (two indexes burned by commits that lost their CAS).
  bson::DocumentBuilder steps;
  steps.open_array("");
  for (int64_t i = 0; i < 5; ++i) steps.push(make_document("step", i, "index", i));
  steps.close();
  Document array = steps.finish();
  executions().update_one(make_document("_id", "s1"),
                          make_document("$set", make_document("trace", array.get("")), "$unset",
                                        make_document("trace_next", "")));
  client::UpdateOptions upsert;
  upsert.upsert = true;
  client_->database("harel")
      .collection("counters")
      .update_one(make_document("_id", "trace:s1"),
                  make_document("$set", make_document("n", int64_t{7})), upsert);

  // A stale commit is still a conflict, and adds nothing.
  Execution stale = exe;
  stale.version = exe.version + 1;  // not the stored version
  CommitBatch stale_batch;
  stale_batch.trace = make_document("step", "lost");
  EXPECT_THROW(store().commit(stale, stale_batch), StoreConflict);

  CommitBatch batch;
  batch.trace = make_document("step", 7);
  store().commit(exe, batch);
  store().append_trace("s1", make_document("step", 8));
  auto trace = store().read_trace("s1");
  std::vector<int64_t> indexes;
  for (const Document& step : trace) indexes.push_back(step.get("index").as_int64());
  EXPECT_EQ(indexes, (std::vector<int64_t>{0, 1, 2, 3, 4, 7, 8}));
  EXPECT_EQ(trace.back().get("step").number_as_double(), 8);
  EXPECT_EQ(raw("s1").get("trace_next").number_as_double(), 9);
}

TEST_P(ExecutionStoreContract, TheSeedLayoutStillStampsStepsFromTheCounter) {
  ExecutionStoreOptions seed_layout;
  seed_layout.processed_in_document = 0;
  ExecutionStore seed(client_, seed_layout);
  NewExecution spec;
  spec.id = "e1";
  spec.definition_id = "order";
  Execution exe = seed.create(spec);
  CommitBatch batch;
  batch.trace = make_document("step", 0);
  seed.commit(exe, batch);
  seed.append_trace("e1", make_document("step", 1));
  Document doc = raw("e1");
  EXPECT_FALSE(doc.has("trace_next"));
  auto steps = doc.get("trace").as_array();
  int64_t expected = 0;
  for (const bson::Element& e : steps) {
    EXPECT_EQ(e.value.as_document().get("index").as_int64(), expected++);
  }
  EXPECT_EQ(expected, 2);
  EXPECT_TRUE(
      client_->database("harel").collection("counters").find_one(make_document("_id", "trace:e1")));
}

// --- dedupe marks past the document's bound ---------------------------------------------

class ProcessedArchive : public ExecutionStoreContract {
 protected:
  static constexpr int64_t kKeep = 4;
  ExecutionStoreOptions options() const override {
    ExecutionStoreOptions o;
    o.processed_in_document = kKeep;
    return o;
  }
  client::Collection archive() const { return client_->database("harel").collection("processed"); }
  size_t marks_in_document(const std::string& id) const {
    Document doc = raw(id);
    return doc.get("processed").is_array() ? doc.get("processed").as_array().count() : 0;
  }
  void commit_marks(Execution& exe, ExecutionStore& store, int from, int to) {
    for (int i = from; i <= to; ++i) {
      exe.processed_events += 1;
      CommitBatch batch;
      batch.processed_event_id = "evt-" + std::to_string(i);
      store.commit(exe, batch);
    }
  }
};

TEST_P(ProcessedArchive, MarksPastTheBoundMoveOutAndStayVisible) {
  Execution exe = make("e1");
  commit_marks(exe, store(), 1, 30);
  // The document holds at most twice the bound (moves run every kKeep versions) ...
  EXPECT_LE(marks_in_document("e1"), static_cast<size_t>(2 * kKeep));
  EXPECT_GE(marks_in_document("e1"), static_cast<size_t>(kKeep));
  // ... and the rest is in the archive, each mark in exactly one place.
  size_t archived = 0;
  for (const Document& bucket : archive().find(make_document("execution_id", "e1"))->to_vector()) {
    archived += bucket.get("marks").as_array().count();
  }
  EXPECT_EQ(archived + marks_in_document("e1"), 30u);
  EXPECT_EQ(store().processed_count("e1"), 30);
  for (int i = 1; i <= 30; ++i) {
    EXPECT_TRUE(store().is_processed("e1", "evt-" + std::to_string(i))) << i;
  }
  EXPECT_FALSE(store().is_processed("e1", "evt-31"));
  EXPECT_FALSE(store().is_processed("other", "evt-1"));
  // The archive lookup is an index point read: one bucket examined, not every bucket.
  Document explain = archive().explain(make_document("execution_id", "e1", "marks", "evt-1"));
  int64_t docs = -1;
  ASSERT_TRUE(explain.get("executionStats")
                  .as_document()
                  .get("totalDocsExamined")
                  .number_as_exact_int64(&docs))
      << explain.to_json();
  EXPECT_EQ(docs, 1) << explain.to_json();
  auto [oldest, oldest_seen] = store().load_for_event("e1", "evt-1");
  ASSERT_TRUE(oldest);
  EXPECT_TRUE(oldest_seen);
  EXPECT_EQ(oldest->version, 31);
  auto [newest, newest_seen] = store().load_for_event("e1", "evt-30");
  EXPECT_TRUE(newest_seen);
  auto [fresh, fresh_seen] = store().load_for_event("e1", "evt-31");
  ASSERT_TRUE(fresh);
  EXPECT_FALSE(fresh_seen);
  // Marking an archived event again (an at-least-once caller that skipped the check) does
  // not count it twice.
  CommitBatch again;
  again.processed_event_id = "evt-1";
  store().commit(exe, again);
  EXPECT_EQ(store().processed_count("e1"), 30);
  // Marks of another execution with the same event ids are its own.
  Execution other = make("e2");
  commit_marks(other, store(), 1, 9);
  EXPECT_EQ(store().processed_count("e2"), 9);
  EXPECT_EQ(store().processed_count("e1"), 30);
  EXPECT_FALSE(store().is_processed("e2", "evt-10"));
}

TEST_P(ProcessedArchive, MigratesASeedLayoutDocumentAndResumesAfterACrashMidMove) {
  // A store with the seed's layout keeps every mark in the document.
  ExecutionStoreOptions seed_layout;
  seed_layout.processed_in_document = 0;
  ExecutionStore seed(client_, seed_layout);
  NewExecution spec;
  spec.id = "m1";
  spec.definition_id = "order";
  Execution exe = seed.create(spec);
  commit_marks(exe, seed, 1, 20);
  EXPECT_EQ(marks_in_document("m1"), 20u);
  seed.archive_processed("m1");  // 0 keeps all: nothing moves
  EXPECT_EQ(marks_in_document("m1"), 20u);

  // A move that wrote its bucket and crashed before pulling the marks from the document.
  client::UpdateOptions upsert;
  upsert.upsert = true;
  archive().update_one(make_document("_id", make_document("execution_id", "m1", "first", "evt-1")),
                       Document::from_json(
                           R"({"$setOnInsert": {"execution_id": "m1"},
              "$addToSet": {"marks": {"$each": ["evt-1", "evt-2", "evt-3"]}}})"),
                       upsert);
  EXPECT_EQ(store().processed_count("m1"), 20);

  store().archive_processed("m1");
  EXPECT_EQ(marks_in_document("m1"), static_cast<size_t>(kKeep));
  EXPECT_EQ(store().processed_count("m1"), 20);
  // The rerun landed in the crashed move's bucket (named by its first mark), no copies.
  auto first = archive().find_one(
      make_document("_id", make_document("execution_id", "m1", "first", "evt-1")));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->get("marks").as_array().count(), static_cast<size_t>(kKeep));
  size_t archived = 0;
  for (const Document& bucket : archive().find(make_document("execution_id", "m1"))->to_vector()) {
    archived += bucket.get("marks").as_array().count();
  }
  EXPECT_EQ(archived, 20u - kKeep);
  for (int i = 1; i <= 20; ++i) {
    std::string event = "evt-" + std::to_string(i);
    EXPECT_TRUE(store().is_processed("m1", event)) << i;
    // The seed-layout store reads through the archive too.
    EXPECT_TRUE(seed.is_processed("m1", event)) << i;
  }
  // Moving again is a no-op; an unknown execution gets no document.
  store().archive_processed("m1");
  EXPECT_EQ(store().processed_count("m1"), 20);
  store().archive_processed("ghost");
  EXPECT_FALSE(executions().find_one(make_document("_id", "ghost")));
  EXPECT_FALSE(archive().find_one(make_document("execution_id", "ghost")));
}

TEST_P(ProcessedArchive, MovesBesideConcurrentCommitsLoseNoMark) {
  constexpr int kThreads = 4, kPerThread = 30;
  make("s");
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string event = "t" + std::to_string(t) + "-" + std::to_string(i);
        for (;;) {
          auto [exe, seen] = store().load_for_event("s", event);
          ASSERT_TRUE(exe);
          ASSERT_FALSE(seen);
          exe->processed_events += 1;
          CommitBatch batch;
          batch.processed_event_id = event;
          try {
            store().commit(*exe, batch);
            break;
          } catch (const StoreConflict&) {
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(store().processed_count("s"), kThreads * kPerThread);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      EXPECT_TRUE(store().is_processed("s", "t" + std::to_string(t) + "-" + std::to_string(i)));
    }
  }
  EXPECT_EQ(store().load("s")->processed_events, kThreads * kPerThread);
  // Each move leaves kKeep; commits that landed while it ran add at most one each.
  EXPECT_LE(marks_in_document("s"), static_cast<size_t>(2 * kKeep + kThreads));
}

TEST_P(ExecutionStoreContract, ANegativeProcessedBoundIsRejected) {
  ExecutionStoreOptions o;
  o.processed_in_document = -1;
  try {
    ExecutionStore bad(client_, o);
    FAIL() << "accepted processed_in_document = -1";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), static_cast<int32_t>(ErrorCode::kBadValue));
  }
}

// --- listing -------------------------------------------------------------------------------

TEST_P(ExecutionStoreContract, ListPagesToTheEndWithEveryFilterCombination) {
  // 40 executions: 4 definitions x statuses x roots/children.
  std::vector<Execution> all;
  const ExecutionStatus statuses[] = {ExecutionStatus::kPending, ExecutionStatus::kRunning,
                                      ExecutionStatus::kDone};
  for (int i = 0; i < 40; ++i) {
    char id[16];
    std::snprintf(id, sizeof id, "x%03d", i);
    std::optional<std::string> parent;
    if (i % 4 == 3) parent = "x000";
    Execution exe = make(id, i % 2 == 0 ? "even" : "odd", parent);
    exe.status = statuses[i % 3];
    store().save(exe);
    all.push_back(exe);
  }
  for (int definition = 0; definition < 3; ++definition) {
    for (int status_set = 0; status_set < 4; ++status_set) {
      for (bool roots : {false, true}) {
        for (int64_t limit : {1, 3, 7, 100}) {
          ListQuery q;
          if (definition == 1) q.definition_id = "even";
          if (definition == 2) q.definition_id = "odd";
          if (status_set == 1) q.statuses = {ExecutionStatus::kDone};
          if (status_set == 2) q.statuses = {ExecutionStatus::kPending, ExecutionStatus::kRunning};
          if (status_set == 3) q.statuses = {ExecutionStatus::kFailed};
          q.roots_only = roots;
          q.limit = limit;
          std::vector<std::string> expected;
          for (const Execution& e : all) {
            if (q.definition_id && e.definition_id != *q.definition_id) continue;
            if (!q.statuses.empty() &&
                std::find(q.statuses.begin(), q.statuses.end(), e.status) == q.statuses.end()) {
              continue;
            }
            if (roots && e.parent_id) continue;
            expected.push_back(e.id);
          }
          std::vector<std::string> got;
          std::optional<std::string> cursor;
          for (int page_no = 0; page_no < 100; ++page_no) {
            q.cursor = cursor;
            ExecutionPage page = store().list_executions(q);
            size_t left = expected.size() - got.size();
            // A page is full whenever that many matches are left, and a cursor is handed
            // out exactly when more follow.
            EXPECT_EQ(page.items.size(), std::min<size_t>(left, static_cast<size_t>(limit)));
            for (const auto& item : page.items) got.push_back(item.id);
            EXPECT_EQ(page.next_cursor.has_value(), got.size() < expected.size());
            cursor = page.next_cursor;
            if (!cursor) break;
          }
          EXPECT_EQ(got, expected) << "definition " << definition << " statuses " << status_set
                                   << " roots " << roots << " limit " << limit;
        }
      }
    }
  }
  ListQuery bad;
  bad.limit = 0;
  EXPECT_THROW(store().list_executions(bad), Error);
  bad.limit = 5;
  bad.cursor = "not a cursor!";
  EXPECT_THROW(store().list_executions(bad), Error);
}

TEST_P(ExecutionStoreContract, SummariesCarryTheListingFields) {
  Execution exe = make("e1", "order", "p");
  exe.status = ExecutionStatus::kDone;
  exe.outcome = "shipped";
  exe.active_path = "Shipped";
  store().save(exe);
  auto page = store().list_executions();
  ASSERT_EQ(page.items.size(), 1u);
  const auto& s = page.items[0];
  EXPECT_EQ(s.id, "e1");
  EXPECT_EQ(s.definition_id, "order");
  EXPECT_EQ(s.status, ExecutionStatus::kDone);
  EXPECT_EQ(s.outcome, "shipped");
  EXPECT_EQ(s.active_path, "Shipped");
  EXPECT_EQ(s.version, 2);
  EXPECT_EQ(s.parent_id, "p");
}

// --- bad input, close ----------------------------------------------------------------------

// Each string that goes into the document is checked, and the error names what it was.
TEST_P(ExecutionStoreContract, InvalidUtf8IsRefusedNamingTheField) {
  Execution exe = make("e1");
  auto refused = [&](Execution candidate, const CommitBatch& batch) -> std::string {
    try {
      store().commit(candidate, batch);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), 2) << e.what();
      EXPECT_EQ(candidate.version, 1);
      return e.what();
    }
    ADD_FAILURE() << "invalid UTF-8 must be refused";
    return "";
  };
  Execution bad = exe;
  bad.definition_id = "def\xFF";
  EXPECT_NE(refused(bad, {}).find("definition_id of execution 'e1' is not valid UTF-8"),
            std::string::npos);
  bad = exe;
  bad.parent_id = "p\xC3";
  EXPECT_NE(refused(bad, {}).find("parent_id of execution 'e1' is not valid UTF-8"),
            std::string::npos);
  bad = exe;
  bad.outcome = std::string("\xC3\x28");
  EXPECT_NE(refused(bad, {}).find("execution 'e1' is not valid UTF-8"), std::string::npos);
  CommitBatch batch;
  Event event = Event::make("Kind\xFF");
  batch.emits.push_back({"t", event});
  EXPECT_NE(refused(exe, batch).find("event '" + event.id + "' is not valid UTF-8"),
            std::string::npos);
  EXPECT_EQ(store().load("e1")->version, 1);
}

TEST_P(ExecutionStoreContract, BadInputIsTypedAndLeavesTheDocumentUnchanged) {
  Execution exe = make("e1");
  Document before = raw("e1");
  Execution bad_priority = exe;
  bad_priority.priority = 9;
  EXPECT_THROW(store().commit(bad_priority), Error);
  Execution bad_utf8 = exe;
  bad_utf8.outcome = std::string("\xC3\x28");
  EXPECT_THROW(store().commit(bad_utf8), Error);
  EXPECT_EQ(bad_utf8.version, 1);

  // A snapshot past 16 MiB: BSONObjectTooLarge (10334) or the server's equivalent, and
  // nothing written.
  Execution huge = exe;
  huge.context = make_document("blob", std::string(17 * 1024 * 1024, 'x'));
  try {
    store().commit(huge);
    FAIL() << "a document over 16 MiB must be rejected";
  } catch (const StoreConflict&) {
    FAIL() << "size is not a conflict";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).size(), 0u);
  }
  EXPECT_EQ(huge.version, 1);

  NewExecution empty_id;
  empty_id.id = "";
  empty_id.definition_id = "d";
  EXPECT_THROW(store().create(empty_id), Error);
  EXPECT_EQ(raw("e1"), before);

  // A `data` field that does not parse names the execution.
  executions().insert_one(make_document("_id", "broken", "version", 1, "data", "{not json"));
  try {
    store().load("broken");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 9);
    EXPECT_NE(std::string(e.what()).find("'broken'"), std::string::npos) << e.what();
  }
}

TEST_P(ExecutionStoreContract, CloseMakesLaterCallsFailLoudly) {
  make("e1");
  store().close();
  try {
    store().load("e1");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 20);
  }
  // The client it did not open is still usable.
  EXPECT_TRUE(executions().find_one(make_document("_id", "e1")));
}

// --- concurrency ---------------------------------------------------------------------------

TEST_P(ExecutionStoreContract, ConcurrentReloadAndRetryLosesNoUpdate) {
  constexpr int kThreads = 8, kPerThread = 25, kShared = 3;
  for (int i = 0; i < kShared; ++i) make("s" + std::to_string(i));
  std::atomic<int64_t> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string id = "s" + std::to_string((t + i) % kShared);
        std::string event = "t" + std::to_string(t) + "-" + std::to_string(i);
        for (;;) {
          auto [exe, seen] = store().load_for_event(id, event);
          ASSERT_TRUE(exe);
          ASSERT_FALSE(seen);
          exe->processed_events += 1;
          CommitBatch batch;
          batch.processed_event_id = event;
          batch.emits.push_back({id, Event::make("Tick")});
          try {
            store().commit(*exe, batch);
            break;
          } catch (const StoreConflict&) {
            ++conflicts;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  int64_t total = 0;
  for (int i = 0; i < kShared; ++i) {
    auto exe = store().load("s" + std::to_string(i));
    total += exe->processed_events;
    EXPECT_EQ(exe->version, 1 + exe->processed_events);
  }
  EXPECT_EQ(total, kThreads * kPerThread);
  auto outbox = store().pending_outbox();
  EXPECT_EQ(outbox.size(), static_cast<size_t>(kThreads * kPerThread));
  std::set<int64_t> seqs;
  for (const auto& e : outbox) seqs.insert(e.seq);
  EXPECT_EQ(seqs.size(), outbox.size()) << "duplicate outbox seq";
}

INSTANTIATE_TEST_SUITE_P(Backends, ExecutionStoreContract, testing::all_backends(),
                         testing::backend_test_name);
INSTANTIATE_TEST_SUITE_P(Backends, TraceRing, testing::all_backends(), testing::backend_test_name);
INSTANTIATE_TEST_SUITE_P(Backends, ProcessedArchive, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::exec

namespace mongostore::exec {
namespace {

// The sweeps cost what the pending work costs: with many idle executions and a few with
// work, each sweep's query examines only those few (keys and documents, as explain reports
// them), and still returns everything pending.
TEST_P(ExecutionStoreContract, SweepsExamineOnlyExecutionsWithWork) {
  constexpr int kIdle = 300, kBusy = 5;
  for (int i = 0; i < kIdle; ++i) {
    Execution exe = make("idle-" + std::to_string(i));
    CommitBatch far;
    far.timers = {TimerOp::schedule("Later", 1e9 + i)};  // armed, not due
    store().commit(exe, far);
  }
  for (int i = 0; i < kBusy; ++i) {
    Execution exe = make("busy-" + std::to_string(i));
    CommitBatch batch;
    batch.emits.push_back({"t", Event::make("E")});
    batch.spawns.push_back({"c" + std::to_string(i), "R", {}});
    batch.timers = {TimerOp::schedule("Now", 10 + i)};
    store().commit(exe, batch);
  }
  EXPECT_EQ(store().pending_outbox().size(), static_cast<size_t>(kBusy));
  EXPECT_EQ(store().pending_spawns().size(), static_cast<size_t>(kBusy));
  EXPECT_EQ(store().due_timers(100).size(), static_cast<size_t>(kBusy));

  auto examined = [&](const Document& filter) {
    Document explain = executions().explain(filter);
    Document stats = Document::copy_of(explain.get("executionStats").as_document());
    int64_t keys = 0, docs = 0;
    EXPECT_TRUE(stats.get("totalKeysExamined").number_as_exact_int64(&keys)) << explain.to_json();
    EXPECT_TRUE(stats.get("totalDocsExamined").number_as_exact_int64(&docs)) << explain.to_json();
    return std::pair{keys, docs};
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const Document& filter : {make_document("outbox.seq", make_document("$gte", -inf)),
                                 make_document("spawns.seq", make_document("$gte", -inf)),
                                 make_document("next_fire_at", make_document("$lte", 100.0))}) {
    auto [keys, docs] = examined(filter);
    // One key per pending entry (plus the scan's end probe), one document per execution.
    EXPECT_LE(keys, kBusy + 1) << filter.to_json();
    EXPECT_EQ(docs, kBusy) << filter.to_json();
  }

  // A cancelled timer leaves next_fire_at low (too early is safe); the next sweep raises it,
  // so later sweeps no longer read that execution.
  Execution busy = *store().load("busy-0");
  CommitBatch cancel;
  cancel.timers = {TimerOp::cancel("Now")};
  store().commit(busy, cancel);
  EXPECT_EQ(examined(make_document("next_fire_at", make_document("$lte", 100.0))).second, kBusy);
  EXPECT_EQ(store().due_timers(100).size(), static_cast<size_t>(kBusy - 1));
  EXPECT_EQ(examined(make_document("next_fire_at", make_document("$lte", 100.0))).second,
            kBusy - 1);
}

}  // namespace
}  // namespace mongostore::exec
