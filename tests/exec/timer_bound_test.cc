// Timers are never lost: the `next_fire_at` bound that lets due_timers read only executions
// with work must hold whatever sequence of calls, and whatever wrote the document.
//
// Contract cases (memory, durable, remote through `mongostore serve`): the last timer deleted
// or cancelled and then re-armed, a re-arm inside the commit that handles the timer's event,
// documents in the seed's layout (no bound, no promoted status) and a bound left null by an
// older version of this store. Then a seeded property test that drives random schedules,
// cancels, sweeps and deletes against a plain model of which timers exist.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution_store.h"
#include "support/backend.h"

namespace mongostore::exec {
namespace {

using bson::Document;
using bson::make_document;
using testing::Backend;

class TimerBound : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    client_ = backend_.connect(GetParam());
    store_.emplace(client_, ExecutionStoreOptions{});
  }
  ExecutionStore& store() { return *store_; }
  client::Collection executions() const {
    return client_->database("harel").collection("executions");
  }
  Execution make(const std::string& id) {
    NewExecution spec;
    spec.id = id;
    spec.definition_id = "order";
    return store().create(spec);
  }
  void commit_timers(Execution& exe, std::vector<TimerOp> ops) {
    CommitBatch batch;
    batch.timers = std::move(ops);
    store().commit(exe, batch);
  }
  // An execution as seed 000's own store writes it: no next_fire_at, no promoted status or
  // parent_id (both live inside `data` only).
  void insert_seed_layout(const std::string& id, Document timers,
                          ExecutionStatus status = ExecutionStatus::kRunning,
                          std::optional<std::string> parent = std::nullopt) {
    Execution exe;
    exe.id = id;
    exe.definition_id = "order";
    exe.status = status;
    exe.parent_id = parent;
    exe.version = 3;
    executions().insert_one(make_document("_id", id, "definition_id", "order", "version", 3, "data",
                                          exe.to_json(), "outbox", bson::make_array(), "spawns",
                                          bson::make_array(), "processed", bson::make_array(),
                                          "timers", timers, "trace", bson::make_array()));
  }
  std::vector<std::string> due_paths(double now) {
    std::vector<std::string> out;
    for (const DueTimer& t : store().due_timers(now)) out.push_back(t.execution_id + "/" + t.path);
    return out;
  }

  testing::BackendHolder backend_;
  std::shared_ptr<client::Client> client_;
  std::optional<ExecutionStore> store_;
};

using Paths = std::vector<std::string>;

TEST_P(TimerBound, DeletingTheLastTimerThenReArmingSamePathFires) {
  Execution exe = make("e");
  commit_timers(exe, {TimerOp::schedule("T", 10)});
  ASSERT_EQ(due_paths(20), Paths{"e/T"});
  store().delete_timer("e", "T", 10);
  EXPECT_TRUE(due_paths(1e9).empty());
  // The bound is a number with no timer left (a null one would swallow the next $min).
  Document raw = *executions().find_one(make_document("_id", "e"));
  EXPECT_TRUE(raw.get("next_fire_at").is_number()) << raw.to_json();

  commit_timers(exe, {TimerOp::schedule("T", 30)});
  EXPECT_TRUE(due_paths(25).empty());
  EXPECT_EQ(due_paths(30), Paths{"e/T"});
}

TEST_P(TimerBound, DeletingTheLastTimerThenReArmingAnotherPathFires) {
  Execution exe = make("e");
  commit_timers(exe, {TimerOp::schedule("T", 10)});
  store().delete_timer("e", "T", 10);
  commit_timers(exe, {TimerOp::schedule("U.V", 40)});
  EXPECT_EQ(due_paths(40), Paths{"e/U.V"});
}

TEST_P(TimerBound, CancellingTheLastTimerThenReArmingFires) {
  Execution exe = make("e");
  commit_timers(exe, {TimerOp::schedule("T", 10)});
  commit_timers(exe, {TimerOp::cancel("T")});
  EXPECT_TRUE(due_paths(100).empty());  // the sweep raises the stale bound
  commit_timers(exe, {TimerOp::schedule("T", 50)});
  EXPECT_EQ(due_paths(50), Paths{"e/T"});
  commit_timers(exe, {TimerOp::cancel("T")});
  commit_timers(exe, {TimerOp::schedule("W", 60)});  // before any sweep this time
  EXPECT_EQ(due_paths(60), Paths{"e/W"});
}

TEST_P(TimerBound, ReArmingInTheCommitThatHandlesTheTimerEventFires) {
  Execution exe = make("e");
  commit_timers(exe, {TimerOp::schedule("Poll", 10)});
  for (double t : {10.0, 20.0, 30.0}) {
    auto due = store().due_timers(t);
    ASSERT_EQ(due.size(), 1u) << t;
    ASSERT_DOUBLE_EQ(due[0].fire_at, t);
    // The handler's commit processes the fired event and re-arms the same path...
    auto [loaded, seen] = store().load_for_event("e", "fire-" + std::to_string(t));
    ASSERT_TRUE(loaded);
    ASSERT_FALSE(seen);
    CommitBatch batch;
    batch.processed_event_id = "fire-" + std::to_string(t);
    batch.timers = {TimerOp::schedule("Poll", t + 10)};
    store().commit(*loaded, batch);
    // ...and the sweep then deletes the fired one, which must not touch the re-armed timer.
    store().delete_timer("e", "Poll", t);
  }
  EXPECT_EQ(due_paths(40), Paths{"e/Poll"});
}

TEST_P(TimerBound, ASeedLayoutDocumentWithTimersAndNoBoundIsSwept) {
  insert_seed_layout("seed-1", make_document("A", 5.0, "B", 500.0));
  EXPECT_EQ(due_paths(10), Paths{"seed-1/A"});
  // The sweep gave it a bound (its earliest timer), so it is found through the range now.
  Document raw = *executions().find_one(make_document("_id", "seed-1"));
  EXPECT_DOUBLE_EQ(raw.get("next_fire_at").number_as_double(), 5.0);
  EXPECT_EQ(due_paths(10), Paths{"seed-1/A"});
  store().delete_timer("seed-1", "A", 5);
  EXPECT_EQ(due_paths(600), Paths{"seed-1/B"});

  // timers(id) reads the execution's own document.
  insert_seed_layout("seed-2", make_document("X", 7.0));
  auto timers = store().timers("seed-2");
  ASSERT_EQ(timers.size(), 1u);
  EXPECT_EQ(timers[0].path, "X");
  EXPECT_DOUBLE_EQ(timers[0].fire_at, 7.0);
  EXPECT_TRUE(store().timers("nope").empty());
}

TEST_P(TimerBound, OpeningAStoreBoundsSeedLayoutDocumentsBeforeACommitCan) {
  insert_seed_layout("seed-1", make_document("Early", 5.0));
  store_.emplace(client_, ExecutionStoreOptions{});  // reopen: the constructor repairs
  Execution exe = *store().load("seed-1");
  commit_timers(exe, {TimerOp::schedule("Late", 100)});  // $min must not set 100 over 5
  EXPECT_EQ(due_paths(10), Paths{"seed-1/Early"});
}

TEST_P(TimerBound, ANullBoundLeftByAnOlderStoreIsRepaired) {
  Execution exe = make("e");
  commit_timers(exe, {TimerOp::schedule("T", 10)});
  executions().update_one(make_document("_id", "e"),
                          make_document("$set", make_document("next_fire_at", bson::Null{})));
  commit_timers(exe, {TimerOp::schedule("U", 20)});  // $min keeps null: null < every number
  EXPECT_EQ(due_paths(15), Paths{"e/T"});
  EXPECT_EQ(due_paths(25), (Paths{"e/T", "e/U"}));
  Document raw = *executions().find_one(make_document("_id", "e"));
  EXPECT_DOUBLE_EQ(raw.get("next_fire_at").number_as_double(), 10.0);
}

// Bounds left stale below their timers, more documents than a batch of the sweep's read:
// each due timer is returned once, though repairing a bound moves its document further up
// the range being read (the repairs land after the read), and every bound is repaired.
TEST_P(TimerBound, StaleBoundsOverSeveralBatchesAreSweptOnceAndRepaired) {
  constexpr int kExecutions = 130;  // the sweep reads in batches of 101
  Paths expected;
  for (int i = 0; i < kExecutions; ++i) {
    const std::string id = "e" + std::to_string(1000 + i);
    Execution exe = make(id);
    commit_timers(exe, {TimerOp::schedule("T", 100)});
    expected.push_back(id + "/T");
  }
  executions().update_many(make_document(),
                           make_document("$set", make_document("next_fire_at", 1.0)));
  EXPECT_EQ(due_paths(200), expected);
  EXPECT_EQ(executions().count_documents(make_document("next_fire_at", 100.0)), kExecutions);
  EXPECT_TRUE(due_paths(50).empty());
}

// A timer another writer stored as something else than a number fails the sweep loudly,
// naming the execution and the timer's (decoded) path.
TEST_P(TimerBound, ATimerThatIsNotANumberIsRefusedNamingIt) {
  insert_seed_layout("odd", make_document(encode_timer_path("Fork.A"), "soon"));
  try {
    store().due_timers(100);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), static_cast<int32_t>(ErrorCode::kFailedToParse));
    EXPECT_NE(std::string(e.what()).find("execution 'odd': timer 'Fork.A' is not a number"),
              std::string::npos)
        << e.what();
  }
}

TEST_P(TimerBound, ListingJudgesSeedLayoutDocumentsOnTheirData) {
  insert_seed_layout("a-root-running", Document());
  insert_seed_layout("b-root-done", Document(), ExecutionStatus::kDone);
  insert_seed_layout("c-child-running", Document(), ExecutionStatus::kRunning, "a-root-running");
  Execution ours = make("d-ours");  // PENDING, promoted fields present
  auto ids = [](const ExecutionPage& page) {
    std::vector<std::string> out;
    for (const auto& s : page.items) out.push_back(s.id);
    return out;
  };
  ListQuery running;
  running.statuses = {ExecutionStatus::kRunning};
  EXPECT_EQ(ids(store().list_executions(running)), (Paths{"a-root-running", "c-child-running"}));
  ListQuery roots;
  roots.roots_only = true;
  EXPECT_EQ(ids(store().list_executions(roots)),
            (Paths{"a-root-running", "b-root-done", "d-ours"}));
  // Paging skips non-matching seed documents without short pages or a cursor past the end.
  ListQuery paged = roots;
  paged.limit = 1;
  Paths seen;
  for (int guard = 0; guard < 10; ++guard) {
    ExecutionPage page = store().list_executions(paged);
    for (const auto& id : ids(page)) seen.push_back(id);
    ASSERT_EQ(page.items.size(), 1u);
    if (!page.next_cursor) break;
    paged.cursor = page.next_cursor;
  }
  EXPECT_EQ(seen, (Paths{"a-root-running", "b-root-done", "d-ours"}));
}

// Random schedules, cancels, sweeps and deletes (fresh and stale) on a few executions,
// checked step by step against a model: which timers exist and when they fire.
TEST_P(TimerBound, RandomSequencesMatchAModelOfWhichTimersExist) {
  const int steps = GetParam() == Backend::kRemote ? 1500 : 3000;
  std::mt19937 rng(20261204);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const std::vector<std::string> ids = {"x0", "x1", "x2"};
  const std::vector<std::string> paths = {"P", "Q.R", "S"};
  std::map<std::string, Execution> exes;
  for (const auto& id : ids) exes.emplace(id, make(id));
  // The model: (execution, path) -> fire_at.
  std::map<std::pair<std::string, std::string>, double> model;
  std::vector<DueTimer> last_sweep;

  for (int step = 0; step < steps; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    int action = pick(10);
    if (action < 4) {  // a commit of 1-3 ops
      const std::string& id = ids[pick(3)];
      std::vector<TimerOp> ops;
      for (int n = 1 + pick(3); n > 0; --n) {
        const std::string& path = paths[pick(3)];
        if (pick(3) == 0) {
          ops.push_back(TimerOp::cancel(path));
          model.erase({id, path});
        } else {
          double at = 1 + pick(100);
          ops.push_back(TimerOp::schedule(path, at));
          model[{id, path}] = at;
        }
      }
      commit_timers(exes.at(id), ops);
    } else if (action < 7) {  // a sweep, checked against the model
      double now = pick(110);
      std::vector<DueTimer> due = store().due_timers(now);
      std::set<std::tuple<std::string, std::string, double>> got, want;
      for (const auto& t : due) got.insert({t.execution_id, t.path, t.fire_at});
      for (const auto& [key, at] : model) {
        if (at <= now) want.insert({key.first, key.second, at});
      }
      ASSERT_EQ(got, want) << "now " << now;
      last_sweep = due;
    } else if (action < 9 && !last_sweep.empty()) {  // delete a swept timer (maybe stale)
      const DueTimer& t = last_sweep[pick(static_cast<int>(last_sweep.size()))];
      store().delete_timer(t.execution_id, t.path, t.fire_at);
      auto it = model.find({t.execution_id, t.path});
      if (it != model.end() && it->second == t.fire_at) model.erase(it);
    } else {  // per-execution read
      const std::string& id = ids[pick(3)];
      std::set<std::pair<std::string, double>> got, want;
      for (const auto& t : store().timers(id)) got.insert({t.path, t.fire_at});
      for (const auto& [key, at] : model) {
        if (key.first == id) want.insert({key.second, at});
      }
      ASSERT_EQ(got, want) << id;
    }
  }
  // Everything still in the model fires eventually.
  EXPECT_EQ(store().due_timers(std::numeric_limits<double>::max()).size(), model.size());
}

INSTANTIATE_TEST_SUITE_P(Backends, TimerBound, testing::all_backends(), testing::backend_test_name);

}  // namespace
}  // namespace mongostore::exec
