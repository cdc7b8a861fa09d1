// The rules of session_statements.h on their own, with a stand-in for the engine's
// transaction: which txnNumber a statement may use, what a retried write answers, which
// commands run in a transaction, and the errors and labels mongod gives for the rest.
#include "server/sessions/session_statements.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>

#include "mongostore/bson/builder.h"

namespace mongostore::server {
namespace {

using bson::Document;
using bson::make_document;

// A transaction whose state the test sets; its engine is never used here.
class FakeTransaction : public engine::Transaction {
 public:
  engine::Engine& engine() override { throw std::logic_error("not used"); }
  void commit() override { state_ = engine::TransactionState::kCommitted; }
  void abort() override {
    if (state_ == engine::TransactionState::kCommitted) {
      throw Error(ErrorCode::kTransactionCommitted, "committed");
    }
    state_ = engine::TransactionState::kAborted;
  }
  engine::TransactionState state() const override { return state_; }
  uint64_t id() const override { return 1; }
  engine::TransactionState state_ = engine::TransactionState::kActive;
};

// A session whose transaction `n` is open.
struct OpenTransaction {
  OpenTransaction(int64_t n) : session("key-of-sixteen-b") {
    session.txn_number = n;
    session.transaction = fake;
  }
  std::shared_ptr<FakeTransaction> fake = std::make_shared<FakeTransaction>();
  Session session;
};

SessionInfo statement(int64_t n) {
  SessionInfo info;
  info.lsid = "key-of-sixteen-b";
  info.txn_number = n;
  info.in_transaction = true;
  return info;
}

int32_t code_of(const std::function<void()>& f, bool* transient = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (transient) *transient = e.has_label(kTransientTransactionError);
    return e.code();
  }
  return 0;
}

// The engine a starting statement would begin its transaction on; the continuing
// statements tested here never reach it.
engine::Engine& no_engine() {
  static std::shared_ptr<engine::Engine> engine = [] {
    engine::EngineOptions options;
    options.durability = engine::Durability::kInMemory;
    return engine::Engine::open(options);
  }();
  return *engine;
}

TEST(SessionStatements, AStatementContinuesTheOpenTransaction) {
  OpenTransaction t(3);
  Document find = make_document("find", "c");
  auto txn = enter_transaction(t.session, statement(3), "find", find.view(), no_engine(), {});
  EXPECT_EQ(txn.get(), t.fake.get());
}

TEST(SessionStatements, AnUnknownOrOldTxnNumberFails) {
  OpenTransaction t(3);
  Document find = make_document("find", "c");
  bool transient = false;
  EXPECT_EQ(
      code_of(
          [&] { enter_transaction(t.session, statement(4), "find", find.view(), no_engine(), {}); },
          &transient),
      251);
  EXPECT_TRUE(transient);
  EXPECT_EQ(code_of([&] {
              enter_transaction(t.session, statement(2), "find", find.view(), no_engine(), {});
            }),
            225);
}

TEST(SessionStatements, CommittedAndAbortedTransactionsAnswerAsMongod) {
  OpenTransaction t(3);
  Document commit = make_document("commitTransaction", 1);
  Document abort = make_document("abortTransaction", 1);
  Document insert = make_document("insert", "c");
  t.fake->state_ = engine::TransactionState::kCommitted;
  // A retried commit goes through; abort or another statement after commit fail 256.
  EXPECT_EQ(code_of([&] {
              enter_transaction(t.session, statement(3), "commitTransaction", commit.view(),
                                no_engine(), {});
            }),
            0);
  EXPECT_EQ(code_of([&] {
              enter_transaction(t.session, statement(3), "abortTransaction", abort.view(),
                                no_engine(), {});
            }),
            256);
  EXPECT_EQ(code_of([&] {
              enter_transaction(t.session, statement(3), "insert", insert.view(), no_engine(), {});
            }),
            256);
  t.fake->state_ = engine::TransactionState::kAborted;
  bool transient = false;
  EXPECT_EQ(code_of(
                [&] {
                  enter_transaction(t.session, statement(3), "commitTransaction", commit.view(),
                                    no_engine(), {});
                },
                &transient),
            251);
  EXPECT_TRUE(transient);
}

TEST(SessionStatements, ForbiddenCommandsAndFieldsFail) {
  OpenTransaction t(3);
  Document count = make_document("count", "c");
  Document wc = make_document("insert", "c", "writeConcern", make_document("w", 1));
  Document rc = make_document("find", "c", "readConcern", make_document("level", "local"));
  Document commit_wc =
      make_document("commitTransaction", 1, "writeConcern", make_document("w", "majority"));
  EXPECT_EQ(code_of([&] {
              enter_transaction(t.session, statement(3), "count", count.view(), no_engine(), {});
            }),
            263);
  EXPECT_EQ(code_of([&] {
              enter_transaction(t.session, statement(3), "insert", wc.view(), no_engine(), {});
            }),
            72);
  EXPECT_EQ(code_of([&] {
              enter_transaction(t.session, statement(3), "find", rc.view(), no_engine(), {});
            }),
            72);
  EXPECT_EQ(code_of([&] {
              enter_transaction(t.session, statement(3), "commitTransaction", commit_wc.view(),
                                no_engine(), {});
            }),
            0);
  SessionInfo restart = statement(3);
  restart.start_transaction = true;
  Document find = make_document("find", "c");
  EXPECT_EQ(
      code_of([&] { enter_transaction(t.session, restart, "find", find.view(), no_engine(), {}); }),
      117);
  EXPECT_FALSE(allowed_in_transaction("drop"));
  EXPECT_TRUE(allowed_in_transaction("getMore"));
}

TEST(SessionStatements, ARetryableWriteRunsOncePerTxnNumber) {
  Session session("key-of-sixteen-b");
  EXPECT_EQ(enter_retryable_write(session, 1, "insert"), nullptr);
  record_retryable_write(session, make_document("n", 1, "ok", 1.0));
  const Document* again = enter_retryable_write(session, 1, "insert");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->get("n").as_int32(), 1);
  EXPECT_EQ(enter_retryable_write(session, 2, "update"), nullptr);  // a new write
  EXPECT_EQ(code_of([&] { enter_retryable_write(session, 1, "insert"); }), 225);
  EXPECT_EQ(code_of([&] { enter_retryable_write(session, 3, "find"); }), 50768);
}

TEST(SessionStatements, ANewerTxnNumberAbortsTheOpenTransaction) {
  OpenTransaction t(3);
  EXPECT_EQ(enter_retryable_write(t.session, 4, "insert"), nullptr);
  EXPECT_EQ(t.fake->state_, engine::TransactionState::kAborted);
  EXPECT_EQ(t.session.transaction, nullptr);
  // The txnNumber of a transaction cannot be reused for a retryable write.
  OpenTransaction u(5);
  EXPECT_EQ(code_of([&] { enter_retryable_write(u.session, 5, "insert"); }), 217);
}

TEST(SessionStatements, LabelsAsMongod) {
  Error conflict(ErrorCode::kWriteConflict, "conflict");
  label_transaction_error(conflict, "update");
  EXPECT_TRUE(conflict.has_label(kTransientTransactionError));
  // A statement that found the node not primary is transient (mongod's NotPrimaryError
  // category); a commit that did is not (its outcome is what UnknownTransactionCommitResult
  // is for).
  Error not_primary(10107, "not primary");
  label_transaction_error(not_primary, "insert");
  EXPECT_TRUE(not_primary.has_label(kTransientTransactionError));
  Error stepped_down(189, "stepped down");
  label_transaction_error(stepped_down, "find");
  EXPECT_TRUE(stepped_down.has_label(kTransientTransactionError));
  Error commit_not_primary(10107, "not primary");
  label_transaction_error(commit_not_primary, "commitTransaction");
  EXPECT_FALSE(commit_not_primary.has_label(kTransientTransactionError));
  Error duplicate(ErrorCode::kDuplicateKey, "dup");
  label_transaction_error(duplicate, "insert");
  EXPECT_TRUE(duplicate.labels().empty());
  Error shutdown(91, "shutting down");
  label_retryable_write_error(shutdown);
  EXPECT_TRUE(shutdown.has_label(kRetryableWriteError));
  Error bad(ErrorCode::kBadValue, "bad");
  label_retryable_write_error(bad);
  EXPECT_TRUE(bad.labels().empty());
}

}  // namespace
}  // namespace mongostore::server
