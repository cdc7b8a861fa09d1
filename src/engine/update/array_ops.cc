// The array operators: $push (with $each $slice $sort $position), $addToSet, $pop, $pull and
// $pullAll. Each builds the field's new array in one go.
#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <vector>

#include "engine/update/existing_array.h"
#include "engine/update/internal.h"
#include "mongostore/bson/compare.h"

namespace mongostore::engine::update_detail {

using bson::DocumentView;
using bson::Value;

namespace {

std::string type_of(const Value& v) {
  return std::string(bson::type_alias(v.type()));
}

std::vector<Value> elements_of(const Value& array) {
  std::vector<Value> out;
  if (array.is_array()) {
    for (const auto& e : array.as_array()) out.push_back(e.value);
  }
  return out;
}

// The existing array's count and keys, one walk of its bytes (none for a missing field).
ExistingArray scan_existing(const Value& existing) {
  return existing.is_array() ? ExistingArray::scan(existing.as_array()) : ExistingArray();
}

void write_array(bson::DocumentBuilder& b, std::string_view key, const std::vector<Value>& items) {
  b.open_array(key);
  for (const Value& v : items) b.push(v);
  b.close();
}

/// The value at a dotted path inside `v` for $sort patterns (sub-documents only; arrays
/// and scalars give missing).
Value sort_key(const Value& v, const std::string& path) {
  if (!v.is_document()) return Value();
  return v.as_document().get_path(path);
}

void sort_items(std::vector<Value>& items, const PushSpec& spec) {
  if (spec.sort == PushSpec::Sort::kWhole) {
    std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
      return spec.whole_direction * bson::compare_values(a, b) < 0;
    });
    return;
  }
  std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
    for (const auto& [path, dir] : spec.sort_fields) {
      Value ka = sort_key(a, path), kb = sort_key(b, path);
      // Missing sorts as null.
      int c = bson::compare_values(ka.is_missing() ? Value(bson::BsonType::kNull, nullptr, 0) : ka,
                                   kb.is_missing() ? Value(bson::BsonType::kNull, nullptr, 0) : kb);
      if (c != 0) return dir * c < 0;
    }
    return false;
  });
}

}  // namespace

void apply_push(const Op& op, const Value& existing, std::string_view key, bson::DocumentBuilder& b,
                const ApplyContext& ctx) {
  const OpArgs& args = ctx.args(op);
  if (!existing.is_missing() && !existing.is_array()) {
    throw Error(ErrorCode::kBadValue, "The field '" + op.field +
                                          "' must be an array but is of type " + type_of(existing) +
                                          " in document " + describe_id(ctx.original));
  }
  const PushSpec& spec = args.push;
  if (!spec.position && !spec.slice && spec.sort == PushSpec::Sort::kNone) {
    // A plain append: the existing elements are copied as bytes, not one by one, so the
    // cost of a push does not grow with the array beyond one memcpy.
    const ExistingArray old = scan_existing(existing);
    b.open_array(key);
    ArrayKeys keys(old.write_elements(b));  // non-canonical keys are renumbered
    spec.each.for_each([&](const Value& v) { b.append(keys.next(), v); });
    b.close();
    return;
  }
  if (!spec.position && spec.sort == PushSpec::Sort::kNone) {
    // Appended and then sliced: the kept elements are one run of (existing, then $each),
    // written without collecting them first; when the slice keeps them all (a ring not yet
    // full, such as an ExecutionStore trace), the existing ones are copied as bytes.
    const ExistingArray old = scan_existing(existing);
    const uint64_t total = old.count() + spec.each.size();
    const int64_t s = *spec.slice;
    uint64_t from = 0, to = total;
    if (s >= 0) {
      to = std::min<uint64_t>(total, static_cast<uint64_t>(s));
    } else {
      const uint64_t keep = static_cast<uint64_t>(-(s + 1)) + 1;  // |s| without overflow
      if (keep < total) from = total - keep;
    }
    b.open_array(key);
    if (from == 0 && to == total) {
      ArrayKeys keys(old.write_elements(b));
      spec.each.for_each([&](const Value& v) { b.append(keys.next(), v); });
      b.close();
      return;
    }
    ArrayKeys keys(0);
    uint64_t i = 0;
    if (existing.is_array()) {
      for (const auto& e : existing.as_array()) {
        if (i >= from && i < to) b.append(keys.next(), e.value);
        ++i;
      }
    }
    spec.each.for_each([&](const Value& v) {
      if (i >= from && i < to) b.append(keys.next(), v);
      ++i;
    });
    b.close();
    return;
  }
  std::vector<Value> items = elements_of(existing);
  size_t at = items.size();
  if (spec.position) {
    int64_t p = *spec.position;
    int64_t n = static_cast<int64_t>(items.size());
    if (p < 0) p = std::max<int64_t>(0, n + p);
    at = static_cast<size_t>(std::min(p, n));
  }
  const std::vector<Value> each = spec.each.to_vector();
  items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), each.begin(), each.end());
  if (spec.sort != PushSpec::Sort::kNone) sort_items(items, spec);
  if (spec.slice) {
    int64_t s = *spec.slice;
    size_t n = items.size();
    if (s >= 0) {
      if (static_cast<uint64_t>(s) < n) items.resize(static_cast<size_t>(s));
    } else {
      uint64_t keep = static_cast<uint64_t>(-(s + 1)) + 1;  // |s| without overflow
      if (keep < n) items.erase(items.begin(), items.end() - static_cast<std::ptrdiff_t>(keep));
    }
  }
  write_array(b, key, items);
}

// Up to this many new values, each is looked for in place (no set to build): the common case
// of one or a few values added to an array of any size stays one linear pass.
constexpr size_t kLinearAddToSetValues = 8;

void apply_add_to_set(const Op& op, const Value& existing, std::string_view key,
                      bson::DocumentBuilder& b, const ApplyContext& ctx) {
  const OpArgs& args = ctx.args(op);
  if (!existing.is_missing() && !existing.is_array()) {
    throw Error(ErrorCode::kBadValue, "Cannot apply $addToSet to non-array field. Field named '" +
                                          op.field + "' has non-array type " + type_of(existing));
  }
  // Only the new elements are collected; the existing ones are compared in place and then
  // copied as bytes. Without a collation two strings are equal exactly when their bytes are,
  // so a string is checked by length and bytes, skipping the general comparison: the dedupe
  // marks an ExecutionStore commit adds are strings checked against every mark already there.
  const bson::StringComparator* strings = ctx.impl.collation.get();
  auto equal = [strings](const Value& a, const Value& b) {
    if (strings == nullptr && a.type() == bson::BsonType::kString &&
        b.type() == bson::BsonType::kString) {
      return a.as_string() == b.as_string();
    }
    return bson::values_equal(a, b, strings);
  };
  // The values to add: on the linear path at most kLinearAddToSetValues, kept inline (a
  // vector was an allocation per update); the set path collects into `many`.
  std::array<Value, kLinearAddToSetValues> few;
  size_t few_count = 0;
  std::vector<Value> many;
  if (args.push.each.size() > kLinearAddToSetValues) {
    // Many new values: an ordered set of everything seen keeps this O(n log n); checking
    // each new value against all the others would be quadratic (10,000 took 18.8 s).
    std::set<Value, bson::ValueLess> seen(bson::ValueLess{strings});
    if (existing.is_array()) {
      for (const auto& e : existing.as_array()) seen.insert(e.value);
    }
    args.push.each.for_each([&](const Value& v) {
      if (seen.insert(v).second) many.push_back(v);
    });
  } else {
    args.push.each.for_each([&](const Value& v) {
      bool present = std::any_of(few.begin(), few.begin() + static_cast<std::ptrdiff_t>(few_count),
                                 [&](const Value& x) { return equal(x, v); });
      if (!present && existing.is_array()) {
        RawElements elements(existing.as_array());
        bson::Element e;
        while (!present && elements.next(e)) present = equal(e.value, v);
      }
      if (!present) few[few_count++] = v;
    });
  }
  const ExistingArray old = scan_existing(existing);
  b.open_array(key);
  ArrayKeys keys(old.write_elements(b));
  for (size_t i = 0; i < few_count; ++i) b.append(keys.next(), few[i]);
  for (const Value& v : many) b.append(keys.next(), v);
  b.close();
}

void apply_pop(const Op& op, const Value& existing, std::string_view key, bson::DocumentBuilder& b,
               const ApplyContext& ctx) {
  const OpArgs& args = ctx.args(op);
  if (existing.is_missing()) return;
  if (!existing.is_array()) {
    throw Error(
        ErrorCode::kTypeMismatch,
        "Path '" + op.path + "' contains an element of non-array type '" + type_of(existing) + "'");
  }
  std::vector<Value> items = elements_of(existing);
  if (items.empty()) {
    b.append(key, existing);
    return;
  }
  if (args.pop > 0) {
    items.pop_back();
  } else {
    items.erase(items.begin());
  }
  write_array(b, key, items);
}

void apply_pull(const Op& op, const Value& existing, std::string_view key, bson::DocumentBuilder& b,
                const ApplyContext& ctx) {
  const OpArgs& args = ctx.args(op);
  const bson::ValueLess less{ctx.impl.collation.get()};
  if (existing.is_missing()) return;
  if (!existing.is_array()) {
    throw Error(ErrorCode::kBadValue, "Cannot apply " + op.op_name + " to a non-array value");
  }
  std::vector<Value> items = elements_of(existing);
  std::vector<Value> kept;
  std::vector<Value> remove_all =
      op.kind == OpKind::kPullAll ? elements_of(args.arg) : std::vector<Value>{};
  // Sorted, each element is looked up in O(log n): a scan per element would make $pullAll of
  // a large list from a large array quadratic.
  std::sort(remove_all.begin(), remove_all.end(), less);
  for (const Value& v : items) {
    bool remove = false;
    if (op.kind == OpKind::kPullAll) {
      remove = std::binary_search(remove_all.begin(), remove_all.end(), v, less);
    } else if (args.pull) {
      remove = args.pull->matches(v);
    } else {
      remove = bson::values_equal(args.arg, v, less.strings);
    }
    if (!remove) kept.push_back(v);
  }
  if (kept.size() == items.size()) {
    b.append(key, existing);
    return;
  }
  write_array(b, key, kept);
}

}  // namespace mongostore::engine::update_detail
