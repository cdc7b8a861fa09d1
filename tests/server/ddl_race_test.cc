// Issue 18 through the wire: `insert` on one connection racing `drop` and `dropDatabase` of
// the same collection on another killed `mongostore serve` with SIGSEGV within a fraction of
// a second. Here two connections (libmongoc, as a driver) race for a bounded number of
// commands and a time cap, a third pages a find through getMore meanwhile; the server must
// answer every command (ok, or a clean MongoDB error), stay alive, and answer ping after.
#include <gtest/gtest.h>
#include <mongoc/mongoc.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "server/mongoc_test_client.h"
#include "support/server_process.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

constexpr int kMaxCommands = 3000;
constexpr auto kTimeCap = std::chrono::seconds(2);
// What mongod answers a command that lost a race with a drop: NamespaceNotFound (26) and
// QueryPlanKilled (175) for a cursor whose collection went away, CursorNotFound (43) for a
// cursor it killed.
const std::set<int64_t> kRaceCodes = {26, 43, 175};

bool process_alive(pid_t pid) {
  int status = 0;
  return kill(pid, 0) == 0 && waitpid(pid, &status, WNOHANG) == 0;
}

class Problems {
 public:
  void add(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (list_.size() < 20) list_.push_back(what);
  }
  std::vector<std::string> list() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return list_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> list_;
};

// A reply is fine when it succeeded, or failed with a race code; a lost connection (the
// server died) or any other code is a problem.
void check_reply(const std::string& op, const CommandOutcome& out, Problems& problems) {
  if (out.succeeded) {
    bson::Value errors = out.reply.get("writeErrors");
    if (!errors.is_array()) return;
    for (const bson::Element& e : errors.as_array()) {
      int64_t code = 0;
      e.value.as_document().get("code").number_as_exact_int64(&code);
      if (!kRaceCodes.count(code)) problems.add(op + " writeError: " + out.reply.to_json());
    }
    return;
  }
  int64_t code = 0;
  if (!out.reply.get("code").number_as_exact_int64(&code) || !kRaceCodes.count(code)) {
    problems.add(op + " failed: " + std::string(out.error.message) + " " + out.reply.to_json());
  }
}

TEST(ServerDdlRace, InsertsRacingDropsFromAnotherConnectionDoNotKillTheServer) {
  ServerProcess server;
  const std::string uri = server.uri("serverSelectionTimeoutMS=5000&connectTimeoutMS=5000");
  Problems problems;
  std::atomic<bool> stop{false};
  auto deadline = std::chrono::steady_clock::now() + kTimeCap;
  auto running = [&](int i) {
    return i < kMaxCommands && !stop.load() && std::chrono::steady_clock::now() < deadline;
  };
  std::thread inserter([&] {
    MongocClient client(uri);
    for (int i = 0; running(i); ++i) {
      Document cmd =
          make_document("insert", "c", "documents", make_array(make_document("_id", i, "x", i)));
      CommandOutcome out = client.run("race", cmd);
      check_reply("insert", out, problems);
      if (!out.succeeded && out.reply.get("code").is_missing()) stop.store(true);  // no server
    }
  });
  std::thread dropper([&] {
    MongocClient client(uri);
    for (int i = 0; running(i); ++i) {
      Document cmd = i % 2 ? make_document("drop", "c") : make_document("dropDatabase", 1);
      CommandOutcome out = client.run("race", cmd);
      check_reply(i % 2 ? "drop" : "dropDatabase", out, problems);
      if (!out.succeeded && out.reply.get("code").is_missing()) stop.store(true);
    }
  });
  std::thread reader([&] {
    MongocClient client(uri);
    for (int i = 0; running(i); ++i) {
      CommandOutcome first = client.run("race", make_document("find", "c", "batchSize", 2));
      check_reply("find", first, problems);
      if (!first.succeeded) continue;
      int64_t id = 0;
      first.reply.get_path("cursor.id").number_as_exact_int64(&id);
      for (int page = 0; id != 0 && page < 5; ++page) {
        CommandOutcome more =
            client.run("race", make_document("getMore", id, "collection", "c", "batchSize", 2));
        check_reply("getMore", more, problems);
        if (!more.succeeded) break;
        more.reply.get_path("cursor.id").number_as_exact_int64(&id);
      }
      if (id != 0) client.run("race", make_document("killCursors", "c", "cursors", make_array(id)));
    }
  });
  inserter.join();
  dropper.join();
  reader.join();
  for (const std::string& p : problems.list()) ADD_FAILURE() << p;
  ASSERT_TRUE(process_alive(server.pid())) << "mongostore serve died during the race";
  MongocClient after(uri);
  CommandOutcome ping = after.run("admin", make_document("ping", 1));
  EXPECT_TRUE(ping.succeeded) << ping.error.message;
  // The collection is usable after the race.
  CommandOutcome insert = after.run(
      "race", make_document("insert", "c", "documents", make_array(make_document("_id", -1))));
  EXPECT_TRUE(insert.succeeded) << insert.error.message;
  CommandOutcome found =
      after.run("race", make_document("find", "c", "filter", make_document("_id", -1)));
  ASSERT_TRUE(found.succeeded) << found.error.message;
  EXPECT_EQ(found.reply.get_path("cursor.firstBatch").as_array().count(), 1u);
}

}  // namespace
}  // namespace mongostore::testing
