// Index bounds for $type: the planner reads a $type on an indexed field as the type's bracket
// in index order, as mongod does ({$type: "string"} scans ["", {}], every numeric type and
// "number" scan [nan.0, inf.0]), several types as several brackets, on non-multikey and
// multikey indexes; explain spells the bounds as mongod's does. Types without a clean bracket
// ("array", "null", "undefined", ...) keep the collection scan. The bounds are never exact:
// on random documents of every BSON type, arrays and missing fields, every $type query returns
// what the collection scan returns, with sorts, limits and collations.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_document;
using mongostore::testing::as_json;
using mongostore::testing::J;

// The explain of `filter`'s find: the stage and, for an index scan, the bounds of `field`.
struct Explained {
  std::string stage;
  std::vector<std::string> bounds;
  bool multikey = false;
};

// {path: {$type: operand}} (libbson's extended JSON reads a "$type" key as legacy binary).
Document type_filter(const std::string& path, const std::string& operand) {
  Document holder = J(R"({"v": )" + operand + "}");
  return make_document(path, make_document("$type", holder.get("v")));
}

Explained explain(client::Collection& coll, const Document& filter, const char* field) {
  Document ex = coll.explain(filter.view(), client::FindOptions{});
  Explained out;
  bson::Value input = ex.get_path("queryPlanner.winningPlan.inputStage");
  bson::Value plan = input.is_missing() ? ex.get_path("queryPlanner.winningPlan") : input;
  out.stage = std::string(plan.as_document().get("stage").as_string());
  if (out.stage != "IXSCAN") return out;
  out.multikey = plan.as_document().get("isMultiKey").as_bool();
  bson::Value f = plan.as_document().get("indexBounds").as_document().get(field);
  for (const bson::Element& e : f.as_array()) out.bounds.emplace_back(e.value.as_string());
  return out;
}

const char* const kNumber = "[nan.0, inf.0]";
const char* const kString = R"(["", {}])";

TEST(TypeBounds, ExplainShowsEachTypesBracket) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  coll.create_index(J(R"({"f": 1})"));
  coll.create_index(J(R"({"g": -1})"));
  coll.insert_one(J(R"({"_id": 1, "f": 1, "g": "a"})"));
  const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
      {R"("number")", {kNumber}},
      {R"("double")", {kNumber}},
      {R"("int")", {kNumber}},
      {R"("long")", {kNumber}},
      {R"("decimal")", {kNumber}},
      {"16", {kNumber}},
      {R"("string")", {kString}},
      {"2", {kString}},
      {R"("symbol")", {kString}},
      {R"("object")", {"[{}, []]"}},
      {R"("objectId")",
       {"[ObjectId('000000000000000000000000'), ObjectId('ffffffffffffffffffffffff')]"}},
      {R"("bool")", {"[false, true]"}},
      {R"("date")", {"[new Date(-9223372036854775808), new Date(9223372036854775807)]"}},
      {R"("timestamp")", {"[Timestamp(0, 0), Timestamp(4294967295, 4294967295)]"}},
      {R"("minKey")", {"[MinKey, MinKey]"}},
      {R"("maxKey")", {"[MaxKey, MaxKey]"}},
      {R"(["string", "number"])", {kNumber, kString}},
      {R"(["int", "double", "number"])", {kNumber}},
      {R"([8, "string", "maxKey"])", {kString, "[false, true]", "[MaxKey, MaxKey]"}},
  };
  for (const auto& [type, bounds] : table) {
    SCOPED_TRACE(type);
    Explained e = explain(coll, type_filter("f", type), "f");
    EXPECT_EQ(e.stage, "IXSCAN");
    EXPECT_EQ(e.bounds, bounds);
    EXPECT_FALSE(e.multikey);
  }
  // A descending index reads the bracket backwards.
  EXPECT_EQ(explain(coll, type_filter("g", R"("string")"), "g").bounds,
            std::vector<std::string>{R"([{}, ""])"});
  // No clean bracket: today's plan (a collection scan), also when one listed type has none.
  for (const char* type : {R"("array")", R"("null")", R"("undefined")", R"("binData")",
                           R"("regex")", R"("javascript")", "10", R"(["string", "array"])"}) {
    SCOPED_TRACE(type);
    EXPECT_EQ(explain(coll, type_filter("f", type), "f").stage, "COLLSCAN");
  }
  // A range on the field keeps its narrower bounds.
  EXPECT_EQ(
      explain(coll, make_document("f", make_document("$type", "number", "$gt", 5)), "f").bounds,
      std::vector<std::string>{"(5, inf.0]"});
  // A multikey index is bounded the same way (an element of the type has a key in it).
  coll.insert_one(J(R"({"_id": 2, "f": [1, "x"]})"));
  Explained e = explain(coll, type_filter("f", R"(["string", "number"])"), "f");
  EXPECT_EQ(e.stage, "IXSCAN");
  EXPECT_TRUE(e.multikey);
  EXPECT_EQ(e.bounds, (std::vector<std::string>{kNumber, kString}));
}

TEST(TypeBounds, ABracketReadsOnlyItsTypesKeys) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  coll.create_index(J(R"({"f": 1})"));
  coll.insert_one(J(R"({"_id": 1, "f": 1})"));
  coll.insert_one(J(R"({"_id": 2, "f": "a"})"));
  coll.insert_one(J(R"({"_id": 3, "f": {"$numberDecimal": "2.5"}})"));
  coll.insert_one(J(R"({"_id": 4, "f": true})"));
  coll.insert_one(J(R"({"_id": 5})"));
  Document ex = coll.explain(type_filter("f", R"("number")").view(), client::FindOptions{});
  EXPECT_EQ(ex.get_path("executionStats.totalKeysExamined").as_int64(), 2);
  EXPECT_EQ(ex.get_path("executionStats.nReturned").as_int64(), 2);
  // The bracket of "int" holds the decimal too: the fetch re-checks and drops it.
  ex = coll.explain(type_filter("f", R"("int")").view(), client::FindOptions{});
  EXPECT_EQ(ex.get_path("executionStats.totalKeysExamined").as_int64(), 2);
  EXPECT_EQ(ex.get_path("executionStats.nReturned").as_int64(), 1);
}

TEST(TypeBounds, TheIndexOrderGivesTheSortOfABoundedType) {
  // The records expert's first keyset page: {f.energy: {$type: "double"}} sorted by the
  // page index {f.energy: 1, _id: 1} reads the bracket in order, with no blocking sort.
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  coll.create_index(J(R"({"e": 1, "_id": 1})"));
  coll.insert_one(J(R"({"_id": 1, "e": 2.5})"));
  coll.insert_one(J(R"({"_id": 2, "e": "x"})"));
  coll.insert_one(J(R"({"_id": 3, "e": -1.5})"));
  coll.insert_one(J(R"({"_id": 4, "e": {"$numberInt": "1"}})"));
  // Missing and null energies first in the index: a whole-index read for the sort meets them.
  for (int i = 10; i < 30; ++i) coll.insert_one(make_document("_id", i, "e", bson::Null{}));
  client::FindOptions options;
  options.sort = J(R"({"e": 1, "_id": 1})");
  options.limit = 2;
  Document filter = type_filter("e", R"("double")");
  Document ex = coll.explain(filter.view(), options);
  EXPECT_EQ(ex.to_json().find("\"SORT\""), std::string::npos) << ex.to_json();
  EXPECT_NE(ex.to_json().find("IXSCAN"), std::string::npos) << ex.to_json();
  // The keys of -1.5, 1 (an int, dropped by the fetch's re-check) and 2.5, no null.
  EXPECT_EQ(ex.get_path("executionStats.totalKeysExamined").as_int64(), 3);
  std::vector<Document> got = coll.find(filter.view(), options)->to_vector();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].get("_id").number_as_double(), 3);
  EXPECT_EQ(got[1].get("_id").number_as_double(), 1);
}

// Values of every BSON type (extended JSON), arrays among them when `arrays`.
const std::vector<std::string> kScalars = {
    "1.5",
    R"({"$numberInt": "3"})",
    R"({"$numberLong": "-7"})",
    R"({"$numberDecimal": "NaN"})",
    R"({"$numberDecimal": "1E+400"})",
    R"({"$numberDouble": "NaN"})",
    R"({"$numberDouble": "-Infinity"})",
    R"({"$numberDouble": "Infinity"})",
    R"("a")",
    R"("")",
    R"("B")",
    R"("b")",
    R"({"$symbol": "s"})",
    "{}",
    R"({"x": 1})",
    R"({"$binary": {"base64": "AA==", "subType": "00"}})",
    R"({"$undefined": true})",
    R"({"$oid": "000000000000000000000000"})",
    R"({"$oid": "ffffffffffffffffffffffff"})",
    R"({"$oid": "5f0000000000000000000001"})",
    "true",
    "false",
    R"({"$date": {"$numberLong": "-9223372036854775808"}})",
    R"({"$date": {"$numberLong": "9223372036854775807"}})",
    R"({"$date": {"$numberLong": "5"}})",
    "null",
    R"({"$regularExpression": {"pattern": "a", "options": ""}})",
    R"({"$code": "f"})",
    R"({"$timestamp": {"t": 0, "i": 0}})",
    R"({"$timestamp": {"t": 4294967295, "i": 4294967295}})",
    R"({"$timestamp": {"t": 1, "i": 2}})",
    R"({"$minKey": 1})",
    R"({"$maxKey": 1})",
};
const std::vector<std::string> kArrays = {
    "[]",
    R"([1, "a"])",
    "[[1]]",
    R"([{"x": 1}, true])",
    R"([null, {"$minKey": 1}])",
    R"([{"$date": {"$numberLong": "1"}}, {"$oid": "5f0000000000000000000001"}])",
};

// The $type operands the queries draw from: bracketed ones and ones left to the scan.
const std::vector<std::string> kTypes = {
    R"("number")",
    R"("double")",
    R"("int")",
    R"("long")",
    R"("decimal")",
    R"("string")",
    R"("symbol")",
    R"("object")",
    R"("objectId")",
    R"("bool")",
    R"("date")",
    R"("timestamp")",
    R"("minKey")",
    R"("maxKey")",
    "1",
    "2",
    "3",
    "8",
    "-1",
    "127",
    R"("array")",
    R"("null")",
    R"("undefined")",
    R"("binData")",
    R"("regex")",
    R"(["string", "number"])",
    R"(["bool", "date", "minKey"])",
    R"(["object", "timestamp", "maxKey"])",
    R"(["string", "array"])",
};

TEST(TypeBounds, TypeQueriesAgreeWithTheCollectionScan) {
  for (const char* collation : {"", R"({"locale": "en", "strength": 2})"}) {
    SCOPED_TRACE(collation);
    std::shared_ptr<client::Client> c = client::connect("embedded:memory");
    client::CollectionOptions options;
    if (*collation != '\0') options.collation = J(collation);
    c->database("db").create_collection("c", options);
    client::Collection coll = c->database("db").collection("c");
    coll.create_index(J(R"({"f": 1})"));
    coll.create_index(J(R"({"g": -1, "k": 1})"));
    coll.create_index(J(R"({"o.s": 1})"));
    std::mt19937 rng(*collation == '\0' ? 11 : 12);
    int id = 0;
    auto value = [&](bson::DocumentBuilder& b, const char* key, bool arrays) {
      const size_t n = kScalars.size() + (arrays ? kArrays.size() : 0) + 1;
      const size_t pick = rng() % n;
      if (pick == n - 1) return;  // missing
      const std::string& json =
          pick < kScalars.size() ? kScalars[pick] : kArrays[pick - kScalars.size()];
      Document holder = J(R"({"v": )" + json + "}");
      b.append(key, holder.get("v"));
    };
    auto insert = [&](bool arrays) {
      bson::DocumentBuilder b;
      b.append("_id", id++);
      value(b, "f", arrays);
      value(b, "g", false);
      value(b, "k", false);
      if (rng() % 2) {
        bson::DocumentBuilder o;
        value(o, "s", arrays);
        b.append("o", o.finish());
      } else if (arrays) {
        bson::DocumentBuilder o;
        value(o, "s", true);
        b.append("o", bson::make_array(o.finish(), make_document("s", "a")));
      }
      coll.insert_one(b.finish());
    };
    auto agree = [&](int queries) {
      client::FindOptions scan;
      scan.hint.keys = J(R"({"$natural": 1})");
      int bounded = 0;
      for (int q = 0; q < queries; ++q) {
        const char* path = std::vector<const char*>{"f", "g", "o.s"}[rng() % 3];
        Document filter = type_filter(path, kTypes[rng() % kTypes.size()]);
        if (rng() % 5 == 0) {  // an $or of two $type conditions: an OR of index scans
          Document other = type_filter(rng() % 2 ? "g" : "o.s", kTypes[rng() % kTypes.size()]);
          filter = make_document("$or", bson::make_array(filter, other));
        }
        client::FindOptions options;
        const uint32_t shape = rng() % 4;
        if (shape == 1) options.sort = make_document(path, 1, "_id", 1);
        if (shape == 2) options.sort = make_document(path, -1, "_id", -1);
        if (shape == 3) options.sort = make_document(path, 1);
        if ((shape == 1 || shape == 2) && rng() % 2)
          options.limit = 1 + static_cast<int64_t>(rng() % 5);
        if (rng() % 3 == 0) options.collation = J(R"({"locale": "fr", "strength": 1})");
        client::FindOptions reference = options;
        reference.hint = scan.hint;
        SCOPED_TRACE(filter.to_json() + " sort " + options.sort.to_json() + " limit " +
                     std::to_string(options.limit) + " " + options.collation.to_json());
        Document ex = coll.explain(filter.view(), options);
        const bool unsorted = options.sort.view().begin() == options.sort.view().end();
        if (unsorted && ex.to_json().find("IXSCAN") != std::string::npos) ++bounded;
        std::vector<std::string> got = as_json(coll.find(filter.view(), options)->to_vector());
        std::vector<std::string> want = as_json(coll.find(filter.view(), reference)->to_vector());
        if (shape == 0 || shape == 3) {  // no order to compare (or ties in it)
          std::sort(got.begin(), got.end());
          std::sort(want.begin(), want.end());
        }
        EXPECT_EQ(got, want);
      }
      EXPECT_GT(bounded, queries / 8);  // $type bounds were read (not a sort's whole index)
    };
    for (int i = 0; i < 250; ++i) insert(false);
    agree(250);
    // Arrays make f and o.s multikey: bounded the same, still the scan's answer.
    for (int i = 0; i < 100; ++i) insert(true);
    agree(250);
  }
}

}  // namespace
}  // namespace mongostore::engine
