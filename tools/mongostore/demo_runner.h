// DemoRunner: drives the order workflow of demo_workflow.h through an ExecutionStore the way a
// real deployment would, with every moving part the store is built for:
//
// - producers create orders (version-0 commits: the insert path) carrying their first events
//   and the payment timer;
// - a relay sweeps pending_outbox() and hands each event to the workers, and acks it only
//   after a worker handled it (at-least-once: a crash redelivers); a share of the events is
//   deliberately delivered twice, as a real relay does after a lost ack;
// - the same relay creates the children pending_spawns() asks for (idempotently: a child that
//   exists already is a StoreConflict on its insert) and turns due_timers() into Timeout
//   events, deleting each timer (guarded on its fire_at) once handled;
// - workers take events from one shared queue, dedupe with load_for_event, apply the
//   transition and commit it with the event id as processed_event_id; two workers that race on
//   one execution meet the version check, and the loser reloads and retries.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "mongostore/exec/execution_store.h"

namespace mongostore::tool::demo {

struct DemoOptions {
  int64_t orders = 300;
  int workers = 4;
  /// Seconds an order waits for payment before its timer cancels it.
  double payment_timeout = 1.5;
  /// Share of orders that never pay (their timer fires).
  double unpaid_share = 0.2;
  /// Share of outbox events the relay delivers twice.
  double duplicate_share = 0.1;
  /// Record a trace step with every commit.
  bool trace = true;
  /// Give up (and fail) after this many seconds.
  double deadline_seconds = 300;
  uint64_t seed = 42;
  /// Orders are named order-<run>-<n>.
  int64_t run = 1;
};

/// What happened, counted as it happened.
struct DemoCounters {
  std::atomic<int64_t> orders_created{0};
  std::atomic<int64_t> events_processed{0};       // events that committed (once each)
  std::atomic<int64_t> duplicates_suppressed{0};  // deliveries load_for_event found processed
  std::atomic<int64_t> timers_fired{0};           // payment timeouts that cancelled an order
  std::atomic<int64_t> stale_events{0};           // events ignored by the state they met
  std::atomic<int64_t> spawns_created{0};
  std::atomic<int64_t> spawns_joined{0};      // children's Finished joined by the parent
  std::atomic<int64_t> conflicts_retried{0};  // StoreConflicts answered by reload + retry
  std::atomic<int64_t> commits{0};
  std::atomic<int64_t> deliveries{0};
};

class DemoRunner {
 public:
  DemoRunner(exec::ExecutionStore& store, DemoOptions options);
  ~DemoRunner();

  /// Runs until every order in the store (this run's and any a previous run left unfinished)
  /// is terminal and no work is pending. `progress` is called about twice a second.
  /// Throws Error when the deadline passes first.
  void run(const std::function<void(double elapsed)>& progress);

  const DemoCounters& counters() const { return counters_; }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  DemoCounters counters_;
};

}  // namespace mongostore::tool::demo
