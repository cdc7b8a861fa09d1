// EmbeddedSession: a ClientSession on the embedded engine. Its transactions are the
// engine's (mongostore/engine/transaction.h); its client() runs each operation on the
// transaction's engine view while a transaction is in progress, else on the engine.
//
// A transaction the engine aborted (a failed statement, a conflict, its age) stays the
// session's transaction until the user aborts it (or with_transaction does), so operations
// in between fail NoSuchTransaction rather than quietly running outside it, as with a
// driver. One thread at a time, as ClientSession says.
#pragma once

#include <memory>

#include "mongostore/client/client.h"
#include "mongostore/client/client_session.h"
#include "mongostore/engine/engine.h"

namespace mongostore::client {

class EmbeddedSession;

/// The embedded client whose operations run in `session` (embedded_client.cc).
std::shared_ptr<Client> embedded_session_client(std::shared_ptr<engine::Engine> engine,
                                                EmbeddedSession* session);

class EmbeddedSession final : public ClientSession {
 public:
  EmbeddedSession(std::shared_ptr<engine::Engine> engine, const SessionOptions& options)
      : engine_(engine), options_(options), client_(embedded_session_client(engine, this)) {}

  Client& client() override { return *client_; }
  void start_transaction(const TransactionOptions& options) override;
  using ClientSession::start_transaction;
  void commit_transaction() override;
  void abort_transaction() override;
  bool in_transaction() const override { return current_ != nullptr; }
  const TransactionOptions& default_transaction_options() const override {
    return options_.default_transaction_options;
  }

  /// The transaction operations run in, or nullptr.
  engine::Transaction* transaction() const { return current_.get(); }

 private:
  std::shared_ptr<engine::Engine> engine_;
  SessionOptions options_;
  std::shared_ptr<Client> client_;
  std::shared_ptr<engine::Transaction> current_;
  // The transaction last ended by commit_transaction or abort_transaction: a retried commit
  // asks it again (committed: succeeds; aborted: NoSuchTransaction, transient).
  std::shared_ptr<engine::Transaction> last_;
};

}  // namespace mongostore::client
