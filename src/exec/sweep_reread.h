// Rereading a sweep whose index was replaced under it.
//
// The sweeps read through the next_fire_at and outbox.seq indexes, which a store opening in
// the same process may drop and make again (ExecutionStore::create_sweep_index: their kind
// follows the store opened last, and an older store's plain index is replaced). A read whose
// index is dropped while it runs fails QueryPlanKilled (175), as MongoDB's does. The sweeps
// have written nothing when their read fails, so they read again from the start, a few times,
// then let the error through: an index replaced over and over is not waited out.
#pragma once

#include <cstdint>

#include "mongostore/error.h"

namespace mongostore::exec {

inline constexpr int kSweepReadAttempts = 5;

/// Runs `read` (which starts from scratch on every call: it resets what it collects) until it
/// returns without QueryPlanKilled, at most kSweepReadAttempts times; returns what it returns.
/// Any other error, and the last QueryPlanKilled, goes to the caller.
template <class Read>
auto reread_if_plan_killed(Read&& read) -> decltype(read()) {
  for (int attempt = 1;; ++attempt) {
    try {
      return read();
    } catch (const Error& e) {
      if (e.code() != static_cast<int32_t>(ErrorCode::kQueryPlanKilled) ||
          attempt == kSweepReadAttempts) {
        throw;
      }
    }
  }
}

}  // namespace mongostore::exec
