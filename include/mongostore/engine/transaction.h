// Multi-document transactions on the embedded engine.
//
// A Transaction is one WiredTiger snapshot transaction held open across engine calls. Every
// operation made through `transaction->engine()` runs inside it:
//
//   auto txn = engine->begin_transaction();
//   txn->engine().update_one("bank", "accounts", from, debit, {});
//   txn->engine().update_one("bank", "accounts", to, credit, {});
//   txn->commit();  // both updates become visible together, or neither does
//
// Isolation is snapshot isolation, as MongoDB's `readConcern: snapshot`: reads see the
// database as it was when the transaction's first operation ran, plus the transaction's
// own writes; nothing it writes is visible to anyone else before commit; abort leaves
// nothing behind. Two transactions writing the same document conflict: the second writer's
// operation fails at once with WriteConflict (112) carrying the TransientTransactionError
// label (first writer wins, as on MongoDB), and its transaction is aborted. Writes made
// outside any transaction that meet a transaction's uncommitted write wait (retrying) until
// it commits or aborts, as on MongoDB.
//
// Errors and state:
//   - Any error raised by an operation inside the transaction aborts the transaction (as
//     mongod does); later operations and commit() fail NoSuchTransaction (251) with the
//     TransientTransactionError label.
//   - A transaction open longer than `lifetime_limit` is aborted by the engine
//     (transactionLifetimeLimitSeconds), so an abandoned one cannot block writers forever.
//   - DDL MongoDB forbids in a transaction fails OperationNotSupportedInTransaction (263):
//     drop, rename, collMod, dropDatabase, index creation and drops, `$out` / `$merge`.
//     Creating a collection (explicitly or by a first insert) is allowed, as on MongoDB
//     4.4+, with one difference: the empty collection is created at once, outside the
//     transaction (WiredTiger creates tables outside transactions), so others see it empty
//     before commit and it stays, empty, if the transaction aborts. (Dropping it again on
//     abort could drop another writer's uncommitted documents.)
//   - A sort inside a transaction never spills to disk (allowDiskUse is ignored there: the
//     external sort reads outside the transaction's snapshot); past the memory limit it
//     fails as a sort without allowDiskUse does.
//   - commit() of a committed transaction is a no-op (a retried commit succeeds, as on
//     MongoDB); abort() of a committed one fails TransactionCommitted (256); abort() of an
//     aborted one is a no-op.
//
// Thread safety: a Transaction may be used from several threads, but its operations run one
// at a time (each waits for the previous one), as MongoDB serialises a session's commands.
// Cursors opened inside a transaction read its snapshot; after the transaction ends their
// next batch fails NoSuchTransaction.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

namespace mongostore::engine {

class Engine;

struct TransactionOptions {
  /// Commit waits until the transaction is in the journal (writeConcern j:true, the
  /// default); false commits without waiting for the flush (j:false). Ignored in memory.
  bool journal = true;
  /// transactionLifetimeLimitSeconds: older than this, an open transaction is aborted.
  std::chrono::milliseconds lifetime_limit = std::chrono::seconds(60);
};

enum class TransactionState { kActive, kCommitted, kAborted };

class Transaction {
 public:
  virtual ~Transaction() = default;

  /// The engine as seen from inside the transaction. Valid as long as the Transaction (the
  /// shared_ptr begin_transaction returned) lives; operations through it after the
  /// transaction ended fail NoSuchTransaction (251).
  virtual Engine& engine() = 0;

  /// Makes every write of the transaction visible at once and durable (per `journal`).
  /// Throws NoSuchTransaction (251, TransientTransactionError) if the transaction was
  /// aborted (by an error, by abort(), or for its age); WriteConflict (112,
  /// TransientTransactionError) if WiredTiger refuses the commit. A commit that fails for
  /// any other reason is labelled UnknownTransactionCommitResult.
  virtual void commit() = 0;

  /// Rolls back every write of the transaction. Throws TransactionCommitted (256) after
  /// commit(); a no-op when already aborted.
  virtual void abort() = 0;

  virtual TransactionState state() const = 0;

  /// A number unique among this engine's transactions, for logs and error messages.
  virtual uint64_t id() const = 0;
};

}  // namespace mongostore::engine
