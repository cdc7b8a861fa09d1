// Commands run on the server's worker pool, not on its network threads: a command waiting in
// the engine (for an fsync, a long scan) never stops other connections from being read and
// answered, and the handshake and ping are answered on the network threads even when every
// worker is busy.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/server/server.h"
#include "server/wire_connection.h"
#include "support/forwarding_engine.h"

namespace mongostore::testing {
namespace {

using bson::make_document;

// count_documents waits at a gate the test opens.
class GatedEngine : public ForwardingEngine {
 public:
  using ForwardingEngine::ForwardingEngine;

  int64_t count_documents(std::string_view db, std::string_view coll, bson::DocumentView filter,
                          const engine::CountOptions& options = {}) override {
    {
      std::unique_lock lock(mutex_);
      ++waiting_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return open_; });
      --waiting_;
    }
    return inner_->count_documents(db, coll, filter, options);
  }

  // True once `n` calls wait at the gate (false after a generous bound: a liveness check,
  // not a timing one).
  bool wait_for_waiting(int n) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(30), [&] { return waiting_ >= n; });
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int waiting_ = 0;
  bool open_ = false;
};

class ServerWorkersTest : public ::testing::Test {
 protected:
  void start(size_t network_threads, size_t workers) {
    engine::EngineOptions engine_options;
    engine_options.durability = engine::Durability::kInMemory;
    engine_options.cache_size_mb = 64;
    engine_ = std::make_shared<GatedEngine>(engine::Engine::open(engine_options));
    server::ServerOptions options;
    options.port = 0;
    options.log = false;
    options.threads = network_threads;
    options.workers = workers;
    server_ = std::make_unique<server::Server>(engine_, options);
    server_->start();
  }
  void TearDown() override {
    if (engine_) engine_->open();
    if (server_) server_->stop();
  }

  // Starts `n` connections each sending a count that waits at the gate.
  std::vector<std::thread> blocked_counts(int n, std::vector<double>* oks) {
    oks->assign(n, -1);
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) {
      threads.emplace_back([this, i, oks] {
        WireConnection c(server_->port(), /*receive_timeout_seconds=*/60);
        auto reply = c.command(make_document("count", "c", "query", bson::Document(), "$db", "t"));
        (*oks)[i] = reply ? reply->body.get("ok").number_as_double() : -1;
      });
    }
    return threads;
  }

  std::shared_ptr<GatedEngine> engine_;
  std::unique_ptr<server::Server> server_;
};

TEST_F(ServerWorkersTest, CommandsWaitingInTheEngineDoNotStallOtherConnections) {
  start(/*network_threads=*/1, /*workers=*/8);
  std::vector<double> oks;
  // More commands waiting in the engine than there are network threads.
  std::vector<std::thread> counts = blocked_counts(3, &oks);
  ASSERT_TRUE(engine_->wait_for_waiting(3)) << "the commands did not all reach the engine";

  WireConnection other(server_->port());
  EXPECT_TRUE(other.ping());
  auto inserted = other.command(make_document(
      "insert", "c", "documents", bson::make_array(make_document("_id", 1)), "$db", "t"));
  ASSERT_TRUE(inserted.has_value());
  EXPECT_EQ(inserted->body.get("n").number_as_double(), 1.0) << inserted->body.to_json();

  engine_->open();
  for (std::thread& t : counts) t.join();
  for (double ok : oks) EXPECT_EQ(ok, 1.0);
}

TEST_F(ServerWorkersTest, TheHandshakeAndPingAreAnsweredWhenEveryWorkerIsBusy) {
  start(/*network_threads=*/1, /*workers=*/2);
  std::vector<double> oks;
  std::vector<std::thread> counts = blocked_counts(2, &oks);
  ASSERT_TRUE(engine_->wait_for_waiting(2));

  WireConnection fresh(server_->port());
  auto hello = fresh.command(make_document("hello", 1, "$db", "admin"));
  ASSERT_TRUE(hello.has_value()) << "a new connection's hello waited for a worker";
  EXPECT_TRUE(hello->body.get("isWritablePrimary").as_bool());
  EXPECT_TRUE(fresh.ping());

  engine_->open();
  for (std::thread& t : counts) t.join();
  for (double ok : oks) EXPECT_EQ(ok, 1.0);
}

}  // namespace
}  // namespace mongostore::testing
