// SweepQueries: the finds ExecutionStore's sweeps repeat, prepared once per store
// (client/prepared_find.h): on the embedded engine their filters, projections and sorts are
// compiled once instead of on every sweep; remote, each run sends the plain find.
#pragma once

#include <memory>

#include "mongostore/client/prepared_find.h"

namespace mongostore::exec {

struct SweepQueries {
  /// Prepares them on `executions`.
  static std::shared_ptr<const SweepQueries> prepare(const client::Collection& executions);

  /// {next_fire_at: null}: documents another writer left without a bound (read when the
  /// store opens).
  client::PreparedFind unbounded_timers;
  /// {$or: [{next_fire_at: null}, {next_fire_at: {$lte: now}}]} (due_fields): run with each
  /// sweep's own `now` (due_filter). One scan of the next_fire_at index over two intervals, the
  /// null key and [-inf, now], whose plan the embedded engine keeps and rebinds to each `now`.
  client::PreparedFind due_timers;
  /// {outbox.seq: {$gte: -inf}} / {spawns.seq: ...}: documents with pending entries.
  client::PreparedFind pending_outbox;
  client::PreparedFind pending_spawns;
};

/// The filter due_timers runs at `now`.
bson::Document due_filter(double now);

/// The fields a timer read needs: timers, next_fire_at, version (and _id).
const client::FindOptions& timer_fields();

/// The fields due_timers reads: timers and next_fire_at (and _id), all of them stored in the
/// embedded engine's next_fire_at index unless covering_indexes is off
/// (ExecutionStore::create_sweep_index).
const client::FindOptions& due_fields();

}  // namespace mongostore::exec
