// Exact index bounds (IndexPlan::exact): a find with one numeric condition on a top-level
// field, read through a non-multikey index on it, returns the documents in the bounds without
// re-checking them, as mongod does. The planner marks only those plans exact; the bounds of a
// numeric range leave NaN out (mongod's [-inf, 5) for {$lt: 5}), since no comparison with a
// number matches NaN; and on random documents of every type (numbers of the four types with
// NaN, infinities, signed zeros and decimals that no double equals, strings, null, missing,
// objects, arrays) every numeric condition returns what the collection scan returns, under
// the simple and a case-insensitive collation, through ascending, descending and `_id` bounds.
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

namespace mongostore::engine {
namespace {

using bson::Decimal128;
using bson::Document;
using bson::make_array;
using bson::make_document;

Document J(std::string_view json) {
  return Document::from_json(json);
}

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
  EXPECT_FALSE(exact(R"({"f": {"$lte": 5}})", R"({"f": 1})", /*multikey=*/true));
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
  EXPECT_FALSE(exact(R"({"f.g": {"$lte": 5}})", R"({"f.g": 1})"));
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

std::vector<std::string> sorted(const std::vector<Document>& docs) {
  std::vector<std::string> out;
  for (const Document& d : docs) out.push_back(d.to_json());
  std::sort(out.begin(), out.end());
  return out;
}

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
    EXPECT_EQ(sorted(coll.find(filter.view())->to_vector()),
              sorted(coll.find(filter.view(), scan)->to_vector()));
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

}  // namespace
}  // namespace mongostore::engine
