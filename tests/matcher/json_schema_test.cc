// $jsonSchema: every keyword accepting and refusing documents, MongoDB's type-restricted
// semantics, nesting, and mongod's errors for malformed schemas.
#include <string>
#include <vector>

#include "matcher_test_util.h"

namespace mongostore::engine::testing {

namespace {

constexpr int32_t kBadValue = 2;
constexpr int32_t kFailedToParse = 9;
constexpr int32_t kTypeMismatch = 14;
constexpr int32_t kNotImplemented = 238;

// {$jsonSchema: SCHEMA} (built, so that keys libbson's JSON reader treats specially stay
// literal).
bson::Document schema_filter(std::string_view schema_json) {
  bson::Document holder = J("{\"v\": " + std::string(schema_json) + "}");
  bson::DocumentBuilder b;
  b.append("$jsonSchema", holder.get("v"));
  return b.finish();
}

// Whether SCHEMA accepts DOC.
bool S(std::string_view schema_json, std::string_view doc) {
  return M(schema_filter(schema_json), doc);
}

// Whether SCHEMA, as the schema of property `a`, accepts the value VALUE.
bool P(std::string_view schema_json, std::string_view value_json) {
  return S(R"({"properties": {"a": )" + std::string(schema_json) + "}}",
           R"({"a": )" + std::string(value_json) + "}");
}

void expect_schema_error(const bson::Document& filter, int32_t code, std::string_view message) {
  std::string msg;
  EXPECT_EQ(compile_error(filter, &msg), code) << filter.to_json() << " -> " << msg;
  EXPECT_NE(msg.find(message), std::string::npos) << filter.to_json() << " -> " << msg;
}

void expect_schema_error(std::string_view schema_json, int32_t code, std::string_view message) {
  expect_schema_error(schema_filter(schema_json), code, message);
}

}  // namespace

TEST(JsonSchema, EmptySchemaMatchesEverything) {
  EXPECT_TRUE(S("{}", R"({"a": 1})"));
  EXPECT_TRUE(S("{}", "{}"));
}

TEST(JsonSchema, BsonType) {
  EXPECT_TRUE(P(R"({"bsonType": "int"})", "1"));
  EXPECT_FALSE(P(R"({"bsonType": "int"})", "1.5"));
  EXPECT_FALSE(P(R"({"bsonType": "int"})", R"({"$numberLong": "1"})"));
  EXPECT_TRUE(P(R"({"bsonType": "long"})", R"({"$numberLong": "1"})"));
  EXPECT_TRUE(P(R"({"bsonType": "double"})", "1.5"));
  EXPECT_TRUE(P(R"({"bsonType": "decimal"})", R"({"$numberDecimal": "1.5"})"));
  EXPECT_TRUE(P(R"({"bsonType": "string"})", R"("x")"));
  EXPECT_TRUE(P(R"({"bsonType": "object"})", R"({"b": 1})"));
  EXPECT_TRUE(P(R"({"bsonType": "array"})", "[1]"));
  EXPECT_FALSE(P(R"({"bsonType": "object"})", "[1]"));
  EXPECT_TRUE(P(R"({"bsonType": "bool"})", "true"));
  EXPECT_TRUE(P(R"({"bsonType": "null"})", "null"));
  EXPECT_TRUE(P(R"({"bsonType": "date"})", R"({"$date": "2020-01-01T00:00:00Z"})"));
  EXPECT_TRUE(P(R"({"bsonType": "objectId"})", R"({"$oid": "0123456789abcdef01234567"})"));
  EXPECT_TRUE(
      P(R"({"bsonType": "binData"})", R"({"$binary": {"base64": "AA==", "subType": "00"}})"));
  EXPECT_TRUE(P(R"({"bsonType": "minKey"})", R"({"$minKey": 1})"));
  EXPECT_TRUE(P(R"({"bsonType": "maxKey"})", R"({"$maxKey": 1})"));
  // `number` is every numeric type; a list accepts any of its types.
  for (const char* n : {"1", "1.5", R"({"$numberLong": "2"})", R"({"$numberDecimal": "2"})"}) {
    EXPECT_TRUE(P(R"({"bsonType": "number"})", n)) << n;
  }
  EXPECT_FALSE(P(R"({"bsonType": "number"})", R"("1")"));
  EXPECT_TRUE(P(R"({"bsonType": ["string", "null"]})", "null"));
  EXPECT_TRUE(P(R"({"bsonType": ["string", "null"]})", R"("s")"));
  EXPECT_FALSE(P(R"({"bsonType": ["string", "null"]})", "3"));
  // An array is its own type: its elements are not looked at (unlike the $type operator).
  EXPECT_FALSE(P(R"({"bsonType": "int"})", "[1, 2]"));
}

TEST(JsonSchema, JsonType) {
  EXPECT_TRUE(P(R"({"type": "object"})", R"({"b": 1})"));
  EXPECT_TRUE(P(R"({"type": "array"})", "[]"));
  EXPECT_TRUE(P(R"({"type": "number"})", "1"));
  EXPECT_TRUE(P(R"({"type": "number"})", "1.5"));
  EXPECT_TRUE(P(R"({"type": "boolean"})", "false"));
  EXPECT_TRUE(P(R"({"type": "string"})", R"("x")"));
  EXPECT_TRUE(P(R"({"type": "null"})", "null"));
  EXPECT_FALSE(P(R"({"type": "string"})", "1"));
  EXPECT_TRUE(P(R"({"type": ["string", "number"]})", "1"));
  EXPECT_FALSE(P(R"({"type": ["string", "number"]})", "true"));
}

TEST(JsonSchema, TopLevelType) {
  // Stored documents are objects: a top-level type without "object" matches nothing.
  EXPECT_TRUE(S(R"({"bsonType": "object"})", R"({"a": 1})"));
  EXPECT_TRUE(S(R"({"type": ["object", "string"]})", R"({"a": 1})"));
  EXPECT_FALSE(S(R"({"bsonType": "string"})", R"({"a": 1})"));
  // Scalar and array restrictions have no effect on the root document.
  EXPECT_TRUE(
      S(R"({"minimum": 5, "minLength": 3, "minItems": 2, "pattern": "^z"})", R"({"a": 1})"));
}

TEST(JsonSchema, Required) {
  EXPECT_TRUE(S(R"({"required": ["a", "b"]})", R"({"a": 1, "b": null})"));
  EXPECT_FALSE(S(R"({"required": ["a", "b"]})", R"({"a": 1})"));
  EXPECT_FALSE(S(R"({"required": ["a"]})", R"({"b": {"a": 1}})"));
  // Names are literal field names, not dotted paths.
  EXPECT_FALSE(S(R"({"required": ["a.b"]})", R"({"a": {"b": 1}})"));
  // Nested: applies to embedded documents only.
  EXPECT_TRUE(P(R"({"required": ["x"]})", R"({"x": 1})"));
  EXPECT_FALSE(P(R"({"required": ["x"]})", R"({"y": 1})"));
  EXPECT_TRUE(P(R"({"required": ["x"]})", "5"));
}

TEST(JsonSchema, Properties) {
  const char* schema = R"({"properties": {"a": {"bsonType": "int"}, "b": {"bsonType": "string"}}})";
  EXPECT_TRUE(S(schema, R"({"a": 1, "b": "x"})"));
  EXPECT_TRUE(S(schema, R"({"a": 1})"));  // an absent property is not checked
  EXPECT_TRUE(S(schema, R"({"c": true})"));
  EXPECT_FALSE(S(schema, R"({"a": "1"})"));
  EXPECT_FALSE(S(schema, R"({"a": 1, "b": 2})"));
  // Required and properties together.
  const char* both = R"({"required": ["a"], "properties": {"a": {"bsonType": "int"}}})";
  EXPECT_FALSE(S(both, R"({"b": 1})"));
  EXPECT_FALSE(S(both, R"({"a": null})"));
  EXPECT_TRUE(S(both, R"({"a": 3})"));
}

TEST(JsonSchema, PropertyNamedTwiceAppliesBothSchemas) {
  bson::DocumentBuilder b;
  b.open_document("$jsonSchema")
      .open_document("properties")
      .append("a", J(R"({"minimum": 1})").view())
      .append("a", J(R"({"maximum": 3})").view())
      .append("b", J("{}").view())
      .close()
      .append("additionalProperties", false)
      .close();
  bson::Document filter = b.finish();
  EXPECT_TRUE(M(filter, R"({"a": 2, "b": 0})"));
  EXPECT_FALSE(M(filter, R"({"a": 0})"));
  EXPECT_FALSE(M(filter, R"({"a": 4})"));
  EXPECT_FALSE(M(filter, R"({"a": 2, "c": 0})"));
}

TEST(JsonSchema, NestedProperties) {
  const char* schema = R"({"properties": {"a": {"bsonType": "object", "required": ["b"],
      "properties": {"b": {"properties": {"c": {"enum": [1, 2]}}}}}}})";
  EXPECT_TRUE(S(schema, R"({"a": {"b": {"c": 1}}})"));
  EXPECT_TRUE(S(schema, R"({"a": {"b": 7}})"));  // b not an object: its properties don't apply
  EXPECT_FALSE(S(schema, R"({"a": {"b": {"c": 3}}})"));
  EXPECT_FALSE(S(schema, R"({"a": {"x": 1}})"));
  EXPECT_FALSE(S(schema, R"({"a": [{"b": {"c": 1}}]})"));  // an array is not an object
  // Without a type, `properties` ignores values that are not documents (arrays included).
  EXPECT_TRUE(P(R"({"properties": {"b": {"bsonType": "int"}}})", R"([{"b": "x"}])"));
  EXPECT_FALSE(P(R"({"properties": {"b": {"bsonType": "int"}}})", R"({"b": "x"})"));
}

TEST(JsonSchema, PatternProperties) {
  const char* schema = R"({"patternProperties": {"^s_": {"bsonType": "string"},
      "_n$": {"bsonType": "number"}}})";
  EXPECT_TRUE(S(schema, R"({"s_a": "x", "b_n": 1, "other": true})"));
  EXPECT_FALSE(S(schema, R"({"s_a": 1})"));
  EXPECT_FALSE(S(schema, R"({"b_n": "1"})"));
  EXPECT_FALSE(S(schema, R"({"s_n": "x"})"));  // matches both patterns: both apply
  // Unanchored search, like mongod's.
  EXPECT_FALSE(S(R"({"patternProperties": {"x": {"bsonType": "int"}}})", R"({"axb": "s"})"));
}

TEST(JsonSchema, AdditionalProperties) {
  const char* closed = R"({"properties": {"_id": {}, "a": {}}, "additionalProperties": false})";
  EXPECT_TRUE(S(closed, R"({"_id": 1, "a": 1})"));
  EXPECT_FALSE(S(closed, R"({"_id": 1, "a": 1, "b": 1})"));
  EXPECT_TRUE(S(R"({"additionalProperties": true})", R"({"x": 1})"));
  const char* typed = R"({"properties": {"a": {}}, "additionalProperties": {"bsonType": "int"}})";
  EXPECT_TRUE(S(typed, R"({"a": "s", "b": 1, "c": 2})"));
  EXPECT_FALSE(S(typed, R"({"a": "s", "b": "t"})"));
  // Fields matched by a pattern are not "additional".
  const char* with_pattern = R"({"patternProperties": {"^x": {}}, "additionalProperties": false})";
  EXPECT_TRUE(S(with_pattern, R"({"x1": 1, "xy": 2})"));
  EXPECT_FALSE(S(with_pattern, R"({"x1": 1, "y": 2})"));
  // Nested.
  EXPECT_FALSE(P(R"({"additionalProperties": false})", R"({"b": 1})"));
  EXPECT_TRUE(P(R"({"additionalProperties": false})", R"({})"));
  EXPECT_TRUE(P(R"({"additionalProperties": false})", "1"));
}

TEST(JsonSchema, MinMaxProperties) {
  EXPECT_TRUE(S(R"({"minProperties": 2})", R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(S(R"({"minProperties": 2})", R"({"a": 1})"));
  EXPECT_TRUE(S(R"({"maxProperties": 1})", R"({"a": 1})"));
  EXPECT_FALSE(S(R"({"maxProperties": 1})", R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(P(R"({"maxProperties": 0})", R"({"x": 1})"));
  EXPECT_TRUE(P(R"({"maxProperties": 0})", R"({})"));
  EXPECT_TRUE(P(R"({"maxProperties": 0})", "[1, 2]"));
}

TEST(JsonSchema, PropertyDependencies) {
  const char* schema = R"({"dependencies": {"a": ["b", "c"]}})";
  EXPECT_TRUE(S(schema, R"({"a": 1, "b": 1, "c": 1})"));
  EXPECT_FALSE(S(schema, R"({"a": 1, "b": 1})"));
  EXPECT_TRUE(S(schema, R"({"b": 1})"));  // no a: no requirement
  EXPECT_FALSE(P(schema, R"({"a": 1})"));
  EXPECT_TRUE(P(schema, R"("a")"));
}

TEST(JsonSchema, SchemaDependencies) {
  const char* schema =
      R"({"dependencies": {"a": {"required": ["b"], "properties": {"b": {"bsonType": "int"}}}}})";
  EXPECT_TRUE(S(schema, R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(S(schema, R"({"a": 1, "b": "2"})"));
  EXPECT_FALSE(S(schema, R"({"a": 1})"));
  EXPECT_TRUE(S(schema, R"({"b": "2"})"));
  EXPECT_FALSE(P(schema, R"({"a": 1})"));
  EXPECT_TRUE(P(schema, R"({"c": 1})"));
}

TEST(JsonSchema, Enum) {
  const char* schema = R"({"enum": [1, "x", null, [1, 2], {"b": 1, "c": 2}]})";
  EXPECT_TRUE(P(schema, "1"));
  EXPECT_TRUE(P(schema, "1.0"));  // numbers compare across types
  EXPECT_TRUE(P(schema, R"({"$numberLong": "1"})"));
  EXPECT_TRUE(P(schema, R"("x")"));
  EXPECT_TRUE(P(schema, "null"));
  EXPECT_TRUE(P(schema, "[1, 2]"));
  EXPECT_FALSE(P(schema, "[2, 1]"));
  EXPECT_TRUE(P(schema, R"({"b": 1, "c": 2})"));
  EXPECT_TRUE(P(schema, R"({"c": 2, "b": 1})"));  // field order does not matter
  EXPECT_FALSE(P(schema, R"({"b": 1})"));
  EXPECT_FALSE(P(schema, "2"));
  EXPECT_FALSE(P(schema, R"("y")"));
  EXPECT_FALSE(P(schema, "[1]"));
  // Top level: the whole document must equal an object in the list.
  EXPECT_TRUE(S(R"({"enum": [{"_id": 1, "a": 2}, 3]})", R"({"a": 2, "_id": 1})"));
  EXPECT_FALSE(S(R"({"enum": [{"_id": 1, "a": 2}, 3]})", R"({"_id": 1, "a": 3})"));
  EXPECT_FALSE(S(R"({"enum": [3]})", R"({"_id": 1})"));
}

TEST(JsonSchema, MinimumMaximum) {
  EXPECT_TRUE(P(R"({"minimum": 5})", "5"));
  EXPECT_TRUE(P(R"({"minimum": 5})", "5.5"));
  EXPECT_FALSE(P(R"({"minimum": 5})", "4"));
  EXPECT_FALSE(P(R"({"minimum": 5, "exclusiveMinimum": true})", "5"));
  EXPECT_TRUE(P(R"({"minimum": 5, "exclusiveMinimum": false})", "5"));
  EXPECT_TRUE(P(R"({"maximum": 5})", R"({"$numberLong": "5"})"));
  EXPECT_FALSE(P(R"({"maximum": 5})", R"({"$numberDecimal": "5.01"})"));
  EXPECT_FALSE(P(R"({"maximum": 5, "exclusiveMaximum": true})", "5"));
  EXPECT_TRUE(P(R"({"maximum": 5, "exclusiveMaximum": true})", "4.99"));
  // Type-restricted: values that are not numbers are not constrained.
  EXPECT_TRUE(P(R"({"minimum": 5})", R"("a")"));
  EXPECT_TRUE(P(R"({"minimum": 5})", "[1]"));
  EXPECT_TRUE(P(R"({"maximum": 5})", "null"));
  // ...unless the type says otherwise.
  EXPECT_FALSE(P(R"({"bsonType": "number", "minimum": 5})", R"("a")"));
  // NaN compares false with every other number, as with $gte and $lte.
  EXPECT_FALSE(P(R"({"minimum": 0})", R"({"$numberDouble": "NaN"})"));
  EXPECT_FALSE(P(R"({"maximum": 0})", R"({"$numberDouble": "NaN"})"));
  EXPECT_FALSE(P(R"({"minimum": {"$numberDouble": "NaN"}})", "1"));
  EXPECT_TRUE(P(R"({"minimum": {"$numberDouble": "NaN"}})", R"({"$numberDouble": "NaN"})"));
  EXPECT_FALSE(P(R"({"minimum": {"$numberDouble": "NaN"}, "exclusiveMinimum": true})",
                 R"({"$numberDouble": "NaN"})"));
}

TEST(JsonSchema, MultipleOf) {
  EXPECT_TRUE(P(R"({"multipleOf": 3})", "9"));
  EXPECT_FALSE(P(R"({"multipleOf": 3})", "10"));
  EXPECT_TRUE(P(R"({"multipleOf": 3})", "0"));
  EXPECT_TRUE(P(R"({"multipleOf": 3})", "-9"));
  EXPECT_TRUE(P(R"({"multipleOf": 2.5})", "7.5"));
  EXPECT_FALSE(P(R"({"multipleOf": 2.5})", "7"));
  // Decimal arithmetic, as mongod: 0.3 is a multiple of 0.1.
  EXPECT_TRUE(P(R"({"multipleOf": 0.1})", "0.3"));
  EXPECT_TRUE(P(R"({"multipleOf": 0.01})", "19.99"));
  EXPECT_FALSE(P(R"({"multipleOf": 0.1})", "0.35"));
  EXPECT_TRUE(P(R"({"multipleOf": {"$numberDecimal": "0.5"}})", R"({"$numberDecimal": "2.5"})"));
  EXPECT_TRUE(P(R"({"multipleOf": 7})", R"({"$numberLong": "9007199254740993"})") ==
              (9007199254740993LL % 7 == 0));
  EXPECT_TRUE(P(R"({"multipleOf": 1000})", "1e300"));
  EXPECT_FALSE(P(R"({"multipleOf": 1e300})", "1000"));
  EXPECT_FALSE(P(R"({"multipleOf": 2})", R"({"$numberDouble": "Infinity"})"));
  EXPECT_FALSE(P(R"({"multipleOf": 2})", R"({"$numberDouble": "NaN"})"));
  EXPECT_TRUE(P(R"({"multipleOf": 2})", R"("odd")"));  // not a number: unconstrained
  // Divisors mongod accepts although they are not finite: NaN matches nothing; with infinity
  // only zero is a multiple (fmod(x, inf) is x).
  EXPECT_FALSE(P(R"({"multipleOf": {"$numberDouble": "NaN"}})", "2"));
  EXPECT_TRUE(P(R"({"multipleOf": {"$numberDouble": "Infinity"}})", "0"));
  EXPECT_FALSE(P(R"({"multipleOf": {"$numberDouble": "Infinity"}})", "2"));
  // A tiny decimal divisor is positive, not zero.
  EXPECT_TRUE(P(R"({"multipleOf": {"$numberDecimal": "1E-400"}})", "3"));
}

TEST(JsonSchema, StringLengthAndPattern) {
  EXPECT_TRUE(P(R"({"minLength": 2, "maxLength": 3})", R"("ab")"));
  EXPECT_TRUE(P(R"({"minLength": 2, "maxLength": 3})", R"("abc")"));
  EXPECT_FALSE(P(R"({"minLength": 2})", R"("a")"));
  EXPECT_FALSE(P(R"({"maxLength": 3})", R"("abcd")"));
  // Code points, not bytes: "é€𝄞" is 3 code points in 9 bytes.
  EXPECT_TRUE(P(R"({"maxLength": 3})", "\"\u00e9\u20ac\U0001D11E\""));
  EXPECT_FALSE(P(R"({"maxLength": 2})", "\"\u00e9\u20ac\U0001D11E\""));
  EXPECT_TRUE(P(R"({"minLength": 3})", "\"\u00e9\u20ac\U0001D11E\""));
  EXPECT_TRUE(P(R"({"pattern": "^a+b$"})", R"("aab")"));
  EXPECT_FALSE(P(R"({"pattern": "^a+b$"})", R"("aabc")"));
  EXPECT_TRUE(P(R"({"pattern": "b"})", R"("abc")"));  // unanchored search
  // Type-restricted.
  EXPECT_TRUE(P(R"({"minLength": 5, "pattern": "^z"})", "12"));
  EXPECT_TRUE(P(R"({"minLength": 5})", R"(["a"])"));
}

TEST(JsonSchema, Items) {
  const char* each = R"({"items": {"bsonType": "int", "minimum": 0}})";
  EXPECT_TRUE(P(each, "[1, 2, 3]"));
  EXPECT_TRUE(P(each, "[]"));
  EXPECT_FALSE(P(each, "[1, -2]"));
  EXPECT_FALSE(P(each, R"([1, "2"])"));
  EXPECT_TRUE(P(each, R"("not an array")"));
  const char* tuple = R"({"items": [{"bsonType": "string"}, {"bsonType": "int"}]})";
  EXPECT_TRUE(P(tuple, R"(["a", 1])"));
  EXPECT_TRUE(P(tuple, R"(["a"])"));
  EXPECT_TRUE(P(tuple, R"(["a", 1, true])"));  // no additionalItems: anything after
  EXPECT_FALSE(P(tuple, R"([1, "a"])"));
}

TEST(JsonSchema, AdditionalItems) {
  const char* closed = R"({"items": [{"bsonType": "string"}], "additionalItems": false})";
  EXPECT_TRUE(P(closed, R"(["a"])"));
  EXPECT_FALSE(P(closed, R"(["a", "b"])"));
  const char* typed = R"({"items": [{}], "additionalItems": {"bsonType": "int"}})";
  EXPECT_TRUE(P(typed, R"(["x", 1, 2])"));
  EXPECT_FALSE(P(typed, R"(["x", 1, "2"])"));
  // With `items` a schema (or absent), additionalItems has no effect.
  EXPECT_TRUE(P(R"({"items": {}, "additionalItems": false})", "[1, 2]"));
  EXPECT_TRUE(P(R"({"additionalItems": false})", "[1, 2]"));
}

TEST(JsonSchema, MinMaxUniqueItems) {
  EXPECT_TRUE(P(R"({"minItems": 2})", "[1, 2]"));
  EXPECT_FALSE(P(R"({"minItems": 2})", "[1]"));
  EXPECT_TRUE(P(R"({"maxItems": 1})", "[1]"));
  EXPECT_FALSE(P(R"({"maxItems": 1})", "[1, 2]"));
  EXPECT_TRUE(P(R"({"maxItems": 1})", R"({"a": 1, "b": 2})"));
  EXPECT_TRUE(P(R"({"uniqueItems": true})", R"([1, "1", [1], {"a": 1}, {"a": 2}])"));
  EXPECT_FALSE(P(R"({"uniqueItems": true})", "[1, 2, 1.0]"));
  EXPECT_FALSE(P(R"({"uniqueItems": true})", R"([{"a": 1, "b": 2}, {"b": 2, "a": 1}])"));
  EXPECT_FALSE(P(R"({"uniqueItems": true})", R"([[{"a": 1, "b": 2}], [{"b": 2, "a": 1}]])"));
  EXPECT_TRUE(P(R"({"uniqueItems": false})", "[1, 1]"));
  EXPECT_TRUE(P(R"({"uniqueItems": true})", R"("aa")"));
}

TEST(JsonSchema, NestedItems) {
  const char* schema = R"({"items": {"bsonType": "object", "required": ["k"],
      "properties": {"k": {"bsonType": "string"}, "v": {"items": {"bsonType": "int"}}}}})";
  EXPECT_TRUE(P(schema, R"([{"k": "a", "v": [1, 2]}, {"k": "b"}])"));
  EXPECT_FALSE(P(schema, R"([{"k": "a", "v": [1, "2"]}])"));
  EXPECT_FALSE(P(schema, R"([{"v": [1]}])"));
  EXPECT_FALSE(P(schema, "[1]"));
}

TEST(JsonSchema, Logical) {
  EXPECT_TRUE(P(R"({"allOf": [{"minimum": 1}, {"maximum": 3}]})", "2"));
  EXPECT_FALSE(P(R"({"allOf": [{"minimum": 1}, {"maximum": 3}]})", "4"));
  EXPECT_TRUE(P(R"({"anyOf": [{"bsonType": "string"}, {"minimum": 10}]})", R"("s")"));
  EXPECT_TRUE(P(R"({"anyOf": [{"bsonType": "string"}, {"minimum": 10}]})", "11"));
  EXPECT_FALSE(P(R"({"anyOf": [{"bsonType": "string"}, {"minimum": 10}]})", "9"));
  const char* one = R"({"oneOf": [{"minimum": 5}, {"maximum": 10}]})";
  EXPECT_TRUE(P(one, "3"));
  EXPECT_TRUE(P(one, "11"));
  EXPECT_FALSE(P(one, "7"));  // both
  EXPECT_FALSE(P(R"({"oneOf": [{"bsonType": "int"}, {"bsonType": "string"}]})", "true"));
  EXPECT_TRUE(P(R"({"not": {"bsonType": "string"}})", "1"));
  EXPECT_FALSE(P(R"({"not": {"bsonType": "string"}})", R"("s")"));
  // Top level.
  EXPECT_TRUE(S(R"({"not": {"required": ["a"]}})", R"({"b": 1})"));
  EXPECT_FALSE(S(R"({"not": {"required": ["a"]}})", R"({"a": 1})"));
  EXPECT_TRUE(S(R"({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]})", R"({"b": 1})"));
}

TEST(JsonSchema, TitleAndDescriptionAreIgnored) {
  EXPECT_TRUE(S(R"({"title": "t", "description": "d", "properties": {"a": {"title": "x"}}})",
                R"({"a": 1})"));
}

TEST(JsonSchema, CombinedWithOtherConditions) {
  bson::Document holder = J(R"({"v": {"required": ["a"]}})");
  bson::DocumentBuilder b;
  b.append("$jsonSchema", holder.get("v"));
  b.append("a", 1);
  bson::Document filter = b.finish();
  EXPECT_TRUE(M(filter, R"({"a": 1})"));
  EXPECT_FALSE(M(filter, R"({"a": 2})"));
  bson::Document inner = schema_filter(R"({"required": ["b"]})");
  bson::DocumentBuilder o;
  o.open_array("$or").push(inner.view()).push(J(R"({"c": 1})").view()).close();
  bson::Document either = o.finish();
  EXPECT_TRUE(M(either, R"({"b": 0})"));
  EXPECT_TRUE(M(either, R"({"c": 1})"));
  EXPECT_FALSE(M(either, R"({"c": 2})"));
  bson::DocumentBuilder n;
  n.open_array("$nor").push(inner.view()).close();
  EXPECT_TRUE(M(n.finish(), R"({"c": 2})"));
}

// --- errors ------------------------------------------------------------------------------

TEST(JsonSchemaErrors, NotAnObject) {
  expect_schema_error(R"("x")", kTypeMismatch, "$jsonSchema must be an object");
}

TEST(JsonSchemaErrors, BannedWhereTheContextForbidsIt) {
  MatcherOptions options;
  options.allow_json_schema = false;
  for (const char* f : {R"({"$jsonSchema": {}})", R"({"$or": [{"a": 1}, {"$jsonSchema": {}}]})",
                        R"({"a": {"$elemMatch": {"$jsonSchema": {}}}})"}) {
    std::string msg;
    try {
      Matcher::compile(J(f), options);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), 224) << f;
      msg = e.what();
    }
    EXPECT_EQ(msg, "$jsonSchema is not allowed in this context") << f;
  }
  EXPECT_NO_THROW(Matcher::compile(J(R"({"a": 1})"), options));
}

TEST(JsonSchemaErrors, UnknownAndUnsupportedKeywords) {
  expect_schema_error(R"({"foo": 1})", kFailedToParse, "Unknown $jsonSchema keyword: foo");
  expect_schema_error(R"({"properties": {"a": {"bsontype": "int"}}})", kFailedToParse,
                      "Unknown $jsonSchema keyword: bsontype");
  for (const char* k : {"$ref", "$schema", "default", "definitions", "format", "id"}) {
    bson::DocumentBuilder b;
    b.open_document("$jsonSchema").append(k, "x").close();
    expect_schema_error(b.finish(), kFailedToParse,
                        "$jsonSchema keyword '" + std::string(k) + "' is not currently supported");
  }
  expect_schema_error(R"({"encrypt": {}})", kNotImplemented, "encrypt");
  expect_schema_error(R"({"encryptMetadata": {}})", kNotImplemented, "encryptMetadata");
}

TEST(JsonSchemaErrors, DuplicateKeyword) {
  bson::DocumentBuilder b;
  b.open_document("$jsonSchema").append("minimum", 1).append("minimum", 2).close();
  expect_schema_error(b.finish(), kFailedToParse, "Duplicate $jsonSchema keyword: minimum");
}

TEST(JsonSchemaErrors, Types) {
  expect_schema_error(R"({"type": "integer"})", kFailedToParse,
                      "$jsonSchema type 'integer' is not currently supported.");
  expect_schema_error(R"({"type": ["string", "integer"]})", kFailedToParse,
                      "$jsonSchema type 'integer' is not currently supported.");
  expect_schema_error(R"({"type": "int"})", kBadValue, "Unknown type name alias: int");
  expect_schema_error(R"({"bsonType": "integer"})", kFailedToParse,
                      "$jsonSchema type 'integer' is not currently supported.");
  expect_schema_error(R"({"bsonType": "str"})", kBadValue, "Unknown type name alias: str");
  expect_schema_error(
      R"({"bsonType": 2})", kTypeMismatch,
      "$jsonSchema keyword 'bsonType' must be either a string or an array of strings");
  expect_schema_error(R"({"bsonType": [2]})", kTypeMismatch,
                      "$jsonSchema keyword 'bsonType' array elements must be strings");
  expect_schema_error(R"({"bsonType": ["int", "int"]})", kFailedToParse,
                      "$jsonSchema keyword 'bsonType' has duplicate value: int");
  expect_schema_error(R"({"bsonType": []})", kFailedToParse,
                      "$jsonSchema keyword 'bsonType' must name at least one type");
  expect_schema_error(R"({"type": "object", "bsonType": "object"})", kFailedToParse,
                      "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
}

TEST(JsonSchemaErrors, ObjectKeywords) {
  expect_schema_error(R"({"required": []})", kFailedToParse,
                      "$jsonSchema keyword 'required' cannot be an empty array");
  expect_schema_error(R"({"required": "a"})", kTypeMismatch,
                      "$jsonSchema keyword 'required' must be an array, but found an element of "
                      "type string");
  expect_schema_error(R"({"required": [1]})", kTypeMismatch,
                      "'required' must be an array of strings, but found an element of type: int");
  expect_schema_error(R"({"required": ["a", "a"]})", kFailedToParse,
                      "'required' array cannot contain duplicate values");
  expect_schema_error(R"({"properties": 1})", kTypeMismatch,
                      "$jsonSchema keyword 'properties' must be an object");
  expect_schema_error(R"({"properties": {"a": 1}})", kTypeMismatch,
                      "Nested schema for $jsonSchema property 'a' must be an object");
  expect_schema_error(R"({"patternProperties": []})", kTypeMismatch,
                      "$jsonSchema keyword 'patternProperties' must be an object");
  expect_schema_error(R"({"patternProperties": {"^a": true}})", kTypeMismatch,
                      "'patternProperties' has property '^a' which is not an object");
  expect_schema_error(R"({"patternProperties": {"(": {}}})", kBadValue,
                      "Regular expression is invalid");
  expect_schema_error(R"({"additionalProperties": 1})", kTypeMismatch,
                      "'additionalProperties' must be an object or a boolean");
  expect_schema_error(R"({"minProperties": -1})", kFailedToParse,
                      "Expected a positive number in: minProperties: -1");
  expect_schema_error(R"({"maxProperties": "1"})", kFailedToParse,
                      "Expected a number in: maxProperties");
  expect_schema_error(R"({"maxProperties": 1.5})", kFailedToParse,
                      "Expected an integer: maxProperties: 1.5");
  expect_schema_error(R"({"dependencies": []})", kTypeMismatch,
                      "$jsonSchema keyword 'dependencies' must be an object");
  expect_schema_error(R"({"dependencies": {"a": 1}})", kTypeMismatch,
                      "property 'a' in $jsonSchema keyword 'dependencies' must be either an "
                      "object or an array");
  expect_schema_error(
      R"({"dependencies": {"a": []}})", kFailedToParse,
      "property 'a' in $jsonSchema keyword 'dependencies' cannot be an empty array");
  expect_schema_error(R"({"dependencies": {"a": [1]}})", kTypeMismatch,
                      "array 'a' in $jsonSchema keyword 'dependencies' can only contain strings");
  expect_schema_error(
      R"({"dependencies": {"a": ["b", "b"]}})", kFailedToParse,
      "array 'a' in $jsonSchema keyword 'dependencies' contains duplicate element: b");
}

TEST(JsonSchemaErrors, ScalarKeywords) {
  expect_schema_error(R"({"minimum": "1"})", kTypeMismatch,
                      "$jsonSchema keyword 'minimum' must be a number");
  expect_schema_error(R"({"maximum": null})", kTypeMismatch,
                      "$jsonSchema keyword 'maximum' must be a number");
  expect_schema_error(
      R"({"exclusiveMinimum": true})", kFailedToParse,
      "$jsonSchema keyword 'minimum' must be a present if exclusiveMinimum is present");
  expect_schema_error(
      R"({"exclusiveMaximum": true})", kFailedToParse,
      "$jsonSchema keyword 'maximum' must be a present if exclusiveMaximum is present");
  expect_schema_error(R"({"minimum": 1, "exclusiveMinimum": 1})", kTypeMismatch,
                      "$jsonSchema keyword 'exclusiveMinimum' must be a boolean");
  expect_schema_error(R"({"multipleOf": "2"})", kTypeMismatch,
                      "$jsonSchema keyword 'multipleOf' must be a number");
  expect_schema_error(R"({"multipleOf": 0})", kFailedToParse,
                      "$jsonSchema keyword 'multipleOf' must have a positive value");
  expect_schema_error(R"({"multipleOf": -2})", kFailedToParse,
                      "$jsonSchema keyword 'multipleOf' must have a positive value");
  expect_schema_error(R"({"multipleOf": {"$numberDecimal": "0E-10"}})", kFailedToParse,
                      "$jsonSchema keyword 'multipleOf' must have a positive value");
  expect_schema_error(R"({"multipleOf": {"$numberDouble": "-0.0"}})", kFailedToParse,
                      "$jsonSchema keyword 'multipleOf' must have a positive value");
  expect_schema_error(R"({"minLength": -1})", kFailedToParse, "Expected a positive number in");
  expect_schema_error(R"({"maxLength": {"$numberDouble": "NaN"}})", kFailedToParse,
                      "Expected an integer, but found NaN in: maxLength");
  expect_schema_error(R"({"pattern": 1})", kTypeMismatch,
                      "$jsonSchema keyword 'pattern' must be a string");
  expect_schema_error(R"({"pattern": "("})", kBadValue, "Regular expression is invalid");
  expect_schema_error(R"({"title": 1})", kTypeMismatch,
                      "$jsonSchema keyword 'title' must be of type string");
  expect_schema_error(R"({"description": 1})", kTypeMismatch,
                      "$jsonSchema keyword 'description' must be of type string");
}

TEST(JsonSchemaErrors, ArrayKeywords) {
  expect_schema_error(R"({"minItems": -1})", kFailedToParse, "Expected a positive number in");
  expect_schema_error(R"({"maxItems": "x"})", kFailedToParse, "Expected a number in");
  expect_schema_error(R"({"uniqueItems": 1})", kTypeMismatch,
                      "$jsonSchema keyword 'uniqueItems' must be a boolean");
  expect_schema_error(R"({"items": 1})", kTypeMismatch,
                      "$jsonSchema keyword 'items' must be an array or an object, not int");
  expect_schema_error(R"({"items": [1]})", kTypeMismatch,
                      "'items' requires that each element of the array is an object, but found a "
                      "int");
  expect_schema_error(R"({"additionalItems": 1})", kTypeMismatch,
                      "'additionalItems' must be either an object or a boolean, but got a int");
}

TEST(JsonSchemaErrors, LogicalKeywords) {
  for (const char* k : {"allOf", "anyOf", "oneOf"}) {
    std::string name(k);
    expect_schema_error(R"({")" + name + R"(": {}})", kTypeMismatch,
                        "$jsonSchema keyword '" + name + "' must be an array");
    expect_schema_error(R"({")" + name + R"(": []})", kBadValue,
                        "$jsonSchema keyword '" + name + "' must be a non-empty array");
    expect_schema_error(
        R"({")" + name + R"(": [1]})", kTypeMismatch,
        "'" + name + "' must be an array of objects, but found an element of type int");
  }
  expect_schema_error(
      R"({"not": []})", kTypeMismatch,
      "$jsonSchema keyword 'not' must be an object, but found an element of type array");
  expect_schema_error(
      R"({"enum": 1})", kTypeMismatch,
      "$jsonSchema keyword 'enum' must be an array, but found an element of type int");
  expect_schema_error(R"({"enum": []})", kFailedToParse,
                      "$jsonSchema keyword 'enum' cannot be an empty array");
  expect_schema_error(R"({"enum": [1, 1.0]})", kFailedToParse,
                      "$jsonSchema keyword 'enum' array cannot contain duplicate values.");
  expect_schema_error(R"({"enum": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]})", kFailedToParse,
                      "array cannot contain duplicate values.");
}

TEST(JsonSchemaErrors, NestedErrorsSurface) {
  expect_schema_error(R"({"properties": {"a": {"items": {"minimum": "x"}}}})", kTypeMismatch,
                      "'minimum' must be a number");
  expect_schema_error(R"({"anyOf": [{"not": {"foo": 1}}]})", kFailedToParse,
                      "Unknown $jsonSchema keyword: foo");
}

// A hostile schema nested far deeper than any real one is refused, not recursed into until the
// stack runs out.
TEST(JsonSchemaErrors, DeepNestingIsRefused) {
  // {$jsonSchema: {not: {not: ... {} ...}}}, built with the builder (JSON readers refuse such
  // depth themselves).
  auto nested = [](int levels) {
    bson::Document inner = J("{}");
    for (int i = 0; i < levels; ++i) {
      bson::DocumentBuilder b;
      b.append("not", inner.view());
      inner = b.finish();
    }
    bson::DocumentBuilder f;
    f.append("$jsonSchema", inner.view());
    return f.finish();
  };
  // Up to 200 levels of subschemas (the root is one): accepted, as mongod accepts what BSON's
  // depth limit lets through.
  EXPECT_EQ(compile_error(nested(199)), 0);
  EXPECT_FALSE(M(nested(199), R"({"a": 1})"));  // an odd number of nots around {}
  EXPECT_TRUE(M(nested(198), R"({"a": 1})"));
  // 200 subschemas: the schema compiler's own bound.
  expect_schema_error(nested(200), kBadValue, "$jsonSchema is nested too deeply");
  // Deeper than the filter's depth bound (200 levels, checked before any parsing): Overflow,
  // as mongod's BSON depth limit would refuse it.
  for (int levels : {1000, 10000}) {
    expect_schema_error(nested(levels), 15, "exceeds the maximum nesting depth");
  }
}

// enum and uniqueItems canonicalize embedded documents to a bounded depth: a value nested far
// deeper is compared as it is, without recursing through all its levels.
TEST(JsonSchema, DeeplyNestedValuesAreBounded) {
  // {d: {d: ... {x: 1} ...}}, 100,000 levels, written as bytes: each level is its length, an
  // embedded-document element "d", and the terminating zero.
  constexpr int kLevels = 100000;
  std::vector<uint8_t> bytes;
  auto put_length = [&bytes](uint32_t n) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(n >> (8 * i)));
  };
  for (int level = 0; level < kLevels; ++level) {
    put_length(12 + 8 * static_cast<uint32_t>(kLevels - level));
    bytes.insert(bytes.end(), {0x03, 'd', 0x00});
  }
  put_length(12);
  bytes.insert(bytes.end(), {0x10, 'x', 0x00, 0x01, 0x00, 0x00, 0x00, 0x00});
  bytes.insert(bytes.end(), kLevels, 0x00);
  bson::Document deep = bson::Document::adopt(std::move(bytes));

  bson::DocumentBuilder doc;
  doc.append("a", deep.view());
  doc.open_array("b").push(deep.view()).push(1).close();
  bson::Document d = doc.finish();
  EXPECT_FALSE(Matcher::compile(schema_filter(R"({"properties": {"a": {"enum": [{"d": 1}, 2]}}})"))
                   .matches(d));
  EXPECT_TRUE(Matcher::compile(schema_filter(R"({"properties": {"b": {"uniqueItems": true}}})"))
                  .matches(d));
}

// A pattern that backtracks catastrophically ends (PCRE2's match limit) instead of hanging.
TEST(JsonSchema, CatastrophicPatternIsBounded) {
  std::string subject(40, 'a');
  subject += "!";
  EXPECT_FALSE(P(R"({"pattern": "^(a+)+$"})", "\"" + subject + "\""));
}

// The validator shapes httk's record store declares (../shared/reference/httk-store-mongo.md
// §1.4): a record collection and a dispatch collection, accepting exactly the documents that
// reference describes.
constexpr const char* kRecordSchema = R"({
  "bsonType": "object",
  "additionalProperties": false,
  "required": ["_id", "_httk_role", "f", "logical_id", "store_timestamp", "content_id"],
  "properties": {
    "_id": {"bsonType": ["int", "long"]},
    "logical_id": {"bsonType": ["int", "long"]},
    "_httk_role": {"enum": ["main", "dep"]},
    "store_timestamp": {"bsonType": ["long", "int"]},
    "content_id": {"bsonType": "string", "pattern": "^[0-9a-fA-F]{64}$"},
    "f": {
      "bsonType": "object",
      "additionalProperties": true,
      "required": ["n", "name"],
      "properties": {
        "n": {"bsonType": ["int", "long"]},
        "x": {"bsonType": "double"},
        "name": {"bsonType": "string"},
        "ok": {"bsonType": "bool"},
        "blob": {"bsonType": "binData"},
        "energy_exact": {"bsonType": "string"},
        "energy": {"bsonType": "double"},
        "sites": {
          "bsonType": "array",
          "items": {
            "bsonType": "object",
            "properties": {"symbol": {"bsonType": "string"}, "count": {"bsonType": ["int", "long"]}},
            "required": ["symbol", "count"],
            "additionalProperties": false
          }
        }
      },
      "dependencies": {"energy": ["energy_exact"]}
    }
  }
})";

constexpr const char* kDispatchSchema = R"({
  "bsonType": "object",
  "required": ["_id", "record", "sid"],
  "additionalProperties": false,
  "properties": {
    "_id": {"bsonType": "string"},
    "record": {"enum": ["Structure", "Computation"]},
    "sid": {"bsonType": ["int", "long"]}
  }
})";

namespace {

const std::string kContentId(64, 'a');

std::string record(std::string_view f, std::string_view extra = "") {
  return R"({"_id": 1, "_httk_role": "main", "logical_id": {"$numberLong": "7"},
             "store_timestamp": {"$numberLong": "1700000000"}, "content_id": ")" +
         kContentId + R"(", "f": )" + std::string(f) + std::string(extra) + "}";
}

bool RS(const std::string& doc) {
  return M(schema_filter(kRecordSchema), doc);
}

}  // namespace

TEST(JsonSchemaHttkShapes, RecordCollection) {
  const char* f = R"({"n": 3, "name": "Fe", "energy_exact": "1/3", "energy": 0.333,
                      "sites": [{"symbol": "Fe", "count": 2}], "future_column": 1})";
  EXPECT_TRUE(RS(record(f)));
  EXPECT_TRUE(RS(record(R"({"n": {"$numberLong": "3"}, "name": "Fe", "energy_exact": "1"})")));
  // Optional columns may be absent; present ones must have their type.
  EXPECT_FALSE(RS(record(R"({"n": 3.5, "name": "Fe", "energy_exact": "1"})")));
  EXPECT_FALSE(RS(record(R"({"n": 3, "name": "Fe", "energy_exact": "1", "ok": 1})")));
  EXPECT_FALSE(RS(record(R"({"n": 3, "name": "Fe", "energy_exact": "1", "blob": "x"})")));
  EXPECT_FALSE(RS(record(R"({"n": 3})")));  // a required column is missing
  // An (optional) encoded field: its column needs its _exact sibling (`dependencies`).
  EXPECT_FALSE(RS(record(R"({"n": 3, "name": "Fe", "energy": 0.5})")));
  EXPECT_TRUE(RS(record(R"({"n": 3, "name": "Fe", "energy_exact": "1/2"})")));
  EXPECT_TRUE(RS(record(R"({"n": 3, "name": "Fe"})")));
  // Child arrays: every element an object with exactly its columns.
  EXPECT_FALSE(RS(record(R"({"n": 3, "name": "Fe", "energy_exact": "1",
                             "sites": [{"symbol": "Fe"}]})")));
  EXPECT_FALSE(RS(record(R"({"n": 3, "name": "Fe", "energy_exact": "1",
                             "sites": [{"symbol": "Fe", "count": 1, "extra": 0}]})")));
  EXPECT_FALSE(
      RS(record(R"({"n": 3, "name": "Fe", "energy_exact": "1", "sites": {"symbol": "Fe"}})")));
  // Top-level fields: closed set, typed, role enum, content id pattern.
  const char* ok_f = R"({"n": 3, "name": "Fe", "energy_exact": "1"})";
  EXPECT_FALSE(RS(record(ok_f, R"(, "extra": 1)")));
  std::string bad_role = record(ok_f);
  bad_role.replace(bad_role.find("\"main\""), 6, "\"other\"");
  EXPECT_FALSE(RS(bad_role));
  std::string bad_id = record(ok_f);
  bad_id.replace(bad_id.find("\"_id\": 1"), 8, "\"_id\": \"1\"");
  EXPECT_FALSE(RS(bad_id));
  std::string short_cid = record(ok_f);
  short_cid.replace(short_cid.find(kContentId), 64, std::string(63, 'a'));
  EXPECT_FALSE(RS(short_cid));
  std::string upper_cid = record(ok_f);
  upper_cid.replace(upper_cid.find(kContentId), 64, std::string(64, 'F'));
  EXPECT_TRUE(RS(upper_cid));
  std::string missing_ts = record(ok_f);
  missing_ts.replace(missing_ts.find("\"store_timestamp\""), 17, "\"store_timestamq\"");
  EXPECT_FALSE(RS(missing_ts));
}

TEST(JsonSchemaHttkShapes, DispatchCollection) {
  bson::Document filter = schema_filter(kDispatchSchema);
  EXPECT_TRUE(M(filter, R"({"_id": "k1", "record": "Structure", "sid": 4})"));
  EXPECT_TRUE(M(filter, R"({"_id": "k1", "record": "Computation", "sid": {"$numberLong": "4"}})"));
  EXPECT_FALSE(M(filter, R"({"_id": "k1", "record": "Other", "sid": 4})"));
  EXPECT_FALSE(M(filter, R"({"_id": 1, "record": "Structure", "sid": 4})"));
  EXPECT_FALSE(M(filter, R"({"_id": "k1", "record": "Structure", "sid": 4.5})"));
  EXPECT_FALSE(M(filter, R"({"_id": "k1", "record": "Structure"})"));
  EXPECT_FALSE(M(filter, R"({"_id": "k1", "record": "Structure", "sid": 4, "x": 0})"));
}

}  // namespace mongostore::engine::testing
