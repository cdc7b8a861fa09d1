// The next_fire_at index due_timers reads (ExecutionStore::create_timer_index): on the
// embedded engine its entries store `_id`, `next_fire_at` and `timers`, so the sweep reads no
// execution document; a plain index an earlier store made is replaced; elsewhere the index is
// plain, and a covering one already on the server is kept.
#include <gtest/gtest.h>

#include <algorithm>
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

// The spec of the index on {next_fire_at: 1}, or an empty document when there is none.
Document timer_index(const std::shared_ptr<client::Client>& c) {
  for (Document& spec : executions(c).list_indexes()) {
    if (spec.get("key").as_document() == make_document("next_fire_at", 1).view()) return spec;
  }
  return Document();
}

Document stored_fields() {
  return Document::copy_of(make_array("_id", "next_fire_at", "timers").view());
}

bool covering(const Document& spec) {
  bson::Value v = spec.get("storedFields");
  return v.is_array() && Document::copy_of(v.as_array()) == stored_fields();
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

std::vector<std::string> due_ids(ExecutionStore& store, double now) {
  std::vector<std::string> out;
  for (const DueTimer& t : store.due_timers(now)) out.push_back(t.execution_id + "/" + t.path);
  return out;
}

class TimerIndex : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { client_ = backend_.connect(GetParam()); }
  bool embedded() const { return GetParam() != Backend::kRemote; }
  testing::BackendHolder backend_;
  std::shared_ptr<client::Client> client_;
};

TEST_P(TimerIndex, TheSweepReadsACoveringIndexOnTheEmbeddedEngine) {
  ExecutionStore store(client_, ExecutionStoreOptions{});
  Document spec = timer_index(client_);
  ASSERT_FALSE(spec.empty());
  EXPECT_EQ(covering(spec), embedded()) << spec.to_json();
  // The sweep answers the same either way, repairs included (TimerBound has the cases).
  NewExecution n;
  n.id = "e1";
  n.definition_id = "order";
  Execution exe = store.create(n);
  CommitBatch batch;
  batch.timers.push_back(TimerOp::schedule("Wait.Here", 100));
  store.commit(exe, batch);
  EXPECT_EQ(due_ids(store, 99), std::vector<std::string>{});
  EXPECT_EQ(due_ids(store, 100), std::vector<std::string>{"e1/Wait.Here"});
}

TEST_P(TimerIndex, APlainIndexAnEarlierStoreMadeIsReplacedAndItsDocumentsStillFire) {
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

TEST_P(TimerIndex, StoresOpeningTogetherAgreeOnTheIndex) {
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

TEST_P(TimerIndex, ACoveringIndexAlreadyThereIsKept) {
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

INSTANTIATE_TEST_SUITE_P(Backends, TimerIndex, testing::all_backends(), testing::backend_test_name);

}  // namespace
}  // namespace mongostore::exec
