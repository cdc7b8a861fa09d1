// Canonical values for $jsonSchema's `enum` and `uniqueItems`: mongod compares them with its
// unordered-fields comparator ({a: 1, b: 2} equals {b: 2, a: 1}). Sorting the fields of every
// embedded document (recursively) turns that equality into plain BSON comparison, which also
// lets uniqueItems sort instead of comparing every pair.
#include <algorithm>
#include <vector>

#include "engine/matcher/json_schema.h"
#include "mongostore/bson/builder.h"

namespace mongostore::engine::matcher_detail {

namespace {

using bson::Value;

// Levels of nesting canonicalized; deeper values are kept as they are (compared with their
// field order), so a hostile, deeply nested value cannot exhaust the stack here.
constexpr int kMaxDepth = 200;

// Whether `v` holds an embedded document anywhere (only those need a canonical copy).
bool has_document(const Value& v, int depth = 0) {
  if (v.is_document()) return true;
  if (!v.is_array() || depth >= kMaxDepth) return false;
  for (const auto& el : v.as_array()) {
    if (has_document(el.value, depth + 1)) return true;
  }
  return false;
}

void append_canonical(bson::DocumentBuilder* b, std::string_view key, const Value& v,
                      int depth = 0) {
  if (depth >= kMaxDepth) {
    b->append(key, v);
  } else if (v.is_document()) {
    std::vector<bson::Element> fields(v.as_document().begin(), v.as_document().end());
    std::stable_sort(fields.begin(), fields.end(),
                     [](const bson::Element& x, const bson::Element& y) { return x.key < y.key; });
    b->open_document(key);
    for (const auto& f : fields) append_canonical(b, f.key, f.value, depth + 1);
    b->close();
  } else if (v.is_array() && has_document(v, depth)) {
    b->open_array(key);
    for (const auto& el : v.as_array()) append_canonical(b, el.key, el.value, depth + 1);
    b->close();
  } else {
    b->append(key, v);
  }
}

}  // namespace

JsonSchema::CanonicalValue canonical_value(const Value& value) {
  JsonSchema::CanonicalValue c;
  if (!has_document(value)) {
    c.value = value;
    return c;
  }
  bson::DocumentBuilder b;
  append_canonical(&b, "", value);
  c.holder = b.finish();
  c.value = c.holder.get("");
  return c;
}

}  // namespace mongostore::engine::matcher_detail
