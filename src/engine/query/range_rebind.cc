#include "engine/query/range_rebind.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/query/bound_constants.h"
#include "engine/query/index_bounds.h"

namespace mongostore::engine {
namespace {

using SingleRange = RebindableRange;

// The operator of a range condition's name, or nullopt for another operator.
std::optional<RangeOp> range_op(std::string_view name) {
  if (name == "$gt") return RangeOp::kGt;
  if (name == "$gte") return RangeOp::kGte;
  if (name == "$lt") return RangeOp::kLt;
  if (name == "$lte") return RangeOp::kLte;
  return std::nullopt;
}

// The one range condition {path: {op: finite number}} of `field`.
std::optional<SingleRange> range_condition(const bson::Element& field) {
  if (!usable_path(field.key) || !field.value.is_document()) return std::nullopt;
  bson::DocumentView ops = field.value.as_document();
  auto op = ops.begin();
  if (op == ops.end()) return std::nullopt;
  const bson::Element cond = *op;
  if (++op != ops.end() || !cond.value.is_number() ||
      !std::isfinite(cond.value.number_as_double())) {
    return std::nullopt;
  }
  if (!range_op(cond.key)) return std::nullopt;
  return SingleRange{field.key, cond.key, cond.value};
}

// The one range condition of a rebindable_range filter.
std::optional<SingleRange> single_range(bson::DocumentView filter) {
  auto it = filter.begin();
  if (it == filter.end()) return std::nullopt;
  const bson::Element field = *it;
  if (++it != filter.end()) return std::nullopt;
  if (field.key != "$or") return range_condition(field);
  // {$or: [{f: null}, {f: {op: n}}]}, either order. Every run of a prepared sweep parses it
  // (PlanCache): one pass, no allocation.
  if (!field.value.is_array()) return std::nullopt;
  bson::Element branches[2];
  size_t n = 0;
  for (const bson::Element& b : field.value.as_array()) {
    if (n == 2 || !b.value.is_document()) return std::nullopt;
    bson::DocumentView branch = b.value.as_document();
    auto c = branch.begin();
    if (c == branch.end()) return std::nullopt;
    branches[n++] = *c;
    if (++c != branch.end()) return std::nullopt;
  }
  if (n != 2) return std::nullopt;
  const bool null_first = branches[0].value.is_null();
  const bson::Element& null = branches[null_first ? 0 : 1];
  const bson::Element& range = branches[null_first ? 1 : 0];
  if (!null.value.is_null() || null.key != range.key) return std::nullopt;
  std::optional<SingleRange> out = range_condition(range);
  if (!out) return std::nullopt;
  out->or_null = true;
  out->null_first = null_first;
  return out;
}

// The key ranges plan_query gives a rebindable_range filter on an index whose first field is
// its path (`descending` that field's direction), in plan order.
std::vector<KeyRange> rebindable_ranges(const SingleRange& r, bool descending) {
  std::vector<KeyRange> out{
      byte_range(std::string(), range_interval(*range_op(r.op), r.value), descending)};
  if (r.or_null) {
    // Null sorts below every number: the two intervals never touch (merged() keeps both).
    const bson::Value null = bound_constant(BoundConstant::kNull);
    out.push_back(byte_range(std::string(), Interval{null, true, null, true}, descending));
    std::sort(out.begin(), out.end(),
              [](const KeyRange& a, const KeyRange& b) { return a.start < b.start; });
  }
  return out;
}

bool same_ranges(const std::vector<KeyRange>& a, const std::vector<KeyRange>& b) {
  return std::equal(
      a.begin(), a.end(), b.begin(), b.end(), [](const KeyRange& x, const KeyRange& y) {
        return x.start == y.start && x.end == y.end && x.end_unbounded == y.end_unbounded;
      });
}

}  // namespace

bool rebindable_range(bson::DocumentView filter) {
  return single_range(filter).has_value();
}

std::optional<RebindableRange> read_rebindable_range(bson::DocumentView filter) {
  return single_range(filter);
}

bool rebindable_plan(const IndexPlan& plan, const IndexDescriptor& index,
                     bson::DocumentView planned) {
  std::optional<SingleRange> was = single_range(planned);
  if (!was || index.fields().empty() || index.fields()[0].path != was->path) return false;
  // The plan must be the ranges this computes for `planned` (not, say, a whole-index read
  // for a hint or a sort): then the same computation for another number is what planning
  // gives.
  return same_ranges(plan.ranges, rebindable_ranges(*was, index.fields()[0].descending));
}

std::optional<IndexPlan> rebind_checked_plan(const IndexPlan& plan, const IndexDescriptor& index,
                                             const RebindableRange& was,
                                             bson::DocumentView filter) {
  std::optional<SingleRange> now = single_range(filter);
  if (!now || was.path != now->path || was.op != now->op || was.or_null != now->or_null ||
      was.null_first != now->null_first) {
    return std::nullopt;
  }
  IndexPlan out = plan;
  out.ranges = rebindable_ranges(*now, index.fields()[0].descending);
  out.bounds = bson::Document();  // explain plans its own
  return out;
}

std::optional<IndexPlan> rebind_range_plan(const IndexPlan& plan, const IndexDescriptor& index,
                                           bson::DocumentView planned, bson::DocumentView filter) {
  if (!rebindable_plan(plan, index, planned)) return std::nullopt;
  return rebind_checked_plan(plan, index, *single_range(planned), filter);
}

}  // namespace mongostore::engine
