#include "engine/query/index_bounds.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "engine/query/bound_constants.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/index_key.h"

namespace mongostore::engine {
namespace {

// The smallest byte string greater than every string that starts with `prefix`.
bool prefix_successor(std::string prefix, std::string* out) {
  while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xFF) prefix.pop_back();
  if (prefix.empty()) return false;
  prefix.back() = static_cast<char>(static_cast<uint8_t>(prefix.back()) + 1);
  *out = std::move(prefix);
  return true;
}

}  // namespace

Interval full_interval() {
  return Interval{bound_constant(BoundConstant::kMinKey), true,
                  bound_constant(BoundConstant::kMaxKey), true};
}

bool usable_path(std::string_view path) {
  if (path.empty() || path[0] == '$') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string_view part =
        path.substr(start, dot == std::string_view::npos ? path.npos : dot - start);
    if (part.empty()) return false;
    if (std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return false;  // a positional path component: leave it to the collection scan
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

Interval range_interval(RangeOp op, const bson::Value& v) {
  Interval i = full_interval();
  bson::Value bracket_min = bound_constant(BoundConstant::kMinKey),
              bracket_max = bound_constant(BoundConstant::kMaxKey);
  bool max_inclusive = true;
  if (v.is_number()) {
    // NaN is the lowest number in index order, but no comparison with a number matches it
    // ($lte NaN and $gte NaN match NaN alone): as mongod's bounds, [-inf, v] and [v, inf].
    const bool nan = v.number_as_double() != v.number_as_double();
    bracket_min = nan ? v : bound_constant(BoundConstant::kNegativeInfinity);
    bracket_max = nan ? v : bound_constant(BoundConstant::kInfinity);
  } else if (v.is_string()) {
    bracket_min = bound_constant(BoundConstant::kEmptyString);
    bracket_max = bound_constant(BoundConstant::kEmptyObject);
    max_inclusive = false;
  }
  switch (op) {
    case RangeOp::kGt:
    case RangeOp::kGte:
      i.lo = v;
      i.lo_inclusive = op == RangeOp::kGte;
      i.hi = bracket_max;
      i.hi_inclusive = max_inclusive;
      break;
    case RangeOp::kLt:
    case RangeOp::kLte:
      i.lo = bracket_min;
      i.lo_inclusive = true;
      i.hi = v;
      i.hi_inclusive = op == RangeOp::kLte;
      break;
  }
  return i;
}

bool interval_empty(const Interval& i) {
  int c = bson::compare_values(i.lo, i.hi);
  return c > 0 || (c == 0 && !(i.lo_inclusive && i.hi_inclusive));
}

std::vector<Interval> merged(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
    int c = bson::compare_values(a.lo, b.lo);
    return c != 0 ? c < 0 : a.lo_inclusive && !b.lo_inclusive;
  });
  std::vector<Interval> out;
  for (Interval& i : intervals) {
    if (!out.empty()) {
      Interval& last = out.back();
      int c = bson::compare_values(i.lo, last.hi);
      if (c < 0 || (c == 0 && (i.lo_inclusive || last.hi_inclusive))) {
        int hi = bson::compare_values(i.hi, last.hi);
        if (hi > 0) {
          last.hi = i.hi;
          last.hi_inclusive = i.hi_inclusive;
        } else if (hi == 0) {
          last.hi_inclusive = last.hi_inclusive || i.hi_inclusive;
        }
        continue;
      }
    }
    out.push_back(std::move(i));
  }
  return out;
}

KeyRange byte_range(const std::string& prefix, const Interval& i, bool descending) {
  // A descending part is complemented, which reverses the order: the interval flips.
  const bson::Value& first = descending ? i.hi : i.lo;
  bool first_inclusive = descending ? i.hi_inclusive : i.lo_inclusive;
  const bson::Value& last = descending ? i.lo : i.hi;
  bool last_inclusive = descending ? i.lo_inclusive : i.hi_inclusive;
  KeyRange r;
  r.start = prefix;
  bson::append_index_key(r.start, first, descending);
  if (!first_inclusive) {
    std::string s;
    if (!prefix_successor(r.start, &s)) {
      r.end_unbounded = false;
      r.end = r.start;  // nothing above: an empty range
      return r;
    }
    r.start = std::move(s);
  }
  std::string end = prefix;
  bson::append_index_key(end, last, descending);
  if (last_inclusive) {
    if (!prefix_successor(end, &r.end)) r.end_unbounded = true;
  } else {
    r.end = std::move(end);
  }
  return r;
}

}  // namespace mongostore::engine
