// The indexes the sweeps read (ExecutionStore::create_sweep_index): on the embedded engine
// the entries of next_fire_at store `_id`, `next_fire_at` and `timers`, and those of outbox.seq
// `_id` and `outbox`, so due_timers and pending_outbox read no execution document; a plain
// index an earlier store made is replaced; elsewhere the indexes are plain, and a covering one
// already on the server is kept. With covering_indexes off both are plain, and the sweeps read
// the documents.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
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

client::Collection executions(const std::shared_ptr<client::Client>& c) {
  return c->database("harel").collection("executions");
}

// The spec of the index on `keys`, or an empty document when there is none.
Document index_on(const std::shared_ptr<client::Client>& c, const Document& keys) {
  for (Document& spec : executions(c).list_indexes()) {
    if (spec.get("key").as_document() == keys.view()) return spec;
  }
  return Document();
}

Document timer_index(const std::shared_ptr<client::Client>& c) {
  return index_on(c, make_document("next_fire_at", 1));
}

Document stored_fields() {
  return Document::copy_of(make_array("_id", "next_fire_at", "timers").view());
}

bool covering(const Document& spec, const Document& fields = stored_fields()) {
  bson::Value v = spec.get("storedFields");
  return v.is_array() && Document::copy_of(v.as_array()) == fields;
}

Document outbox_index(const std::shared_ptr<client::Client>& c) {
  return index_on(c, make_document("outbox.seq", 1));
}

Document outbox_fields() {
  return Document::copy_of(make_array("_id", "outbox").view());
}

// An execution in the seed's layout (no next_fire_at) with one timer.
void insert_seed_layout(const std::shared_ptr<client::Client>& c, const std::string& id,
                        double fire_at) {
  Execution exe;
  exe.id = id;
  exe.definition_id = "order";
  exe.version = 1;
  executions(c).insert_one(make_document("_id", id, "definition_id", "order", "version", 1, "data",
                                         exe.to_json(), "outbox", make_array(), "spawns",
                                         make_array(), "processed", make_array(), "timers",
                                         make_document("wait", fire_at), "trace", make_array()));
}

// A new execution `id` of the "order" definition, saved.
Execution create_order(ExecutionStore& store, const std::string& id) {
  NewExecution n;
  n.id = id;
  n.definition_id = "order";
  return store.create(n);
}

std::vector<std::string> due_ids(ExecutionStore& store, double now) {
  std::vector<std::string> out;
  for (const DueTimer& t : store.due_timers(now)) out.push_back(t.execution_id + "/" + t.path);
  return out;
}

class CoveringIndex : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { client_ = backend_.connect(GetParam()); }
  bool embedded() const { return GetParam() != Backend::kRemote; }
  testing::BackendHolder backend_;
  std::shared_ptr<client::Client> client_;
};

TEST_P(CoveringIndex, TheSweepReadsACoveringIndexOnTheEmbeddedEngine) {
  ExecutionStore store(client_, ExecutionStoreOptions{});
  Document spec = timer_index(client_);
  ASSERT_FALSE(spec.empty());
  EXPECT_EQ(covering(spec), embedded()) << spec.to_json();
  // The sweep answers the same either way, repairs included (TimerBound has the cases).
  Execution exe = create_order(store, "e1");
  CommitBatch batch;
  batch.timers.push_back(TimerOp::schedule("Wait.Here", 100));
  store.commit(exe, batch);
  EXPECT_EQ(due_ids(store, 99), std::vector<std::string>{});
  EXPECT_EQ(due_ids(store, 100), std::vector<std::string>{"e1/Wait.Here"});
}

TEST_P(CoveringIndex, APlainIndexAnEarlierStoreMadeIsReplacedAndItsDocumentsStillFire) {
  executions(client_).create_index(make_document("next_fire_at", 1));
  insert_seed_layout(client_, "old", 50);
  ExecutionStore store(client_, ExecutionStoreOptions{});
  EXPECT_EQ(covering(timer_index(client_)), embedded());
  EXPECT_EQ(due_ids(store, 60), std::vector<std::string>{"old/wait"});
  // A second store of the same process finds the index as the first left it.
  ExecutionStore again(client_, ExecutionStoreOptions{});
  EXPECT_EQ(covering(timer_index(client_)), embedded());
  EXPECT_EQ(due_ids(again, 60), std::vector<std::string>{"old/wait"});
}

TEST_P(CoveringIndex, StoresOpeningTogetherAgreeOnTheIndex) {
  executions(client_).create_index(make_document("next_fire_at", 1));
  insert_seed_layout(client_, "old", 50);
  // Each replaces the plain index, or finds it replaced, or races another's drop and create.
  std::vector<std::thread> threads;
  std::vector<std::string> errors(4);
  for (size_t i = 0; i < errors.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        ExecutionStore store(client_, ExecutionStoreOptions{});
        if (due_ids(store, 60) != std::vector<std::string>{"old/wait"}) errors[i] = "wrong due";
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  EXPECT_EQ(covering(timer_index(client_)), embedded());
}

TEST_P(CoveringIndex, ACoveringIndexAlreadyThereIsKept) {
  // Made through the server when remote: `mongostore serve` is the embedded engine, so a data
  // directory an embedded store used may be served later, to stores that make a plain index.
  executions(client_).create_index(
      make_document("next_fire_at", 1),
      make_document("storedFields", make_array("_id", "next_fire_at", "timers")));
  insert_seed_layout(client_, "old", 50);
  ExecutionStore store(client_, ExecutionStoreOptions{});
  EXPECT_TRUE(covering(timer_index(client_)));
  EXPECT_EQ(due_ids(store, 60), std::vector<std::string>{"old/wait"});
}

// A document an earlier store (or the seed's) left with a pending entry.
void insert_old_outbox(const std::shared_ptr<client::Client>& c) {
  executions(c).insert_one(
      make_document("_id", "old", "definition_id", "order", "version", 1, "outbox",
                    make_array(make_document("seq", 0, "target_id", bson::Null{}, "event",
                                             R"({"id": "ev-old", "kind": "Ping", "data": {}})"))));
}

// Emits from two executions, interleaved, and acknowledgements; pending_outbox answers in seq
// order across executions, acknowledged entries gone, as the documents hold them.
void check_outbox_sweep(const std::shared_ptr<client::Client>& client, ExecutionStore& store) {
  std::vector<Execution> exes;
  for (const char* id : {"e1", "e2"}) exes.push_back(create_order(store, id));
  // Interleaved emits: e1, e2, e1 (two in one commit), e2.
  auto emit = [&](Execution& exe, std::vector<std::string> kinds) {
    CommitBatch batch;
    for (const std::string& kind : kinds) {
      Event ev;
      ev.id = exe.id + "-" + kind;
      ev.kind = kind;
      batch.emits.push_back({"target", ev});
    }
    store.commit(exe, batch);
  };
  emit(exes[0], {"A"});
  emit(exes[1], {"B"});
  emit(exes[0], {"C", "D"});
  emit(exes[1], {"E"});
  auto pending = [&] {
    std::vector<std::string> out;
    int64_t last = -1;
    for (const OutboxEntry& e : store.pending_outbox()) {
      EXPECT_GT(e.seq, last);
      last = e.seq;
      out.push_back(e.source_id + ":" + e.event.id);
    }
    return out;
  };
  using Ids = std::vector<std::string>;
  EXPECT_EQ(pending(), (Ids{"old:ev-old", "e1:e1-A", "e2:e2-B", "e1:e1-C", "e1:e1-D", "e2:e2-E"}));
  // Acknowledging an execution's first entry (in a covering index, the one that stores its
  // outbox) hands the stored outbox on to the next one.
  std::vector<OutboxEntry> all = store.pending_outbox();
  store.ack_outbox(all[1].seq);  // e1-A
  store.ack_outbox(all[0].seq);  // the old document's only one
  EXPECT_EQ(pending(), (Ids{"e2:e2-B", "e1:e1-C", "e1:e1-D", "e2:e2-E"}));
  store.ack_outbox(all[4].seq);  // e1-D, not e1's first
  emit(exes[0], {"F"});
  EXPECT_EQ(pending(), (Ids{"e2:e2-B", "e1:e1-C", "e2:e2-E", "e1:e1-F"}));
  // What the sweep read is what the documents hold: the same find through no index.
  client::FindOptions by_scan;
  by_scan.hint.keys = make_document("$natural", 1);
  size_t entries = 0;
  for (const Document& d : executions(client)
                               .find(make_document("outbox.seq", make_document("$gte", 0)), by_scan)
                               ->to_vector()) {
    entries += d.get("outbox").as_array().count();
  }
  EXPECT_EQ(entries, pending().size());
}

// pending_outbox reads the outbox.seq index: each execution's pending entries from its first
// index entry (index_entry_value.h), in seq order across executions, acknowledged entries gone.
TEST_P(CoveringIndex, TheOutboxSweepReadsACoveringIndexOnTheEmbeddedEngine) {
  executions(client_).create_index(make_document("outbox.seq", 1));
  insert_old_outbox(client_);
  ExecutionStore store(client_, ExecutionStoreOptions{});
  Document spec = outbox_index(client_);
  ASSERT_FALSE(spec.empty());
  EXPECT_EQ(covering(spec, outbox_fields()), embedded()) << spec.to_json();
  check_outbox_sweep(client_, store);
}

// covering_indexes = false: both sweep indexes plain on every backend, and the sweeps read the
// documents to the same answers.
TEST_P(CoveringIndex, WithCoveringIndexesOffTheSweepIndexesArePlainAndAnswerTheSame) {
  insert_old_outbox(client_);
  insert_seed_layout(client_, "seed", 50);
  ExecutionStoreOptions options;
  options.covering_indexes = false;
  ExecutionStore store(client_, options);
  for (const Document& spec : {timer_index(client_), outbox_index(client_)}) {
    ASSERT_FALSE(spec.empty());
    EXPECT_TRUE(spec.get("storedFields").is_missing()) << spec.to_json();
  }
  EXPECT_EQ(due_ids(store, 60), std::vector<std::string>{"seed/wait"});
  Execution exe = create_order(store, "t1");
  CommitBatch batch;
  batch.timers.push_back(TimerOp::schedule("Wait.Here", 100));
  batch.timers.push_back(TimerOp::schedule("Later", 200));
  store.commit(exe, batch);
  EXPECT_EQ(due_ids(store, 99), std::vector<std::string>{"seed/wait"});
  EXPECT_EQ(due_ids(store, 150), (std::vector<std::string>{"seed/wait", "t1/Wait.Here"}));
  check_outbox_sweep(client_, store);
}

// On the embedded engine a store replaces a sweep index of the other kind, so the store opened
// last decides; remote, an index already on the server is kept whichever kind it is.
TEST_P(CoveringIndex, TheStoreOpenedLastDecidesTheKindOfIndex) {
  insert_seed_layout(client_, "seed", 50);
  ExecutionStoreOptions off;
  off.covering_indexes = false;
  if (!embedded()) {
    // Made through the server, as an embedded store would have made it.
    executions(client_).create_index(
        make_document("next_fire_at", 1),
        make_document("storedFields", make_array("_id", "next_fire_at", "timers")));
  }
  {
    ExecutionStore covered(client_, ExecutionStoreOptions{});
    EXPECT_TRUE(covering(timer_index(client_)));
  }
  ExecutionStore plain(client_, off);
  EXPECT_EQ(covering(timer_index(client_)), !embedded());
  EXPECT_EQ(covering(outbox_index(client_), outbox_fields()), false);
  EXPECT_EQ(due_ids(plain, 60), std::vector<std::string>{"seed/wait"});
  ExecutionStore again(client_, ExecutionStoreOptions{});
  EXPECT_TRUE(covering(timer_index(client_)));
  EXPECT_EQ(covering(outbox_index(client_), outbox_fields()), embedded());
  EXPECT_EQ(due_ids(again, 60), std::vector<std::string>{"seed/wait"});
  // The store that made the plain index still sweeps right over the one that replaced it.
  EXPECT_EQ(due_ids(plain, 60), std::vector<std::string>{"seed/wait"});
  EXPECT_TRUE(plain.pending_outbox().empty());
}

// Stores of both settings opening while another store sweeps: each opening replaces the
// indexes under the sweeps, which keep their answers.
TEST_P(CoveringIndex, SweepsKeepTheirAnswersWhileStoresFlipTheIndexes) {
  insert_seed_layout(client_, "seed", 50);
  insert_old_outbox(client_);
  ExecutionStore sweeper(client_, ExecutionStoreOptions{});
  std::atomic<bool> done{false};
  std::string error;
  std::thread flipper([&] {
    try {
      for (int i = 0; i < 20; ++i) {
        ExecutionStoreOptions options;
        options.covering_indexes = i % 2 == 0;
        ExecutionStore store(client_, options);
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    done = true;
  });
  Execution emitter = create_order(sweeper, "emitter");
  int sweeps = 0;
  std::string wrong;
  while (wrong.empty() && (!done || sweeps < 20)) {
    try {
      if (due_ids(sweeper, 60) != std::vector<std::string>{"seed/wait"}) wrong = "due_timers";
      // An emit, seen by the sweep, then acknowledged (its update planned on the same index).
      CommitBatch batch;
      Event ev;
      ev.id = "ev-" + std::to_string(sweeps);
      ev.kind = "Ping";
      batch.emits.push_back({"target", ev});
      sweeper.commit(emitter, batch);
      std::vector<OutboxEntry> pending = sweeper.pending_outbox();
      if (pending.size() != 2 || pending[0].source_id != "old" || pending[1].event.id != ev.id) {
        wrong = "pending_outbox";
      } else {
        sweeper.ack_outbox(pending[1].seq);
        if (sweeper.pending_outbox().size() != 1) wrong = "ack_outbox";
      }
    } catch (const std::exception& e) {
      wrong = std::string("sweep ") + std::to_string(sweeps) + ": " + e.what();
    }
    ++sweeps;
  }
  flipper.join();
  EXPECT_EQ(wrong, "");
  EXPECT_EQ(error, "");
}

TEST_P(CoveringIndex, ACoveringOutboxIndexAlreadyThereIsKept) {
  executions(client_).create_index(make_document("outbox.seq", 1),
                                   make_document("storedFields", make_array("_id", "outbox")));
  ExecutionStore store(client_, ExecutionStoreOptions{});
  EXPECT_TRUE(covering(outbox_index(client_), outbox_fields()));
  EXPECT_TRUE(store.pending_outbox().empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, CoveringIndex, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::exec
