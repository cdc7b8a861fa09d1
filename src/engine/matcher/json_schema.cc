// Matching a value against a compiled $jsonSchema (the tree json_schema_parser.cc builds).
#include "engine/matcher/json_schema.h"

#include <algorithm>

#include "mongostore/bson/compare.h"

namespace mongostore::engine::matcher_detail {

namespace {

using bson::BsonType;
using bson::DocumentView;
using bson::Value;

// UTF-8 code points: every byte that is not a continuation byte starts one.
long long code_points(std::string_view s) {
  long long n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

// For equal_range over (name, schema) pairs with a name as the key.
std::string_view name_of(std::string_view name) {
  return name;
}
template <class Pair>
std::string_view name_of(const Pair& p) {
  return p.first;
}

long long count_elements(DocumentView doc) {
  long long n = 0;
  for (auto it = doc.begin(); it != doc.end(); ++it) ++n;
  return n;
}

}  // namespace

bool JsonSchema::TypeSet::contains(BsonType t) const {
  if (numbers && bson::is_number(t)) return true;
  return types.test(static_cast<uint8_t>(t));
}

bool JsonSchema::matches_document(DocumentView document) const {
  return matches(
      Value(BsonType::kDocument, document.data(), static_cast<uint32_t>(document.size())));
}

bool JsonSchema::matches(const Value& v) const {
  if (type && !type->contains(v.type())) return false;
  switch (v.type()) {
    case BsonType::kInt32:
    case BsonType::kInt64:
    case BsonType::kDouble:
    case BsonType::kDecimal128:
      if (!matches_number(v)) return false;
      break;
    case BsonType::kString:
      if (!matches_string(v.as_string())) return false;
      break;
    case BsonType::kArray:
      if (!matches_array(v.as_array())) return false;
      break;
    case BsonType::kDocument:
      if (!matches_object(v.as_document())) return false;
      break;
    default:
      break;
  }
  for (const auto& s : all_of) {
    if (!s->matches(v)) return false;
  }
  if (!any_of.empty()) {
    bool any = false;
    for (const auto& s : any_of) {
      if (s->matches(v)) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  if (!one_of.empty()) {
    int n = 0;
    for (const auto& s : one_of) {
      if (s->matches(v) && ++n > 1) return false;
    }
    if (n != 1) return false;
  }
  if (not_schema && not_schema->matches(v)) return false;
  if (has_enum) {
    CanonicalValue c = canonical_value(v);
    bool found = false;
    for (const auto& e : enum_values) {
      if (bson::values_equal(c.value, e.value)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

bool JsonSchema::matches_number(const Value& v) const {
  if (minimum && !minimum->test(v, nullptr)) return false;
  if (maximum && !maximum->test(v, nullptr)) return false;
  if (!multiple_of.is_missing() && !is_multiple_of(v, multiple_of)) return false;
  return true;
}

bool JsonSchema::matches_string(std::string_view s) const {
  if (min_length || max_length) {
    long long n = code_points(s);
    if (min_length && n < *min_length) return false;
    if (max_length && n > *max_length) return false;
  }
  if (pattern && !pattern->search(s)) return false;
  return true;
}

bool JsonSchema::matches_array(DocumentView array) const {
  if (min_items || max_items) {
    long long n = count_elements(array);
    if (min_items && n < *min_items) return false;
    if (max_items && n > *max_items) return false;
  }
  if (items && !items_is_list) {
    for (const auto& el : array) {
      if (!items->matches(el.value)) return false;
    }
  }
  if (items_is_list) {
    size_t i = 0;
    for (const auto& el : array) {
      if (i < item_list.size()) {
        if (!item_list[i]->matches(el.value)) return false;
      } else if (has_additional_items) {
        if (!additional_items_allowed) return false;
        if (additional_items && !additional_items->matches(el.value)) return false;
      } else {
        break;
      }
      ++i;
    }
  }
  if (unique_items) {
    // Sort canonical forms, then look for equal neighbours: O(n log n) on any array.
    std::vector<CanonicalValue> values;
    for (const auto& el : array) values.push_back(canonical_value(el.value));
    std::sort(values.begin(), values.end(), [](const CanonicalValue& a, const CanonicalValue& b) {
      return bson::compare_values(a.value, b.value) < 0;
    });
    for (size_t i = 1; i < values.size(); ++i) {
      if (bson::values_equal(values[i - 1].value, values[i].value)) return false;
    }
  }
  return true;
}

bool JsonSchema::matches_object(DocumentView object) const {
  for (std::string_view name : required) {
    if (!object.has(name)) return false;
  }
  // One pass over the fields: each is looked up among the (sorted) properties, then checked
  // against the patterns it matches or additionalProperties.
  long long count = 0;
  for (const auto& el : object) {
    ++count;
    auto [first, last] =
        std::equal_range(properties.begin(), properties.end(), el.key,
                         [](const auto& a, const auto& b) { return name_of(a) < name_of(b); });
    for (auto it = first; it != last; ++it) {
      if (!it->second->matches(el.value)) return false;
    }
    if (!check_allowed_properties) continue;
    bool otherwise = first == last;
    for (const auto& [regex, schema] : pattern_properties) {
      if (regex.search(el.key)) {
        otherwise = false;
        if (!schema->matches(el.value)) return false;
      }
    }
    if (otherwise) {
      if (!additional_properties_allowed) return false;
      if (additional_properties && !additional_properties->matches(el.value)) return false;
    }
  }
  if (min_properties && count < *min_properties) return false;
  if (max_properties && count > *max_properties) return false;
  for (const auto& d : dependencies) {
    if (!object.has(d.property)) continue;
    for (std::string_view name : d.required) {
      if (!object.has(name)) return false;
    }
    if (d.schema && !d.schema->matches(Value(BsonType::kDocument, object.data(),
                                             static_cast<uint32_t>(object.size())))) {
      return false;
    }
  }
  return true;
}

}  // namespace mongostore::engine::matcher_detail
