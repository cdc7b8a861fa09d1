// OperationContext: what one engine operation carries through the internal functions.
//
// Created by the facade for each call of the Engine interface (and by a find cursor for each
// batch) and passed explicitly to every function below it; nothing reaches it through
// thread-locals. It holds the unit of work the operation currently runs in (one at a time:
// write_conflict_retry installs a fresh one per attempt, and an operation may run several in
// sequence, e.g. a catalog write and then a document write). Inside a multi-document
// transaction it also names the transaction, whose unit of work it then holds for the whole
// operation (see transaction/multi_document_transaction.h).
//
// Not thread-safe: one operation runs on one thread.
#pragma once

#include <wiredtiger.h>

#include "engine/unit_of_work.h"

namespace mongostore::engine {

class WiredTigerConnection;
class MultiDocumentTransaction;

class OperationContext {
 public:
  explicit OperationContext(WiredTigerConnection& connection) : connection_(&connection) {}
  OperationContext(const OperationContext&) = delete;
  OperationContext& operator=(const OperationContext&) = delete;

  WiredTigerConnection& connection() const { return *connection_; }

  /// The unit of work the operation runs in; only inside write_conflict_retry's body.
  UnitOfWork& unit_of_work() const { return *unit_of_work_; }
  bool in_unit_of_work() const { return unit_of_work_ != nullptr; }
  /// The unit of work's session.
  WT_SESSION* session() const { return unit_of_work_->session(); }

  /// Installs `unit` (nullptr: none) and returns the one it replaces. For
  /// write_conflict_retry.
  UnitOfWork* set_unit_of_work(UnitOfWork* unit) {
    UnitOfWork* previous = unit_of_work_;
    unit_of_work_ = unit;
    return previous;
  }

  /// The multi-document transaction the operation runs in, or nullptr (auto-commit).
  MultiDocumentTransaction* transaction() const { return transaction_; }
  /// Installs `txn` (nullptr: none) and returns the one it replaces. For
  /// TransactionStatement.
  MultiDocumentTransaction* set_transaction(MultiDocumentTransaction* txn) {
    MultiDocumentTransaction* previous = transaction_;
    transaction_ = txn;
    return previous;
  }

 private:
  WiredTigerConnection* connection_;
  UnitOfWork* unit_of_work_ = nullptr;
  MultiDocumentTransaction* transaction_ = nullptr;
};

}  // namespace mongostore::engine
