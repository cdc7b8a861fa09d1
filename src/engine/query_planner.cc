#include "engine/query_planner.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>

#include "engine/query/bound_constants.h"
#include "engine/query/index_bounds.h"
#include "engine/query/type_brackets.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/index_key.h"

namespace mongostore::engine {
namespace {

struct FieldConditions {
  std::vector<bson::Value> equalities;
  std::vector<std::vector<bson::Value>> in_lists;
  std::vector<std::pair<RangeOp, bson::Value>> ranges;
  /// One entry per $type: the type brackets it reads, ascending (type_intervals).
  std::vector<std::vector<Interval>> type_sets;
  /// One entry per $or (of the top-level conjunction) whose every branch is one condition on
  /// this field alone: each branch's own conditions. Its bounds are the union of the
  /// branches' (union_intervals), read by one index scan, as mongod merges such an $or into
  /// one IXSCAN with several intervals.
  std::vector<std::vector<FieldConditions>> unions;
};

bool usable_point(const bson::Value& v) {
  return !v.is_array() && v.type() != bson::BsonType::kRegex &&
         v.type() != bson::BsonType::kUndefined && !v.is_missing();
}

// $let variables bound to constants while walking an $expr; nullopt for a variable whose
// value is not known (it shadows an outer constant of the same name). Innermost last.
using ExprBindings = std::vector<std::pair<std::string_view, std::optional<bson::Value>>>;

// The constant an expression argument always evaluates to, when the planner can tell without
// evaluating anything: a $literal, a $let variable bound to one, or a plain scalar. Missing
// (a variable bound to $$REMOVE) comes back as a missing Value.
std::optional<bson::Value> expr_constant(const bson::Value& arg, const ExprBindings& bindings) {
  if (arg.type() == bson::BsonType::kString) {
    std::string_view s = arg.as_string();
    if (s.rfind("$$", 0) == 0) {
      std::string_view name = s.substr(2);
      if (name == "REMOVE") return bson::Value();
      for (auto it = bindings.rbegin(); it != bindings.rend(); ++it) {
        if (it->first == name) return it->second;
      }
      return std::nullopt;  // a system variable, a path into a variable, or unknown
    }
    if (!s.empty() && s[0] == '$') return std::nullopt;  // a field path
    return arg;
  }
  if (arg.is_document()) {
    bson::DocumentView d = arg.as_document();
    auto it = d.begin();
    if (it != d.end() && it->key == "$literal" && ++d.begin() == d.end()) return it->value;
    return std::nullopt;  // an operator or an object expression
  }
  if (arg.is_array()) return std::nullopt;  // an array expression
  return arg;
}

// Equalities an $expr implies, as index points: {$eq: ["$path", constant]} (either order),
// inside $and and $let (the form bind_let_to_filter and $lookup's pushdown give). Each is a
// superset of what the $expr matches, so the executor's re-check keeps the answer exact:
//   - $expr compares the path's whole value, so an array holding the constant, or a dotted
//     path through an array, fails it but sits at the point on a multikey index;
//   - a constant null (or missing) matches only null (or missing) in $expr, and the point
//     null holds both;
//   - arrays, regexes and undefined are never points, as for a plain equality.
// Ranges are left alone: $expr's $lt/$gt compare across types, MongoDB's index bounds do not.
void collect_expr_equalities(const bson::Value& expr, ExprBindings& bindings,
                             std::map<std::string, FieldConditions>* out) {
  if (!expr.is_document()) return;
  bson::DocumentView d = expr.as_document();
  auto first = d.begin();
  if (first == d.end() || ++d.begin() != d.end()) return;
  const bson::Element& op = *first;
  if (op.key == "$and" && op.value.is_array()) {
    for (const bson::Element& clause : op.value.as_array()) {
      collect_expr_equalities(clause.value, bindings, out);
    }
  } else if (op.key == "$let" && op.value.is_document()) {
    bson::Value vars = op.value.as_document().get("vars");
    bson::Value in = op.value.as_document().get("in");
    if (!vars.is_document() || in.is_missing()) return;
    size_t before = bindings.size();
    std::vector<std::pair<std::string_view, std::optional<bson::Value>>> added;
    for (const bson::Element& v : vars.as_document()) {
      added.emplace_back(v.key, expr_constant(v.value, bindings));  // vars see the outer scope
    }
    bindings.insert(bindings.end(), added.begin(), added.end());
    collect_expr_equalities(in, bindings, out);
    bindings.resize(before);
  } else if (op.key == "$eq" && op.value.is_array()) {
    std::vector<bson::Value> args;
    for (const bson::Element& a : op.value.as_array()) args.push_back(a.value);
    if (args.size() != 2) return;
    for (int side = 0; side < 2; ++side) {
      const bson::Value& path = args[side];
      if (path.type() != bson::BsonType::kString) continue;
      std::string_view p = path.as_string();
      if (p.size() < 2 || p[0] != '$' || p[1] == '$' || !usable_path(p.substr(1))) continue;
      std::optional<bson::Value> c = expr_constant(args[1 - side], bindings);
      if (!c) continue;
      bson::Value point = c->is_missing() ? bound_constant(BoundConstant::kNull) : *c;
      if (usable_point(point)) (*out)[std::string(p.substr(1))].equalities.push_back(point);
    }
  }
}

// The intervals a $type operand reads: its types' brackets (query/type_brackets.h), or nullopt
// for an operand without a clean bracket (the plan is then what it was without the $type).
std::optional<std::vector<Interval>> type_intervals(const bson::Value& operand) {
  std::optional<std::vector<TypeBracket>> brackets = type_brackets(operand);
  if (!brackets) return std::nullopt;
  std::vector<Interval> out;
  out.reserve(brackets->size());
  for (const TypeBracket& b : *brackets) out.push_back(Interval{b.low, true, b.high, true});
  return out;
}

void collect_conditions(bson::DocumentView filter, std::map<std::string, FieldConditions>* out);

// The path every branch of an $or names as its one field ({$or: [{f: ..}, {f: ..}]}), or
// nullopt: another shape is left to plan_or (or the collection scan).
std::optional<std::string_view> single_path_of_or(const bson::Value& branches) {
  if (!branches.is_array()) return std::nullopt;
  std::optional<std::string_view> path;
  size_t count = 0;
  for (const bson::Element& b : branches.as_array()) {
    if (!b.value.is_document() || ++count > kMaxOrPlanBranches) return std::nullopt;
    bson::DocumentView branch = b.value.as_document();
    auto it = branch.begin();
    if (it == branch.end()) return std::nullopt;
    const std::string_view key = it->key;
    if (++it != branch.end() || !usable_path(key) || (path && *path != key)) return std::nullopt;
    path = key;
  }
  return path;
}

// An $or of one field's conditions (single_path_of_or) as that field's union entry.
void collect_union(const bson::Value& branches, std::map<std::string, FieldConditions>* out) {
  std::optional<std::string_view> path = single_path_of_or(branches);
  if (!path) return;
  std::vector<FieldConditions> conditions;
  for (const bson::Element& b : branches.as_array()) {
    std::map<std::string, FieldConditions> branch;
    collect_conditions(b.value.as_document(), &branch);
    auto it = branch.find(std::string(*path));
    conditions.push_back(it == branch.end() ? FieldConditions() : std::move(it->second));
  }
  (*out)[std::string(*path)].unions.push_back(std::move(conditions));
}

void collect_conditions(bson::DocumentView filter, std::map<std::string, FieldConditions>* out) {
  for (const bson::Element& e : filter) {
    if (e.key == "$or") {
      collect_union(e.value, out);
      continue;
    }
    if (e.key == "$expr") {
      ExprBindings bindings;
      collect_expr_equalities(e.value, bindings, out);
      continue;
    }
    if (e.key == "$and" && e.value.is_array()) {
      for (const bson::Element& clause : e.value.as_array()) {
        if (clause.value.is_document()) collect_conditions(clause.value.as_document(), out);
      }
      continue;
    }
    if (!usable_path(e.key)) continue;
    FieldConditions& fc = (*out)[std::string(e.key)];
    bool operators = false;
    if (e.value.is_document()) {
      auto it = e.value.as_document().begin();
      operators = it != e.value.as_document().end() && !it->key.empty() && it->key[0] == '$';
    }
    if (!operators) {
      if (usable_point(e.value)) fc.equalities.push_back(e.value);
      continue;
    }
    for (const bson::Element& op : e.value.as_document()) {
      if (op.key == "$eq") {
        if (usable_point(op.value)) fc.equalities.push_back(op.value);
      } else if (op.key == "$type") {
        if (auto intervals = type_intervals(op.value))
          fc.type_sets.push_back(std::move(*intervals));
      } else if (op.key == "$in" && op.value.is_array()) {
        std::vector<bson::Value> values;
        bool ok = true;
        for (const bson::Element& v : op.value.as_array()) {
          ok = ok && usable_point(v.value);
          values.push_back(v.value);
        }
        if (ok) fc.in_lists.push_back(std::move(values));
      } else if (op.key == "$gt" || op.key == "$gte" || op.key == "$lt" || op.key == "$lte") {
        bson::BsonType t = op.value.type();
        if (op.value.is_null() || t == bson::BsonType::kMinKey || t == bson::BsonType::kMaxKey ||
            !usable_point(op.value)) {
          continue;
        }
        RangeOp r = op.key == "$gt"    ? RangeOp::kGt
                    : op.key == "$gte" ? RangeOp::kGte
                    : op.key == "$lt"  ? RangeOp::kLt
                                       : RangeOp::kLte;
        fc.ranges.emplace_back(r, op.value);
      }
    }
  }
}

std::optional<std::vector<Interval>> field_intervals(const FieldConditions& fc, bool multikey,
                                                     bool* has_null);

// The bounds of an $or of one field's conditions: the union of its branches' bounds, each as
// the branch alone gives them (on a multikey index too: a document matching a branch has a
// key in that branch's bounds). Nullopt when some branch has no usable bound (it could match
// documents with any key). `has_null` is set when some branch's are.
std::optional<std::vector<Interval>> union_intervals(const std::vector<FieldConditions>& branches,
                                                     bool multikey, bool* has_null) {
  std::vector<Interval> all;
  bool null = false;
  for (const FieldConditions& branch : branches) {
    std::optional<std::vector<Interval>> intervals = field_intervals(branch, multikey, &null);
    if (!intervals) return std::nullopt;
    all.insert(all.end(), intervals->begin(), intervals->end());
  }
  *has_null = *has_null || null;
  return merged(std::move(all));
}

// The intervals of one field; nullopt when the field has no usable condition.
// `has_null` is set when a point is null (which also matches missing).
std::optional<std::vector<Interval>> field_intervals(const FieldConditions& fc, bool multikey,
                                                     bool* has_null) {
  std::vector<Interval> out;
  if (!fc.equalities.empty()) {
    const bson::Value& v = fc.equalities.front();
    *has_null = *has_null || v.is_null();
    out.push_back(Interval{v, true, v, true});
    return out;
  }
  if (!fc.in_lists.empty()) {
    std::vector<bson::Value> values = fc.in_lists.front();
    std::sort(values.begin(), values.end(), bson::ValueLess());
    values.erase(std::unique(values.begin(), values.end(),
                             [](const bson::Value& a, const bson::Value& b) {
                               return bson::values_equal(a, b);
                             }),
                 values.end());
    for (const bson::Value& v : values) {
      *has_null = *has_null || v.is_null();
      out.push_back(Interval{v, true, v, true});
    }
    return out;  // an empty $in gives no intervals: nothing matches
  }
  // An $or's union: before a range only when it is points (then narrower, as an $in), and
  // before a $type always (a $type is used only when nothing else bounds the field).
  for (const std::vector<FieldConditions>& branches : fc.unions) {
    bool null = false;
    std::optional<std::vector<Interval>> u = union_intervals(branches, multikey, &null);
    if (!u) continue;
    const bool points =
        std::all_of(u->begin(), u->end(), [](const Interval& i) { return i.is_point(); });
    if (!fc.ranges.empty() && !points) continue;
    *has_null = *has_null || null;
    return u;
  }
  if (fc.ranges.empty()) {
    // A $type: its brackets (none holds null or missing). Only when nothing else bounds the
    // field, so a range or point keeps its narrower bounds.
    if (fc.type_sets.empty()) return std::nullopt;
    return fc.type_sets.front();
  }
  Interval i = range_interval(fc.ranges.front().first, fc.ranges.front().second);
  if (!multikey) {
    for (size_t r = 1; r < fc.ranges.size(); ++r) {
      Interval j = range_interval(fc.ranges[r].first, fc.ranges[r].second);
      int lo = bson::compare_values(j.lo, i.lo);
      if (lo > 0 || (lo == 0 && !j.lo_inclusive)) {
        i.lo = j.lo;
        i.lo_inclusive = j.lo_inclusive;
      }
      int hi = bson::compare_values(j.hi, i.hi);
      if (hi < 0 || (hi == 0 && !j.hi_inclusive)) {
        i.hi = j.hi;
        i.hi_inclusive = j.hi_inclusive;
      }
    }
  }
  if (!interval_empty(i)) out.push_back(i);
  return out;
}

// A bound's text; under an index collation a string bound is a sort key, which mongod's
// explain shows as CollationKey(0x<hex>) (the bytes are not text).
std::string value_text(const bson::Value& v, bool collation_keys) {
  if (collation_keys && v.is_string()) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out = "CollationKey(0x";
    for (char c : v.as_string()) {
      out += kDigits[static_cast<uint8_t>(c) >> 4];
      out += kDigits[static_cast<uint8_t>(c) & 0xF];
    }
    return out + ")";
  }
  switch (v.type()) {
    case bson::BsonType::kMinKey:
      return "MinKey";
    case bson::BsonType::kMaxKey:
      return "MaxKey";
    case bson::BsonType::kDouble: {
      double d = v.as_double();
      if (std::isinf(d)) return d > 0 ? "inf.0" : "-inf.0";
      if (std::isnan(d)) return "nan.0";
      return v.to_json();
    }
    // mongod's shell spelling, as its explain writes these bounds.
    case bson::BsonType::kDateTime:
      return "new Date(" + std::to_string(v.as_datetime().millis) + ")";
    case bson::BsonType::kTimestamp: {
      bson::Timestamp t = v.as_timestamp();
      return "Timestamp(" + std::to_string(t.seconds) + ", " + std::to_string(t.increment) + ")";
    }
    case bson::BsonType::kObjectId:
      return "ObjectId('" + v.as_object_id().to_hex() + "')";
    case bson::BsonType::kArray:
      return v.as_array().to_json_array();
    case bson::BsonType::kDocument: {
      bson::DocumentView d = v.as_document();
      return d.begin() == d.end() ? "{}" : v.to_json();  // libbson writes "{  }"
    }
    default:
      return v.to_json();
  }
}

std::string interval_text(const Interval& i, bool descending, bool collation_keys) {
  if (descending) {
    return std::string(i.hi_inclusive ? "[" : "(") + value_text(i.hi, collation_keys) + ", " +
           value_text(i.lo, collation_keys) + (i.lo_inclusive ? "]" : ")");
  }
  return std::string(i.lo_inclusive ? "[" : "(") + value_text(i.lo, collation_keys) + ", " +
         value_text(i.hi, collation_keys) + (i.hi_inclusive ? "]" : ")");
}

struct SortField {
  std::string path;
  bool descending;
};

bool partial_filter_implied(const IndexDescriptor& d, bson::DocumentView filter) {
  // Simple and safe: every top-level condition of the partial filter appears, byte for
  // byte, among the query's top-level conditions (or those of a top-level $and).
  std::vector<bson::Element> query;
  for (const bson::Element& e : filter) {
    if (e.key == "$and" && e.value.is_array()) {
      for (const bson::Element& clause : e.value.as_array()) {
        if (!clause.value.is_document()) continue;
        for (const bson::Element& c : clause.value.as_document()) query.push_back(c);
      }
    } else {
      query.push_back(e);
    }
  }
  for (const bson::Element& p : d.partial_filter_expression()) {
    bool found = false;
    for (const bson::Element& q : query) {
      if (q.key == p.key && q.value.identical(p.value)) found = true;
    }
    if (!found) return false;
  }
  return true;
}

struct Scored {
  IndexPlan plan;
  int score = -1;
};

// The conditions as index `index_collation` can bound them for a query compared under
// `query_collation`. Under the same collation every string value (also inside documents)
// becomes its sort key, as the index stores it; under another one a condition whose value
// holds a string cannot be bounded (its order and equality differ) and is left to the
// executor's re-check, as MongoDB does. Values without strings bound either way. `held`
// keeps the sort keys the returned views point into.
std::map<std::string, FieldConditions> conditions_for(
    const std::map<std::string, FieldConditions>& conditions, const Collation* index_collation,
    bool same_collation, std::deque<bson::OwnedValue>* held) {
  auto adjust = [&](const bson::Value& v, bson::Value* out) {
    if (!Collation::collation_sensitive(v)) {
      *out = v;
      return true;
    }
    if (!same_collation) return false;
    if (index_collation == nullptr) {
      *out = v;
      return true;
    }
    held->push_back(index_collation->comparison_key(v));
    *out = held->back().view();
    return true;
  };
  // One field's conditions, and those of its $or branches (a branch losing its condition
  // loses the union: union_intervals).
  std::function<FieldConditions(const FieldConditions&)> adjusted = [&](const FieldConditions& fc) {
    FieldConditions a;
    for (const bson::Value& v : fc.equalities) {
      bson::Value k;
      if (adjust(v, &k)) a.equalities.push_back(k);
    }
    for (const auto& list : fc.in_lists) {
      std::vector<bson::Value> values;
      bool ok = true;
      for (const bson::Value& v : list) {
        bson::Value k;
        ok = ok && adjust(v, &k);
        values.push_back(k);
      }
      if (ok) a.in_lists.push_back(std::move(values));
    }
    for (const auto& [op, v] : fc.ranges) {
      bson::Value k;
      if (adjust(v, &k)) a.ranges.emplace_back(op, k);
    }
    // A type bracket bounds keys of any collation: a string's sort key is still a string.
    a.type_sets = fc.type_sets;
    for (const std::vector<FieldConditions>& branches : fc.unions) {
      std::vector<FieldConditions> u;
      for (const FieldConditions& b : branches) u.push_back(adjusted(b));
      a.unions.push_back(std::move(u));
    }
    return a;
  };
  std::map<std::string, FieldConditions> out;
  for (const auto& [path, fc] : conditions) out[path] = adjusted(fc);
  return out;
}

}  // namespace

std::optional<bson::Value> expr_id_equality(bson::DocumentView filter) {
  std::map<std::string, FieldConditions> conditions;
  collect_conditions(filter, &conditions);
  auto it = conditions.find("_id");
  if (it == conditions.end() || it->second.equalities.empty()) return std::nullopt;
  return it->second.equalities.front();  // two different values: the re-check rejects it
}

namespace {

// The field of a filter that is one condition an index can bound exactly (IndexPlan::exact):
// {f: n}, {f: {$eq: n}} or {f: {$gt|$gte|$lt|$lte: n}} on a path f of non-numeric parts (no
// part starting with '$') and a number n that is not NaN. A number compares the same under
// every collation, its index keys order as compare_values orders numbers, and the bounds of
// each operator hold exactly the numbers it matches (range_interval). The keys of f are the
// values the path reaches (IndexKeyGenerator: documents followed, arrays on the way traversed
// through their document elements, an array at the end giving its elements), and a key is
// numeric only when such a value is that number: the very values the matcher tries, one of
// which satisfying the condition being a match. So on a multikey index too, a document with a
// key in the bounds matches — for ONE condition only: {$gt: 1, $lt: 5} is matched by [0, 9]
// through two different elements, and a multikey index is bounded by one of the two
// (field_intervals), so such a filter is never exact. Anything else (several conditions,
// positional parts, other types, $expr, $comment, ...) is re-checked.
//
// An $or of such conditions on one path ({$or: [{f: {$lte: n}}, {f: {$gt: m}}]}) is exact
// too: its bounds are the union of theirs, and a key is in some branch's bounds. So is an $or
// that adds {f: null} (or {f: {$eq: null}}), but only on an index that is not multikey
// (`null_point`): there every document has one key, null exactly when the path reaches null or
// nothing, which {f: null} matches; on a multikey index the null key also comes from arrays
// on the way (mongod's null bounds are never exact either).
struct ExactField {
  std::string_view path;
  bool null_point = false;
};

// The path of one exact condition (see above), with `null_point` when `null_allowed` lets it be
// a null equality.
std::optional<ExactField> exact_condition(const bson::Element& field, bool null_allowed) {
  if (!usable_path(field.key) || field.key.find(".$") != std::string_view::npos) {
    return std::nullopt;
  }
  auto exact_number = [](const bson::Value& v) {
    return v.is_number() && v.number_as_double() == v.number_as_double();
  };
  if (!field.value.is_document()) {
    if (null_allowed && field.value.is_null()) return ExactField{field.key, true};
    return exact_number(field.value) ? std::optional<ExactField>(ExactField{field.key})
                                     : std::nullopt;
  }
  bson::DocumentView ops = field.value.as_document();
  auto op = ops.begin();
  if (op == ops.end()) return std::nullopt;
  const bson::Element cond = *op;
  if (++op != ops.end()) return std::nullopt;
  if (null_allowed && cond.key == "$eq" && cond.value.is_null()) {
    return ExactField{field.key, true};
  }
  if (!exact_number(cond.value)) return std::nullopt;
  if (cond.key != "$eq" && cond.key != "$gt" && cond.key != "$gte" && cond.key != "$lt" &&
      cond.key != "$lte") {
    return std::nullopt;
  }
  return ExactField{field.key};
}

std::optional<ExactField> exact_field(bson::DocumentView filter) {
  auto it = filter.begin();
  if (it == filter.end()) return std::nullopt;
  const bson::Element field = *it;
  if (++it != filter.end()) return std::nullopt;
  if (field.key != "$or") return exact_condition(field, /*null_allowed=*/false);
  if (!single_path_of_or(field.value)) return std::nullopt;
  std::optional<ExactField> out;
  for (const bson::Element& b : field.value.as_array()) {
    std::optional<ExactField> branch =
        exact_condition(*b.value.as_document().begin(), /*null_allowed=*/true);
    if (!branch) return std::nullopt;
    if (!out) out = ExactField{branch->path};
    out->null_point = out->null_point || branch->null_point;
  }
  return out;
}

}  // namespace

std::optional<IndexPlan> plan_query(bson::DocumentView filter, bson::DocumentView sort,
                                    const std::vector<IndexCandidate>& candidates, bool forced,
                                    bool explain_bounds, const Collation* collation) {
  std::map<std::string, FieldConditions> query_conditions;
  collect_conditions(filter, &query_conditions);
  std::vector<SortField> sort_fields;
  for (const bson::Element& e : sort) {
    sort_fields.push_back(
        SortField{std::string(e.key), e.value.is_number() && e.value.number_as_double() < 0});
  }
  std::optional<Scored> best;
  const std::optional<ExactField> exact = exact_field(filter);
  for (size_t c = 0; c < candidates.size(); ++c) {
    const IndexDescriptor& d = *candidates[c].descriptor;
    bool multikey = candidates[c].multikey;
    if (!forced && d.partial_filter() && !partial_filter_implied(d, filter)) continue;
    const bool same_collation = Collation::same(d.collation(), collation);
    std::deque<bson::OwnedValue> held;
    std::map<std::string, FieldConditions> adjusted;
    if (!same_collation || d.collation() != nullptr) {
      adjusted = conditions_for(query_conditions, d.collation(), same_collation, &held);
    }
    // Both simple (the common case): the query's own conditions, not a copy.
    const std::map<std::string, FieldConditions>& conditions =
        !same_collation || d.collation() != nullptr ? adjusted : query_conditions;
    const auto& fields = d.fields();
    std::vector<std::vector<Interval>> bounded;  // the bounded prefix
    bool has_null = false;
    size_t equality_fields = 0;
    bool range_field = false;
    size_t points = 1;
    for (const IndexField& f : fields) {
      auto it = conditions.find(f.path);
      if (it == conditions.end()) break;
      auto intervals = field_intervals(it->second, multikey, &has_null);
      if (!intervals) break;
      bool all_points = std::all_of(intervals->begin(), intervals->end(),
                                    [](const Interval& i) { return i.is_point(); });
      if (all_points && points * std::max<size_t>(intervals->size(), 1) > 4096) break;
      bounded.push_back(std::move(*intervals));
      if (!all_points) {
        range_field = true;
        break;
      }
      points *= std::max<size_t>(bounded.back().size(), 1);
      ++equality_fields;
    }
    if (!forced && d.sparse() && (bounded.empty() || has_null)) continue;
    // Does the index order give the sort? After single-point equality fields, the sort
    // fields must be the next index fields, all in index direction or all reversed.
    bool provides_sort = false, reverse = false;
    // Under another collation than the query's, the index order is not the sort's order.
    if (!sort_fields.empty() && !multikey && same_collation) {
      size_t single_points = 0;
      while (single_points < bounded.size() && bounded[single_points].size() == 1 &&
             bounded[single_points][0].is_point()) {
        ++single_points;
      }
      for (size_t k = 0; k <= single_points && !provides_sort; ++k) {
        if (k + sort_fields.size() > fields.size()) break;
        bool forward = true, backward = true;
        for (size_t s = 0; s < sort_fields.size(); ++s) {
          const IndexField& f = fields[k + s];
          if (f.path != sort_fields[s].path) forward = backward = false;
          if (f.descending != sort_fields[s].descending) forward = false;
          if (f.descending == sort_fields[s].descending) backward = false;
        }
        if (forward || backward) {
          provides_sort = true;
          reverse = backward;
        }
      }
      // A bounded field with several intervals, before or among the sort fields, would
      // interleave: only single points may precede, and one range may be the first sort
      // field (its intervals are already in order).
    }
    if (!forced && bounded.empty() && !provides_sort) continue;
    if (!forced && bounded.empty() && (d.sparse() || d.partial_filter())) continue;
    int score =
        static_cast<int>(equality_fields) * 4 + (range_field ? 2 : 0) + (provides_sort ? 1 : 0);
    if (bounded.empty()) score = 0;  // only the sort
    if (best && (score < best->score ||
                 (score == best->score &&
                  (!d.unique() || candidates[best->plan.candidate].descriptor->unique()) &&
                  fields.size() >= candidates[best->plan.candidate].descriptor->fields().size()))) {
      continue;
    }
    IndexPlan plan;
    plan.candidate = c;
    plan.score = score;
    plan.reverse = reverse;
    plan.provides_sort = provides_sort;
    plan.multikey = multikey;
    plan.exact = exact && bounded.size() == 1 && fields[0].path == exact->path &&
                 !(exact->null_point && multikey);
    // Ranges: the cartesian product of the point fields, then the last bounded field's
    // intervals; fields after the bounded prefix are unbounded.
    std::vector<std::string> prefixes{std::string()};
    bool empty_result = false;
    for (size_t i = 0; i + 1 < bounded.size(); ++i) {
      std::vector<std::string> next;
      for (const std::string& p : prefixes) {
        for (const Interval& iv : bounded[i]) {
          std::string k = p;
          bson::append_index_key(k, iv.lo, fields[i].descending);
          next.push_back(std::move(k));
        }
      }
      if (next.empty()) empty_result = true;
      prefixes = std::move(next);
    }
    if (!empty_result) {
      std::vector<Interval> last =
          bounded.empty() ? std::vector<Interval>{full_interval()} : bounded.back();
      bool last_descending = fields[bounded.empty() ? 0 : bounded.size() - 1].descending;
      for (const std::string& p : prefixes) {
        for (const Interval& iv : last) plan.ranges.push_back(byte_range(p, iv, last_descending));
      }
    }
    std::sort(plan.ranges.begin(), plan.ranges.end(),
              [](const KeyRange& a, const KeyRange& b) { return a.start < b.start; });
    if (explain_bounds) {
      // mongod lists each field's intervals in the order the scan meets them: a descending
      // field, or a backward scan, lists them from the top down with each interval's ends
      // swapped (a backward scan of {a: 1} shows "[MaxKey, MinKey]"); both together cancel.
      bson::DocumentBuilder b;
      for (size_t i = 0; i < fields.size(); ++i) {
        const bool downwards = fields[i].descending != reverse;
        b.open_array(fields[i].path);
        if (i < bounded.size()) {
          const bool keys = d.collation() != nullptr;
          if (downwards) {
            for (auto it = bounded[i].rbegin(); it != bounded[i].rend(); ++it)
              b.push(interval_text(*it, true, keys));
          } else {
            for (const Interval& iv : bounded[i]) b.push(interval_text(iv, false, keys));
          }
        } else {
          b.push(interval_text(full_interval(), downwards, false));
        }
        b.close();
      }
      plan.bounds = b.finish();
    }
    best = Scored{std::move(plan), score};
  }
  if (!best) return std::nullopt;
  return std::move(best->plan);
}

namespace {

// The filter without its $or (the one of top-level $and clause `and_clause`, or the top-level
// one): the conditions every branch is read together with.
bson::Document without_or(bson::DocumentView filter, std::optional<size_t> and_clause) {
  bson::DocumentBuilder b;
  for (const bson::Element& e : filter) {
    if (!and_clause && e.key == "$or") continue;
    if (and_clause && e.key == "$and" && e.value.is_array()) {
      b.open_array("$and");
      size_t i = 0;
      for (const bson::Element& clause : e.value.as_array()) {
        if (i++ != *and_clause || !clause.value.is_document()) {
          b.push(clause.value);
          continue;
        }
        b.push_document();
        for (const bson::Element& c : clause.value.as_document()) {
          if (c.key != "$or") b.append(c.key, c.value);
        }
        b.close();
      }
      b.close();
      continue;
    }
    b.append(e.key, e.value);
  }
  return b.finish();
}

}  // namespace

std::optional<OrPlan> plan_or(bson::DocumentView filter, bson::DocumentView sort,
                              const std::vector<IndexCandidate>& candidates, int to_beat,
                              bool explain_bounds, const Collation* collation) {
  // Find the $or: at the top level, or in one of a top-level $and's clauses.
  bson::Value branches;
  std::optional<size_t> and_clause;
  for (const bson::Element& e : filter) {
    if (e.key == "$or") {
      branches = e.value;
      break;
    }
    if (e.key == "$and" && e.value.is_array()) {
      size_t i = 0;
      for (const bson::Element& clause : e.value.as_array()) {
        if (clause.value.is_document()) {
          bson::Value v = clause.value.as_document().get("$or");
          if (!v.is_missing()) {
            branches = v;
            and_clause = i;
            break;
          }
        }
        ++i;
      }
      if (!branches.is_missing()) break;
    }
  }
  if (!branches.is_array()) return std::nullopt;
  size_t count = 0;
  for (const bson::Element& b : branches.as_array()) {
    if (!b.value.is_document()) return std::nullopt;
    ++count;
  }
  if (count == 0 || count > kMaxOrPlanBranches) return std::nullopt;
  // The other conditions as $and clauses: the plain ones in one clause, then a top-level
  // $and's own clauses (one level, as plan_query and partial_filter_implied read them).
  const bson::Document rest = without_or(filter, and_clause);
  bson::DocumentBuilder plain;
  std::vector<bson::Value> rest_clauses;
  for (const bson::Element& e : rest.view()) {
    if (e.key == "$and" && e.value.is_array()) {
      for (const bson::Element& clause : e.value.as_array()) rest_clauses.push_back(clause.value);
    } else {
      plain.append(e.key, e.value);
    }
  }
  const bson::Document plain_conditions = plain.finish();
  OrPlan out;
  out.merge_sort = !sort.empty();
  for (const bson::Element& b : branches.as_array()) {
    // The branch as its own query: {$and: [the other conditions..., the branch]}.
    bson::DocumentBuilder q;
    q.open_array("$and");
    q.push(plain_conditions.view());
    for (const bson::Value& clause : rest_clauses) q.push(clause);
    q.push(b.value);
    q.close();
    bson::Document branch_filter = q.finish();
    std::optional<IndexPlan> p = plan_query(branch_filter.view(), sort, candidates,
                                            /*forced=*/false, explain_bounds, collation);
    if (!p || p->score <= 0 || p->score <= to_beat) return std::nullopt;
    out.merge_sort = out.merge_sort && p->provides_sort;
    out.branches.push_back(std::move(*p));
    out.filters.push_back(bson::Document::copy_of(b.value.as_document()));
  }
  return out;
}

}  // namespace mongostore::engine
