// Open cursors cannot hold memory without bound: sorted finds abandoned after their first
// batch each keep their whole sorted result (any find keeps its filter), and past
// ServerOptions::cursor_memory_limit the least recently used are closed (their getMore fails
// CursorNotFound). Idle cursors are closed
// after ServerOptions::cursor_idle_timeout. In-process servers with small settings.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/server/server.h"
#include "server/wire_connection.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::make_document;

class CursorLimitsTest : public ::testing::Test {
 protected:
  void start(server::ServerOptions options) {
    engine::EngineOptions engine_options;
    engine_options.durability = engine::Durability::kInMemory;
    engine_options.cache_size_mb = 64;
    engine_ = engine::Engine::open(engine_options);
    // 200 documents of 10 KB: a sorted find of them holds about 2 MB.
    std::string filler(10 * 1024, 'x');
    for (int i = 0; i < 200; ++i) {
      engine_->insert_one("db", "c", make_document("_id", i, "k", 200 - i, "f", filler).view());
    }
    options.port = 0;
    options.log = false;
    server_ = std::make_unique<server::Server>(engine_, options);
    server_->start();
  }
  void TearDown() override {
    if (server_) server_->stop();
    server_.reset();
    engine_.reset();
  }
  // A sorted find (no index on k) returning one document now and keeping the rest.
  int64_t open_sorted_cursor(WireConnection& c) {
    auto reply = c.command(Document::from_json(
        R"({"find": "c", "filter": {}, "sort": {"k": 1}, "batchSize": 1, "$db": "db"})"));
    EXPECT_TRUE(reply && reply->body.get("ok").number_as_double() == 1.0);
    if (!reply) return 0;
    return reply->body.get("cursor").as_document().get("id").as_int64();
  }
  int32_t get_more_code(WireConnection& c, int64_t id) {
    auto reply =
        c.command(make_document("getMore", id, "collection", "c", "batchSize", 1, "$db", "db"));
    EXPECT_TRUE(reply.has_value());
    if (!reply || reply->body.get("ok").number_as_double() == 1.0) return 0;
    return reply->body.get("code").as_int32();
  }

  std::shared_ptr<engine::Engine> engine_;
  std::unique_ptr<server::Server> server_;
};

TEST_F(CursorLimitsTest, PastTheMemoryLimitTheLeastRecentlyUsedCursorsClose) {
  server::ServerOptions options;
  options.cursor_memory_limit = 5 * 1024 * 1024;  // room for two such cursors, not three
  start(options);
  WireConnection c(server_->port());
  int64_t first = open_sorted_cursor(c);
  int64_t second = open_sorted_cursor(c);
  EXPECT_EQ(get_more_code(c, first), 0);  // `first` is now the more recently used
  int64_t third = open_sorted_cursor(c);
  EXPECT_EQ(get_more_code(c, second), 43);  // closed to make room
  EXPECT_EQ(get_more_code(c, first), 0);
  EXPECT_EQ(get_more_code(c, third), 0);
  // Many abandoned cursors never hold more than the limit: all but the newest two are gone.
  std::vector<int64_t> ids;
  for (int i = 0; i < 20; ++i) ids.push_back(open_sorted_cursor(c));
  for (int i = 0; i < 18; ++i) EXPECT_EQ(get_more_code(c, ids[i]), 43) << i;
  EXPECT_EQ(get_more_code(c, ids[18]), 0);
  EXPECT_EQ(get_more_code(c, ids[19]), 0);
}

TEST_F(CursorLimitsTest, ACursorsQueryCountsTowardTheLimit) {
  server::ServerOptions options;
  options.cursor_memory_limit = 5 * 1024 * 1024;
  start(options);
  WireConnection c(server_->port());
  // Unsorted finds hold no results, but each keeps its 2 MB filter.
  Document filter = make_document("f", make_document("$ne", std::string(2 << 20, 'y')));
  auto open = [&] {
    auto reply =
        c.command(make_document("find", "c", "filter", filter, "batchSize", 1, "$db", "db"));
    EXPECT_TRUE(reply && reply->body.get("ok").number_as_double() == 1.0);
    return reply ? reply->body.get("cursor").as_document().get("id").as_int64() : 0;
  };
  int64_t first = open();
  int64_t second = open();
  int64_t third = open();
  EXPECT_EQ(get_more_code(c, first), 43);
  EXPECT_EQ(get_more_code(c, second), 0);
  EXPECT_EQ(get_more_code(c, third), 0);
}

TEST_F(CursorLimitsTest, IdleCursorsTimeOut) {
  server::ServerOptions options;
  options.cursor_idle_timeout = std::chrono::milliseconds(200);
  start(options);
  WireConnection c(server_->port());
  int64_t idle = open_sorted_cursor(c);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  open_sorted_cursor(c);  // opening a cursor closes the idle ones
  EXPECT_EQ(get_more_code(c, idle), 43);
}

}  // namespace
}  // namespace mongostore::testing
