// CommitPlan: what one commit writes, as the two documents that can write it.
//
// A commit is either an update of the stored document guarded by {_id, version: old}, or,
// for a first save (version 0), the insert of the whole document. Both carry exactly the
// same effects; building them in one place keeps the two paths from drifting apart.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/timer_path.h"
#include "mongostore/bson/document.h"
#include "mongostore/exec/execution.h"

namespace mongostore::exec {

/// The `next_fire_at` of an execution with no timer. A number, never null or absent: MongoDB
/// sorts null below every number, so a null bound would swallow the next commit's `$min`, and
/// an absent one would be set by it above an older timer. Absent or null therefore means "not
/// written by this store", and due_timers looks those up and repairs them.
inline constexpr double kNoTimer = std::numeric_limits<double>::infinity();

struct CommitPlan {
  /// One outbox entry, written straight into the update or insert as {seq, target_id, event}
  /// (target_id null when absent): a Document per entry would be built, copied and freed.
  struct OutboxItem {
    int64_t seq = 0;
    std::optional<std::string_view> target_id;
    std::string_view event;  // the Event JSON (in the committing thread's CommitBuffers)
  };

  // The string views point into the committing Execution and CommitBatch, or into the
  // thread's CommitBuffers (the JSON), all of which outlive the plan: a commit copies each of
  // these strings once, into the document it writes.
  std::string_view execution_id;
  std::string_view definition_id;
  // Promoted copies of snapshot fields, top-level so the server can filter and index them
  // (list_executions); `data` still carries them too.
  std::string_view status;
  std::optional<std::string_view> parent_id;
  int64_t new_version = 0;
  std::string_view data;  // the Execution JSON at new_version (in CommitBuffers)
  std::vector<OutboxItem> outbox;
  std::vector<bson::Document> spawns;  // {seq, parent_id, child_id, root_path, context}
  // The trace step as written: the batch's own step when it goes in unchanged, else
  // trace_storage (unstamped or stamped), so the usual step is not copied before the update.
  std::optional<bson::DocumentView> trace_step;
  bson::Document trace_storage;
  std::optional<std::string_view> processed_event;  // the dedupe mark
  std::vector<TimerChange> timers;                  // last op per path
  int64_t trace_max = 0;                            // 0: unbounded
  // The trace step goes in unstamped and `trace_next` counts it (exec/trace_index.h); false
  // is the seed's layout: the step carries the index a counter gave it.
  bool count_trace = false;

  CommitPlan() = default;
  // trace_step may point into trace_storage.
  CommitPlan(const CommitPlan&) = delete;
  CommitPlan& operator=(const CommitPlan&) = delete;

  /// The earliest fire_at this commit arms, if it arms any.
  std::optional<double> earliest_armed_timer() const;

  /// The partial update: $set data, version, the promoted fields and armed timers; $push
  /// outbox, spawns and the trace step (ring-trimmed with $slice); $addToSet the dedupe mark;
  /// $unset cancelled timers; $min next_fire_at with the earliest armed timer; $inc
  /// trace_next when a counted trace step goes in. A path is in $set or $unset, never both.
  ///
  /// next_fire_at is a lower bound of the document's timers (indexed, so due_timers reads
  /// only documents with something due), kNoTimer when there are none: arming lowers it here,
  /// a cancel leaves it low (too early is safe, too late would lose a timer), and due_timers /
  /// delete_timer bring it back up to the true minimum.
  bson::Document update() const;
  /// The update's filter: {_id, version: old_version}, and trace_next: {$exists: true} when
  /// `needs_trace_next` (a counted step needs the field the update $inc's).
  bson::Document guard(int64_t old_version, bool needs_trace_next) const;
  /// update() and guard() written into `buffer` from its start, the same bytes: a buffer kept
  /// across commits (ExecutionStore keeps one per thread) is allocated and zeroed only when a
  /// commit needs more than any before it. The view is valid until the buffer is written
  /// again, resized or destroyed; `buffer`'s size may grow past the document's.
  bson::DocumentView update_in(std::vector<uint8_t>& buffer) const;
  bson::DocumentView guard_in(std::vector<uint8_t>& buffer, int64_t old_version,
                              bool needs_trace_next) const;
  /// The whole first document, every embedded field seeded (empty arrays and sub-document
  /// included) so later $push / $set have something to target; trace_next too when counted.
  bson::Document insert() const;
};

/// A trace step with `index` stamped (replacing one already there, in place).
bson::Document stamp_trace_index(bson::DocumentView step, int64_t index);

}  // namespace mongostore::exec
