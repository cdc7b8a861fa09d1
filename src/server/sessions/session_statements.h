// How a command carrying session fields runs in its session, with mongod 7.0's rules and
// errors:
//
//   - a retryable write (lsid + txnNumber, no autocommit) of insert / update / delete /
//     findAndModify runs once per txnNumber: a retry of the session's current txnNumber
//     returns the first attempt's reply without writing again, an older txnNumber fails
//     TransactionTooOld (225), a newer one aborts the session's open transaction. Another
//     command with a txnNumber and no autocommit fails Location50768.
//   - a transaction statement (autocommit: false) with startTransaction: true begins an
//     engine transaction under a new txnNumber (aborting the session's open one); later
//     statements with the same txnNumber run in it; only the first may carry readConcern
//     (local, majority or snapshot) and none but commitTransaction / abortTransaction may
//     carry writeConcern. An unknown txnNumber fails NoSuchTransaction (251), a statement
//     after commit TransactionCommitted (256), after abort NoSuchTransaction; commands
//     mongod does not run in a transaction fail OperationNotSupportedInTransaction (263).
//
// The retried reply is the whole reply of the first attempt: mongostore runs a command's
// statements as one unit, so there is no partially executed batch to complete (a batch that
// stopped at a write error answers the retry with the same error). It lives in memory only:
// a retry that arrives after a server restart is not deduplicated.
//
// Every function here is called with the session checked out (SessionCatalog::Checkout).
#pragma once

#include <memory>
#include <string_view>

#include "mongostore/bson/document.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/transaction.h"
#include "mongostore/error.h"
#include "server/sessions/session_catalog.h"
#include "server/sessions/session_info.h"

namespace mongostore::server {

/// insert, update, delete, findAndModify (and its lowercase alias).
bool is_retryable_write_command(std::string_view name);

/// The commands mongod runs inside a multi-document transaction.
bool allowed_in_transaction(std::string_view name);

/// Takes transaction statement `command` (info.in_transaction) into `session`: starts the
/// transaction (info.start_transaction, with `engine` and `options`) or finds the one it
/// continues, and returns it. `cmd` is the command document (its readConcern and
/// writeConcern are checked against the transaction rules).
std::shared_ptr<engine::Transaction> enter_transaction(Session& session, const SessionInfo& info,
                                                       std::string_view command,
                                                       const bson::DocumentView& cmd,
                                                       engine::Engine& engine,
                                                       const engine::TransactionOptions& options);

/// Takes retryable write `command` under `txn_number` into `session`; returns the reply of
/// the first attempt when this is a retry of a write that completed, else nullptr (the
/// command runs, then record_retryable_write keeps its reply).
const bson::Document* enter_retryable_write(Session& session, int64_t txn_number,
                                            std::string_view command);

/// Keeps `reply` as the answer to retries of the session's current txnNumber.
void record_retryable_write(Session& session, bson::Document reply);

/// Aborts the session's transaction if it is still open (a newer txnNumber, an ended
/// session); never throws.
void abort_open_transaction(Session& session);

/// Adds the labels mongod puts on `e` raised by a statement of `transaction`
/// (TransientTransactionError when retrying the whole transaction may succeed).
void label_transaction_error(Error& e, std::string_view command);

/// Adds RetryableWriteError when `e` is one a driver may retry a retryable write (or a
/// commit / abort) after: the network-class and shutdown errors mongod labels.
void label_retryable_write_error(Error& e);

}  // namespace mongostore::server
