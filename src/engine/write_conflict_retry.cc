#include "engine/write_conflict_retry.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <thread>

namespace mongostore::engine {

void write_conflict_backoff(int attempt) {
  if (attempt < 4) {
    std::this_thread::yield();
    return;
  }
  // Jittered so that retrying writers spread out instead of colliding again.
  thread_local std::minstd_rand jitter(
      static_cast<uint32_t>(std::hash<std::thread::id>{}(std::this_thread::get_id())));
  int cap = std::min(1000, 10 << std::min(attempt - 4, 6));
  std::this_thread::sleep_for(std::chrono::microseconds(jitter() % cap));
}

Error transaction_write_conflict() {
  Error e(ErrorCode::kWriteConflict,
          "Write conflict during plan execution and yielding is disabled. :: Please retry your "
          "operation or multi-document transaction.");
  e.add_label(kTransientTransactionError);
  return e;
}

}  // namespace mongostore::engine
