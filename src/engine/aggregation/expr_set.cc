// Set expressions: $setUnion $setIntersection $setDifference $setEquals $setIsSubset
// $allElementsTrue $anyElementTrue. Arrays are read as sets: duplicates count once and
// elements compare as MongoDB compares values (1 equals 1.0). Union and intersection come
// out in value order, as mongod builds them in an ordered set; a difference keeps the first
// array's order.
#include <set>

#include "engine/aggregation/collation_scope.h"
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

struct ValueLess {
  bool operator()(const Value& a, const Value& b) const { return compare_in_scope(a, b) < 0; }
};
using ValueSet = std::set<Value, ValueLess>;

ValueSet set_of(const Value& array) {
  ValueSet out;
  for (const bson::Element& e : array.as_array()) out.insert(e.value);
  return out;
}

OwnedValue array_of(const ValueSet& set) {
  return make_array_value(std::vector<Value>(set.begin(), set.end()));
}

// $setUnion and $setIntersection: any nullish operand makes the result null.
EagerFn union_or_intersection(bool is_union) {
  return [is_union](std::string_view op, std::vector<OwnedValue>& args) -> OwnedValue {
    for (const OwnedValue& a : args) {
      if (nullish(a.view())) return null_value();
      if (!a.view().is_array()) {
        fail(is_union ? 17043 : 17047,
             "All operands of " + std::string(op) +
                 " must be arrays. One argument is of type: " + type_name(a.view()));
      }
    }
    if (args.empty()) return make_array_value(std::vector<Value>{});
    ValueSet result = set_of(args[0].view());
    for (size_t i = 1; i < args.size(); ++i) {
      ValueSet next = set_of(args[i].view());
      if (is_union) {
        result.insert(next.begin(), next.end());
      } else {
        ValueSet kept;
        for (const Value& v : result) {
          if (next.count(v)) kept.insert(v);
        }
        result = std::move(kept);
      }
    }
    return array_of(result);
  };
}

OwnedValue op_set_difference(std::string_view, std::vector<OwnedValue>& a) {
  Value lhs = a[0].view(), rhs = a[1].view();
  if (nullish(lhs) || nullish(rhs)) return null_value();
  if (!lhs.is_array()) {
    fail(17048, "both operands of $setDifference must be arrays. First argument is of type: " +
                    type_name(lhs));
  }
  if (!rhs.is_array()) {
    fail(17049, "both operands of $setDifference must be arrays. Second argument is of type: " +
                    type_name(rhs));
  }
  ValueSet excluded = set_of(rhs);
  std::vector<Value> out;
  for (const bson::Element& e : lhs.as_array()) {
    if (excluded.insert(e.value).second) out.push_back(e.value);  // once each
  }
  return make_array_value(out);
}

OwnedValue op_set_equals(std::string_view, std::vector<OwnedValue>& a) {
  for (const OwnedValue& v : a) {
    if (!v.view().is_array()) {
      fail(17044, "All operands of $setEquals must be arrays. One argument is of type: " +
                      type_name(v.view()));
    }
  }
  ValueSet first = set_of(a[0].view());
  for (size_t i = 1; i < a.size(); ++i) {
    ValueSet other = set_of(a[i].view());
    if (other.size() != first.size()) return make_value(false);
    for (const Value& v : other) {
      if (!first.count(v)) return make_value(false);
    }
  }
  return make_value(true);
}

OwnedValue op_set_is_subset(std::string_view, std::vector<OwnedValue>& a) {
  if (!a[0].view().is_array()) {
    fail(17046, "both operands of $setIsSubset must be arrays. First argument is of type: " +
                    type_name(a[0].view()));
  }
  if (!a[1].view().is_array()) {
    fail(17042, "both operands of $setIsSubset must be arrays. Second argument is of type: " +
                    type_name(a[1].view()));
  }
  ValueSet super = set_of(a[1].view());
  for (const bson::Element& e : a[0].view().as_array()) {
    if (!super.count(e.value)) return make_value(false);
  }
  return make_value(true);
}

EagerFn all_or_any(bool all) {
  return [all](std::string_view op, std::vector<OwnedValue>& a) -> OwnedValue {
    Value v = a[0].view();
    if (!v.is_array()) {
      fail(all ? 17040 : 17041,
           std::string(op) + "'s argument must be an array, but is " + type_name(v));
    }
    for (const bson::Element& e : v.as_array()) {
      if (e.value.truthy() != all) return make_value(!all);
    }
    return make_value(all);
  };
}

}  // namespace

void register_set(OperatorTable& t) {
  add_eager(t, "$setUnion", 0, -1, union_or_intersection(true));
  add_eager(t, "$setIntersection", 0, -1, union_or_intersection(false));
  add_eager(t, "$setDifference", 2, 2, op_set_difference);
  add_eager(t, "$setEquals", 2, -1, op_set_equals);
  add_eager(t, "$setIsSubset", 2, 2, op_set_is_subset);
  add_eager(t, "$allElementsTrue", 1, 1, all_or_any(true));
  add_eager(t, "$anyElementTrue", 1, 1, all_or_any(false));
}

}  // namespace mongostore::engine::aggregation_detail
