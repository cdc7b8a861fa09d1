#include "server/sessions/session_statements.h"

#include <array>
#include <string>

namespace mongostore::server {
namespace {

using bson::Value;

constexpr int32_t kConflictingOperationInProgress = 117;
constexpr int32_t kLockTimeout = 24;

// mongod 7.0's allowlist of commands in a transaction (less those mongostore has not).
constexpr std::array<std::string_view, 15> kTransactionCommands = {
    "abortTransaction", "aggregate",     "commitTransaction", "create",
    "createIndexes",    "delete",        "distinct",          "find",
    "findAndModify",    "findandmodify", "getMore",           "insert",
    "killCursors",      "update",        "bulkWrite"};

// The codes after which mongod labels a retryable write's error RetryableWriteError: the
// server could not complete it for a reason a retry on a healthy primary overcomes.
constexpr std::array<int32_t, 12> kRetryableCodes = {
    11600 /*InterruptedAtShutdown*/, 11602 /*InterruptedDueToReplStateChange*/,
    10107 /*NotWritablePrimary*/,    13435 /*NotPrimaryNoSecondaryOk*/,
    13436 /*NotPrimaryOrSecondary*/, 189 /*PrimarySteppedDown*/,
    91 /*ShutdownInProgress*/,       7 /*HostNotFound*/,
    6 /*HostUnreachable*/,           89 /*NetworkTimeout*/,
    9001 /*SocketException*/,        262 /*ExceededTimeLimit*/};

std::string session_text(const Session& session) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < 16 && i < session.key.size(); ++i) {
    auto byte = static_cast<uint8_t>(session.key[i]);
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
    if (i == 3 || i == 5 || i == 7 || i == 9) out += '-';
  }
  return out;
}

Error too_old(const Session& session, int64_t n) {
  return Error(ErrorCode::kTransactionTooOld,
               "Cannot start transaction " + std::to_string(n) + " on session " +
                   session_text(session) + " because a newer transaction " +
                   std::to_string(session.txn_number) + " has already started.");
}

}  // namespace

bool is_retryable_write_command(std::string_view name) {
  return name == "insert" || name == "update" || name == "delete" || name == "findAndModify" ||
         name == "findandmodify";
}

bool allowed_in_transaction(std::string_view name) {
  for (std::string_view allowed : kTransactionCommands) {
    if (allowed == name) return true;
  }
  return false;
}

void abort_open_transaction(Session& session) {
  if (!session.transaction || session.transaction->state() != engine::TransactionState::kActive) {
    return;
  }
  try {
    session.transaction->abort();
  } catch (const Error&) {
    // Ended meanwhile (its lifetime limit): nothing is left to roll back.
  }
}

std::shared_ptr<engine::Transaction> enter_transaction(Session& session, const SessionInfo& info,
                                                       std::string_view command,
                                                       const bson::DocumentView& cmd,
                                                       engine::Engine& engine,
                                                       const engine::TransactionOptions& options) {
  const int64_t n = *info.txn_number;
  const std::string name(command);
  if (!allowed_in_transaction(command)) {
    throw Error(ErrorCode::kOperationNotSupportedInTransaction,
                "Cannot run '" + name + "' in a multi-document transaction.");
  }
  const bool ends = command == "commitTransaction" || command == "abortTransaction";
  if (!ends && cmd.has("writeConcern")) {
    throw Error(ErrorCode::kInvalidOptions,
                "Cannot set write concern after starting a transaction.");
  }
  if (n < session.txn_number) throw too_old(session, n);
  Value rc = cmd.get("readConcern");
  if (info.start_transaction) {
    if (ends) {
      throw Error(ErrorCode::kInvalidOptions,
                  "Cannot start a transaction with " + name + "; it ends one");
    }
    if (n == session.txn_number) {
      throw Error(kConflictingOperationInProgress,
                  "Cannot start a transaction at given transaction number " + std::to_string(n) +
                      " on session " + session_text(session) +
                      " a transaction with the same number is already in progress or ended");
    }
    if (rc.is_document()) {
      Value level = rc.as_document().get("level");
      if (level.is_string() && level.as_string() != "local" && level.as_string() != "majority" &&
          level.as_string() != "snapshot") {
        throw Error(ErrorCode::kInvalidOptions,
                    "The readConcern level must be either 'local' (default), 'majority' or "
                    "'snapshot' in order to run in a transaction");
      }
    }
    abort_open_transaction(session);
    session.txn_number = n;
    session.write_reply.reset();
    session.transaction.reset();
    session.transaction = engine.begin_transaction(options);
    return session.transaction;
  }
  if (n > session.txn_number || !session.transaction) {
    throw Error(ErrorCode::kNoSuchTransaction,
                "Given transaction number " + std::to_string(n) +
                    " does not match any in-progress transactions. The active transaction "
                    "number is " +
                    std::to_string(session.txn_number))
        .add_label(kTransientTransactionError);
  }
  if (!rc.is_missing()) {
    throw Error(ErrorCode::kInvalidOptions,
                "Only the first command in a transaction may specify a readConcern");
  }
  switch (session.transaction->state()) {
    case engine::TransactionState::kActive:
      break;
    case engine::TransactionState::kCommitted:
      // A retried commit succeeds again (the transaction's commit() is then a no-op).
      if (command == "commitTransaction") break;
      throw Error(ErrorCode::kTransactionCommitted,
                  "Transaction " + std::to_string(n) + " has been committed.");
    case engine::TransactionState::kAborted:
      throw Error(ErrorCode::kNoSuchTransaction,
                  "Transaction with txnNumber " + std::to_string(n) + " has been aborted.")
          .add_label(kTransientTransactionError);
  }
  return session.transaction;
}

const bson::Document* enter_retryable_write(Session& session, int64_t n, std::string_view command) {
  if (!is_retryable_write_command(command)) {
    throw Error(50768,
                "txnNumber may only be provided for multi-document transactions and retryable "
                "write commands. autocommit:false was not provided, and " +
                    std::string(command) + " is not a retryable write command.");
  }
  if (n < session.txn_number) throw too_old(session, n);
  if (n == session.txn_number) {
    if (session.transaction) {
      throw Error(ErrorCode::kIncompleteTransactionHistory,
                  "Retryable write with txnNumber " + std::to_string(n) +
                      " is prohibited on session " + session_text(session) +
                      " because a transaction with txnNumber " + std::to_string(n) +
                      " has already started on this session.");
    }
    if (session.write_reply) return &*session.write_reply;
    return nullptr;  // the first attempt failed as a whole: nothing was recorded, run it
  }
  abort_open_transaction(session);
  session.transaction.reset();
  session.txn_number = n;
  session.write_reply.reset();
  return nullptr;
}

void record_retryable_write(Session& session, bson::Document reply) {
  session.write_reply = std::move(reply);
}

void label_transaction_error(Error& e, std::string_view command) {
  if (command == "abortTransaction") return;  // drivers ignore abort's errors
  switch (e.error_code()) {
    case ErrorCode::kWriteConflict:
    case ErrorCode::kNoSuchTransaction:
      e.add_label(kTransientTransactionError);
      break;
    default:
      if (e.code() == kLockTimeout) e.add_label(kTransientTransactionError);
      break;
  }
  // A statement (not a commit) that failed because the node is not (or no longer) primary:
  // the whole transaction may succeed on the next primary, so mongod labels the errors of
  // its NotPrimaryError category transient too. mongostore never steps down; these come
  // from the failCommand fail point.
  if (command != "commitTransaction") {
    switch (e.code()) {
      case 189:    // PrimarySteppedDown
      case 10107:  // NotWritablePrimary
      case 11602:  // InterruptedDueToReplStateChange
      case 13435:  // NotPrimaryNoSecondaryOk
      case 13436:  // NotPrimaryOrSecondary
        e.add_label(kTransientTransactionError);
        break;
      default:
        break;
    }
  }
}

void label_retryable_write_error(Error& e) {
  for (int32_t code : kRetryableCodes) {
    if (e.code() == code) {
      e.add_label(kRetryableWriteError);
      return;
    }
  }
}

}  // namespace mongostore::server
