// The remote client's command observer (src/client/command_monitoring.h), which the spec
// runner's expectEvents reads, against a real `mongostore serve`.
#include <gtest/gtest.h>

#include <mutex>
#include <vector>

#include "client/remote_client.h"
#include "mongostore/bson/builder.h"
#include "mongostore/client/client_session.h"
#include "support/server_process.h"

namespace mongostore::client {
namespace {

struct Recorded {
  std::mutex mutex;
  std::vector<CommandEvent> events;
  std::vector<CommandEvent> of(std::string_view name) {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<CommandEvent> out;
    for (const auto& e : events) {
      if (e.command_name == name) out.push_back(e);
    }
    return out;
  }
};

CommandObserver recorder(const std::shared_ptr<Recorded>& into) {
  return [into](const CommandEvent& e) {
    std::lock_guard<std::mutex> lock(into->mutex);
    into->events.push_back(e);
  };
}

TEST(CommandMonitoring, ReportsStartedAndSucceededCommandsWithTheirSessionFields) {
  testing::ServerProcess server;
  auto recorded = std::make_shared<Recorded>();
  auto client = connect_remote(server.uri(), recorder(recorded));
  auto session = client->start_session(SessionOptions{});
  session->start_transaction();
  session->client().insert_one("db", "c", bson::make_document("_id", 1));
  session->commit_transaction();

  auto inserts = recorded->of("insert");
  ASSERT_EQ(inserts.size(), 2u);  // started, succeeded
  EXPECT_EQ(inserts[0].kind, CommandEvent::Kind::kStarted);
  EXPECT_EQ(inserts[0].database_name, "db");
  EXPECT_TRUE(inserts[0].document.get("lsid").is_document());
  EXPECT_TRUE(inserts[0].document.get("startTransaction").truthy());
  EXPECT_EQ(inserts[1].kind, CommandEvent::Kind::kSucceeded);
  EXPECT_EQ(inserts[1].document.get("n").number_as_double(), 1);
  auto commits = recorded->of("commitTransaction");
  ASSERT_EQ(commits.size(), 2u);
  EXPECT_EQ(commits[0].database_name, "admin");
}

TEST(CommandMonitoring, ReportsAFailedCommandWithItsCode) {
  testing::ServerProcess server;
  auto recorded = std::make_shared<Recorded>();
  auto client = connect_remote(server.uri(), recorder(recorded));
  client->insert_one("db", "c", bson::make_document("_id", 1));
  EXPECT_THROW(client->insert_one("db", "c", bson::make_document("_id", 1)), Error);
  auto inserts = recorded->of("insert");
  ASSERT_EQ(inserts.size(), 4u);
  // A write error is a succeeded command (ok: 1) with writeErrors, as drivers report it.
  EXPECT_EQ(inserts[3].kind, CommandEvent::Kind::kSucceeded);
  EXPECT_TRUE(inserts[3].document.get("writeErrors").is_array());
  EXPECT_THROW(client->drop_index("db", "c", "no_such_index"), Error);
  auto drops = recorded->of("dropIndexes");
  ASSERT_EQ(drops.size(), 2u);
  EXPECT_EQ(drops[1].kind, CommandEvent::Kind::kFailed);
  EXPECT_EQ(drops[1].error_code, 27);  // IndexNotFound
}

// ping and hello take no readConcern: a URI's readConcernLevel must not reach them (a server
// refuses it there, so connect() failed with InvalidOptions before).
TEST(CommandMonitoring, PingAndHelloCarryNoReadConcernFromTheUri) {
  testing::ServerProcess server;
  auto recorded = std::make_shared<Recorded>();
  auto client = connect_remote(server.uri("readConcernLevel=local&w=1"), recorder(recorded));
  client->hello();
  auto pings = recorded->of("ping");
  ASSERT_FALSE(pings.empty());
  EXPECT_FALSE(pings[0].document.has("readConcern")) << pings[0].document.to_json();
  auto hellos = recorded->of("hello");
  ASSERT_FALSE(hellos.empty());
  EXPECT_FALSE(hellos[0].document.has("readConcern"));
  EXPECT_FALSE(hellos[0].document.has("writeConcern"));
}

}  // namespace
}  // namespace mongostore::client
