// Logical sessions and retryable writes over the wire: lsid checked as mongod checks it,
// startSession / endSessions / killSessions / refreshSessions, a session's cursors killed
// with it (ended, killed or expired), and retryable writes executed once per txnNumber.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "mongostore/bson/builder.h"
#include "server/reply_path.h"
#include "server/wire_command.h"
#include "server/wire_connection.h"
#include "support/server_process.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::DocumentView;
using bson::make_array;
using bson::make_document;

// A session id: a version 4 UUID made from `seed`.
Document lsid(uint8_t seed) {
  uint8_t uuid[16] = {seed, 1, 2, 3, 4, 5, 0x46, 7, 0x88, 9, 10, 11, 12, 13, 14, seed};
  return make_document("id", bson::BinaryView{4, std::span<const uint8_t>(uuid, 16)});
}

class SessionsWireTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess({"--memory", "--session-timeout-ms", "300"});
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { conn_ = std::make_unique<WireConnection>(server_->port()); }

  // Opens a cursor of batch size 1 over three documents of `coll` under session `session`.
  int64_t open_cursor(const std::string& coll, const Document& session) {
    run(*conn_, make_document("insert", coll, "documents",
                              make_array(make_document("_id", 1), make_document("_id", 2),
                                         make_document("_id", 3)),
                              "$db", "sessions"));
    Document found = run(
        *conn_, make_document("find", coll, "batchSize", 1, "lsid", session, "$db", "sessions"));
    int64_t id = int_at(found, "cursor.id");
    EXPECT_NE(id, 0) << found.to_json();
    return id;
  }

  Document get_more(const std::string& coll, int64_t id) {
    return run(*conn_, make_document("getMore", id, "collection", coll, "$db", "sessions"));
  }

  static ServerProcess* server_;
  std::unique_ptr<WireConnection> conn_;
};
ServerProcess* SessionsWireTest::server_ = nullptr;

TEST_F(SessionsWireTest, SessionFieldsAreCheckedAsMongodChecksThem) {
  auto code_of = [&](const Document& extra) {
    bson::DocumentBuilder b;
    b.append("find", "checks");
    for (const bson::Element& e : extra) b.append(e.key, e.value);
    b.append("$db", "sessions");
    return int_at(run(*conn_, b.finish()), "code");
  };
  EXPECT_EQ(code_of(make_document("lsid", "x")), 14);
  EXPECT_EQ(code_of(make_document("lsid", make_document())), 40414);
  EXPECT_EQ(code_of(make_document("lsid", make_document("id", 1))), 14);
  bson::DocumentBuilder extra_field;
  extra_field.append("id", lsid(1).get("id")).append("x", 1);
  EXPECT_EQ(code_of(make_document("lsid", extra_field.finish())), 40415);
  EXPECT_EQ(code_of(make_document("txnNumber", int64_t{1})), 72);
  EXPECT_EQ(code_of(make_document("lsid", lsid(1), "txnNumber", int64_t{-1})), 2);
  EXPECT_EQ(code_of(make_document("lsid", lsid(1), "txnNumber", "1")), 14);
  EXPECT_EQ(code_of(make_document("lsid", lsid(1), "txnNumber", int64_t{1}, "autocommit", true)),
            72);
  EXPECT_EQ(code_of(make_document("lsid", lsid(1), "autocommit", false)), 72);
  EXPECT_EQ(code_of(make_document("lsid", lsid(1), "txnNumber", int64_t{1}, "autocommit", false,
                                  "startTransaction", false)),
            72);
  // A txnNumber outside a transaction is for retryable writes only.
  EXPECT_EQ(code_of(make_document("lsid", lsid(1), "txnNumber", int64_t{1})), 50768);
}

TEST_F(SessionsWireTest, StartSessionReturnsANewSessionId) {
  Document started = run(*conn_, make_document("startSession", 1, "$db", "admin"));
  SCOPED_TRACE(started.to_json());
  EXPECT_EQ(ok_of(started), 1.0);
  ASSERT_EQ(path_at(started, "id.id").type(), bson::BsonType::kBinary);
  EXPECT_EQ(path_at(started, "id.id").as_binary().subtype, 4);
  EXPECT_EQ(path_at(started, "id.id").as_binary().bytes.size(), 16u);
  EXPECT_GE(int_at(started, "timeoutMinutes"), 1);
  // The id it returns is usable as an lsid, and can be ended.
  Document id = Document::copy_of(started.get("id").as_document());
  EXPECT_EQ(ok_of(run(*conn_, make_document("find", "x", "lsid", id, "$db", "sessions"))), 1.0);
  EXPECT_EQ(ok_of(run(*conn_, make_document("endSessions", make_array(id), "$db", "admin"))), 1.0);
}

TEST_F(SessionsWireTest, EndingASessionKillsItsCursors) {
  int64_t id = open_cursor("ended", lsid(2));
  EXPECT_EQ(
      ok_of(run(*conn_, make_document("refreshSessions", make_array(lsid(2)), "$db", "admin"))),
      1.0);
  EXPECT_EQ(ok_of(run(*conn_, make_document("endSessions", make_array(lsid(2)), "$db", "admin"))),
            1.0);
  EXPECT_EQ(int_at(get_more("ended", id), "code"), 43);
}

TEST_F(SessionsWireTest, KillingASessionKillsItsCursorsButNotOthers) {
  int64_t killed = open_cursor("killed", lsid(3));
  int64_t kept = open_cursor("kept", lsid(4));
  EXPECT_EQ(ok_of(run(*conn_, make_document("killSessions", make_array(lsid(3)), "$db", "admin"))),
            1.0);
  EXPECT_EQ(int_at(get_more("killed", killed), "code"), 43);
  EXPECT_EQ(ok_of(get_more("kept", kept)), 1.0);
  Document bad = run(*conn_, make_document("endSessions", make_array("x"), "$db", "admin"));
  EXPECT_EQ(int_at(bad, "code"), 14) << bad.to_json();
}

// The suite's server ends sessions unused for 300 ms (--session-timeout-ms).
TEST_F(SessionsWireTest, AnIdleSessionExpiresWithItsCursors) {
  int64_t id = open_cursor("expired", lsid(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  // Expiry is swept when sessions are used: any command with a session runs the sweep.
  run(*conn_, make_document("find", "other", "lsid", lsid(6), "$db", "sessions"));
  EXPECT_EQ(int_at(get_more("expired", id), "code"), 43);
}

TEST_F(SessionsWireTest, ARetriedUpdateRunsOnce) {
  run(*conn_, make_document("insert", "counter", "documents",
                            make_array(make_document("_id", 1, "n", 0)), "$db", "sessions"));
  Document update =
      make_document("update", "counter", "updates",
                    make_array(make_document("q", make_document("_id", 1), "u",
                                             make_document("$inc", make_document("n", 1)))),
                    "lsid", lsid(7), "txnNumber", int64_t{5}, "$db", "sessions");
  Document first = run(*conn_, update);
  Document retry = run(*conn_, update);
  EXPECT_EQ(int_at(first, "nModified"), 1) << first.to_json();
  EXPECT_EQ(int_at(retry, "nModified"), 1) << retry.to_json();
  Document found = run(*conn_, make_document("find", "counter", "$db", "sessions"));
  EXPECT_EQ(int_at(found, "cursor.firstBatch.0.n"), 1) << found.to_json();
  // The next txnNumber writes again; an older one is too old.
  Document next =
      make_document("update", "counter", "updates",
                    make_array(make_document("q", make_document("_id", 1), "u",
                                             make_document("$inc", make_document("n", 1)))),
                    "lsid", lsid(7), "txnNumber", int64_t{6}, "$db", "sessions");
  EXPECT_EQ(int_at(run(*conn_, next), "nModified"), 1);
  Document old = run(*conn_, update);
  EXPECT_EQ(int_at(old, "code"), 225) << old.to_json();
  EXPECT_EQ(old.get("codeName").as_string(), "TransactionTooOld");
  found = run(*conn_, make_document("find", "counter", "$db", "sessions"));
  EXPECT_EQ(int_at(found, "cursor.firstBatch.0.n"), 2) << found.to_json();
}

TEST_F(SessionsWireTest, ARetriedInsertAndFindAndModifyAnswerAsTheFirstTime) {
  Document insert =
      make_document("insert", "once", "documents", make_array(make_document("_id", 1, "n", 0)),
                    "lsid", lsid(8), "txnNumber", int64_t{1}, "$db", "sessions");
  Document first = run(*conn_, insert);
  Document retry = run(*conn_, insert);  // not a DuplicateKey: it did not run again
  EXPECT_EQ(int_at(first, "n"), 1);
  EXPECT_EQ(int_at(retry, "n"), 1) << retry.to_json();
  EXPECT_TRUE(retry.get("writeErrors").is_missing()) << retry.to_json();
  Document fam = make_document("findAndModify", "once", "query", make_document("_id", 1), "update",
                               make_document("$inc", make_document("n", 1)), "new", true, "lsid",
                               lsid(8), "txnNumber", int64_t{2}, "$db", "sessions");
  Document modified = run(*conn_, fam);
  Document again = run(*conn_, fam);
  EXPECT_EQ(int_at(modified, "value.n"), 1) << modified.to_json();
  EXPECT_EQ(int_at(again, "value.n"), 1) << again.to_json();
  Document found = run(*conn_, make_document("find", "once", "$db", "sessions"));
  EXPECT_EQ(int_at(found, "cursor.firstBatch.0.n"), 1) << found.to_json();
}

TEST_F(SessionsWireTest, AWriteThatFailedAsAWholeRunsAgainOnRetry) {
  // An insert into an invalid namespace fails before writing (ok: 0): nothing is recorded.
  Document bad = make_document("insert", "", "documents", make_array(make_document("_id", 1)),
                               "lsid", lsid(9), "txnNumber", int64_t{1}, "$db", "sessions");
  EXPECT_EQ(ok_of(run(*conn_, bad)), 0.0);
  EXPECT_EQ(ok_of(run(*conn_, bad)), 0.0);
}

}  // namespace
}  // namespace mongostore::testing
