// MultiDocumentTransaction: the engine's Transaction (mongostore/engine/transaction.h), one
// UnitOfWork held open across engine calls.
//
// Each operation made inside it is a statement: a TransactionStatement takes the
// transaction's lock (statements run one at a time, whichever thread they come from; the
// lock is recursive because a statement may call the engine again, e.g. an aggregation's
// $lookup), checks that the transaction is still active and not past its lifetime, and
// installs the transaction's unit of work in the statement's OperationContext. Storage
// calls then run in that unit: write_conflict_retry sees the transaction and runs its body
// once, turning a write conflict into WriteConflict (112, TransientTransactionError) instead
// of retrying. A statement that throws aborts the transaction (as mongod aborts a
// transaction on a failed statement: WiredTiger has no savepoints, so a half-done statement
// cannot be undone alone).
//
// The engine view (engine()) is owned here; it refers back to this object by a plain
// pointer, so there is no ownership cycle. Cursors opened in the transaction hold a
// shared_ptr to it and run their batches as statements.
//
// Thread-safe: every member takes the lock, except id() and the reaper's
// abort_if_expired(), which only try-locks (a running statement finishes first; the
// statement after it finds the transaction expired).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

#include "engine/operation_context.h"
#include "engine/unit_of_work.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/transaction.h"
#include "mongostore/error.h"

namespace mongostore::engine {

class WiredTigerConnection;

class MultiDocumentTransaction final
    : public Transaction,
      public std::enable_shared_from_this<MultiDocumentTransaction> {
 public:
  using Clock = std::chrono::steady_clock;

  /// `keep_alive` owns `connection` (the engine's units): held until this is destroyed,
  /// after the unit of work has given its session back.
  MultiDocumentTransaction(std::shared_ptr<const void> keep_alive, WiredTigerConnection& connection,
                           uint64_t id, const TransactionOptions& options);
  ~MultiDocumentTransaction() override;

  /// Sets the engine view engine() returns; called once by the engine that made this.
  void set_view(std::shared_ptr<Engine> view) { view_ = std::move(view); }

  Engine& engine() override { return *view_; }
  void commit() override;
  void abort() override;
  TransactionState state() const override;
  uint64_t id() const override { return id_; }

  /// Aborts the transaction if it is active and past its lifetime limit, unless a statement
  /// holds it right now. For the reaper; returns whether the transaction is finished.
  bool abort_if_expired(Clock::time_point now);

  /// NoSuchTransaction (251) with the TransientTransactionError label, as mongod words it.
  Error no_such_transaction() const;

 private:
  friend class TransactionStatement;
  // The caller holds mutex_.
  void check_usable_locked();
  void abort_locked();

  // First: destroyed last.
  std::shared_ptr<const void> keep_alive_;
  mutable std::recursive_mutex mutex_;
  UnitOfWork unit_;
  const uint64_t id_;
  const Clock::time_point deadline_;
  TransactionState state_ = TransactionState::kActive;
  bool expired_ = false;
  std::shared_ptr<Engine> view_;
};

/// One operation inside a transaction (see the file comment). Construct it on the
/// operation's OperationContext before any storage call; call abort_transaction() when the
/// operation fails. Throws NoSuchTransaction when the transaction is not active.
class TransactionStatement {
 public:
  TransactionStatement(MultiDocumentTransaction& txn, OperationContext& op);
  ~TransactionStatement();
  TransactionStatement(const TransactionStatement&) = delete;
  TransactionStatement& operator=(const TransactionStatement&) = delete;

  /// The statement failed: roll the whole transaction back.
  void abort_transaction() { txn_.abort_locked(); }

 private:
  MultiDocumentTransaction& txn_;
  std::unique_lock<std::recursive_mutex> lock_;
  OperationContext& op_;
  UnitOfWork* previous_unit_;
  MultiDocumentTransaction* previous_txn_;
};

/// Runs `body` as a statement of `txn` on `op` (or plainly when `txn` is null): the
/// transaction is aborted if `body` throws.
template <class F>
auto run_statement(MultiDocumentTransaction* txn, OperationContext& op, F&& body) {
  if (txn == nullptr) return body();
  TransactionStatement statement(*txn, op);
  try {
    return body();
  } catch (...) {
    statement.abort_transaction();
    throw;
  }
}

}  // namespace mongostore::engine
