// ClientSession::with_transaction: drivers' convenient transaction API (the transactions
// specification's "withTransaction"), shared by both backends because the retry rules are
// the same whatever carries the transaction.
#include <chrono>

#include "mongostore/client/client_session.h"
#include "mongostore/error.h"

namespace mongostore::client {

void ClientSession::with_transaction(const std::function<void(ClientSession&)>& callback,
                                     const TransactionOptions& options,
                                     std::chrono::milliseconds time_limit) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto within_limit = [&] { return Clock::now() - start < time_limit; };
  for (;;) {
    start_transaction(options);
    try {
      callback(*this);
    } catch (const Error& e) {
      if (in_transaction()) {
        try {
          abort_transaction();
        } catch (const Error&) {
          // The callback's error is the one to report; the abort was best effort.
        }
      }
      if (e.has_label(kTransientTransactionError) && within_limit()) continue;
      throw;
    } catch (...) {
      if (in_transaction()) {
        try {
          abort_transaction();
        } catch (const Error&) {
        }
      }
      throw;
    }
    if (!in_transaction()) return;  // the callback committed or aborted: that stands
    for (;;) {
      try {
        commit_transaction();
        return;
      } catch (const Error& e) {
        // A commit that may or may not have happened is retried as a commit (committing a
        // committed transaction succeeds), unless the server said it ran out of time.
        if (e.has_label(kUnknownTransactionCommitResult) &&
            e.error_code() != ErrorCode::kExceededTimeLimit && within_limit()) {
          continue;
        }
        if (e.has_label(kTransientTransactionError) && within_limit()) break;  // whole again
        throw;
      }
    }
  }
}

}  // namespace mongostore::client
