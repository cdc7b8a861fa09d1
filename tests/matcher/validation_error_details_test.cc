// errInfo.details of a document that fails a validator, as mongod 5.0+ builds it
// (schemaRulesNotSatisfied per failing $jsonSchema keyword, clausesNotSatisfied of query
// operators, reason and considered values of leaves). Expected shapes are mongod's, field
// order included.
#include "engine/matcher/validation_error_details.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using bson::Document;

using mongostore::testing::J;

// The details for `document` failing `validator`.
Document details_of(std::string_view validator, std::string_view document) {
  Document info = validation_error_info(J(validator).view(), J(document).view());
  bson::Value details = info.get("details");
  if (!details.is_document()) return info;
  return Document::copy_of(details.as_document());
}

// Exact equality, field order included (numbers compare across numeric types).
void expect_details(std::string_view validator, std::string_view document,
                    std::string_view expected) {
  Document actual = details_of(validator, document);
  Document want = J(expected);
  EXPECT_EQ(bson::compare_documents(actual.view(), want.view()), 0)
      << "validator " << validator << "\ndocument  " << document << "\nactual    "
      << actual.to_json() << "\nexpected  " << want.to_json();
}

TEST(ValidationErrorDetails, FailingDocumentIdAndDetails) {
  Document info = validation_error_info(J(R"({"a": {"$exists": true}})").view(),
                                        J(R"({"_id": 7, "b": 1})").view());
  EXPECT_EQ(info.get("failingDocumentId").as_int32(), 7);
  EXPECT_TRUE(info.get("details").is_document()) << info.to_json();
}

TEST(ValidationErrorDetails, PropertiesMinimum) {
  expect_details(R"({"$jsonSchema": {"properties": {"a": {"minimum": 1}}}})", R"({"a": 0})",
                 R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
                      {"operatorName": "properties", "propertiesNotSatisfied": [
                        {"propertyName": "a", "details": [
                          {"operatorName": "minimum", "specifiedAs": {"minimum": 1},
                           "reason": "comparison failed", "consideredValue": 0}]}]}]})");
}

TEST(ValidationErrorDetails, ExclusiveMinimumIsPartOfSpecifiedAs) {
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {"minimum": 1, "exclusiveMinimum": true}}}})",
      R"({"a": 1})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "details": [
               {"operatorName": "minimum", "specifiedAs": {"minimum": 1, "exclusiveMinimum": true},
                "reason": "comparison failed", "consideredValue": 1}]}]}]})");
}

TEST(ValidationErrorDetails, NestedPropertiesInMongodKeywordOrder) {
  // maximum is reported before minimum, whatever the schema's order.
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {"properties": {"b": {"minimum": 10, "maximum": -10}}}}}})",
      R"({"a": {"b": 5}})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "details": [
               {"operatorName": "properties", "propertiesNotSatisfied": [
                 {"propertyName": "b", "details": [
                   {"operatorName": "maximum", "specifiedAs": {"maximum": -10},
                    "reason": "comparison failed", "consideredValue": 5},
                   {"operatorName": "minimum", "specifiedAs": {"minimum": 10},
                    "reason": "comparison failed", "consideredValue": 5}]}]}]}]}]})");
}

TEST(ValidationErrorDetails, TypeMismatchIsReportedByTheTypeKeywordOnly) {
  expect_details(R"({"$jsonSchema": {"properties": {"a": {"type": "string", "minLength": 4}}}})",
                 R"({"a": 1})",
                 R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "details": [
               {"operatorName": "type", "specifiedAs": {"type": "string"},
                "reason": "type did not match", "consideredValue": 1,
                "consideredType": "int"}]}]}]})");
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {"bsonType": "string", "title": "property a", "description": "a is a string"}}}})",
      R"({"a": ["x", "y"]})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "title": "property a", "description": "a is a string",
              "details": [
               {"operatorName": "bsonType", "specifiedAs": {"bsonType": "string"},
                "reason": "type did not match", "consideredValue": ["x", "y"],
                "consideredType": "array"}]}]}]})");
}

TEST(ValidationErrorDetails, StringKeywords) {
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {"pattern": "^S", "maxLength": 2, "minLength": 9}}}})",
      R"({"a": "slow"})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "details": [
               {"operatorName": "pattern", "specifiedAs": {"pattern": "^S"},
                "reason": "regular expression did not match", "consideredValue": "slow"},
               {"operatorName": "maxLength", "specifiedAs": {"maxLength": 2},
                "reason": "specified string length was not satisfied", "consideredValue": "slow"},
               {"operatorName": "minLength", "specifiedAs": {"minLength": 9},
                "reason": "specified string length was not satisfied",
                "consideredValue": "slow"}]}]}]})");
}

TEST(ValidationErrorDetails, MultipleOf) {
  expect_details(R"({"$jsonSchema": {"properties": {"a": {"multipleOf": 2.1}}}})", R"({"a": 1.1})",
                 R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
                      {"operatorName": "properties", "propertiesNotSatisfied": [
                        {"propertyName": "a", "details": [
                          {"operatorName": "multipleOf", "specifiedAs": {"multipleOf": 2.1},
                           "reason": "considered value is not a multiple of the specified value",
                           "consideredValue": 1.1}]}]}]})");
}

TEST(ValidationErrorDetails, RequiredListsMissingPropertiesSorted) {
  // A missing property is reported by `required` alone, not by its property schema.
  expect_details(
      R"({"$jsonSchema": {"required": ["z", "a", "b"], "properties": {"a": {"minLength": 1}}}})",
      R"({"b": 1})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "required", "specifiedAs": {"required": ["z", "a", "b"]},
            "missingProperties": ["a", "z"]}]})");
}

TEST(ValidationErrorDetails, TitleAndDescriptionOfTheRoot) {
  expect_details(R"({"$jsonSchema": {"title": "T", "description": "D", "required": ["a"]}})",
                 R"({})",
                 R"({"operatorName": "$jsonSchema", "title": "T", "description": "D",
          "schemaRulesNotSatisfied": [
           {"operatorName": "required", "specifiedAs": {"required": ["a"]},
            "missingProperties": ["a"]}]})");
}

TEST(ValidationErrorDetails, AdditionalAndPatternProperties) {
  expect_details(R"({"$jsonSchema": {"properties": {"a": {}}, "additionalProperties": false}})",
                 R"({"a": 1, "b": 2, "c": 3})",
                 R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "additionalProperties",
            "specifiedAs": {"additionalProperties": false},
            "additionalProperties": ["b", "c"]}]})");
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {}}, "patternProperties": {"^x": {"bsonType": "int"}},
                          "additionalProperties": {"bsonType": "string"}}})",
      R"({"a": 1, "xy": "no", "b": 2})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "additionalProperties",
            "reason": "at least one additional property did not match the subschema",
            "failingProperty": "b", "details": [
              {"operatorName": "bsonType", "specifiedAs": {"bsonType": "string"},
               "reason": "type did not match", "consideredValue": 2, "consideredType": "int"}]},
           {"operatorName": "patternProperties", "details": [
              {"propertyName": "xy", "regexMatched": "^x", "details": [
                {"operatorName": "bsonType", "specifiedAs": {"bsonType": "int"},
                 "reason": "type did not match", "consideredValue": "no",
                 "consideredType": "string"}]}]}]})");
}

TEST(ValidationErrorDetails, ObjectCounts) {
  expect_details(R"({"$jsonSchema": {"minProperties": 3}})", R"({"a": 1})",
                 R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
                      {"operatorName": "minProperties", "specifiedAs": {"minProperties": 3},
                       "reason": "specified number of properties was not satisfied",
                       "numberOfProperties": 1}]})");
}

TEST(ValidationErrorDetails, Dependencies) {
  expect_details(
      R"({"$jsonSchema": {"dependencies": {"a": ["b", "c"], "d": {"required": ["e"]}, "z": ["q"]}}})",
      R"({"a": 1, "c": 1, "d": 1})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "dependencies", "failingDependencies": [
             {"conditionalProperty": "a", "missingProperties": ["b"]},
             {"conditionalProperty": "d", "details": [
               {"operatorName": "required", "specifiedAs": {"required": ["e"]},
                "missingProperties": ["e"]}]}]}]})");
}

TEST(ValidationErrorDetails, ArrayKeywords) {
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {"minItems": 5, "uniqueItems": true,
                                               "items": {"bsonType": "int"}}}}})",
      R"({"a": [1, 2, "x", 2]})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "details": [
               {"operatorName": "minItems", "specifiedAs": {"minItems": 5},
                "reason": "array did not match specified length",
                "consideredValue": [1, 2, "x", 2], "numberOfItems": 4},
               {"operatorName": "uniqueItems", "specifiedAs": {"uniqueItems": true},
                "reason": "found a duplicate item", "consideredValue": [1, 2, "x", 2],
                "duplicatedValue": 2},
               {"operatorName": "items",
                "reason": "At least one item did not match the sub-schema", "itemIndex": 2,
                "details": [
                  {"operatorName": "bsonType", "specifiedAs": {"bsonType": "int"},
                   "reason": "type did not match", "consideredValue": "x",
                   "consideredType": "string"}]}]}]}]})");
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {"items": [{"bsonType": "int"}, {}],
                                               "additionalItems": false}}}})",
      R"({"a": ["x", 2, 3, 4]})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "details": [
               {"operatorName": "items", "details": [
                 {"itemIndex": 0, "details": [
                   {"operatorName": "bsonType", "specifiedAs": {"bsonType": "int"},
                    "reason": "type did not match", "consideredValue": "x",
                    "consideredType": "string"}]}]},
               {"operatorName": "additionalItems", "specifiedAs": {"additionalItems": false},
                "reason": "found additional items", "additionalItems": [3, 4]}]}]}]})");
}

TEST(ValidationErrorDetails, LogicalKeywords) {
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {"allOf": [{"minimum": 1}, {"maximum": 3}]}}}})",
      R"({"a": 4})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "details": [
               {"operatorName": "allOf", "schemasNotSatisfied": [
                 {"index": 1, "details": [
                   {"operatorName": "maximum", "specifiedAs": {"maximum": 3},
                    "reason": "comparison failed", "consideredValue": 4}]}]}]}]}]})");
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {"oneOf": [{"minimum": 1}, {"maximum": 3}]}}}})",
      R"({"a": 2})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "details": [
               {"operatorName": "oneOf", "reason": "more than one subschema matched",
                "matchingSchemaIndexes": [0, 1]}]}]}]})");
  expect_details(
      R"({"$jsonSchema": {"properties": {"a": {"anyOf": [{"type": "string"}, {"maximum": 3}]}}}})",
      R"({"a": 4})",
      R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
           {"operatorName": "properties", "propertiesNotSatisfied": [
             {"propertyName": "a", "details": [
               {"operatorName": "anyOf", "schemasNotSatisfied": [
                 {"index": 0, "details": [
                   {"operatorName": "type", "specifiedAs": {"type": "string"},
                    "reason": "type did not match", "consideredValue": 4,
                    "consideredType": "int"}]},
                 {"index": 1, "details": [
                   {"operatorName": "maximum", "specifiedAs": {"maximum": 3},
                    "reason": "comparison failed", "consideredValue": 4}]}]}]}]}]})");
  expect_details(R"({"$jsonSchema": {"not": {"properties": {"a": {"minimum": 3}}}}})",
                 R"({"a": 6})",
                 R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
                      {"operatorName": "not", "reason": "child expression matched"}]})");
  expect_details(R"({"$jsonSchema": {"properties": {"a": {"enum": [1, 2, 3]}}}})", R"({"a": 0})",
                 R"({"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
                      {"operatorName": "properties", "propertiesNotSatisfied": [
                        {"propertyName": "a", "details": [
                          {"operatorName": "enum", "specifiedAs": {"enum": [1, 2, 3]},
                           "reason": "value was not found in enum",
                           "consideredValue": 0}]}]}]})");
}

TEST(ValidationErrorDetails, TopLevelTypeWithoutObjectMatchesNothing) {
  expect_details(R"({"$jsonSchema": {"type": "number"}})", R"({"a": 1})",
                 R"({"operatorName": "$jsonSchema",
                     "specifiedAs": {"$jsonSchema": {"type": "number"}},
                     "reason": "expression always evaluates to false"})");
}

TEST(ValidationErrorDetails, QueryOperators) {
  expect_details(R"({"a": {"$gt": 5}})", R"({"a": 3})",
                 R"({"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}},
                     "reason": "comparison failed", "consideredValue": 3})");
  expect_details(R"({"a": {"$gt": 5}})", R"({"b": 3})",
                 R"({"operatorName": "$gt", "specifiedAs": {"a": {"$gt": 5}},
                     "reason": "field was missing"})");
  expect_details(R"({"a": 5})", R"({"a": [1, 2]})",
                 R"({"operatorName": "$eq", "specifiedAs": {"a": 5},
                     "reason": "comparison failed", "consideredValues": [1, 2]})");
  expect_details(R"({"a": {"$type": "string"}})", R"({"a": 1})",
                 R"({"operatorName": "$type", "specifiedAs": {"a": {"$type": "string"}},
                     "reason": "type did not match", "consideredValue": 1,
                     "consideredType": "int"})");
  expect_details(R"({"a": {"$exists": true}})", R"({})",
                 R"({"operatorName": "$exists", "specifiedAs": {"a": {"$exists": true}},
                     "reason": "path does not exist"})");
  expect_details(R"({"a": 1, "b": {"$lt": 2}, "c": 3})", R"({"a": 1, "b": 5, "c": 4})",
                 R"({"operatorName": "$and", "clausesNotSatisfied": [
           {"index": 1, "details": {"operatorName": "$lt", "specifiedAs": {"b": {"$lt": 2}},
                                    "reason": "comparison failed", "consideredValue": 5}},
           {"index": 2, "details": {"operatorName": "$eq", "specifiedAs": {"c": 3},
                                    "reason": "comparison failed", "consideredValue": 4}}]})");
  expect_details(R"({"$or": [{"a": 1}, {"$jsonSchema": {"required": ["b"]}}]})", R"({"a": 2})",
                 R"({"operatorName": "$or", "clausesNotSatisfied": [
           {"index": 0, "details": {"operatorName": "$eq", "specifiedAs": {"a": 1},
                                    "reason": "comparison failed", "consideredValue": 2}},
           {"index": 1, "details": {"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": [
              {"operatorName": "required", "specifiedAs": {"required": ["b"]},
               "missingProperties": ["b"]}]}}]})");
  expect_details(R"({"$nor": [{"$jsonSchema": {"minimum": 1}}]})", R"({"a": 2})",
                 R"({"operatorName": "$nor", "clausesSatisfied": [
                      {"index": 0, "details": {"operatorName": "$jsonSchema",
                                               "reason": "schema matched"}}]})");
}

TEST(ValidationErrorDetails, TooLargeDetailsAreReplacedByANote) {
  // Each failing allOf branch would repeat the 7 MB value: past the bound, mongod's note.
  std::string big(7 * 1024 * 1024, 'x');
  bson::DocumentBuilder doc;
  doc.append("_id", 1).append("a", big);
  Document info = validation_error_info(
      J(R"({"$jsonSchema": {"properties": {"a": {"allOf": [{"enum": [1]}, {"enum": [2]}]}}}})")
          .view(),
      doc.finish().view());
  EXPECT_EQ(info.get("note").as_string(), "detailed error was too large");
  EXPECT_EQ(info.get("failingDocumentId").as_int32(), 1);
  EXPECT_TRUE(info.get("details").is_missing());
}

TEST(ValidationErrorDetails, DeeplyNestedSchemaGivesABoundedError) {
  // 40 nested properties: the generated error would nest far past 100 levels.
  std::string schema = R"({"minimum": 1})";
  std::string document = "0";
  for (int i = 0; i < 40; ++i) {
    schema = R"({"properties": {"a": )" + schema + "}}";
    document = R"({"a": )" + document + "}";
  }
  Document info =
      validation_error_info(J(R"({"$jsonSchema": )" + schema + "}").view(), J(document).view());
  EXPECT_EQ(info.get("reason").as_string(), "generated error was too deeply nested")
      << info.to_json().substr(0, 300);
  EXPECT_TRUE(info.get("truncated").as_bool());
}

}  // namespace
}  // namespace mongostore::engine
