// Index bounds: intervals of MongoDB's index key order and the byte ranges of index keys that
// read them. The planner (query_planner.h) builds a plan's bounds from these, and range
// rebinding (range_rebind.h) recomputes a kept plan's ranges with the same functions, so a
// rebound plan reads the bytes planning would give.
//
// An Interval's ends are compared in MongoDB's order across types (bson::compare_values), as an
// index orders its keys. Its ends are views: an Interval is valid while the bytes they point into
// are (the filter's, a collation key's, or bound_constants.h's, which live for the process).
// Bounds only narrow what an index scan reads; whether they are exact is the planner's question
// (IndexPlan::exact).
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/query_planner.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// An interval of values in MongoDB's order, from `lo` to `hi`, each end included or not.
struct Interval {
  bson::Value lo;
  bool lo_inclusive = true;
  bson::Value hi;
  bool hi_inclusive = true;
  bool is_point() const { return lo_inclusive && hi_inclusive && bson::values_equal(lo, hi); }
};

/// [MinKey, MaxKey]: every key, a field no condition bounds.
Interval full_interval();

/// A range operator: $gt, $gte, $lt, $lte.
enum class RangeOp { kGt, kGte, kLt, kLte };

/// The interval one range operator with operand `v` reads: MongoDB compares within a type
/// bracket only, so {$gt: 5} reads (5, inf], {$lt: "b"} ["", "b"), and other types from MinKey
/// or up to MaxKey. A NaN operand's bracket is NaN alone, as in mongod's bounds: $gte / $lte NaN
/// read [NaN, NaN], $gt / $lt NaN an empty interval (see interval_empty).
Interval range_interval(RangeOp op, const bson::Value& v);

/// Whether `i` holds no value (lo above hi, or equal ends not both included).
bool interval_empty(const Interval& i);

/// `intervals` sorted by their low ends and with overlapping or touching ones joined: the
/// ascending, disjoint intervals holding the same values.
std::vector<Interval> merged(std::vector<Interval> intervals);

/// The keys an index field in direction `descending` holds for values in `i`, after the
/// encoded key `prefix` of the fields before it (bson::append_index_key; a descending field's
/// encoding is complemented, so the interval's ends swap). Keys go on after a field's encoding
/// (the fields after it), so an excluded low end starts after every key beginning with its
/// encoding and an included high end ends after every such key (unbounded when no byte string
/// follows them all); an interval with nothing above its excluded low end gives an empty range.
KeyRange byte_range(const std::string& prefix, const Interval& i, bool descending);

/// Whether an index can bound conditions on `path`: not empty, not starting with '$', no empty
/// part and no all-digit (positional) part, which is left to the collection scan.
bool usable_path(std::string_view path);

}  // namespace mongostore::engine
