#include "engine/matcher/validation_error_details.h"

#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/matcher/json_schema.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

using bson::BsonType;
using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Element;
using bson::Value;
using matcher_detail::JsonSchema;
using Entries = std::vector<Document>;

// Thrown (and caught at the top) when the details outgrow kMaxDetailsBytes.
struct TooLarge {};

Value as_value(DocumentView doc) {
  return Value(BsonType::kDocument, doc.data(), static_cast<uint32_t>(doc.size()));
}

// The value of `key` in a one-field document built for it (keeps the bytes alive).
struct Boxed {
  Document holder;
  Value value() const { return holder.view().begin()->value; }
};
Boxed box_string(std::string_view s) {
  DocumentBuilder b;
  b.append("", s);
  return {b.finish()};
}

bool is_integral_index(std::string_view s) {
  return !s.empty() && s.size() < 10 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void append_count(DocumentBuilder& b, std::string_view key, long long n) {
  if (n <= INT32_MAX) {
    b.append(key, static_cast<int32_t>(n));
  } else {
    b.append(key, static_cast<int64_t>(n));
  }
}

void append_entries(DocumentBuilder& b, std::string_view key, const Entries& entries) {
  b.open_array(key);
  for (const Document& d : entries) b.push(d);
  b.close();
}

long long count_fields(DocumentView d) {
  long long n = 0;
  for (auto it = d.begin(); it != d.end(); ++it) ++n;
  return n;
}

class Explainer {
 public:
  // --- $jsonSchema ---------------------------------------------------------------------

  // The errors of `schema` on `v`, one entry per failing keyword. `root`: `v` is the document
  // itself (scalar and array keywords have no effect there, as in mongod).
  Entries schema_errors(DocumentView schema, const Value& v, bool root, int depth) {
    Entries out;
    if (depth > JsonSchema::kMaxDepth) return out;
    const BsonType t = v.type();
    if (!root) {
      if (t == BsonType::kString) {
        keyword_leaf(out, schema, v, "pattern", {}, "regular expression did not match");
        keyword_leaf(out, schema, v, "maxLength", {}, "specified string length was not satisfied");
        keyword_leaf(out, schema, v, "minLength", {}, "specified string length was not satisfied");
      }
      if (v.is_number()) {
        keyword_leaf(out, schema, v, "multipleOf", {},
                     "considered value is not a multiple of the specified value");
        keyword_leaf(out, schema, v, "maximum", "exclusiveMaximum", "comparison failed");
        keyword_leaf(out, schema, v, "minimum", "exclusiveMinimum", "comparison failed");
      }
      if (t == BsonType::kArray) array_errors(out, schema, v, depth);
    }
    if (t == BsonType::kDocument) object_errors(out, schema, v.as_document(), root, depth);
    logical_errors(out, schema, v, root, depth);
    if (!root) {
      for (std::string_view kw : {"type", "bsonType"}) {
        Value spec = schema.get(kw);
        if (spec.is_missing() || keyword_matches(kw, spec, {}, {}, v)) continue;
        DocumentBuilder b;
        b.append("operatorName", kw);
        specified_as(b, kw, spec);
        b.append("reason", "type did not match");
        considered(b, "consideredValue", v);
        b.append("consideredType", bson::type_alias(t));
        out.push_back(b.finish());
      }
    }
    return out;
  }

  // {operatorName: "$jsonSchema", ...} for `schema` failing on the root document.
  Document json_schema_details(DocumentView schema, DocumentView document) {
    DocumentBuilder b;
    b.append("operatorName", "$jsonSchema");
    // A top-level type that excludes objects matches no document (mongod's AlwaysFalse).
    for (std::string_view kw : {"type", "bsonType"}) {
      Value spec = schema.get(kw);
      if (!spec.is_missing() && !keyword_matches(kw, spec, {}, {}, as_value(document))) {
        DocumentBuilder specified;
        specified.append("$jsonSchema", schema);
        Document s = specified.finish();
        charge(s.view().size());
        b.append("specifiedAs", s);
        b.append("reason", "expression always evaluates to false");
        return b.finish();
      }
    }
    annotations(b, schema);
    append_entries(b, "schemaRulesNotSatisfied",
                   schema_errors(schema, as_value(document), /*root=*/true, 0));
    return b.finish();
  }

  // --- query operators -----------------------------------------------------------------

  // Details for `filter` (several fields: an implicit $and) failing (or, `inverted`,
  // matching) on `document`.
  Document filter_details(DocumentView filter, DocumentView document, bool inverted, int depth) {
    auto it = filter.begin();
    auto next = it;
    if (it != filter.end()) ++next;
    if (it != filter.end() && next == filter.end()) {
      return clause_details(*it, document, inverted, depth);
    }
    DocumentBuilder b;
    b.append("operatorName", "$and");
    Entries clauses;
    long long index = 0;
    for (const Element& e : filter) {
      DocumentBuilder one;
      one.append(e.key, e.value);
      Document clause = one.finish();
      // Normal: the clauses that failed; inverted (the $and matched): every clause matched.
      if (inverted || !matches_filter(clause.view(), document)) {
        clauses.push_back(indexed(index, clause_details(e, document, inverted, depth)));
      }
      ++index;
    }
    append_entries(b, inverted ? "clausesSatisfied" : "clausesNotSatisfied", clauses);
    return b.finish();
  }

 private:
  size_t bytes_ = 0;
  // The one-keyword {pattern: ...} schemas compiled for patternProperties (a compiled schema
  // points into its bytes, which a std::list keeps in place).
  std::list<Document> pattern_schemas_;

  void charge(size_t n) {
    bytes_ += n;
    if (bytes_ > kMaxDetailsBytes) throw TooLarge{};
  }

  void considered(DocumentBuilder& b, std::string_view key, const Value& v) {
    charge(v.size() + key.size() + 2);
    b.append(key, v);
  }

  void specified_as(DocumentBuilder& b, std::string_view key, const Value& v) {
    charge(v.size() + key.size() + 2);
    b.open_document("specifiedAs").append(key, v).close();
  }

  static void annotations(DocumentBuilder& b, DocumentView schema) {
    for (std::string_view kw : {"title", "description"}) {
      Value a = schema.get(kw);
      if (a.is_string()) b.append(kw, a);
    }
  }

  static Document indexed(long long index, const Document& details) {
    DocumentBuilder b;
    append_count(b, "index", index);
    b.append("details", details);
    return b.finish();
  }

  // Whether `v` satisfies a schema holding only `kw` (and its modifier `mod`, e.g.
  // exclusiveMinimum): the compiled schema's own semantics, one keyword at a time.
  static bool keyword_matches(std::string_view kw, const Value& spec, std::string_view mod,
                              const Value& mod_value, const Value& v) {
    DocumentBuilder b;
    b.append(kw, spec);
    if (!mod.empty() && !mod_value.is_missing()) b.append(mod, mod_value);
    Document schema = b.finish();
    return JsonSchema::compile(schema.view())->matches(v);
  }

  static bool schema_matches(DocumentView schema, const Value& v) {
    return JsonSchema::compile(schema)->matches(v);
  }

  static bool matches_filter(DocumentView filter, DocumentView document) {
    return Matcher::compile(filter).matches(document);
  }

  // A keyword that tests the value itself: {operatorName, specifiedAs, reason,
  // consideredValue}.
  void keyword_leaf(Entries& out, DocumentView schema, const Value& v, std::string_view kw,
                    std::string_view mod, std::string_view reason) {
    Value spec = schema.get(kw);
    if (spec.is_missing()) return;
    Value mod_value = mod.empty() ? Value() : schema.get(mod);
    if (keyword_matches(kw, spec, mod, mod_value, v)) return;
    DocumentBuilder b;
    b.append("operatorName", kw);
    charge(spec.size() + mod_value.size());
    b.open_document("specifiedAs").append(kw, spec);
    if (!mod_value.is_missing()) b.append(mod, mod_value);
    b.close();
    b.append("reason", reason);
    considered(b, "consideredValue", v);
    out.push_back(b.finish());
  }

  void array_errors(Entries& out, DocumentView schema, const Value& v, int depth) {
    DocumentView items = v.as_array();
    const long long n = count_fields(items);
    for (std::string_view kw : {"minItems", "maxItems"}) {
      Value spec = schema.get(kw);
      if (spec.is_missing() || keyword_matches(kw, spec, {}, {}, v)) continue;
      DocumentBuilder b;
      b.append("operatorName", kw);
      specified_as(b, kw, spec);
      b.append("reason", "array did not match specified length");
      considered(b, "consideredValue", v);
      append_count(b, "numberOfItems", n);
      out.push_back(b.finish());
    }
    Value unique = schema.get("uniqueItems");
    if (!unique.is_missing() && !keyword_matches("uniqueItems", unique, {}, {}, v)) {
      DocumentBuilder b;
      b.append("operatorName", "uniqueItems");
      specified_as(b, "uniqueItems", unique);
      b.append("reason", "found a duplicate item");
      considered(b, "consideredValue", v);
      if (auto dup = first_duplicate(items)) considered(b, "duplicatedValue", *dup);
      out.push_back(b.finish());
    }
    Value spec = schema.get("items");
    std::optional<long long> additional_from;
    if (spec.is_document()) {
      DocumentView sub = spec.as_document();
      auto compiled = JsonSchema::compile(sub);
      long long i = 0;
      for (const Element& e : items) {
        if (!compiled->matches(e.value)) {
          DocumentBuilder b;
          b.append("operatorName", "items");
          annotations(b, sub);
          b.append("reason", "At least one item did not match the sub-schema");
          append_count(b, "itemIndex", i);
          append_entries(b, "details", schema_errors(sub, e.value, false, depth + 1));
          out.push_back(b.finish());
          break;
        }
        ++i;
      }
    } else if (spec.is_array()) {
      Entries failing;
      long long i = 0;
      auto element = items.begin();
      for (const Element& s : spec.as_array()) {
        if (element == items.end()) break;
        DocumentView sub = s.value.as_document();
        if (!schema_matches(sub, element->value)) {
          DocumentBuilder b;
          append_count(b, "itemIndex", i);
          append_entries(b, "details", schema_errors(sub, element->value, false, depth + 1));
          failing.push_back(b.finish());
        }
        ++element;
        ++i;
      }
      additional_from = count_fields(spec.as_array());
      if (!failing.empty()) {
        DocumentBuilder b;
        b.append("operatorName", "items");
        append_entries(b, "details", failing);
        out.push_back(b.finish());
      }
    }
    Value additional = schema.get("additionalItems");
    if (additional_from && n > *additional_from && !additional.is_missing()) {
      if (additional.type() == BsonType::kBool && !additional.as_bool()) {
        DocumentBuilder b;
        b.append("operatorName", "additionalItems");
        specified_as(b, "additionalItems", additional);
        b.append("reason", "found additional items");
        b.open_array("additionalItems");
        long long i = 0;
        for (const Element& e : items) {
          if (i++ >= *additional_from) {
            charge(e.value.size());
            b.push(e.value);
          }
        }
        b.close();
        out.push_back(b.finish());
      } else if (additional.is_document()) {
        DocumentView sub = additional.as_document();
        auto compiled = JsonSchema::compile(sub);
        long long i = 0;
        for (const Element& e : items) {
          if (i >= *additional_from && !compiled->matches(e.value)) {
            DocumentBuilder b;
            b.append("operatorName", "additionalItems");
            annotations(b, sub);
            b.append("reason", "At least one additional item did not match the sub-schema");
            append_count(b, "itemIndex", i);
            append_entries(b, "details", schema_errors(sub, e.value, false, depth + 1));
            out.push_back(b.finish());
            break;
          }
          ++i;
        }
      }
    }
  }

  // The first element equal (as uniqueItems compares: numbers across types, documents
  // regardless of field order) to an earlier one.
  static std::optional<Value> first_duplicate(DocumentView items) {
    std::vector<JsonSchema::CanonicalValue> seen;
    auto less = [&seen](size_t a, size_t b) {
      return bson::compare_values(seen[a].value, seen[b].value) < 0;
    };
    std::set<size_t, decltype(less)> index(less);
    for (const Element& e : items) {
      seen.push_back(matcher_detail::canonical_value(e.value));
      if (!index.insert(seen.size() - 1).second) return e.value;
    }
    return std::nullopt;
  }

  void object_errors(Entries& out, DocumentView schema, DocumentView object, bool root, int depth) {
    Value properties = schema.get("properties");
    if (properties.is_document()) {
      Entries failing;
      for (const Element& p : properties.as_document()) {
        Value field = object.get(p.key);
        if (field.is_missing() || !p.value.is_document()) continue;
        DocumentView sub = p.value.as_document();
        if (schema_matches(sub, field)) continue;
        Entries details = schema_errors(sub, field, false, depth + 1);
        // As mongod: a property whose failure no keyword explains is left out.
        if (details.empty()) continue;
        DocumentBuilder b;
        b.append("propertyName", p.key);
        annotations(b, sub);
        append_entries(b, "details", details);
        failing.push_back(b.finish());
      }
      if (!failing.empty()) {
        DocumentBuilder b;
        b.append("operatorName", "properties");
        append_entries(b, "propertiesNotSatisfied", failing);
        out.push_back(b.finish());
      }
    }
    allowed_properties_errors(out, schema, object, depth);
    Value required = schema.get("required");
    if (required.is_array()) {
      std::set<std::string_view> missing;
      for (const Element& r : required.as_array()) {
        if (r.value.is_string() && !object.has(r.value.as_string())) {
          missing.insert(r.value.as_string());
        }
      }
      if (!missing.empty()) {
        DocumentBuilder b;
        b.append("operatorName", "required");
        specified_as(b, "required", required);
        b.open_array("missingProperties");
        for (std::string_view m : missing) b.push(m);
        b.close();
        out.push_back(b.finish());
      }
    }
    for (std::string_view kw : {"minProperties", "maxProperties"}) {
      Value spec = schema.get(kw);
      if (spec.is_missing() || keyword_matches(kw, spec, {}, {}, as_value(object))) continue;
      DocumentBuilder b;
      b.append("operatorName", kw);
      specified_as(b, kw, spec);
      b.append("reason", "specified number of properties was not satisfied");
      append_count(b, "numberOfProperties", count_fields(object));
      out.push_back(b.finish());
    }
    Value dependencies = schema.get("dependencies");
    if (dependencies.is_document()) {
      Entries failing;
      for (const Element& d : dependencies.as_document()) {
        if (!object.has(d.key)) continue;
        if (d.value.is_array()) {
          std::vector<std::string_view> missing;
          for (const Element& r : d.value.as_array()) {
            if (r.value.is_string() && !object.has(r.value.as_string())) {
              missing.push_back(r.value.as_string());
            }
          }
          if (missing.empty()) continue;
          DocumentBuilder b;
          b.append("conditionalProperty", d.key);
          b.open_array("missingProperties");
          for (std::string_view m : missing) b.push(m);
          b.close();
          failing.push_back(b.finish());
        } else if (d.value.is_document()) {
          DocumentView sub = d.value.as_document();
          if (schema_matches(sub, as_value(object))) continue;
          DocumentBuilder b;
          b.append("conditionalProperty", d.key);
          append_entries(b, "details", schema_errors(sub, as_value(object), root, depth + 1));
          failing.push_back(b.finish());
        }
      }
      if (!failing.empty()) {
        DocumentBuilder b;
        b.append("operatorName", "dependencies");
        append_entries(b, "failingDependencies", failing);
        out.push_back(b.finish());
      }
    }
  }

  // additionalProperties and patternProperties (one mongod expression, two errors).
  void allowed_properties_errors(Entries& out, DocumentView schema, DocumentView object,
                                 int depth) {
    Value additional = schema.get("additionalProperties");
    Value patterns = schema.get("patternProperties");
    if (additional.is_missing() && patterns.is_missing()) return;
    Value properties = schema.get("properties");
    // Which patterns a field name matches: the `pattern` keyword's own (PCRE2) search,
    // compiled once per pattern.
    std::vector<std::unique_ptr<const JsonSchema>> regexes;
    if (patterns.is_document()) {
      for (const Element& p : patterns.as_document()) {
        DocumentBuilder b;
        b.append("pattern", p.key);
        pattern_schemas_.push_back(b.finish());
        regexes.push_back(JsonSchema::compile(pattern_schemas_.back().view()));
      }
    }
    auto name_matches = [](const JsonSchema& regex, std::string_view name) {
      Boxed boxed = box_string(name);
      return regex.matches(boxed.value());
    };
    std::vector<std::string_view> extra;
    for (const Element& f : object) {
      if (properties.is_document() && properties.as_document().has(f.key)) continue;
      bool matched = false;
      for (const auto& regex : regexes) {
        if (name_matches(*regex, f.key)) {
          matched = true;
          break;
        }
      }
      if (!matched) extra.push_back(f.key);
    }
    if (additional.type() == BsonType::kBool && !additional.as_bool() && !extra.empty()) {
      DocumentBuilder b;
      b.append("operatorName", "additionalProperties");
      specified_as(b, "additionalProperties", additional);
      b.open_array("additionalProperties");
      for (std::string_view name : extra) b.push(name);
      b.close();
      out.push_back(b.finish());
    } else if (additional.is_document()) {
      DocumentView sub = additional.as_document();
      auto compiled = JsonSchema::compile(sub);
      for (std::string_view name : extra) {
        Value field = object.get(name);
        if (compiled->matches(field)) continue;
        DocumentBuilder b;
        b.append("operatorName", "additionalProperties");
        annotations(b, sub);
        b.append("reason", "at least one additional property did not match the subschema");
        b.append("failingProperty", name);
        append_entries(b, "details", schema_errors(sub, field, false, depth + 1));
        out.push_back(b.finish());
        break;
      }
    }
    if (patterns.is_document()) {
      Entries failing;
      size_t n = 0;
      for (const Element& p : patterns.as_document()) {
        const JsonSchema& regex = *regexes[n++];
        if (!p.value.is_document()) continue;
        DocumentView sub = p.value.as_document();
        auto compiled = JsonSchema::compile(sub);
        for (const Element& f : object) {
          if (!name_matches(regex, f.key) || compiled->matches(f.value)) continue;
          DocumentBuilder b;
          b.append("propertyName", f.key);
          annotations(b, sub);
          b.append("regexMatched", p.key);
          append_entries(b, "details", schema_errors(sub, f.value, false, depth + 1));
          failing.push_back(b.finish());
          break;
        }
      }
      if (!failing.empty()) {
        DocumentBuilder b;
        b.append("operatorName", "patternProperties");
        append_entries(b, "details", failing);
        out.push_back(b.finish());
      }
    }
  }

  void logical_errors(Entries& out, DocumentView schema, const Value& v, bool root, int depth) {
    for (std::string_view kw : {"allOf", "anyOf", "oneOf"}) {
      Value list = schema.get(kw);
      if (!list.is_array()) continue;
      std::vector<std::pair<DocumentView, bool>> subs;
      long long matching = 0;
      for (const Element& s : list.as_array()) {
        if (!s.value.is_document()) continue;
        bool m = schema_matches(s.value.as_document(), v);
        matching += m ? 1 : 0;
        subs.emplace_back(s.value.as_document(), m);
      }
      bool failed = kw == "allOf"   ? matching < static_cast<long long>(subs.size())
                    : kw == "anyOf" ? matching == 0
                                    : matching != 1;
      if (!failed) continue;
      DocumentBuilder b;
      b.append("operatorName", kw);
      if (kw == "oneOf" && matching > 1) {
        b.append("reason", "more than one subschema matched");
        b.open_array("matchingSchemaIndexes");
        for (size_t i = 0; i < subs.size(); ++i) {
          if (subs[i].second) b.push(static_cast<int32_t>(i));
        }
        b.close();
      } else {
        Entries failing;
        for (size_t i = 0; i < subs.size(); ++i) {
          if (subs[i].second) continue;
          DocumentBuilder one;
          append_count(one, "index", static_cast<long long>(i));
          annotations(one, subs[i].first);
          append_entries(one, "details", schema_errors(subs[i].first, v, root, depth + 1));
          failing.push_back(one.finish());
        }
        append_entries(b, "schemasNotSatisfied", failing);
      }
      out.push_back(b.finish());
    }
    Value not_schema = schema.get("not");
    if (not_schema.is_document() && schema_matches(not_schema.as_document(), v)) {
      DocumentBuilder b;
      b.append("operatorName", "not");
      b.append("reason", "child expression matched");
      out.push_back(b.finish());
    }
    Value enum_values = schema.get("enum");
    if (!enum_values.is_missing() && !keyword_matches("enum", enum_values, {}, {}, v)) {
      DocumentBuilder b;
      b.append("operatorName", "enum");
      specified_as(b, "enum", enum_values);
      b.append("reason", "value was not found in enum");
      considered(b, "consideredValue", v);
      out.push_back(b.finish());
    }
  }

  // --- query operators -----------------------------------------------------------------

  Document clause_details(const Element& e, DocumentView document, bool inverted, int depth) {
    DocumentBuilder b;
    if (depth > 200) {
      b.append("operatorName", e.key);
      return b.finish();
    }
    if (e.key == "$jsonSchema" && e.value.is_document()) {
      if (!inverted) return json_schema_details(e.value.as_document(), document);
      b.append("operatorName", "$jsonSchema");
      b.append("reason", "schema matched");
      return b.finish();
    }
    if ((e.key == "$and" || e.key == "$or" || e.key == "$nor") && e.value.is_array()) {
      b.append("operatorName", e.key);
      // A $nor's clauses are explained inverted: they are the ones that matched.
      const bool child_inverted = e.key == "$nor" ? !inverted : inverted;
      Entries clauses;
      long long index = 0;
      for (const Element& c : e.value.as_array()) {
        if (c.value.is_document()) {
          bool m = matches_filter(c.value.as_document(), document);
          // Listed: the clauses whose result explains the operator's (a failing $and's
          // failed clauses, a failing $or's every clause, a failing $nor's matching ones).
          if (m == child_inverted) {
            clauses.push_back(indexed(
                index, filter_details(c.value.as_document(), document, child_inverted, depth + 1)));
          }
        }
        ++index;
      }
      append_entries(b, child_inverted ? "clausesSatisfied" : "clausesNotSatisfied", clauses);
      return b.finish();
    }
    if (!e.key.empty() && e.key[0] == '$') {
      // $expr and the rest: the operator and what was specified.
      b.append("operatorName", e.key);
      charge(e.value.size());
      b.open_document("specifiedAs").append(e.key, e.value).close();
      if (e.key == "$expr") {
        b.append("reason", inverted ? "expression did match" : "expression did not match");
      }
      return b.finish();
    }
    // A field: {field: value} (equality) or {field: {$op: ..., ...}}.
    if (e.value.is_document()) {
      DocumentView cond = e.value.as_document();
      auto first = cond.begin();
      if (first != cond.end() && !first->key.empty() && first->key[0] == '$') {
        auto second = first;
        ++second;
        if (second == cond.end()) {
          return leaf_details(e.key, first->key, first->value, true, document, inverted);
        }
        // Several operators on one field: an $and of one leaf each.
        b.append("operatorName", "$and");
        Entries clauses;
        long long index = 0;
        for (const Element& op : cond) {
          DocumentBuilder one;
          one.open_document(e.key).append(op.key, op.value).close();
          Document clause = one.finish();
          if (inverted || !matches_filter(clause.view(), document)) {
            clauses.push_back(
                indexed(index, leaf_details(e.key, op.key, op.value, true, document, inverted)));
          }
          ++index;
        }
        append_entries(b, inverted ? "clausesSatisfied" : "clausesNotSatisfied", clauses);
        return b.finish();
      }
    }
    return leaf_details(e.key, "$eq", e.value, false, document, inverted);
  }

  // The values a path reaches in `document`, as mongod's error generator considers them:
  // arrays met on the way are traversed; a leaf array contributes its elements (or itself,
  // for the operators that look at arrays whole). `exists` tells a missing path from one that
  // reaches only an empty array.
  static void collect(const Value& cur, const std::vector<std::string_view>& parts, size_t i,
                      bool whole_arrays, std::vector<Value>& out, bool& exists, int depth) {
    if (depth > 200) return;
    if (i == parts.size()) {
      exists = true;
      if (cur.is_array() && !whole_arrays) {
        for (const Element& e : cur.as_array()) out.push_back(e.value);
      } else {
        out.push_back(cur);
      }
      return;
    }
    if (cur.is_document()) {
      Value child = cur.as_document().get(parts[i]);
      if (!child.is_missing()) collect(child, parts, i + 1, whole_arrays, out, exists, depth + 1);
    } else if (cur.is_array()) {
      if (is_integral_index(parts[i])) {
        Value child = cur.as_array().get(parts[i]);
        if (!child.is_missing()) {
          collect(child, parts, i + 1, whole_arrays, out, exists, depth + 1);
        }
      }
      for (const Element& e : cur.as_array()) {
        if (e.value.is_document()) collect(e.value, parts, i, whole_arrays, out, exists, depth + 1);
      }
    }
  }

  Document leaf_details(std::string_view path, std::string_view op, const Value& operand,
                        bool operator_form, DocumentView document, bool inverted) {
    DocumentBuilder b;
    b.append("operatorName", op);
    charge(operand.size() + path.size());
    if (operator_form) {
      b.open_document("specifiedAs").open_document(path).append(op, operand).close().close();
    } else {
      b.open_document("specifiedAs").append(path, operand).close();
    }
    struct Reasons {
      std::string_view op, normal, inverted;
    };
    static constexpr Reasons kReasons[] = {
        {"$eq", "comparison failed", "comparison succeeded"},
        {"$gt", "comparison failed", "comparison succeeded"},
        {"$gte", "comparison failed", "comparison succeeded"},
        {"$lt", "comparison failed", "comparison succeeded"},
        {"$lte", "comparison failed", "comparison succeeded"},
        {"$in", "no matching value found in array", "matching value found in array"},
        {"$regex", "regular expression did not match", "regular expression did match"},
        {"$type", "type did not match", "type did match"},
        {"$size", "array length was not equal to given size",
         "array length was equal to given size"},
        {"$exists", "path does not exist", "path does exist"},
    };
    const Reasons* reasons = nullptr;
    for (const Reasons& r : kReasons) {
      if (r.op == op) reasons = &r;
    }
    // $exists: false is mongod's negated $exists; other operators are not explained further.
    if (reasons == nullptr || (op == "$exists" && !operand.truthy())) return b.finish();

    std::vector<std::string_view> parts;
    for (size_t start = 0;;) {
      size_t dot = path.find('.', start);
      parts.push_back(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    std::vector<Value> values;
    bool exists = false;
    collect(as_value(document), parts, 0, op == "$size", values, exists, 0);
    if (op == "$exists") {
      b.append("reason", inverted ? reasons->inverted : reasons->normal);
      return b.finish();
    }
    if (!exists) {
      b.append("reason", "field was missing");
      return b.finish();
    }
    if (op == "$size" && !(values.size() == 1 && values[0].is_array())) {
      b.append("reason", "type did not match");
      append_considered_types(b, values);
      b.append("expectedType", "array");
    } else if (op == "$regex" && std::none_of(values.begin(), values.end(), [](const Value& v) {
                 return v.type() == BsonType::kString || v.type() == BsonType::kSymbol ||
                        v.type() == BsonType::kRegex;
               })) {
      b.append("reason", "type did not match");
      append_considered_types(b, values);
      b.open_array("expectedTypes").push("regex").push("string").push("symbol").close();
    } else {
      b.append("reason", inverted ? reasons->inverted : reasons->normal);
    }
    if (values.size() == 1) {
      considered(b, "consideredValue", values[0]);
    } else {
      size_t total = 0;
      for (const Value& v : values) total += v.size() + 8;
      charge(total);
      b.open_array("consideredValues");
      for (const Value& v : values) b.push(v);
      b.close();
    }
    if (op == "$type") append_considered_types(b, values);
    return b.finish();
  }

  static void append_considered_types(DocumentBuilder& b, const std::vector<Value>& values) {
    if (values.empty()) return;
    std::set<std::string_view> types;
    for (const Value& v : values) types.insert(bson::type_alias(v.type()));
    if (types.size() == 1) {
      b.append("consideredType", *types.begin());
    } else {
      b.open_array("consideredTypes");
      for (std::string_view t : types) b.push(t);
      b.close();
    }
  }
};

}  // namespace

bson::Document validation_error_info(DocumentView validator, DocumentView document) {
  DocumentBuilder out;
  Value id = document.get("_id");
  if (!id.is_missing()) out.append("failingDocumentId", id);
  try {
    Explainer explainer;
    Document details = explainer.filter_details(validator, document, /*inverted=*/false, 0);
    if (details.view().size() > kMaxDetailsBytes) throw TooLarge{};
    out.append("details", details);
  } catch (const TooLarge&) {
    out.append("note", "detailed error was too large");
  } catch (const Error& e) {
    // The validator compiled when it was set, so this is not expected; mongod reports its
    // own generator's failures the same way rather than failing the write differently.
    out.append("note", "failed to generate document validation error");
    out.open_document("details").append("code", e.code()).append("errmsg", e.what()).close();
  }
  Document info = out.finish();
  if (bson::nesting_exceeds(info.view(), kMaxDetailsDepth)) {
    // As mongod: an error nested deeper than a stored document may be is replaced whole.
    DocumentBuilder b;
    b.append("reason", "generated error was too deeply nested");
    b.append("truncated", true);
    return b.finish();
  }
  return info;
}

}  // namespace mongostore::engine
