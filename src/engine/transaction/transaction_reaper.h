// TransactionReaper: aborts multi-document transactions that outlive their lifetime limit
// (mongod's transactionLifetimeLimitSeconds), so a client that began one and went away
// cannot hold its snapshot and its uncommitted writes (which make other writers wait)
// forever.
//
// A background thread wakes every `period`, and aborts the expired transactions that no
// statement is running in (a running statement finishes; the next one finds the
// transaction expired). It holds only weak references: a transaction ends with its last
// owner as usual. That last owner can be the reaper's own thread for a moment, and a
// transaction keeps its engine alive, so the engine (and this object) may be destroyed on
// the reaper's thread: the thread's state is therefore shared with it, and a destructor
// running on the thread itself detaches instead of joining.
//
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mongostore::engine {

class MultiDocumentTransaction;

class TransactionReaper {
 public:
  explicit TransactionReaper(std::chrono::milliseconds period = std::chrono::milliseconds(250));
  ~TransactionReaper();
  TransactionReaper(const TransactionReaper&) = delete;
  TransactionReaper& operator=(const TransactionReaper&) = delete;

  /// Watches `txn` until it ends. Starts the thread on first use.
  void watch(const std::shared_ptr<MultiDocumentTransaction>& txn);

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable wake;
    bool stopping = false;
    std::vector<std::weak_ptr<MultiDocumentTransaction>> watched;
  };
  static void run(std::shared_ptr<State> state, std::chrono::milliseconds period);

  const std::chrono::milliseconds period_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
  std::thread thread_;
};

}  // namespace mongostore::engine
