// Trace indexes without a counter document.
//
// The seed stamps every trace step with an `index` taken from the counter `trace:<id>`
// before the commit: one more engine write (and, remote, one more round trip) per commit.
// This store instead keeps `trace_next` in the execution document, the index the next step
// gets: a commit pushes its step without an index and `$inc`s trace_next by the same
// atomic update, and the index is stamped when the ring is read. Counting backwards from
// trace_next, the unstamped steps of the ring get trace_next - 1, trace_next - 2, ...; a
// step that carries its own `index` (the seed's steps, or one given to append_trace) keeps it.
//
// A document without trace_next (the seed's layout, or this store before it) is adopted
// the first time a step is added to it: trace_next becomes one past the highest index it
// has used, taken from its counter and its stamped steps, so indexes keep growing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::exec {

/// The field of the execution document holding the next trace index.
inline constexpr const char* kTraceNext = "trace_next";

/// `step` without an `index` field (the one a caller put there is not kept: the store
/// assigns indexes).
bson::Document unstamped_trace_step(bson::DocumentView step);

/// The ring as read: every step a document, indexes stamped as described above.
/// FailedToParse (9) naming the execution when a step is not a document.
std::vector<bson::Document> stamp_trace(const bson::Value& trace, const bson::Value& trace_next,
                                        std::string_view execution_id);

/// The trace_next that adopts a document without one: one past the highest index it has
/// handed out, from the seed's counter value `counter` (the last allocated, if any) and the
/// steps of its ring.
int64_t adopted_trace_next(const bson::Value& trace, std::optional<int64_t> counter);

}  // namespace mongostore::exec
