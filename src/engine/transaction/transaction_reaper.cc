#include "engine/transaction/transaction_reaper.h"

#include "engine/transaction/multi_document_transaction.h"

namespace mongostore::engine {

TransactionReaper::TransactionReaper(std::chrono::milliseconds period) : period_(period) {}

TransactionReaper::~TransactionReaper() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();  // the thread owns its state; it sees `stopping` and ends
  } else {
    thread_.join();
  }
}

void TransactionReaper::watch(const std::shared_ptr<MultiDocumentTransaction>& txn) {
  std::lock_guard lock(state_->mutex);
  state_->watched.push_back(txn);
  if (!thread_.joinable()) thread_ = std::thread(run, state_, period_);
}

void TransactionReaper::run(std::shared_ptr<State> state, std::chrono::milliseconds period) {
  std::unique_lock lock(state->mutex);
  while (!state->stopping) {
    state->wake.wait_for(lock, period, [&] { return state->stopping; });
    if (state->stopping) break;
    std::vector<std::weak_ptr<MultiDocumentTransaction>> candidates;
    candidates.swap(state->watched);
    // Aborting (which may drop a collection) and a last release run unlocked.
    lock.unlock();
    std::vector<std::weak_ptr<MultiDocumentTransaction>> keep;
    const auto now = MultiDocumentTransaction::Clock::now();
    for (auto& weak : candidates) {
      std::shared_ptr<MultiDocumentTransaction> txn = weak.lock();
      if (txn && !txn->abort_if_expired(now)) keep.push_back(std::move(weak));
    }
    lock.lock();
    for (auto& weak : keep) state->watched.push_back(std::move(weak));
  }
}

}  // namespace mongostore::engine
