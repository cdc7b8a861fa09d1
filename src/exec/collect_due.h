// The due-timer sweep's visitor: the timers of one execution document due at a given time,
// read from the document's bytes in one walk.
#pragma once

#include <optional>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"
#include "mongostore/exec/store_types.h"

namespace mongostore::exec {

/// Appends to `due` the timers of `doc` (an execution document, or its projection on _id,
/// timers and next_fire_at) whose fire_at <= `now`, in document order, each with its path
/// decoded (decode_timer_path) and the document's _id as its execution id (its JSON when it
/// is not a string). Returns the earliest fire_at of all its timers (nullopt when `timers` is
/// absent, not a document or empty) and sets *bound to the document's next_fire_at (left
/// as it was when absent).
///
/// Throws FailedToParse, naming the execution and the timer, when a timer is not a number
/// (the timers before it may have been appended). The sweep calls this for every document
/// its range returns: it walks the bytes once, and allocates only the strings of the timers
/// it appends (and `due`'s growth). `doc` must be valid BSON (a stored document).
std::optional<double> collect_due(bson::DocumentView doc, double now, std::vector<DueTimer>& due,
                                  bson::Value* bound);

}  // namespace mongostore::exec
