// $expr equalities use indexes: {$expr: {$eq: ["$path", constant]}} (the constant a literal,
// a bound $let variable or a command's `let` variable) is an index point, and on `_id` a
// point read, as MongoDB's planner does for $expr $eq. Results always equal a collection
// scan's, whatever the stored values (arrays, null, missing, other numeric types).
#include <gtest/gtest.h>

#include <algorithm>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/explain.h"
#include "support/json.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_document;

using mongostore::testing::J;

class ExprIndex : public ::testing::Test {
 protected:
  void SetUp() override { e_ = testing::memory_engine(); }
  Document explain(std::string_view filter, FindOptions o = {}) {
    return e_->explain_find("db", "c", J(filter), o);
  }
  static std::string stage(const Document& explain) { return testing::plan_stage(explain); }
  static std::string index_name(const Document& explain) { return testing::plan_index(explain); }
  static int64_t stat(const Document& explain, const char* name) {
    return testing::plan_stat(explain, name);
  }
  void fill(int n) {
    std::vector<Document> docs;
    for (int i = 0; i < n; ++i) docs.push_back(make_document("_id", i, "a", i, "b", i % 10));
    e_->insert_many("db", "c", docs);
  }
  std::shared_ptr<Engine> e_;
};

TEST_F(ExprIndex, AnEqualityOnAnIndexedPathIsAPoint) {
  fill(10000);
  e_->create_index("db", "c", make_document("a", 1));
  for (const char* filter : {
           R"({"$expr": {"$eq": ["$a", 5000]}})",
           R"({"$expr": {"$eq": [5000, "$a"]}})",
           R"({"$expr": {"$eq": ["$a", {"$literal": 5000}]}})",
           R"({"$expr": {"$eq": ["$a", 5000.0]}})",
           R"({"$expr": {"$and": [{"$eq": ["$a", 5000]}, {"$gt": ["$b", -1]}]}})",
           R"({"$and": [{"b": 0}, {"$expr": {"$eq": ["$a", 5000]}}]})",
           // The form bind_variables_to_filter writes for a $lookup's `let`.
           R"({"$expr": {"$let": {"vars": {"v": {"$literal": 5000}},
                                  "in": {"$eq": ["$a", "$$v"]}}}})",
       }) {
    Document x = explain(filter);
    EXPECT_EQ(index_name(x), "a_1") << filter;
    EXPECT_EQ(stat(x, "totalKeysExamined"), 1) << filter;
    EXPECT_EQ(stat(x, "nReturned"), 1) << filter;
  }
  // A command's `let`.
  FindOptions with_let;
  with_let.let = J(R"({"v": 5000})");
  Document x = explain(R"({"$expr": {"$eq": ["$a", "$$v"]}})", with_let);
  EXPECT_EQ(index_name(x), "a_1");
  EXPECT_EQ(stat(x, "totalKeysExamined"), 1);
  EXPECT_EQ(stat(x, "nReturned"), 1);
}

TEST_F(ExprIndex, WhatIsNotAConstantEqualityScans) {
  fill(100);
  e_->create_index("db", "c", make_document("a", 1));
  for (const char* filter : {
           // $expr ranges compare across types; MongoDB's index bounds do not.
           R"({"$expr": {"$gt": ["$a", 50]}})",
           R"({"$expr": {"$eq": ["$a", "$b"]}})",
           R"({"$expr": {"$eq": ["$a", {"$add": [1, 2]}]}})",
           R"({"$expr": {"$eq": ["$a", [1]]}})",
           R"({"$expr": {"$eq": ["$a", {"$literal": [1]}]}})",
           R"({"$expr": {"$or": [{"$eq": ["$a", 1]}, {"$eq": ["$a", 2]}]}})",
           R"({"$expr": {"$not": [{"$eq": ["$a", 1]}]}})",
           R"({"$expr": {"$let": {"vars": {"v": "$b"}, "in": {"$eq": ["$a", "$$v"]}}}})",
           // An inner variable of the same name hides the outer constant.
           R"({"$expr": {"$let": {"vars": {"v": 5}, "in": {"$let": {"vars": {"v": "$b"},
                                  "in": {"$eq": ["$a", "$$v"]}}}}}})",
       }) {
    EXPECT_EQ(stage(explain(filter)), "COLLSCAN") << filter;
  }
}

TEST_F(ExprIndex, AnEqualityOnIdIsAPointRead) {
  fill(1000);
  for (const char* filter : {
           R"({"$expr": {"$eq": ["$_id", 700]}})",
           R"({"$expr": {"$let": {"vars": {"local": {"$literal": 700}},
                                  "in": {"$eq": ["$_id", "$$local"]}}}})",
       }) {
    Document x = explain(filter);
    EXPECT_EQ(stage(x), "IDHACK") << filter;
    EXPECT_EQ(stat(x, "totalDocsExamined"), 1) << filter;
    EXPECT_EQ(stat(x, "nReturned"), 1) << filter;
  }
  // The rest of the filter still applies to the document read.
  Document x = explain(R"({"$expr": {"$and": [{"$eq": ["$_id", 700]}, {"$eq": ["$b", 1]}]}})");
  EXPECT_EQ(stage(x), "IDHACK");
  EXPECT_EQ(stat(x, "nReturned"), 0);
  // Two different values: nothing matches, whichever is read.
  EXPECT_EQ(stat(explain(R"({"$expr": {"$and": [{"$eq": ["$_id", 1]}, {"$eq": ["$_id", 2]}]}})"),
                 "nReturned"),
            0);
}

// Every value an $expr equality can meet, on indexed (multikey, sparse) and unindexed
// collections: the same documents come back.
TEST_F(ExprIndex, ResultsEqualACollectionScan) {
  const char* values = R"([
    {"_id": 1, "a": 1, "s": 1}, {"_id": 2, "a": 1.0}, {"_id": 3, "a": {"$numberLong": "1"}},
    {"_id": 4, "a": [1]}, {"_id": 5, "a": [[1]]}, {"_id": 6, "a": null, "s": null}, {"_id": 7},
    {"_id": 8, "a": "1"}, {"_id": 9, "a": {"x": 1}}, {"_id": 10, "a": [1, 2]},
    {"_id": 11, "a": {"b": 1}}, {"_id": 12, "a": [{"b": 1}]}, {"_id": 13, "a": {"b": null}},
    {"_id": 14, "a": {"$numberDecimal": "1.0"}}, {"_id": 15, "a": []}, {"_id": 16, "a": 2}])";
  Document wrapped = J(std::string("{\"d\": ") + values + "}");
  std::vector<Document> docs;
  for (const bson::Element& e : wrapped.get("d").as_array()) {
    docs.push_back(Document::copy_of(e.value.as_document()));
  }
  e_->insert_many("db", "plain", docs);
  e_->insert_many("db", "indexed", docs);
  e_->create_index("db", "indexed", make_document("a", 1));
  e_->create_index("db", "indexed", make_document("a.b", 1));
  e_->create_index("db", "indexed", make_document("s", 1), make_document("sparse", true));
  auto ids = [&](std::string_view coll, const Document& filter, const FindOptions& o) {
    std::vector<int32_t> out;
    for (const auto& d : e_->find("db", coll, filter, o)->to_vector()) {
      out.push_back(d.get("_id").as_int32());
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  FindOptions missing_let;
  missing_let.let = J(R"({"m": "$$REMOVE"})");
  int used_an_index = 0;
  for (const char* filter : {
           R"({"$expr": {"$eq": ["$a", 1]}})",
           R"({"$expr": {"$eq": ["$a", null]}})",
           R"({"$expr": {"$eq": ["$a", "$$REMOVE"]}})",
           R"({"$expr": {"$eq": ["$a", "$$m"]}})",
           R"({"$expr": {"$eq": ["$a", "1"]}})",
           R"({"$expr": {"$eq": ["$a", {"$literal": {"x": 1}}]}})",
           R"({"$expr": {"$eq": ["$a", {"$literal": {"b": 1}}]}})",
           R"({"$expr": {"$eq": ["$a.b", 1]}})",
           R"({"$expr": {"$eq": ["$a.b", null]}})",
           R"({"$expr": {"$eq": ["$s", null]}})",
           R"({"$expr": {"$eq": ["$s", "$$m"]}})",
           R"({"$expr": {"$eq": ["$s", 1]}})",
       }) {
    Document f = J(filter);
    std::vector<int32_t> expected = ids("plain", f, missing_let);
    EXPECT_EQ(ids("indexed", f, missing_let), expected) << filter;
    used_an_index += stage(e_->explain_find("db", "indexed", f, missing_let)) == "FETCH";
  }
  EXPECT_EQ(used_an_index, 10);  // all but the two null forms on the sparse index
}

}  // namespace
}  // namespace mongostore::engine

namespace mongostore::engine {
namespace {

// A $lookup joining on `_id` through `let` + $expr (the form the RecordStore's searcher
// writes) gives what MongoDB gives, and what the equality form gives where the two agree.
TEST(ExprLookup, LetJoinOnIdThroughTheEngine) {
  auto e = testing::memory_engine();
  for (int i = 0; i < 50; ++i) {
    e->insert_one("db", "customers", make_document("_id", i, "name", "c" + std::to_string(i)));
  }
  e->insert_one("db", "customers", J(R"({"_id": null, "name": "nobody"})"));
  e->insert_many("db", "orders",
                 {J(R"({"_id": 1, "cust": 7})"), J(R"({"_id": 2, "cust": 7.0})"),
                  J(R"({"_id": 3, "cust": 99})"), J(R"({"_id": 4})"),
                  J(R"({"_id": 5, "cust": null})"), J(R"({"_id": 6, "cust": [7, 8]})")});
  auto run = [&](const char* pipeline) {
    Document p = J(std::string("{\"p\": ") + pipeline + "}");
    std::vector<Document> stages;
    for (const bson::Element& s : p.get("p").as_array()) {
      stages.push_back(Document::copy_of(s.value.as_document()));
    }
    std::string out;
    for (const auto& d : e->aggregate("db", "orders", stages, {})->to_vector()) {
      out += d.to_json() + "\n";
    }
    return out;
  };
  std::string by_let = run(R"([{"$lookup": {"from": "customers", "let": {"c": "$cust"},
      "pipeline": [{"$match": {"$expr": {"$eq": ["$_id", "$$c"]}}}, {"$project": {"name": 1}}],
      "as": "who"}}, {"$project": {"who.name": 1}}])");
  // $expr compares whole values: a missing `cust` matches no customer (missing is not null),
  // null matches the null `_id`, and an array matches no scalar `_id`.
  EXPECT_EQ(by_let,
            "{ \"_id\" : 1, \"who\" : [ { \"name\" : \"c7\" } ] }\n"
            "{ \"_id\" : 2, \"who\" : [ { \"name\" : \"c7\" } ] }\n"
            "{ \"_id\" : 3, \"who\" : [  ] }\n"
            "{ \"_id\" : 4, \"who\" : [  ] }\n"
            "{ \"_id\" : 5, \"who\" : [ { \"name\" : \"nobody\" } ] }\n"
            "{ \"_id\" : 6, \"who\" : [  ] }\n");
  // The command's `let` reaches a leading $match's $expr, which the find runs.
  AggregateOptions with_let;
  with_let.let = J(R"({"want": 3})");
  auto docs = e->aggregate("db", "orders",
                           {J(R"({"$match": {"$expr": {"$eq": ["$_id", "$$want"]}}})")}, with_let)
                  ->to_vector();
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].get("cust").as_int32(), 99);
}

}  // namespace
}  // namespace mongostore::engine
