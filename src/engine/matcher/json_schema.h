// JsonSchema: a compiled MongoDB `$jsonSchema` (JSON Schema draft 4's subset plus `bsonType`).
//
//   auto schema = JsonSchema::compile(schema_document);  // throws mongostore::Error
//   if (schema->matches_document(doc)) ...
//
// A compiled schema is an immutable tree of JsonSchema nodes, one per (sub)schema, that tests
// one value. MongoDB's semantics (json_schema_parser.cpp in mongod):
// - a keyword that constrains a type applies only to values of that type (`minimum` ignores
//   strings, `items` ignores non-arrays, `properties` ignores non-documents);
// - `properties`, `required`, `dependencies`, `patternProperties`, `additionalProperties`,
//   `minProperties` and `maxProperties` look at embedded documents (the root document at top
//   level); property names are literal field names, never dotted paths;
// - `minimum` and `maximum` compare as $gte/$gt and $lte/$lt do;
// - `enum` and `uniqueItems` compare with BSON equality, numbers across numeric types, and
//   embedded documents regardless of their field order (mongod's unordered-fields comparator);
// - `multipleOf` computes in decimal, a double taken to 15 significant digits, as mongod does;
// - `minLength` / `maxLength` count UTF-8 code points; `pattern` and `patternProperties` are
//   PCRE2 searches (unanchored), without options;
// - `title` and `description` must be strings and are otherwise ignored.
// A value either matches or not: matching never throws.
//
// Parse errors carry mongod's codes and messages: an unknown keyword is FailedToParse (9)
// "Unknown $jsonSchema keyword: X"; `$ref`, `$schema`, `default`, `definitions`, `format` and
// `id` are FailedToParse "$jsonSchema keyword 'X' is not currently supported"; malformed
// keyword values are TypeMismatch (14), FailedToParse or BadValue (2) as mongod gives them.
// `encrypt` and `encryptMetadata` (client-side field level encryption) are NotImplemented
// (238). A schema nested more than kMaxDepth levels deep is refused with BadValue before any
// recursion could exhaust the stack.
//
// The compiled tree points into the schema's bytes, which must outlive it. Matching is
// thread-safe (the tree is immutable; regexes use per-thread match data).
#pragma once

#include <bitset>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/matcher/expression.h"
#include "engine/matcher/regex.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"

namespace mongostore::engine::matcher_detail {

class JsonSchema {
 public:
  /// Deepest nesting of subschemas accepted. mongod bounds a schema by BSON's nesting limit
  /// (200 levels), and every subschema costs at least one level, so no schema mongod accepts
  /// is refused.
  static constexpr int kMaxDepth = 200;

  /// Compiles `schema`, whose bytes must outlive the result. Throws mongostore::Error.
  static std::unique_ptr<const JsonSchema> compile(bson::DocumentView schema);

  /// Whether a stored document satisfies the schema.
  bool matches_document(bson::DocumentView document) const;
  /// Whether `value` satisfies the schema (as a subschema sees it).
  bool matches(const bson::Value& value) const;

  // --- the compiled keywords (filled by the parser, json_schema_parser.cc) ---------------

  /// `type` / `bsonType`: the accepted BSON types; `numbers` accepts every numeric type.
  struct TypeSet {
    std::bitset<256> types;
    bool numbers = false;
    bool contains(bson::BsonType t) const;
  };

  /// A value kept in canonical form (embedded documents with their fields sorted), so that
  /// BSON comparison of two canonical values is mongod's unordered-fields equality.
  struct CanonicalValue {
    CanonicalValue() = default;
    CanonicalValue(CanonicalValue&&) = default;  // `value` keeps pointing into the moved bytes
    CanonicalValue& operator=(CanonicalValue&&) = default;
    CanonicalValue(const CanonicalValue&) = delete;  // a copy would point into the original
    CanonicalValue& operator=(const CanonicalValue&) = delete;

    bson::Document holder;  // {"": value}, or empty when `value` points elsewhere
    bson::Value value;
  };

  struct Dependency {
    std::string_view property;
    std::vector<std::string_view> required;    // property form
    std::unique_ptr<const JsonSchema> schema;  // schema form
  };

  std::optional<TypeSet> type;

  // Numbers. `minimum` / `maximum` are the query language's $gte/$gt and $lte/$lt (as in
  // mongod), so NaN compares false with every other number.
  PredicatePtr minimum;  // null when absent
  PredicatePtr maximum;
  bson::Value multiple_of;

  // Strings.
  std::optional<long long> min_length;
  std::optional<long long> max_length;
  std::optional<Regex> pattern;

  // Arrays.
  std::optional<long long> min_items;
  std::optional<long long> max_items;
  bool unique_items = false;
  std::unique_ptr<const JsonSchema> items;  // `items` as one schema for every element
  std::vector<std::unique_ptr<const JsonSchema>> item_list;  // `items` as a list
  bool items_is_list = false;
  // `additionalItems` (only meaningful after an `items` list): elements past the list must
  // match `additional_items`, or are refused when `additional_items_allowed` is false.
  bool has_additional_items = false;
  bool additional_items_allowed = true;
  std::unique_ptr<const JsonSchema> additional_items;

  // Documents.
  std::vector<std::string_view> required;
  /// Sorted by name (stable), so that a document's fields are looked up in one pass.
  std::vector<std::pair<std::string_view, std::unique_ptr<const JsonSchema>>> properties;
  std::vector<std::pair<Regex, std::unique_ptr<const JsonSchema>>> pattern_properties;
  // True when `patternProperties` or `additionalProperties` is present: every field is then
  // checked against the patterns it matches, or `additionalProperties` if it matches none
  // and is not named in `properties`.
  bool check_allowed_properties = false;
  bool additional_properties_allowed = true;
  std::unique_ptr<const JsonSchema> additional_properties;
  std::optional<long long> min_properties;
  std::optional<long long> max_properties;
  std::vector<Dependency> dependencies;

  // Logic.
  std::vector<std::unique_ptr<const JsonSchema>> all_of;
  std::vector<std::unique_ptr<const JsonSchema>> any_of;
  std::vector<std::unique_ptr<const JsonSchema>> one_of;
  std::unique_ptr<const JsonSchema> not_schema;
  bool has_enum = false;
  std::vector<CanonicalValue> enum_values;

 private:
  bool matches_number(const bson::Value& v) const;
  bool matches_string(std::string_view s) const;
  bool matches_array(bson::DocumentView array) const;
  bool matches_object(bson::DocumentView object) const;
};

/// `value` in canonical form (see JsonSchema::CanonicalValue); copies only when `value`
/// holds embedded documents.
JsonSchema::CanonicalValue canonical_value(const bson::Value& value);

/// Whether `value` is a multiple of `divisor` (a positive number), computed in decimal as
/// mongod does (doubles taken to 15 significant digits). False for NaN and infinities.
bool is_multiple_of(const bson::Value& value, const bson::Value& divisor);

}  // namespace mongostore::engine::matcher_detail
