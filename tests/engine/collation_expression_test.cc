// Aggregation expressions compare strings under the operation's collation (or the
// collection's default), as MongoDB's do: $eq ... $cmp, $in, $indexOfArray, the set
// operators, $max/$min, $sortArray, in $project/$addFields, in a find's or a $match's $expr,
// in update pipelines, and in the stages a later batch of a lazy cursor runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/json.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_document;

using mongostore::testing::J;

Document ci() {
  return make_document("locale", "en", "strength", 2);
}

class CollationExpression : public ::testing::Test {
 protected:
  void SetUp() override {
    e_ = testing::memory_engine();
    e_->insert_one("db", "c", J(R"({"_id": 1, "a": "abc", "b": "ABC", "arr": ["x", "Y"]})"));
  }
  // The one document the pipeline [{$project: {_id: 0, r: <expr>}}] gives, its r.
  std::string project(std::string_view expr_json, const Document& collation) {
    AggregateOptions o;
    o.collation = collation;
    Document stage =
        J(std::string(R"({"$project": {"_id": 0, "r": )") + std::string(expr_json) + "}}");
    auto rows = e_->aggregate("db", "c", {stage}, o)->to_vector();
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? "" : rows[0].get("r").to_json();
  }
  std::shared_ptr<Engine> e_;
};

// `json` as project() renders it.
std::string rendered(std::string_view json) {
  return J(std::string(R"({"r": )") + std::string(json) + "}").get("r").to_json();
}

struct Case {
  const char* expr;
  const char* simple;    // r without a collation
  const char* collated;  // r under {locale: "en", strength: 2}
};

TEST_F(CollationExpression, OperatorsCompareStringsUnderTheCollation) {
  const Case cases[] = {
      {R"({"$eq": ["$a", "$b"]})", "false", "true"},
      {R"({"$ne": ["$a", "$b"]})", "true", "false"},
      {R"({"$gt": ["$a", "$b"]})", "true", "false"},
      {R"({"$gte": ["$b", "$a"]})", "false", "true"},
      {R"({"$lt": ["$b", "$a"]})", "true", "false"},
      {R"({"$lte": ["$a", "$b"]})", "false", "true"},
      {R"({"$cmp": ["$a", "$b"]})", "1", "0"},
      {R"({"$cmp": ["B", "a"]})", "-1", "1"},
      // Nested in arrays and documents too.
      {R"({"$eq": [["$a", {"k": "$a"}], ["$b", {"k": "$b"}]]})", "false", "true"},
      {R"({"$in": ["$b", ["abc", "z"]]})", "false", "true"},
      {R"({"$in": ["y", "$arr"]})", "false", "true"},
      {R"({"$indexOfArray": [["z", "Abc"], "$a"]})", "-1", "1"},
      {R"({"$setEquals": [["a", "B"], ["A", "b"]]})", "false", "true"},
      {R"({"$setIsSubset": [["X"], "$arr"]})", "false", "true"},
      {R"({"$size": {"$setUnion": [["a", "A"], ["b"]]}})", "3", "2"},
      {R"({"$size": {"$setIntersection": [["a", "B"], ["A", "b"]]}})", "0", "2"},
      {R"({"$setDifference": [["a", "c"], ["A"]]})", R"(["a", "c"])", R"(["c"])"},
      {R"({"$max": ["B", "a"]})", R"("a")", R"("B")"},
      {R"({"$min": [["B", "a"]]})", R"("B")", R"("a")"},
      {R"({"$sortArray": {"input": ["b", "A", "C"], "sortBy": 1}})", R"(["A", "C", "b"])",
       R"(["A", "b", "C"])"},
      {R"({"$sortArray": {"input": [{"k": "b"}, {"k": "A"}], "sortBy": {"k": 1}}})",
       R"([{"k": "A"}, {"k": "b"}])", R"([{"k": "A"}, {"k": "b"}])"},
      {R"({"$sortArray": {"input": [{"k": "b"}, {"k": "C"}], "sortBy": {"k": 1}}})",
       R"([{"k": "C"}, {"k": "b"}])", R"([{"k": "b"}, {"k": "C"}])"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    EXPECT_EQ(project(c.expr, Document()), rendered(c.simple));
    EXPECT_EQ(project(c.expr, make_document("locale", "simple")), rendered(c.simple));
    EXPECT_EQ(project(c.expr, ci()), rendered(c.collated));
  }
}

TEST_F(CollationExpression, GroupAccumulatorsCompareUnderTheCollation) {
  e_->insert_one("db", "c", J(R"({"_id": 2, "a": "ABC", "b": "b"})"));
  e_->insert_one("db", "c", J(R"({"_id": 3, "a": "B", "b": "a"})"));
  AggregateOptions o;
  o.collation = ci();
  Document group = J(R"({"$group": {"_id": null, "max": {"$max": "$a"},
                         "min": {"$min": "$a"}, "set": {"$addToSet": "$a"}}})");
  auto rows = e_->aggregate("db", "c", {group}, o)->to_vector();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].get("max").to_json(), R"("B")");     // bytes: "abc"
  EXPECT_NE(rows[0].get("min").to_json(), R"("B")");     // bytes: "B"
  EXPECT_EQ(rows[0].get("set").as_array().count(), 2u);  // "abc" and "ABC" are one
  rows = e_->aggregate("db", "c", {group})->to_vector();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].get("max").to_json(), R"("abc")");
  EXPECT_EQ(rows[0].get("set").as_array().count(), 3u);
}

TEST_F(CollationExpression, FindExprUsesTheCollectionDefaultCollation) {
  e_->create_collection("db", "d", make_document("collation", ci()));
  for (int i = 0; i < 10; ++i) {
    e_->insert_one("db", "d", make_document("_id", i, "s", i % 2 ? "Hello" : "hello"));
  }
  Document filter = J(R"({"$expr": {"$eq": ["$s", "HELLO"]}})");
  EXPECT_EQ(e_->find("db", "d", filter)->to_vector().size(), 10u);
  EXPECT_EQ(e_->count_documents("db", "d", filter), 10);
  FindOptions simple;
  simple.collation = make_document("locale", "simple");
  EXPECT_EQ(e_->find("db", "d", filter, simple)->to_vector().size(), 0u);
  // A $match's $expr, and an update pipeline's expressions, under the default too.
  auto rows = e_->aggregate("db", "d", {make_document("$match", filter)})->to_vector();
  EXPECT_EQ(rows.size(), 10u);
  UpdateOptions u;
  u.update_is_pipeline = true;
  Document pipeline = J(R"({"p": [{"$set": {"same": {"$eq": ["$s", "HELLO"]}}}]})");
  e_->update_many("db", "d", Document(), pipeline.get("p").as_array(), u);
  EXPECT_EQ(e_->count_documents("db", "d", make_document("same", true)), 10);
}

TEST_F(CollationExpression, LaterBatchesOfALazyCursorStillUseTheCollation) {
  std::vector<Document> docs;
  for (int i = 0; i < 50; ++i) docs.push_back(make_document("_id", i, "s", "ABC"));
  e_->insert_many("db", "many", docs);
  // find: the $expr is evaluated batch by batch.
  FindOptions f;
  f.collation = ci();
  f.batch_size = 2;
  auto cursor = e_->find("db", "many", J(R"({"$expr": {"$eq": ["$s", "abc"]}})"), f);
  size_t found = 0;
  while (!cursor->exhausted()) found += cursor->next_batch().size();
  EXPECT_EQ(found, 50u);
  // aggregate: the $addFields of later batches runs on getMore.
  AggregateOptions a;
  a.collation = ci();
  a.batch_size = 2;
  auto agg = e_->aggregate(
      "db", "many",
      {J(R"({"$addFields": {"eq": {"$eq": ["$s", "abc"]}}})"), J(R"({"$match": {"eq": true}})")},
      a);
  size_t rows = 0, batches = 0;
  while (!agg->exhausted()) {
    rows += agg->next_batch().size();
    ++batches;
  }
  EXPECT_EQ(rows, 50u);
  EXPECT_GT(batches, 2u);
}

}  // namespace
}  // namespace mongostore::engine
