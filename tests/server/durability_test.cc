// Durability of `mongostore serve --dbpath`: every insert a driver (libmongoc) got
// acknowledged under writeConcern {j: true} is found after the server is killed with SIGKILL
// (no shutdown, no flush) and a new server is started on the same directory, including while
// a write is in flight at the moment of the kill. SIGTERM shuts the server down cleanly:
// exit status 0, and everything written is there after a restart.
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <mongoc/mongoc.h>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "server/mongoc_test_client.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::make_document;

// Short timeouts and no retries: after the kill, a write fails at once instead of waiting
// for a server to come back.
const char* kUriOptions =
    "serverSelectionTimeoutMS=2000&connectTimeoutMS=2000&socketTimeoutMS=10000&retryWrites=false";

// Inserts {_id: id, payload} with writeConcern {w: 1, j: true}; true when acknowledged.
bool insert_journaled(mongoc_collection_t* coll, int64_t id) {
  Document doc = make_document("_id", id, "payload", std::string(200, 'x'));
  BsonRef ref(doc);
  bson_t opts = BSON_INITIALIZER;
  mongoc_write_concern_t* wc = mongoc_write_concern_new();
  mongoc_write_concern_set_w(wc, 1);
  mongoc_write_concern_set_journal(wc, true);
  mongoc_write_concern_append(wc, &opts);
  mongoc_write_concern_destroy(wc);
  bson_error_t error;
  bool ok = mongoc_collection_insert_one(coll, ref.get(), &opts, nullptr, &error);
  bson_destroy(&opts);
  return ok;
}

// Every `_id` in db.coll, read through libmongoc.
std::set<int64_t> all_ids(const MongocClient& client, const std::string& db,
                          const std::string& coll_name) {
  auto coll = client.collection(db, coll_name);
  Document filter;
  BsonRef f(filter);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll.get(), f.get(), nullptr, nullptr);
  const bson_t* doc = nullptr;
  std::set<int64_t> ids;
  while (mongoc_cursor_next(cursor, &doc)) {
    int64_t id = 0;
    EXPECT_TRUE(to_document(doc).get("_id").number_as_exact_int64(&id));
    ids.insert(id);
  }
  bson_error_t error;
  EXPECT_FALSE(mongoc_cursor_error(cursor, &error)) << error.message;
  mongoc_cursor_destroy(cursor);
  return ids;
}

class DurabilityTest : public ::testing::Test {
 protected:
  std::vector<std::string> serve_args() const { return {"--dbpath", dir_.sub("data")}; }
  TempDir dir_;
};

TEST_F(DurabilityTest, AcknowledgedJournaledInsertsSurviveSigkill) {
  std::set<int64_t> acknowledged;
  {
    ServerProcess server(serve_args());
    MongocClient client(server.uri(kUriOptions));
    auto coll = client.collection("durable", "coll");
    for (int64_t id = 1; id <= 60; ++id) {
      ASSERT_TRUE(insert_journaled(coll.get(), id)) << id;
      acknowledged.insert(id);
    }
    int status = server.stop(SIGKILL);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  }
  ServerProcess restarted(serve_args());
  MongocClient client(restarted.uri(kUriOptions));
  EXPECT_EQ(all_ids(client, "durable", "coll"), acknowledged);
}

// Writes under writeConcern {j: false} (insert, update, delete, findAndModify) are
// acknowledged from the log buffer; the log is ordered, so the journaled write that follows
// makes them durable as well: after SIGKILL every one of them is there.
TEST_F(DurabilityTest, UnjournaledWritesAreMadeDurableByTheNextJournaledOne) {
  {
    ServerProcess server(serve_args());
    auto coll = client::connect(server.uri(kUriOptions))->database("durable").collection("j");
    client::InsertOptions unjournaled_insert;
    unjournaled_insert.journal = false;
    for (int64_t id = 1; id <= 20; ++id) {
      coll.insert_one(make_document("_id", id, "n", int64_t{0}), unjournaled_insert);
    }
    client::UpdateOptions unjournaled_update;
    unjournaled_update.journal = false;
    coll.update_many(make_document("_id", make_document("$lte", 10)),
                     make_document("$set", make_document("n", int64_t{1})), unjournaled_update);
    client::DeleteOptions unjournaled_delete;
    unjournaled_delete.journal = false;
    EXPECT_EQ(coll.delete_one(make_document("_id", 20), unjournaled_delete), 1);
    client::FindAndModifyOptions unjournaled_modify;
    unjournaled_modify.journal = false;
    coll.find_one_and_update(make_document("_id", 19),
                             make_document("$set", make_document("n", int64_t{2})),
                             unjournaled_modify);
    coll.insert_one(make_document("_id", 100, "n", int64_t{0}));  // journaled
    int status = server.stop(SIGKILL);
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
  }
  ServerProcess restarted(serve_args());
  auto coll = client::connect(restarted.uri(kUriOptions))->database("durable").collection("j");
  EXPECT_EQ(coll.count_documents(Document()), 20);
  EXPECT_EQ(coll.count_documents(make_document("n", 1)), 10);
  EXPECT_EQ(coll.find_one(make_document("_id", 19))->get("n").as_int64(), 2);
  EXPECT_FALSE(coll.find_one(make_document("_id", 20)).has_value());
}

TEST_F(DurabilityTest, SigkillDuringAWriteLosesNoAcknowledgedInsert) {
  std::set<int64_t> acknowledged;
  int64_t attempted = 0;
  {
    ServerProcess server(serve_args());
    std::mutex mutex;
    std::condition_variable enough;
    bool writer_done = false;
    std::thread writer([&] {
      // The writer's own client: libmongoc clients are not thread-safe.
      MongocClient client(server.uri(kUriOptions));
      auto coll = client.collection("durable", "racing");
      for (int64_t id = 1;; ++id) {
        {
          std::lock_guard lock(mutex);
          attempted = id;
        }
        if (!insert_journaled(coll.get(), id)) break;  // the server is gone
        std::lock_guard lock(mutex);
        acknowledged.insert(id);
        if (acknowledged.size() >= 40) enough.notify_all();
        if (id >= 100000) break;  // a server that never dies would otherwise loop forever
      }
      std::lock_guard lock(mutex);
      writer_done = true;
      enough.notify_all();
    });
    {
      std::unique_lock lock(mutex);
      enough.wait(lock, [&] { return acknowledged.size() >= 40 || writer_done; });
    }
    // Killed while the writer keeps inserting: one insert is typically in flight.
    int status = server.stop(SIGKILL);
    writer.join();
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  }
  ASSERT_GE(acknowledged.size(), 40u);
  ServerProcess restarted(serve_args());
  MongocClient client(restarted.uri(kUriOptions));
  std::set<int64_t> found = all_ids(client, "durable", "racing");
  for (int64_t id : acknowledged)
    EXPECT_EQ(found.count(id), 1u) << "acknowledged " << id << " lost";
  // Nothing but what the writer sent: at most the insert in flight beyond the acknowledged.
  for (int64_t id : found) EXPECT_LE(id, attempted) << id;
  EXPECT_LE(found.size(), acknowledged.size() + 1);
}

TEST_F(DurabilityTest, SigtermExitsCleanlyAndKeepsTheData) {
  {
    ServerProcess server(serve_args());
    MongocClient client(server.uri(kUriOptions));
    auto coll = client.collection("durable", "clean");
    for (int64_t id = 1; id <= 10; ++id) ASSERT_TRUE(insert_journaled(coll.get(), id));
    // An index, so the catalog must come back too.
    Document cmd = make_document(
        "createIndexes", "clean", "indexes",
        bson::make_array(make_document("key", make_document("payload", 1), "name", "payload_1")));
    CommandOutcome out = client.run("durable", cmd);
    ASSERT_TRUE(out.succeeded) << out.error.message;
    int status = server.stop(SIGTERM);
    EXPECT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  ServerProcess restarted(serve_args());
  MongocClient client(restarted.uri(kUriOptions));
  std::set<int64_t> expected;
  for (int64_t id = 1; id <= 10; ++id) expected.insert(id);
  EXPECT_EQ(all_ids(client, "durable", "clean"), expected);
  CommandOutcome indexes = client.run("durable", make_document("listIndexes", "clean"));
  ASSERT_TRUE(indexes.succeeded) << indexes.error.message;
  EXPECT_EQ(indexes.reply.get_path("cursor.firstBatch").as_array().count(), 2u)
      << indexes.reply.to_json();
  int status = restarted.stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(InMemoryShutdownTest, SigtermExitsCleanlyWithOpenConnectionsAndCursors) {
  ServerProcess server;
  MongocClient client(server.uri(kUriOptions));
  bson::DocumentBuilder docs;
  for (int i = 0; i < 10; ++i) docs.push(make_document("_id", i));
  bson::DocumentBuilder insert;
  insert.append("insert", "coll").append("documents", docs.finish_array());
  ASSERT_TRUE(client.run("mem", insert.finish()).succeeded);
  // A cursor left open on the server, and an idle connection, when the signal arrives.
  CommandOutcome find = client.run("mem", make_document("find", "coll", "batchSize", 2));
  ASSERT_TRUE(find.succeeded);
  int64_t cursor_id = 0;
  ASSERT_TRUE(find.reply.get_path("cursor.id").number_as_exact_int64(&cursor_id));
  EXPECT_NE(cursor_id, 0);
  int status = server.stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace mongostore::testing
