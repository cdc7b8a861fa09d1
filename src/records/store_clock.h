// StoreClock: where a store's timestamps come from, and the per-process guard that keeps them
// from going backwards (reference §6).
//
// A timestamp is clock_ns // resolution. The clock guard keeps a high-water mark per open
// store: the largest store_timestamp it has seen stored or issued. It is seeded at open from
// the largest store_timestamp in the collections of the store's families (and their reference
// closure), and again, lazily, from each record collection the first time a save prepares its
// type in this process. A capture below the mark means the wall clock went back (NTP step, VM
// migration): issuing it would make `as_of` reads see a later write before an earlier one. A
// deficit under 1 ms is slept out when `clock_regression_grace` is on (then the clock is read
// again); anything else fails with StoreClockRegressionError(mark_ns, clock_ns). The mark
// moves only after a successful save, so a failed save never pushes it ahead.
//
// Other processes writing the same store are not seen until this process next prepares a
// collection or reopens: the guard is process-local, as httk's is.
//
// Thread-safe (one mutex); saves are serialised by the store anyway.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>

#include "mongostore/client/client.h"

namespace mongostore::records {

class StoreClock {
 public:
  struct Options {
    int64_t resolution = 1000;          // ns per unit
    bool guard = true;                  // false: timestamps off, or allow_clock_regression
    bool grace = true;                  // sleep out a deficit under 1 ms
    std::function<int64_t()> clock_ns;  // empty: the system clock
  };
  explicit StoreClock(Options options);

  /// The clock now, in nanoseconds since the epoch.
  int64_t now_ns() const;
  /// The timestamp (in units) of a save starting now. StoreClockRegressionError when the clock
  /// is behind the mark (after the grace, when it applies).
  int64_t capture();
  /// A save stamped `units` succeeded: the mark is at least `units` now.
  void advance(int64_t units);
  /// Raises the mark to the largest store_timestamp of `collection`, once per collection
  /// (`force` reads it again).
  void seed_from(const client::Collection& collection, bool force = false);
  /// Sets the mark to `units` exactly (fsck after clamping future timestamps).
  void reset(int64_t units);
  /// The mark in units (0: nothing seen).
  int64_t mark() const;

 private:
  Options options_;
  mutable std::mutex mu_;
  int64_t mark_ = 0;
  std::set<std::string> seeded_;
};

}  // namespace mongostore::records
