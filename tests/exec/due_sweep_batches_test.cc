// due_timers reads its one index scan (the null key, then [.., now]) in batches, each in its
// own snapshot. Another sweeper repairing bounds between two batches moves documents already
// read further up the scan, where the next batch meets them again: each due timer must still
// come back once. The test's engine runs that other sweeper's repair between the first and the
// second batch of the sweep's read.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/exec/execution_store.h"
#include "support/forwarding_engine.h"

namespace mongostore::exec {
namespace {

using bson::make_document;

// A cursor that runs `between` once, after its first batch and before its second.
class HookedCursor : public engine::Cursor {
 public:
  HookedCursor(std::unique_ptr<engine::Cursor> inner, std::function<void()> between)
      : inner_(std::move(inner)), between_(std::move(between)) {}
  std::vector<bson::Document> next_batch() override {
    if (batches_++ == 1 && between_) between_();
    return inner_->next_batch();
  }
  bool exhausted() const override { return inner_->exhausted(); }

 private:
  std::unique_ptr<engine::Cursor> inner_;
  std::function<void()> between_;
  int batches_ = 0;
};

// Prepared finds run while armed get a HookedCursor (the next one only).
class HookEngine : public testing::ForwardingEngine {
 public:
  using ForwardingEngine::ForwardingEngine;
  void arm(std::function<void()> between) { between_ = std::move(between); }
  std::unique_ptr<engine::Cursor> find_prepared(const engine::PreparedFind& prepared,
                                                const bson::DocumentView* filter) override {
    std::unique_ptr<engine::Cursor> c = inner_->find_prepared(prepared, filter);
    if (!between_) return c;
    return std::make_unique<HookedCursor>(std::move(c), std::exchange(between_, nullptr));
  }

 private:
  std::function<void()> between_;
};

class DueSweepBatches : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::EngineOptions options;
    options.durability = engine::Durability::kInMemory;
    engine_ = std::make_shared<HookEngine>(engine::Engine::open(options));
    client_ = client::embedded_client(engine_);
    store_.emplace(client_, ExecutionStoreOptions{});
    for (int i = 0; i < kExecutions; ++i) {
      NewExecution spec;
      spec.id = "e" + std::to_string(1000 + i);
      spec.definition_id = "order";
      Execution exe = store_->create(spec);
      CommitBatch batch;
      batch.timers = {TimerOp::schedule("T", 100)};
      store_->commit(exe, batch);
    }
  }
  client::Collection executions() const {
    return client_->database("harel").collection("executions");
  }
  // Each execution's timer once, and nothing else.
  void expect_each_once(const std::vector<DueTimer>& due) {
    std::vector<std::tuple<std::string, std::string, double>> got;
    for (const DueTimer& t : due) got.emplace_back(t.execution_id, t.path, t.fire_at);
    std::set<std::tuple<std::string, std::string, double>> distinct(got.begin(), got.end());
    EXPECT_EQ(got.size(), distinct.size()) << "a timer came back twice";
    EXPECT_EQ(distinct.size(), static_cast<size_t>(kExecutions));
  }

  static constexpr int kExecutions = 150;  // the sweep reads in batches of 101
  std::shared_ptr<HookEngine> engine_;
  std::shared_ptr<client::Client> client_;
  std::optional<ExecutionStore> store_;
};

// Every bound absent (as another writer leaves it): the first batch reads 101 documents at the
// null key; the other sweeper then bounds them all at 100, where the scan's [.., now] part
// reads all 150.
TEST_F(DueSweepBatches, UnboundedDocumentsRepairedBetweenBatchesComeOnce) {
  executions().update_many(make_document(),
                           make_document("$unset", make_document("next_fire_at", "")));
  engine_->arm([&] {
    executions().update_many(make_document(),
                             make_document("$set", make_document("next_fire_at", 100.0)));
  });
  expect_each_once(store_->due_timers(200));
  expect_each_once(store_->due_timers(200));  // and the next sweep reads them in range
}

// Every bound stale below its timer: the first batch reads 101 documents at key 1; the other
// sweeper raises them all to 100, further up the same range.
TEST_F(DueSweepBatches, StaleBoundsRaisedBetweenBatchesComeOnce) {
  executions().update_many(make_document(),
                           make_document("$set", make_document("next_fire_at", 1.0)));
  engine_->arm([&] {
    executions().update_many(make_document(),
                             make_document("$set", make_document("next_fire_at", 100.0)));
  });
  expect_each_once(store_->due_timers(200));
}

}  // namespace
}  // namespace mongostore::exec
