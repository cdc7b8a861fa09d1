// Find projections: inclusion/exclusion, _id, dotted paths, and the array operators $slice,
// $elemMatch and positional `$`, with the errors MongoDB gives for invalid specifications.
#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/engine/projection.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

using bson::Document;

// Projects `doc` with `spec` (and `query` for the positional operator); returns canonical JSON.
std::string P(std::string_view spec, std::string_view doc, std::string_view query = "{}") {
  Document s = Document::from_json(spec);
  Document d = Document::from_json(doc);
  Matcher m = Matcher::compile(Document::from_json(query).view());
  return Projection::compile(s.view(), &m).apply(d.view()).to_json();
}

// Not support/json.h's J (a Document): P() answers JSON text, so the expected side is JSON
// text too, normalized by a round trip through a Document.
std::string J(std::string_view json) {
  return Document::from_json(json).to_json();
}

int code_of(std::string_view spec, std::string_view doc = "{}", std::string_view query = "{}") {
  try {
    P(spec, doc, query);
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

TEST(Projection, InclusionExclusionAndId) {
  EXPECT_EQ(P(R"({"a": 1})", R"({"_id": 1, "a": 2, "b": 3})"), J(R"({"_id": 1, "a": 2})"));
  EXPECT_EQ(P(R"({"a": 1, "_id": 0})", R"({"_id": 1, "a": 2, "b": 3})"), J(R"({"a": 2})"));
  EXPECT_EQ(P(R"({"a": 0})", R"({"_id": 1, "a": 2, "b": 3})"), J(R"({"_id": 1, "b": 3})"));
  EXPECT_EQ(P(R"({"_id": 0})", R"({"_id": 1, "a": 2})"), J(R"({"a": 2})"));
  EXPECT_EQ(P(R"({"b.c": 1})", R"({"_id": 1, "b": [{"c": 1, "d": 2}, 5, {"d": 3}]})"),
            J(R"({"_id": 1, "b": [{"c": 1}, {}]})"));
  EXPECT_EQ(code_of(R"({"a": 1, "b": 0})"), 31254);
  EXPECT_EQ(code_of(R"({"a": 1, "a.b": 1})"), 31250);
  // mongod bans $jsonSchema in an $elemMatch projection (QueryFeatureNotAllowed 224).
  EXPECT_EQ(code_of(R"({"a": {"$elemMatch": {"$jsonSchema": {}}}})"), 224);
  EXPECT_EQ(code_of(R"({"a": {"$elemMatch": {"$and": [{"$jsonSchema": {}}]}}})"), 224);
}

// An inclusion of top-level fields only (the shape the execution store's sweeps read) copies
// each included element whole, in document order, byte for byte, whatever its type; fields
// the document lacks are absent, and with more fields than the fast path takes the result
// is the same.
TEST(Projection, TopLevelInclusionCopiesElementsWholeInDocumentOrder) {
  const char* doc =
      R"({"_id": "x", "data": "{\"k\": 1}", "timers": {"a|b": 1.5, "c": {"$numberLong": "7"}},)"
      R"( "outbox": [{"seq": 1, "event": "e"}, 2], "version": {"$numberLong": "3"},)"
      R"( "n": null, "d": {"$date": "2020-01-01T00:00:00Z"}})";
  EXPECT_EQ(P(R"({"version": 1, "timers": 1, "missing": 1})", doc),
            J(R"({"_id": "x", "timers": {"a|b": 1.5, "c": {"$numberLong": "7"}},)"
              R"( "version": {"$numberLong": "3"}})"));
  EXPECT_EQ(P(R"({"outbox": 1, "_id": 0, "n": 1})", doc),
            J(R"({"outbox": [{"seq": 1, "event": "e"}, 2], "n": null})"));
  EXPECT_EQ(P(R"({"missing": 1, "_id": 0})", doc), J("{}"));
  EXPECT_EQ(P(R"({"n": true, "_id": 0, "_id": 1})", doc), J(R"({"_id": "x", "n": null})"));
  EXPECT_EQ(code_of(R"({"n": 1, "n": 1})"), 31250);
  EXPECT_EQ(code_of(R"({"n": 1, "d": false})"), 31254);
  EXPECT_EQ(P(R"({"a": 1, "b": 1, "c": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1, "d": 1,)"
              R"( "data": 1})",
              doc),
            J(R"({"_id": "x", "data": "{\"k\": 1}", "d": {"$date": "2020-01-01T00:00:00Z"}})"));
  // The bytes are the document's own: the projection of every field is the document.
  Document d = Document::from_json(doc);
  Document all = Projection::compile(
                     Document::from_json(
                         R"({"data": 1, "timers": 1, "outbox": 1, "version": 1, "n": 1, "d": 1})")
                         .view())
                     .apply(d.view());
  EXPECT_EQ(all, d);
}

// The top-level inclusion walks the document's bytes: it must step over a value of every BSON
// type to find the fields after it, with the result the general projection (more fields than
// the fast path takes) gives.
TEST(Projection, TopLevelInclusionStepsOverEveryType) {
  const char* doc =
      R"({"_id": 1, "dbl": 1.5, "str": "s", "doc": {"a": [1]}, "arr": [1, "x"],)"
      R"( "bin": {"$binary": {"base64": "AAEC", "subType": "04"}}, "undef": {"$undefined": true},)"
      R"( "oid": {"$oid": "0123456789abcdef01234567"}, "bool": true,)"
      R"( "date": {"$date": "2020-01-01T00:00:00Z"}, "null": null,)"
      R"( "re": {"$regularExpression": {"pattern": "a.b", "options": "i"}},)"
      R"( "ptr": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "0123456789abcdef01234567"}}},)"
      R"( "code": {"$code": "f"}, "sym": {"$symbol": "y"},)"
      R"( "cws": {"$code": "g", "$scope": {"v": 1}}, "i32": 7,)"
      R"( "ts": {"$timestamp": {"t": 1, "i": 2}}, "i64": {"$numberLong": "8"},)"
      R"( "dec": {"$numberDecimal": "1.25"}, "min": {"$minKey": 1}, "max": {"$maxKey": 1},)"
      R"( "last": "z"})";
  EXPECT_EQ(P(R"({"last": 1, "_id": 0})", doc), J(R"({"last": "z"})"));
  EXPECT_EQ(P(R"({"re": 1, "cws": 1, "dec": 1})", doc),
            J(R"({"_id": 1, "re": {"$regularExpression": {"pattern": "a.b", "options": "i"}},)"
              R"( "cws": {"$code": "g", "$scope": {"v": 1}}, "dec": {"$numberDecimal": "1.25"}})"));
  const char* fields[] = {"dbl",  "str",  "doc",  "arr", "bin", "undef", "oid",
                          "bool", "date", "null", "re",  "ptr", "code",  "sym",
                          "cws",  "i32",  "ts",   "i64", "dec", "min",   "max"};
  for (const char* field : fields) {
    // {field: 1, "last": 1}: the fast path; with nine more fields it is the general one.
    std::string fast = std::string(R"({")") + field + R"(": 1, "last": 1})";
    std::string general = std::string(R"({")") + field +
                          R"(": 1, "last": 1, "m1": 1, "m2": 1, "m3": 1, "m4": 1, "m5": 1,)"
                          R"( "m6": 1, "m7": 1, "m8": 1, "m9": 1})";
    EXPECT_EQ(P(fast, doc), P(general, doc)) << field;
  }
}

// The top-level inclusion notes up to 16 kept elements before copying them: a document with
// more (a repeated key) keeps every one, in document order, as before.
TEST(Projection, TopLevelInclusionKeepsManyRepeatedElements) {
  for (int repeats : {15, 16, 17, 40}) {
    bson::DocumentBuilder doc, expected;
    doc.append("_id", 1);
    for (int i = 0; i < repeats; ++i) {
      doc.append("a", i).append("b", std::string(i, 'x'));
      expected.append("a", i);
    }
    Document projected = Projection::compile(Document::from_json(R"({"a": 1, "_id": 0})").view())
                             .apply(doc.finish().view());
    EXPECT_EQ(projected, expected.finish()) << repeats;
  }
}

// An inclusion of `_id` alone is an inclusion (only `_id` comes back), as on mongod; `_id`
// with an exclusion of another field stays an exclusion.
TEST(Projection, IdAloneIsAnInclusion) {
  EXPECT_EQ(P(R"({"_id": 1})", R"({"_id": 1, "a": 2, "b": 3})"), J(R"({"_id": 1})"));
  EXPECT_EQ(P(R"({"_id": true})", R"({"_id": 1, "a": 2})"), J(R"({"_id": 1})"));
  EXPECT_EQ(P(R"({"_id": 1})", R"({"a": 2})"), J(R"({})"));
  EXPECT_EQ(P(R"({"_id": 1, "a": 0})", R"({"_id": 1, "a": 2, "b": 3})"),
            J(R"({"_id": 1, "b": 3})"));
  EXPECT_EQ(P(R"({"_id": 1, "a": {"$slice": 1}})", R"({"_id": 1, "a": [1, 2], "b": 3})"),
            J(R"({"_id": 1, "a": [1]})"));
}

TEST(ProjectionSlice, CountFromTheFrontOrTheBack) {
  const char* doc = R"({"_id": 1, "a": [1, 2, 3, 4, 5], "b": "x"})";
  EXPECT_EQ(P(R"({"a": {"$slice": 2}})", doc), J(R"({"_id": 1, "a": [1, 2], "b": "x"})"));
  EXPECT_EQ(P(R"({"a": {"$slice": -2}})", doc), J(R"({"_id": 1, "a": [4, 5], "b": "x"})"));
  EXPECT_EQ(P(R"({"a": {"$slice": 0}})", doc), J(R"({"_id": 1, "a": [], "b": "x"})"));
  EXPECT_EQ(P(R"({"a": {"$slice": 10}})", doc), J(doc));
  EXPECT_EQ(P(R"({"a": {"$slice": -10}})", doc), J(doc));
}

TEST(ProjectionSlice, SkipAndLimit) {
  const char* doc = R"({"_id": 1, "a": [1, 2, 3, 4, 5]})";
  EXPECT_EQ(P(R"({"a": {"$slice": [1, 2]}})", doc), J(R"({"_id": 1, "a": [2, 3]})"));
  EXPECT_EQ(P(R"({"a": {"$slice": [-2, 1]}})", doc), J(R"({"_id": 1, "a": [4]})"));
  EXPECT_EQ(P(R"({"a": {"$slice": [-9, 2]}})", doc), J(R"({"_id": 1, "a": [1, 2]})"));
  EXPECT_EQ(P(R"({"a": {"$slice": [7, 2]}})", doc), J(R"({"_id": 1, "a": []})"));
  EXPECT_EQ(code_of(R"({"a": {"$slice": [1, 0]}})"), static_cast<int>(ErrorCode::kBadValue));
  EXPECT_EQ(code_of(R"({"a": {"$slice": [1]}})"), static_cast<int>(ErrorCode::kBadValue));
  EXPECT_EQ(code_of(R"({"a": {"$slice": "x"}})"), static_cast<int>(ErrorCode::kBadValue));
}

TEST(ProjectionSlice, WithInclusionNestedAndNonArrays) {
  EXPECT_EQ(P(R"({"b": 1, "a": {"$slice": 1}})", R"({"_id": 1, "a": [1, 2], "b": 2, "c": 3})"),
            J(R"({"_id": 1, "a": [1], "b": 2})"));
  EXPECT_EQ(P(R"({"c": 0, "a": {"$slice": 1}})", R"({"_id": 1, "a": [1, 2], "b": 2, "c": 3})"),
            J(R"({"_id": 1, "a": [1], "b": 2})"));
  // A non-array is returned as it is.
  EXPECT_EQ(P(R"({"a": {"$slice": 1}})", R"({"_id": 1, "a": 7})"), J(R"({"_id": 1, "a": 7})"));
  // A dotted path slices inside each sub-document, through arrays of them.
  EXPECT_EQ(P(R"({"x.a": {"$slice": -1}})", R"({"_id": 1, "x": [{"a": [1, 2]}, {"a": [3, 4]}]})"),
            J(R"({"_id": 1, "x": [{"a": [2]}, {"a": [4]}]})"));
}

TEST(ProjectionElemMatch, FirstMatchingElementOnly) {
  const char* doc =
      R"({"_id": 1, "zip": 1, "students": [{"n": "a", "s": 1}, {"n": "b", "s": 2}, {"n": "c", "s": 2}]})";
  EXPECT_EQ(P(R"({"students": {"$elemMatch": {"s": 2}}})", doc),
            J(R"({"_id": 1, "students": [{"n": "b", "s": 2}]})"));
  // No matching element: the field is left out.
  EXPECT_EQ(P(R"({"students": {"$elemMatch": {"s": 9}}})", doc), J(R"({"_id": 1})"));
  // Operators on scalar elements.
  EXPECT_EQ(P(R"({"a": {"$elemMatch": {"$gt": 2}}})", R"({"_id": 1, "a": [1, 3, 5]})"),
            J(R"({"_id": 1, "a": [3]})"));
  // With other inclusions.
  EXPECT_EQ(P(R"({"zip": 1, "students": {"$elemMatch": {"n": "c"}}})", doc),
            J(R"({"_id": 1, "zip": 1, "students": [{"n": "c", "s": 2}]})"));
  // Not an array: left out.
  EXPECT_EQ(P(R"({"a": {"$elemMatch": {"$gt": 2}}})", R"({"_id": 1, "a": 5})"), J(R"({"_id": 1})"));
  EXPECT_EQ(code_of(R"({"a.b": {"$elemMatch": {"x": 1}}})"), 31275);
  EXPECT_EQ(code_of(R"({"a": {"$elemMatch": {"x": 1}}, "b": 0})"), 31254);
  EXPECT_EQ(code_of(R"({"a": {"$elemMatch": 1}})"), static_cast<int>(ErrorCode::kBadValue));
}

TEST(ProjectionPositional, TheElementTheQueryMatched) {
  const char* doc = R"({"_id": 1, "grades": [80, 95, 97], "name": "x"})";
  EXPECT_EQ(P(R"({"grades.$": 1})", doc, R"({"grades": {"$gte": 90}})"),
            J(R"({"_id": 1, "grades": [95]})"));
  EXPECT_EQ(P(R"({"name": 1, "grades.$": 1})", doc, R"({"grades": 97})"),
            J(R"({"_id": 1, "grades": [97], "name": "x"})"));
  const char* docs = R"({"_id": 1, "g": [{"v": 1, "m": 5}, {"v": 2, "m": 6}]})";
  EXPECT_EQ(P(R"({"g.$": 1})", docs, R"({"g.v": 2})"), J(R"({"_id": 1, "g": [{"v": 2, "m": 6}]})"));
  // The query did not match inside the array.
  EXPECT_EQ(code_of(R"({"grades.$": 1})", doc, R"({"name": "x"})"), 51246);
  EXPECT_EQ(code_of(R"({"a.$": 1, "b.$": 1})"), 31276);
  EXPECT_EQ(code_of(R"({"a.$": 0})"), 31395);
  EXPECT_EQ(code_of(R"({"a.$.b": 1})"), static_cast<int>(ErrorCode::kBadValue));
}

TEST(Projection, UnsupportedFeaturesFailLoudly) {
  EXPECT_EQ(code_of(R"({"s": {"$meta": "textScore"}})"),
            static_cast<int>(ErrorCode::kNotImplemented));
  EXPECT_EQ(code_of(R"({"x": "$a"})"), static_cast<int>(ErrorCode::kNotImplemented));
}

}  // namespace
}  // namespace mongostore::engine
