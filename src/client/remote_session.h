// RemoteSession: a ClientSession on the remote backend, over libmongoc's
// mongoc_client_session_t.
//
// A session holds one mongoc_client_t popped from the backend's pool for its whole life (a
// libmongoc session belongs to the client that started it), and a RemoteCommandRunner bound
// to both, so every command of its client() carries the session's lsid, and in a
// transaction its txnNumber, autocommit and startTransaction fields, all appended by
// libmongoc. Transactions start, commit and abort through libmongoc, which also retries a
// commit once on a retryable error as the transactions specification says. Errors carry
// the reply's errorLabels. Destroying the session ends it (aborting an open transaction)
// and gives the client back to the pool. One thread at a time.
#pragma once

#include <memory>

#include "client/remote_command.h"
#include "mongostore/client/client.h"
#include "mongostore/client/client_session.h"

struct _mongoc_client_t;
struct _mongoc_client_session_t;

namespace mongostore::client {

class RemoteSession final : public ClientSession {
 public:
  /// Throws (HostUnreachable, or the server's error) when the session cannot start.
  RemoteSession(std::shared_ptr<RemoteCommandRunner> base, const SessionOptions& options);
  ~RemoteSession() override;
  RemoteSession(const RemoteSession&) = delete;
  RemoteSession& operator=(const RemoteSession&) = delete;

  Client& client() override { return *client_; }
  void start_transaction(const TransactionOptions& options) override;
  using ClientSession::start_transaction;
  void commit_transaction() override;
  void abort_transaction() override;
  bool in_transaction() const override;
  const TransactionOptions& default_transaction_options() const override {
    return options_.default_transaction_options;
  }

 private:
  std::shared_ptr<RemoteCommandRunner> base_;
  SessionOptions options_;
  _mongoc_client_t* mongoc_client_ = nullptr;
  _mongoc_client_session_t* session_ = nullptr;
  std::shared_ptr<Client> client_;
};

}  // namespace mongostore::client
