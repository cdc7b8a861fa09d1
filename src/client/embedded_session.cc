#include "client/embedded_session.h"

#include <string>

#include "mongostore/error.h"

namespace mongostore::client {

void EmbeddedSession::start_transaction(const TransactionOptions& options) {
  if (current_) {
    throw Error(ErrorCode::kOperationNotSupportedInTransaction, "Transaction already in progress");
  }
  if (!options.read_concern.empty() && options.read_concern != "snapshot" &&
      options.read_concern != "majority" && options.read_concern != "local") {
    throw Error(ErrorCode::kBadValue,
                "readConcern level '" + options.read_concern +
                    "' is not valid in a transaction (snapshot, majority or local)");
  }
  if (!options.w.empty() && options.w != "majority" && options.w != "1") {
    throw Error(ErrorCode::kBadValue,
                "writeConcern w '" + options.w + "' is not valid for one node (majority or 1)");
  }
  engine::TransactionOptions engine_options;
  engine_options.journal = options.journal;
  current_ = engine_->begin_transaction(engine_options);
  last_.reset();
}

void EmbeddedSession::commit_transaction() {
  if (!current_) {
    if (last_) return last_->commit();  // a retried commit
    throw Error(ErrorCode::kNoSuchTransaction, "No transaction started");
  }
  last_ = std::move(current_);
  current_.reset();
  last_->commit();
}

void EmbeddedSession::abort_transaction() {
  if (!current_) {
    if (last_ && last_->state() == engine::TransactionState::kCommitted) {
      throw Error(ErrorCode::kTransactionCommitted,
                  "Cannot call abortTransaction after calling commitTransaction");
    }
    if (last_) return;  // already aborted
    throw Error(ErrorCode::kNoSuchTransaction, "No transaction started");
  }
  last_ = std::move(current_);
  current_.reset();
  last_->abort();
}

}  // namespace mongostore::client
