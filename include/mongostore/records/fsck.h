// fsck: the RecordStore's check, repair and garbage collection (reference §7), run as
// RecordStore::fsck(options).
//
//   FsckSummary s = store.fsck({.known_types = {schema_of<Legacy>()}});
//   for (const auto& v : s.violations()) std::cerr << v << "\n";
//
// Steps, under the singleton fsck lease (writers are refused while it exists):
//  1. Take the fsck lease: StoreLockedError when another fsck holds it (with `force`, a stale
//     one is taken over; a fresh one never is). Wait (polling 20 ms doubling to 250 ms) while
//     fresh writer leases exist; stale writer leases (their writer died) need `force`, which
//     deletes them, else StoreLockedError.
//  2. Bump the layout's `generation` (the summary's generation): every other process clears
//     its identity caches at its next save.
//  3. Attribute collections to record types: the family records, the types this process
//     saved, and `known_types`, closed over references. A collection none of them explains
//     (not `system.*`, metadata, counters or a family's dispatch) may hold references into the
//     known ones, so it blocks the sweep: the violation names `known_types`. An unknown
//     `_httk_*` collection is reported and left untouched.
//  4. Future timestamps: a store_timestamp past (now + 2 s) // resolution is reported; with
//     `clamp_future_timestamps` and `repair` (and nothing unattributed) it is set to now and
//     the clock guard's mark re-seeded.
//  5. Per family with a dispatch collection: a dispatch that is malformed or names a record
//     that does not hold its content id is a conflict (always reported; deleted only with
//     `repair` and `repair_conflicts`); with `repair`, a `main` backing document without a
//     dispatch gets one. A `dep` backing never does (it is not an entry until saved at the
//     top).
//  6. Mark: every `main` document of the known collections and every sid a dispatch names are
//     roots; references and child records are followed breadth-first, in batches of 500 sids
//     (each batch read by one `_id` $in: see src/records/fsck.cc).
//  7. Sweep (with `collect_garbage`, unless blocked): `dep` documents not marked are deleted
//     (one `_id` $in per batch of 500).
//     `main` documents are never deleted; counters are never touched, so sids stay unique.
//  8. Clear this store's identity caches; release the lease (also on error).
// LeaseLostError when another process took the lease over (force, after it went stale) while
// this fsck ran: it stops at once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mongostore/records/schema.h"

namespace mongostore::records {

/// Where a running fsck is: collections examined so far (of the known ones), documents
/// marked reachable so far.
struct FsckProgress {
  int64_t collections_examined = 0;
  int64_t collections_total = 0;
  int64_t documents_marked = 0;
};

struct FsckOptions {
  bool repair = true;
  bool collect_garbage = true;
  bool repair_conflicts = false;
  bool force = false;
  bool clamp_future_timestamps = false;
  /// Record types this process does not save but whose collections the store holds.
  std::vector<std::shared_ptr<const RecordSchema>> known_types;
  /// Called as the work advances (from the calling thread).
  std::function<void(const FsckProgress&)> progress;
};

/// What fsck found and did in one collection.
struct FsckCollectionSummary {
  int64_t examined = 0;   // documents read
  int64_t repaired = 0;   // dispatches written, timestamps clamped
  int64_t conflicts = 0;  // bogus dispatches, future timestamps
  int64_t deleted = 0;    // unreachable deps swept, conflicting dispatches removed
};

/// The outcome of one fsck; immutable.
class FsckSummary {
 public:
  FsckSummary(int64_t generation, std::map<std::string, FsckCollectionSummary> collections,
              std::vector<std::string> violations)
      : generation_(generation),
        collections_(std::move(collections)),
        violations_(std::move(violations)) {}

  /// The layout generation this fsck set.
  int64_t generation() const { return generation_; }
  /// Per collection examined (record and dispatch collections).
  const std::map<std::string, FsckCollectionSummary>& collections() const { return collections_; }
  /// Human-readable reports: conflicts, future timestamps, unattributed collections, a
  /// blocked sweep. Each also went to the store's warning sink.
  const std::vector<std::string>& violations() const { return violations_; }
  /// Totals over every collection.
  FsckCollectionSummary totals() const {
    FsckCollectionSummary t;
    for (const auto& [name, c] : collections_) {
      t.examined += c.examined;
      t.repaired += c.repaired;
      t.conflicts += c.conflicts;
      t.deleted += c.deleted;
    }
    return t;
  }

 private:
  int64_t generation_;
  std::map<std::string, FsckCollectionSummary> collections_;
  std::vector<std::string> violations_;
};

}  // namespace mongostore::records
