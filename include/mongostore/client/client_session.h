// Sessions and multi-document transactions on the Client seam, on both backends.
//
//   auto session = client->start_session();
//   session->with_transaction([&](ClientSession& s) {
//     auto accounts = s.client().database("bank").collection("accounts");
//     accounts.update_one(from, debit);
//     accounts.update_one(to, credit);
//   });
//
// Every operation made through `session->client()` (and the Database / Collection handles
// taken from it) runs in the session, and inside its transaction while one is active. On
// the embedded backend a transaction is the engine's (mongostore/engine/transaction.h:
// snapshot isolation, first writer wins, 60 s lifetime). On the remote backend the session
// is libmongoc's `mongoc_client_session_t`, so the deployment must support transactions (a
// replica set, e.g. `mongostore serve` in its default replica-set mode).
//
// Errors are the seam's usual mongostore::Error, with MongoDB's labels
// (Error::labels()): an error labelled TransientTransactionError means the whole
// transaction may be retried; a commit error labelled UnknownTransactionCommitResult means
// the commit may be retried. with_transaction() applies exactly those rules, as drivers'
// convenient transaction API does.
//
// Thread safety: a session is used by one thread at a time (as drivers' sessions); different
// sessions of one client may be used concurrently.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace mongostore::client {

class Client;

/// Options of one transaction.
struct TransactionOptions {
  /// readConcern level: "snapshot" (the default: what the embedded engine gives anyway),
  /// "majority" or "local"; empty: none is sent (the deployment's default, as a driver's
  /// transaction without options). The embedded backend reads one snapshot whatever the level.
  std::string read_concern = "snapshot";
  /// writeConcern of the commit: journaled (j: true, the default) or not.
  bool journal = true;
  /// writeConcern `w` of the commit: empty (none), "majority", or a number such as "1". The
  /// embedded backend is one node, for which "majority" and "1" are the same; it refuses
  /// others (BadValue).
  std::string w;
  /// Remote backend: the commit carries no `j` (so no writeConcern at all unless `w` is set):
  /// the deployment's default, as a driver's transaction without options. The embedded
  /// backend journals as `journal` says.
  bool default_write_concern = false;
  /// maxCommitTimeMS; unset: none.
  std::optional<std::chrono::milliseconds> max_commit_time;
};

struct SessionOptions {
  /// Causal consistency: each read sees the session's earlier writes (afterClusterTime on
  /// the remote backend; trivially true on the embedded one).
  bool causal_consistency = true;
  /// Defaults for start_transaction() without options.
  TransactionOptions default_transaction_options;
};

class ClientSession {
 public:
  virtual ~ClientSession() = default;

  /// The client whose operations run in this session (valid while the session lives).
  virtual Client& client() = 0;

  /// Starts a transaction. Throws OperationNotSupportedInTransaction (263) if one is already
  /// in progress on this session.
  virtual void start_transaction(const TransactionOptions& options) = 0;
  void start_transaction() { start_transaction(default_transaction_options()); }

  /// Commits the transaction in progress (see mongostore/engine/transaction.h for what may
  /// fail and how it is labelled). Throws NoSuchTransaction (251) when none was started.
  virtual void commit_transaction() = 0;

  /// Aborts the transaction in progress; a no-op if it was already aborted. Throws
  /// NoSuchTransaction (251) when none was started.
  virtual void abort_transaction() = 0;

  /// Whether a transaction is in progress (started, neither committed nor aborted).
  virtual bool in_transaction() const = 0;

  virtual const TransactionOptions& default_transaction_options() const = 0;

  /// Runs `callback` in a transaction and commits it, with drivers' convenient-API rules:
  /// the callback (and the whole transaction) is retried on a TransientTransactionError, the
  /// commit alone on UnknownTransactionCommitResult, both only until `time_limit` (120 s,
  /// as drivers) has passed since the call began; any other error aborts the transaction and
  /// propagates. If the callback itself commits or aborts, that stands.
  void with_transaction(const std::function<void(ClientSession&)>& callback,
                        const TransactionOptions& options,
                        std::chrono::milliseconds time_limit = std::chrono::seconds(120));
  void with_transaction(const std::function<void(ClientSession&)>& callback) {
    with_transaction(callback, default_transaction_options());
  }
};

}  // namespace mongostore::client
