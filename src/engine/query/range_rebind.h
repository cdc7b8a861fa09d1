// Range rebinding: a kept index plan (PlanCache, prepared_find.h) moved to another number in
// its filter's one range condition without planning again, as a sweep's
// {next_fire_at: {$lte: now}} runs with a new `now` each time. Only filters for which the
// planner's choice does not depend on the number are rebound (rebindable_range: one range on a
// finite number, alone or in an $or with the path's null equality; the caller leaves out
// collections with a partial index, see rebind_range_plan), and only a plan that reads exactly
// the ranges planning gives such a filter; the ranges are recomputed with the planner's own
// functions (index_bounds.h), so a rebound plan reads the bytes plan_query would give the new
// filter. Anything else answers nullopt or false, and the caller plans as usual.
//
// Thread safety: pure functions. A RebindableRange views the filter it was read from.
#pragma once

#include <optional>
#include <string_view>

#include "engine/index_descriptor.h"
#include "engine/query_planner.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// Whether `filter` is one a kept plan can be rebound to (rebind_range_plan): exactly one
/// top-level field with exactly one range operator ($gt, $gte, $lt, $lte) comparing with a
/// finite number, e.g. {next_fire_at: {$lte: 1700000000}}, or an $or of such a range and the
/// null equality on the same path, in either order, e.g. the due-timer sweep's
/// {$or: [{next_fire_at: null}, {next_fire_at: {$lte: 1700000000}}]}.
bool rebindable_range(bson::DocumentView filter);

/// `plan`, which plan_query made for `planned` (reading `index`), as plan_query would make it
/// for `filter`, or nullopt (plan again) unless both are rebindable_range filters of the same
/// shape (path, operator, with or without the null branch and in which order) and `plan`
/// reads those ranges of `index`'s first field (the range, and the null point for the $or).
/// For such filters the choice of index does not depend on the number: the range's interval
/// is never a point or empty (the numbers are finite) and never holds null, so the $or's
/// union is always the null point and that range (a sparse index is never used for the $or,
/// and always considered for the range alone), numbers bound the same
/// under any collation and one condition bounds a multikey index as any other — except
/// through a partial filter, which the planner matches by value: the caller must not rebind
/// when some index of the collection is partial. Then only the range moves. Pure; thread-safe.
std::optional<IndexPlan> rebind_range_plan(const IndexPlan& plan, const IndexDescriptor& index,
                                           bson::DocumentView planned, bson::DocumentView filter);

/// A rebindable_range filter as read: views into the filter's bytes (valid while they are).
struct RebindableRange {
  std::string_view path;
  std::string_view op;  // "$gt", "$gte", "$lt" or "$lte"
  bson::Value value;    // a finite number
  /// The filter is {$or: [{path: null}, {path: {op: value}}]}, the null branch first when
  /// `null_first`.
  bool or_null = false;
  bool null_first = false;
};

/// `filter` read as a rebindable_range filter, or nullopt when it is not one.
std::optional<RebindableRange> read_rebindable_range(bson::DocumentView filter);

/// The first half of rebind_range_plan, which depends only on the kept plan: whether `plan`,
/// made for the rebindable_range filter `planned`, reads exactly that filter's ranges of
/// `index`'s first field. A caller keeping a plan asks once (PlanCache) and then rebinds each
/// run with rebind_checked_plan. Pure; thread-safe.
bool rebindable_plan(const IndexPlan& plan, const IndexDescriptor& index,
                     bson::DocumentView planned);

/// rebind_range_plan for a `plan` that rebindable_plan accepted for the filter `planned`
/// reads as (read_rebindable_range, read once by the caller) and `index`; neither is checked
/// or read again: the other half, nullopt unless `filter` has `planned`'s shape.
std::optional<IndexPlan> rebind_checked_plan(const IndexPlan& plan, const IndexDescriptor& index,
                                             const RebindableRange& planned,
                                             bson::DocumentView filter);

}  // namespace mongostore::engine
