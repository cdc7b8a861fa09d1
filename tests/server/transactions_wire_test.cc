// Multi-document transactions over the wire, with mongod's rules, errors and errorLabels:
// startTransaction / autocommit: false / txnNumber statements run in one engine transaction,
// commitTransaction makes them visible together, abortTransaction (or a newer txnNumber, or
// the end of the session) leaves nothing, and the errors drivers' transaction loops react to
// carry TransientTransactionError.
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
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::make_array;
using bson::make_document;

bool has_label(const Document& reply, std::string_view label) {
  bson::Value labels = reply.get("errorLabels");
  if (!labels.is_array()) return false;
  for (const bson::Element& e : labels.as_array()) {
    if (e.value.is_string() && e.value.as_string() == label) return true;
  }
  return false;
}

Document lsid(uint8_t seed) {
  uint8_t uuid[16] = {seed, 7, 2, 3, 4, 5, 0x46, 7, 0x88, 9, 10, 11, 12, 13, 14, seed};
  return make_document("id", bson::BinaryView{4, std::span<const uint8_t>(uuid, 16)});
}

// `command` with the session fields of statement `txn` of session `seed` appended.
Document in_txn(const Document& command, uint8_t seed, int64_t txn, bool start = false) {
  DocumentBuilder b;
  for (const bson::Element& e : command) b.append(e.key, e.value);
  b.append("lsid", lsid(seed));
  b.append("txnNumber", txn);
  if (start) b.append("startTransaction", true);
  b.append("autocommit", false);
  return b.finish();
}

Document commit(uint8_t seed, int64_t txn) {
  return in_txn(make_document("commitTransaction", 1, "$db", "admin"), seed, txn);
}
Document abort_txn(uint8_t seed, int64_t txn) {
  return in_txn(make_document("abortTransaction", 1, "$db", "admin"), seed, txn);
}

Document insert(const std::string& coll, int id) {
  return make_document("insert", coll, "documents", make_array(make_document("_id", id)), "$db",
                       "txn");
}

class TransactionsWireTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { conn_ = std::make_unique<WireConnection>(server_->port()); }

  int64_t count(const std::string& coll) {
    return int_at(run(*conn_, make_document("count", coll, "$db", "txn")), "n");
  }

  static ServerProcess* server_;
  std::unique_ptr<WireConnection> conn_;
};
ServerProcess* TransactionsWireTest::server_ = nullptr;

TEST_F(TransactionsWireTest, CommitMakesEveryStatementVisibleAtOnce) {
  run(*conn_, insert("commit", 0));  // the collection exists before the transaction
  EXPECT_EQ(ok_of(run(*conn_, in_txn(insert("commit", 1), 1, 1, true))), 1.0);
  EXPECT_EQ(ok_of(run(*conn_, in_txn(insert("commit", 2), 1, 1))), 1.0);
  // The transaction reads its own writes; no one else does before commit.
  Document inside = run(*conn_, in_txn(make_document("find", "commit", "$db", "txn"), 1, 1));
  EXPECT_EQ(int_at(inside, "cursor.firstBatch.2._id"), 2) << inside.to_json();
  EXPECT_EQ(count("commit"), 1);
  Document committed = run(*conn_, commit(1, 1));
  EXPECT_EQ(ok_of(committed), 1.0) << committed.to_json();
  EXPECT_EQ(count("commit"), 3);
  // A retried commit succeeds; an abort after it fails TransactionCommitted.
  EXPECT_EQ(ok_of(run(*conn_, commit(1, 1))), 1.0);
  Document late_abort = run(*conn_, abort_txn(1, 1));
  EXPECT_EQ(int_at(late_abort, "code"), 256) << late_abort.to_json();
}

// Drivers put the transaction's readConcern on its first statement, whatever it is.
TEST_F(TransactionsWireTest, TheFirstStatementCarriesTheReadConcernWhateverTheCommand) {
  DocumentBuilder first;
  for (const bson::Element& e : insert("first_rc", 1)) first.append(e.key, e.value);
  first.append("readConcern", make_document("level", "snapshot"));
  Document started = run(*conn_, in_txn(first.finish(), 9, 1, true));
  EXPECT_EQ(ok_of(started), 1.0) << started.to_json();
  EXPECT_EQ(ok_of(run(*conn_, commit(9, 1))), 1.0);
  EXPECT_EQ(count("first_rc"), 1);
}

TEST_F(TransactionsWireTest, AbortLeavesNothingBehind) {
  run(*conn_, insert("abort", 0));
  EXPECT_EQ(ok_of(run(*conn_, in_txn(insert("abort", 1), 2, 1, true))), 1.0);
  EXPECT_EQ(ok_of(run(*conn_, abort_txn(2, 1))), 1.0);
  EXPECT_EQ(count("abort"), 1);
  // After the abort the transaction is gone: NoSuchTransaction, TransientTransactionError.
  Document after = run(*conn_, in_txn(insert("abort", 2), 2, 1));
  EXPECT_EQ(int_at(after, "code"), 251) << after.to_json();
  EXPECT_TRUE(has_label(after, "TransientTransactionError")) << after.to_json();
  Document commit_aborted = run(*conn_, commit(2, 1));
  EXPECT_EQ(int_at(commit_aborted, "code"), 251) << commit_aborted.to_json();
  EXPECT_TRUE(has_label(commit_aborted, "TransientTransactionError"));
}

TEST_F(TransactionsWireTest, ANewTxnNumberAbortsTheOpenTransaction) {
  run(*conn_, insert("newer", 0));
  EXPECT_EQ(ok_of(run(*conn_, in_txn(insert("newer", 1), 3, 1, true))), 1.0);
  EXPECT_EQ(ok_of(run(*conn_, in_txn(insert("newer", 2), 3, 2, true))), 1.0);
  EXPECT_EQ(ok_of(run(*conn_, commit(3, 2))), 1.0);
  Document found =
      run(*conn_, make_document("find", "newer", "sort", make_document("_id", 1), "$db", "txn"));
  EXPECT_EQ(int_at(found, "cursor.firstBatch.1._id"), 2) << found.to_json();
  EXPECT_TRUE(path_at(found, "cursor.firstBatch.2").is_missing()) << found.to_json();
  Document old = run(*conn_, commit(3, 1));
  EXPECT_EQ(int_at(old, "code"), 225) << old.to_json();
}

TEST_F(TransactionsWireTest, UnknownTransactionsAndForbiddenFieldsFailAsOnMongod) {
  Document unknown = run(*conn_, commit(4, 7));
  EXPECT_EQ(int_at(unknown, "code"), 251) << unknown.to_json();
  EXPECT_TRUE(has_label(unknown, "TransientTransactionError"));
  EXPECT_EQ(ok_of(run(*conn_, in_txn(insert("rules", 1), 4, 8, true))), 1.0);
  DocumentBuilder with_wc;
  for (const bson::Element& e : insert("rules", 2)) with_wc.append(e.key, e.value);
  with_wc.append("writeConcern", make_document("w", 1));
  Document wc = run(*conn_, in_txn(with_wc.finish(), 4, 8));
  EXPECT_EQ(int_at(wc, "code"), 72) << wc.to_json();
  Document rc = run(*conn_, in_txn(make_document("find", "rules", "readConcern",
                                                 make_document("level", "snapshot"), "$db", "txn"),
                                   4, 8));
  EXPECT_EQ(int_at(rc, "code"), 72) << rc.to_json();
  Document counted = run(*conn_, in_txn(make_document("count", "rules", "$db", "txn"), 4, 8));
  EXPECT_EQ(int_at(counted, "code"), 263) << counted.to_json();
  run(*conn_, abort_txn(4, 8));
  Document linearizable =
      run(*conn_, in_txn(make_document("find", "rules", "readConcern",
                                       make_document("level", "linearizable"), "$db", "txn"),
                         4, 9, true));
  EXPECT_EQ(int_at(linearizable, "code"), 72) << linearizable.to_json();
}

TEST_F(TransactionsWireTest, AWriteConflictIsTransient) {
  run(*conn_, make_document("insert", "conflict", "documents",
                            make_array(make_document("_id", 1, "n", 0)), "$db", "txn"));
  Document set_n =
      make_document("update", "conflict", "updates",
                    make_array(make_document("q", make_document("_id", 1), "u",
                                             make_document("$inc", make_document("n", 1)))),
                    "$db", "txn");
  EXPECT_EQ(ok_of(run(*conn_, in_txn(set_n, 5, 1, true))), 1.0);
  WireConnection other(server_->port());
  Document second = run(other, in_txn(set_n, 6, 1, true));
  SCOPED_TRACE(second.to_json());
  bool conflicted = int_at(second, "code") == 112 || int_at(second, "writeErrors.0.code") == 112;
  EXPECT_TRUE(conflicted);
  EXPECT_TRUE(has_label(second, "TransientTransactionError"));
  EXPECT_EQ(ok_of(run(*conn_, commit(5, 1))), 1.0);
  Document found = run(*conn_, make_document("find", "conflict", "$db", "txn"));
  EXPECT_EQ(int_at(found, "cursor.firstBatch.0.n"), 1) << found.to_json();
}

TEST_F(TransactionsWireTest, EndingTheSessionAbortsItsTransaction) {
  run(*conn_, insert("ended", 0));
  EXPECT_EQ(ok_of(run(*conn_, in_txn(insert("ended", 1), 7, 1, true))), 1.0);
  EXPECT_EQ(ok_of(run(*conn_, make_document("endSessions", make_array(lsid(7)), "$db", "admin"))),
            1.0);
  EXPECT_EQ(count("ended"), 1);
}

TEST_F(TransactionsWireTest, AGetMoreContinuesInTheTransaction) {
  run(*conn_,
      make_document("insert", "cursor", "documents",
                    make_array(make_document("_id", 1), make_document("_id", 2)), "$db", "txn"));
  EXPECT_EQ(ok_of(run(*conn_, in_txn(insert("cursor", 3), 8, 1, true))), 1.0);
  Document first = run(*conn_, in_txn(make_document("find", "cursor", "batchSize", 1, "sort",
                                                    make_document("_id", 1), "$db", "txn"),
                                      8, 1));
  int64_t id = int_at(first, "cursor.id");
  Document more = run(*conn_, in_txn(make_document("getMore", id, "collection", "cursor",
                                                   "batchSize", 10, "$db", "txn"),
                                     8, 1));
  SCOPED_TRACE(more.to_json());
  EXPECT_EQ(int_at(more, "cursor.nextBatch.1._id"), 3);  // its own uncommitted insert
  EXPECT_EQ(ok_of(run(*conn_, commit(8, 1))), 1.0);
}

}  // namespace
}  // namespace mongostore::testing

namespace mongostore::testing {
namespace {

// serve --transaction-lifetime-limit-seconds 1: a transaction older than the limit is
// aborted, and its next statement and its commit fail NoSuchTransaction (251) with
// TransientTransactionError over the wire; getParameter reports the limit. (The wait only
// has to outlast the limit: the transaction checks its deadline whenever it is used.)
TEST(TransactionLifetimeLimitWireTest, AnExpiredTransactionFailsNoSuchTransaction) {
  ServerProcess server({"--memory", "--transaction-lifetime-limit-seconds", "1"});
  WireConnection conn(server.port());
  Document parameter = run(
      conn, make_document("getParameter", 1, "transactionLifetimeLimitSeconds", 1, "$db", "admin"));
  EXPECT_EQ(int_at(parameter, "transactionLifetimeLimitSeconds"), 1) << parameter.to_json();
  ASSERT_EQ(ok_of(run(conn, in_txn(insert("expiring", 1), 20, 1, true))), 1.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  Document late = run(conn, in_txn(insert("expiring", 2), 20, 1));
  SCOPED_TRACE(late.to_json());
  EXPECT_EQ(int_at(late, "code"), 251);
  EXPECT_TRUE(has_label(late, "TransientTransactionError"));
  Document committed = run(conn, commit(20, 1));
  EXPECT_EQ(int_at(committed, "code"), 251) << committed.to_json();
  EXPECT_TRUE(has_label(committed, "TransientTransactionError"));
  EXPECT_EQ(int_at(run(conn, make_document("count", "expiring", "$db", "txn")), "n"), 0);
}

TEST(TransactionLifetimeLimitWireTest, TheDefaultIsMongodsSixtySeconds) {
  ServerProcess server({"--memory"});
  WireConnection conn(server.port());
  Document parameter = run(
      conn, make_document("getParameter", 1, "transactionLifetimeLimitSeconds", 1, "$db", "admin"));
  EXPECT_EQ(int_at(parameter, "transactionLifetimeLimitSeconds"), 60) << parameter.to_json();
}

}  // namespace
}  // namespace mongostore::testing
