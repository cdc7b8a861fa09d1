// Exact index bounds (IndexPlan::exact): a find with one numeric condition on a top-level
// field, read through a non-multikey index on it, returns the documents in the bounds without
// re-checking them, as mongod does. The planner marks only those plans exact; the bounds of a
// numeric range leave NaN out (mongod's [-inf, 5) for {$lt: 5}), since no comparison with a
// number matches NaN; and on random documents of every type (numbers of the four types with
// NaN, infinities, signed zeros and decimals that no double equals, strings, null, missing,
// objects, arrays) every numeric condition returns what the collection scan returns, under
// the simple and a case-insensitive collation, through ascending, descending and `_id` bounds.
// One condition is exact on a multikey index and on a dotted path too (an element in the
// bounds satisfies it); two conditions on a multikey index are not: on random documents with
// arrays, arrays of subdocuments and nested arrays, both agree with the collection scan, and
// an update's positional `$` still finds the element the condition matched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/index_descriptor.h"
#include "engine/query_planner.h"
#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using bson::Decimal128;
using bson::Document;
using bson::make_array;
using bson::make_document;

using mongostore::testing::J;
using mongostore::testing::sorted_json;

bool exact(std::string_view filter, std::string_view pattern = R"({"f": 1})",
           bool multikey = false) {
  IndexDescriptor index = IndexDescriptor::parse(J(pattern).view(), J("{}").view());
  std::vector<IndexCandidate> candidates{IndexCandidate{&index, multikey}};
  std::optional<IndexPlan> plan = plan_query(J(filter).view(), J("{}").view(), candidates);
  return plan && plan->exact;
}

TEST(ExactBounds, OnlyOneNumericConditionOnANonMultikeyIndexIsExact) {
  EXPECT_TRUE(exact(R"({"f": {"$lte": 5}})"));
  EXPECT_TRUE(exact(R"({"f": {"$gt": -2.5}})"));
  EXPECT_TRUE(exact(R"({"f": {"$eq": 5}})"));
  EXPECT_TRUE(exact(R"({"f": 5})"));
  EXPECT_TRUE(exact(R"({"f": {"$lt": {"$numberDouble": "Infinity"}}})"));
  EXPECT_TRUE(exact(R"({"f": {"$lte": 5}})", R"({"f": -1})"));
  EXPECT_TRUE(exact(R"({"f": {"$lte": 5}})", R"({"f": 1, "g": 1})"));
  EXPECT_FALSE(exact(R"({"f": {"$lte": 5}})", R"({"g": 1, "f": 1})"));
  EXPECT_FALSE(exact(R"({"f": {"$lte": {"$numberDouble": "NaN"}}})"));
  EXPECT_FALSE(exact(R"({"f": {"$lte": "s"}})"));
  EXPECT_FALSE(exact(R"({"f": "s"})"));
  EXPECT_FALSE(exact(R"({"f": null})"));
  EXPECT_FALSE(exact(R"({"f": {"$gte": 1, "$lte": 5}})"));
  EXPECT_FALSE(exact(R"({"f": {"$in": [1, 2]}})"));
  EXPECT_FALSE(exact(R"({"f": {"$ne": 5}})"));
  EXPECT_FALSE(exact(R"({"f": {"$lte": 5}, "g": 1})"));
  EXPECT_FALSE(exact(R"({"f": {"$lte": 5}, "$comment": "x"})"));
  EXPECT_FALSE(exact(R"({"$and": [{"f": {"$lte": 5}}]})"));
}

TEST(ExactBounds, OneNumericConditionIsExactOnAMultikeyIndexAndADottedPath) {
  const bool multikey = true;
  EXPECT_TRUE(exact(R"({"f": {"$lte": 5}})", R"({"f": 1})", multikey));
  EXPECT_TRUE(exact(R"({"f": {"$gt": 5}})", R"({"f": -1})", multikey));
  EXPECT_TRUE(exact(R"({"f": 5})", R"({"f": 1})", multikey));
  EXPECT_TRUE(
      exact(R"({"f.g": {"$gte": {"$numberDouble": "-Infinity"}}})", R"({"f.g": 1})", multikey));
  EXPECT_TRUE(exact(R"({"f.g": {"$lte": 5}})", R"({"f.g": 1})"));
  // Two conditions: an array matches them through two elements, its keys need not be in both.
  EXPECT_FALSE(exact(R"({"f": {"$gt": 1, "$lt": 5}})", R"({"f": 1})", multikey));
  EXPECT_FALSE(exact(R"({"f.g": {"$gte": 1, "$lte": 5}})", R"({"f.g": 1})", multikey));
  EXPECT_FALSE(exact(R"({"f": {"$lte": 5}, "g": 1})", R"({"f": 1, "g": 1})", multikey));
  // A positional part: not planned on the index at all.
  EXPECT_FALSE(exact(R"({"f.0.g": {"$lte": 5}})", R"({"f.0.g": 1})", multikey));
  EXPECT_FALSE(exact(R"({"f.g": "s"})", R"({"f.g": 1})", multikey));
}

TEST(ExactBounds, APositionalUpdateThroughAnExactMultikeyPlanFindsItsElement) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  coll.create_index(J(R"({"o.s": 1})"));
  coll.insert_one(J(R"({"_id": 1, "o": [{"s": 0}, {"s": 5}, {"s": 9}]})"));
  Document ex = coll.explain(J(R"({"o.s": {"$gte": 5}})").view(), client::FindOptions{});
  ASSERT_TRUE(ex.get_path("queryPlanner.winningPlan.inputStage.isMultiKey").as_bool());
  coll.update_one(J(R"({"o.s": {"$gte": 5}})").view(), J(R"({"$set": {"o.$.t": 1}})").view());
  coll.find_one_and_update(J(R"({"o.s": {"$gt": 6}})").view(),
                           J(R"({"$set": {"o.$.u": 1}})").view());
  EXPECT_EQ(coll.find_one(J("{}").view())->to_json(),
            J(R"({"_id": 1, "o": [{"s": 0}, {"s": 5, "t": 1}, {"s": 9, "u": 1}]})").to_json());
  client::FindOptions positional;
  positional.projection = J(R"({"o.$": 1})");
  std::vector<Document> got =
      coll.find(J(R"({"o.s": {"$lt": 3}})").view(), positional)->to_vector();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].to_json(), J(R"({"_id": 1, "o": [{"s": 0}]})").to_json());
}

TEST(ExactBounds, ANumericRangeLeavesNaNOutOfItsBounds) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  coll.create_index(J(R"({"f": 1})"));
  coll.insert_one(make_document("_id", 1, "f", std::nan("")));
  coll.insert_one(make_document("_id", 2, "f", 1));
  auto bounds = [&](std::string_view filter) {
    Document ex = coll.explain(J(filter).view(), client::FindOptions{});
    bson::DocumentView f =
        ex.get_path("queryPlanner.winningPlan.inputStage.indexBounds.f").as_array();
    EXPECT_EQ(f.count(), 1u);
    return std::string(f.get("0").as_string());
  };
  EXPECT_EQ(bounds(R"({"f": {"$lt": 5}})"), "[-inf.0, 5)");
  EXPECT_EQ(bounds(R"({"f": {"$gte": 5}})"), "[5, inf.0]");
  EXPECT_EQ(bounds(R"({"f": {"$lte": {"$numberDouble": "NaN"}}})"), "[nan.0, nan.0]");
  auto ids = [&](std::string_view filter) {
    std::vector<int64_t> out;
    for (const Document& d : coll.find(J(filter).view())->to_vector()) {
      out.push_back(static_cast<int64_t>(d.get("_id").number_as_double()));
    }
    return out;
  };
  EXPECT_EQ(ids(R"({"f": {"$lt": 5}})"), std::vector<int64_t>{2});
  EXPECT_EQ(ids(R"({"f": {"$lte": {"$numberDouble": "NaN"}}})"), std::vector<int64_t>{1});
  EXPECT_EQ(ids(R"({"f": {"$gte": {"$numberDouble": "NaN"}}})"), std::vector<int64_t>{1});
  EXPECT_TRUE(ids(R"({"f": {"$lt": {"$numberDouble": "NaN"}}})").empty());
  // Between the old bounds [NaN, 5] and NaN itself: examined no more.
  Document ex = coll.explain(J(R"({"f": {"$lt": 5}})").view(), client::FindOptions{});
  EXPECT_EQ(ex.get_path("executionStats.totalKeysExamined").as_int64(), 1);
}

// A value of any type for field f; numbers most often, of every kind.
class Values {
 public:
  explicit Values(uint32_t seed) : rng_(seed) {}
  void append_number(bson::DocumentBuilder& b, std::string_view key) {
    static const std::vector<std::string> decimals = {
        "0.1",   "-0.1",     "1E+400",    "-1E+400",
        "2.5",   "NaN",      "-0",        "9007199254740993",
        "3.00",  "Infinity", "-Infinity", "0.30000000000000004",
        "1E-400"};
    static const std::vector<double> doubles = {0.1,
                                                -0.1,
                                                2.5,
                                                3.0,
                                                -0.0,
                                                0.0,
                                                9007199254740992.0,
                                                0.30000000000000004,
                                                1e300,
                                                std::numeric_limits<double>::infinity(),
                                                -std::numeric_limits<double>::infinity(),
                                                std::nan(""),
                                                std::numeric_limits<double>::denorm_min()};
    switch (rng_() % 4) {
      case 0:
        b.append(key, static_cast<int32_t>(rng_() % 9) - 4);
        break;
      case 1:
        b.append(key,
                 rng_() % 2 ? int64_t{9007199254740993} : static_cast<int64_t>(rng_() % 9) - 4);
        break;
      case 2:
        b.append(key, doubles[rng_() % doubles.size()]);
        break;
      default:
        b.append(key, Decimal128::from_string(decimals[rng_() % decimals.size()]));
    }
  }
  void append_any(bson::DocumentBuilder& b, std::string_view key, bool arrays) {
    switch (rng_() % (arrays ? 9 : 8)) {
      case 0:
        b.append(key, std::string(1, static_cast<char>('a' + rng_() % 3)));
        break;
      case 1:
        b.append(key, bson::Null{});
        break;
      case 2:
        return;  // missing
      case 3:
        b.append(key, make_document("x", 1));
        break;
      case 4:
        b.append(key, rng_() % 2 == 0);
        break;
      case 8:
        b.append(key, make_array(static_cast<int32_t>(rng_() % 9) - 4, 10));
        break;
      default:
        append_number(b, key);
    }
  }
  uint32_t next() { return rng_(); }

 private:
  std::mt19937 rng_;
};

void agree_with_the_scan(client::Collection& coll, Values& values, const std::string& field,
                         int queries) {
  const std::vector<const char*> ops = {"", "$eq", "$gt", "$gte", "$lt", "$lte"};
  client::FindOptions scan;
  scan.hint.keys = J(R"({"$natural": 1})");
  for (int q = 0; q < queries; ++q) {
    const char* op = ops[values.next() % ops.size()];
    bson::DocumentBuilder operand;
    values.append_number(operand, "v");
    Document v = operand.finish();
    Document filter = *op == '\0' ? make_document(field, v.get("v"))
                                  : make_document(field, make_document(op, v.get("v")));
    SCOPED_TRACE(filter.to_json());
    EXPECT_EQ(sorted_json(coll.find(filter.view())->to_vector()),
              sorted_json(coll.find(filter.view(), scan)->to_vector()));
  }
}

TEST(ExactBounds, NumericConditionsAgreeWithTheCollectionScan) {
  for (const char* collation : {"", R"({"locale": "en", "strength": 2})"}) {
    SCOPED_TRACE(collation);
    std::shared_ptr<client::Client> c = client::connect("embedded:memory");
    client::CollectionOptions options;
    if (*collation != '\0') options.collation = J(collation);
    c->database("db").create_collection("c", options);
    client::Collection coll = c->database("db").collection("c");
    coll.create_index(J(R"({"f": 1})"));
    coll.create_index(J(R"({"g": -1})"));
    Values values(*collation == '\0' ? 1 : 2);
    int id = 0;
    auto insert = [&](bool arrays) {
      bson::DocumentBuilder b;
      b.append("_id", id++);
      values.append_any(b, "f", arrays);
      values.append_any(b, "g", false);
      coll.insert_one(b.finish());
    };
    for (int i = 0; i < 300; ++i) insert(false);
    // Numeric `_id`s of every type: the `_id` index's bounds.
    for (int i = 0; i < 60; ++i) {
      bson::DocumentBuilder b;
      values.append_number(b, "_id");
      b.append("f", 0);
      try {
        coll.insert_one(b.finish());
      } catch (const Error&) {
        // a duplicate `_id` (equal numbers of two types): skipped
      }
    }
    Document ex = coll.explain(J(R"({"f": {"$lt": 2}})").view(), client::FindOptions{});
    ASSERT_EQ(ex.get_path("queryPlanner.winningPlan.inputStage.stage").as_string(), "IXSCAN");
    agree_with_the_scan(coll, values, "f", 300);
    agree_with_the_scan(coll, values, "g", 300);
    agree_with_the_scan(coll, values, "_id", 300);
    // Arrays turn f's index multikey: no longer exact, still the same results.
    for (int i = 0; i < 100; ++i) insert(true);
    agree_with_the_scan(coll, values, "f", 300);
  }
}

// A value for a multikey path: a number, an array of numbers and other values, an array of
// subdocuments {s: ...}, nested arrays, or anything else.
void append_array_value(Values& values, bson::DocumentBuilder& b, std::string_view key,
                        int depth = 0) {
  const uint32_t kind = values.next() % (depth == 0 ? 7 : 4);
  if (kind < 2 || depth > 1) {
    values.append_any(b, key, /*arrays=*/false);
    return;
  }
  if (kind == 2) {  // a subdocument {s: ...}
    bson::DocumentBuilder sub;
    append_array_value(values, sub, "s", depth + 1);
    b.append(key, sub.finish());
    return;
  }
  // An array of 0-3 values of any kind, arrays and subdocuments included.
  bson::DocumentBuilder arr;
  const uint32_t n = values.next() % 4;
  for (uint32_t i = 0; i < n; ++i) {
    append_array_value(values, arr, std::to_string(i), depth + 1);
  }
  Document elements = arr.finish();
  b.append_array(key, elements.view());
}

TEST(ExactBounds, ConditionsOnMultikeyIndexesAgreeWithTheCollectionScan) {
  std::shared_ptr<client::Client> c = client::connect("embedded:memory");
  client::Collection coll = c->database("db").collection("c");
  coll.create_index(J(R"({"f": 1})"));
  coll.create_index(J(R"({"o.s": -1})"));
  Values values(3);
  for (int id = 0; id < 400; ++id) {
    bson::DocumentBuilder b;
    b.append("_id", id);
    append_array_value(values, b, "f");
    append_array_value(values, b, "o");
    coll.insert_one(b.finish());
  }
  for (const char* path : {"f", "o.s"}) {
    Document ex =
        coll.explain(make_document(path, make_document("$lt", 2)).view(), client::FindOptions{});
    ASSERT_TRUE(ex.get_path("queryPlanner.winningPlan.inputStage.isMultiKey").as_bool()) << path;
  }
  agree_with_the_scan(coll, values, "f", 300);
  agree_with_the_scan(coll, values, "o.s", 300);
  // Two conditions on one multikey field: re-checked, so still the scan's answer.
  client::FindOptions scan;
  scan.hint.keys = J(R"({"$natural": 1})");
  const std::vector<std::pair<const char*, const char*>> pairs = {
      {"$gt", "$lt"}, {"$gte", "$lte"}, {"$gt", "$lte"}, {"$gte", "$lt"}};
  for (int q = 0; q < 200; ++q) {
    const auto& [low, high] = pairs[values.next() % pairs.size()];
    const int32_t lo = static_cast<int32_t>(values.next() % 9) - 4;
    const int32_t hi = lo + static_cast<int32_t>(values.next() % 4);
    for (const char* path : {"f", "o.s"}) {
      Document filter = make_document(path, make_document(low, lo, high, hi));
      SCOPED_TRACE(filter.to_json());
      EXPECT_EQ(sorted_json(coll.find(filter.view())->to_vector()),
                sorted_json(coll.find(filter.view(), scan)->to_vector()));
    }
  }
}

}  // namespace
}  // namespace mongostore::engine
