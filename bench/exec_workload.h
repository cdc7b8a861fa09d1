// The typical ExecutionStore commit of the benchmarks (issues 7 and 29): one emit, a dedupe
// mark, a timer schedule and a trace step on an execution whose context is ~1 KB, changing
// every round. exec_bench and exec_sqlite_bench run exactly this workload, so their figures
// compare.
#pragma once

#include <fmt/core.h>

#include <cstdint>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution.h"
#include "mongostore/exec/store_types.h"

namespace mongostore::bench {

/// The benchmark's clock for timers (epoch seconds); nothing depends on the wall clock.
inline constexpr double kNow = 1.7e9;

/// ~1 KB of variables, changing every round.
inline bson::Document context_at(int64_t round) {
  return bson::make_document("order_id", round, "customer", "customer-0042", "items",
                             bson::make_array("sku-1", "sku-2", "sku-3"), "notes",
                             std::string(960, char('a' + round % 26)));
}

/// 32 hex digits, like generated event ids, deterministic per (kind, thread, execution, round).
inline std::string hex_id(int kind, int thread, int execution, int64_t round) {
  return fmt::format("{:02x}{:06x}{:08x}{:016x}", kind, thread, execution, round);
}

/// A fraction of a second added to timer times with --fractional-times: real timers are
/// `time.time() + delay`, fractional epoch seconds, whose index keys cost more than integral
/// ones (an integral double's exact decimal form is an int64's).
inline double time_fraction(int64_t round) {
  return 0.123456789 + double(round % 1000) * 0.000731;
}

/// `fractional` makes the timer's time fractional epoch seconds (see time_fraction).
inline exec::CommitBatch typical_batch(int thread, int execution, int64_t round,
                                       bool fractional = false) {
  exec::CommitBatch b;
  exec::Event event;
  event.id = hex_id(1, thread, execution, round);
  event.kind = "Reserve";
  event.data = bson::make_document("sku", "sku-1", "qty", round);
  b.emits.push_back({fmt::format("warehouse-{}", execution % 7), std::move(event)});
  b.processed_event_id = hex_id(2, thread, execution, round);
  b.timers.push_back(exec::TimerOp::schedule(
      "Checkout.Payment", kNow + 3600 + double(round) + (fractional ? time_fraction(round) : 0)));
  b.trace = bson::make_document("step", "transition", "from", "Checkout.Cart", "to",
                                "Checkout.Payment", "event", "Reserve");
  return b;
}

/// What the state machine changed before committing round `round`.
inline void advance(exec::Execution& exe, int64_t round) {
  exe.status = exec::ExecutionStatus::kRunning;
  exe.active_path = "Checkout.Payment";
  exe.context = context_at(round);
  exe.processed_events = round;
}

inline std::string execution_id(int thread, int execution) {
  return fmt::format("exe-{:02}-{:05}", thread, execution);
}

}  // namespace mongostore::bench
