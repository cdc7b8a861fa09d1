#include "engine/transaction/multi_document_transaction.h"

#include <string>

#include "engine/storage/wiredtiger_connection.h"
#include "engine/storage/write_conflict.h"
#include "engine/write_conflict_retry.h"

namespace mongostore::engine {

MultiDocumentTransaction::MultiDocumentTransaction(std::shared_ptr<const void> keep_alive,
                                                   WiredTigerConnection& connection, uint64_t id,
                                                   const TransactionOptions& options)
    : keep_alive_(std::move(keep_alive)),
      unit_(connection.pool(), UnitOfWork::Mode::kWrite,
            connection.commit_config_for(options.journal)),
      id_(id),
      deadline_(Clock::now() + options.lifetime_limit) {
  unit_.begin();
}

MultiDocumentTransaction::~MultiDocumentTransaction() {
  std::lock_guard lock(mutex_);
  abort_locked();
}

Error MultiDocumentTransaction::no_such_transaction() const {
  std::string why = expired_ ? "has been aborted because it ran longer than the transaction "
                               "lifetime limit (transactionLifetimeLimitSeconds)"
                    : state_ == TransactionState::kCommitted ? "has already been committed"
                                                             : "has been aborted";
  Error e(ErrorCode::kNoSuchTransaction,
          "Transaction with txnNumber " + std::to_string(id_) + " " + why + ".");
  e.add_label(kTransientTransactionError);
  return e;
}

void MultiDocumentTransaction::check_usable_locked() {
  if (state_ == TransactionState::kActive && Clock::now() >= deadline_) {
    expired_ = true;
    abort_locked();
  }
  if (state_ != TransactionState::kActive) throw no_such_transaction();
}

void MultiDocumentTransaction::commit() {
  std::lock_guard lock(mutex_);
  if (state_ == TransactionState::kCommitted) return;  // a retried commit succeeds
  check_usable_locked();
  try {
    unit_.commit();
  } catch (const WriteConflictException&) {
    state_ = TransactionState::kAborted;
    throw transaction_write_conflict();
  } catch (Error& e) {
    state_ = TransactionState::kAborted;
    e.add_label(kUnknownTransactionCommitResult);
    throw;
  }
  state_ = TransactionState::kCommitted;
}

void MultiDocumentTransaction::abort() {
  std::lock_guard lock(mutex_);
  if (state_ == TransactionState::kCommitted) {
    throw Error(ErrorCode::kTransactionCommitted,
                "Transaction with txnNumber " + std::to_string(id_) + " has been committed.");
  }
  abort_locked();
}

void MultiDocumentTransaction::abort_locked() {
  if (state_ != TransactionState::kActive) return;
  state_ = TransactionState::kAborted;
  unit_.abort();
}

TransactionState MultiDocumentTransaction::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

bool MultiDocumentTransaction::abort_if_expired(Clock::time_point now) {
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  if (state_ == TransactionState::kActive && now >= deadline_) {
    expired_ = true;
    abort_locked();
  }
  return state_ != TransactionState::kActive;
}

TransactionStatement::TransactionStatement(MultiDocumentTransaction& txn, OperationContext& op)
    : txn_(txn), lock_(txn.mutex_), op_(op) {
  txn_.check_usable_locked();
  previous_unit_ = op_.set_unit_of_work(&txn_.unit_);
  previous_txn_ = op_.set_transaction(&txn_);
}

TransactionStatement::~TransactionStatement() {
  op_.set_unit_of_work(previous_unit_);
  op_.set_transaction(previous_txn_);
}

}  // namespace mongostore::engine
