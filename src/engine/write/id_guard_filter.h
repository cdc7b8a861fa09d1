// IdGuardFilter: updateOne's fast path for a filter that pins `_id` and guards other top-level
// fields by equality with scalars or by {$exists: true}, such as {_id: "x", version: 7,
// trace_next: {$exists: true}}: the compare-and-set of a versioned document (ExecutionStore's
// commit sends one per commit). Such a filter needs no Matcher and no plan: the record is read
// by its `_id` key (as the planner's IDHACK would) and each guard is compared in place, by
// MongoDB's equality (compare_values: numbers by value across types) or by presence. That
// saves compiling, planning and freeing the filter on every update.
//
// Only what has exactly this meaning is recognised; anything else takes the general path:
// operators or `$`-names, dotted names, values that are not plain scalars (null also matches a
// missing field, a regex is a pattern, documents and arrays compare whole or by element),
// strings under a collation, and options that read the filter another way (upsert seeds the
// new document from it, hint, sort, let, arrayFilters, a pipeline). A guard whose stored value
// is an array ("an element equals", and the positional `$` needs that element's index) is
// decided by the general path too, at run time.
//
// Stateless: any thread may use it.
#pragma once

#include <optional>

#include "mongostore/bson/document.h"
#include "mongostore/engine/engine.h"

namespace mongostore::engine {

class IdGuardFilter {
 public:
  /// The filter's `_id` when `filter` with `options` has the shape above; nullopt otherwise.
  /// `options` must already carry the collection's default collation when it has one.
  static std::optional<bson::Value> recognise(bson::DocumentView filter,
                                              const UpdateOptions& options);

  enum class Outcome { kMatch, kNoMatch, kUndecided };
  /// Whether the stored `doc` (read by the filter's `_id` key) matches a recognised `filter`;
  /// kUndecided when a guarded field is stored as an array.
  static Outcome test(bson::DocumentView filter, bson::DocumentView doc);

 private:
  // One guard against the stored value of its field (missing when absent).
  static Outcome test_one(const bson::Value& guard, const bson::Value& stored);
};

}  // namespace mongostore::engine
