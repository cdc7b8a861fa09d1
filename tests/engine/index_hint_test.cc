// Index hints: find, explain, update, delete, findAndModify and aggregate read the index the
// hint names (by name or key pattern), `_id_` / $natural force the collection scan, and a
// hint naming no index fails BadValue.
#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "support/json.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_document;

using mongostore::testing::J;

IndexHint by_name(std::string name) {
  IndexHint h;
  h.name = std::move(name);
  return h;
}
IndexHint by_keys(std::string_view json) {
  IndexHint h;
  h.keys = J(json);
  return h;
}

class IndexHints : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 20; ++i) {
      if (i % 4 == 0) {
        coll_.insert_one(make_document("_id", i, "b", i));  // no `a`: not in the sparse index
      } else {
        coll_.insert_one(make_document("_id", i, "a", i % 5, "b", i));
      }
    }
    coll_.create_index(J(R"({"a": 1})"), J(R"({"sparse": true})"));
    coll_.create_index(J(R"({"b": -1})"));
  }
  std::string stage(const FindOptions& o, std::string_view filter = "{}") {
    Document ex = coll_.explain(J(filter), o);
    bson::Value input = ex.get_path("queryPlanner.winningPlan.inputStage.stage");
    return std::string(input.is_string()
                           ? input.as_string()
                           : ex.get_path("queryPlanner.winningPlan.stage").as_string());
  }
  std::shared_ptr<Client> client_ = connect("embedded:memory");
  Collection coll_ = client_->database("db").collection("c");
};

TEST_F(IndexHints, FindUsesTheHintedIndexByNameOrKeys) {
  FindOptions o;
  EXPECT_EQ(stage(o, R"({"b": {"$gt": 3}})"), "IXSCAN");  // the planner's own choice
  o.hint = by_name("_id_");
  EXPECT_EQ(stage(o, R"({"b": {"$gt": 3}})"), "COLLSCAN");
  o.hint = by_keys(R"({"$natural": 1})");
  EXPECT_EQ(stage(o, R"({"b": {"$gt": 3}})"), "COLLSCAN");
  // A hinted index that cannot bound the filter is scanned whole.
  o.hint = by_keys(R"({"b": -1})");
  EXPECT_EQ(stage(o, R"({"_id": {"$gte": 0}})"), "IXSCAN");
  auto docs = coll_.find(J(R"({"_id": {"$gte": 0}})"), o)->to_vector();
  ASSERT_EQ(docs.size(), 20u);
  EXPECT_EQ(docs.front().get("b").as_int32(), 19);  // in index order (b descending)
}

TEST_F(IndexHints, AHintedSparseIndexReturnsOnlyTheDocumentsItHolds) {
  FindOptions o;
  o.hint = by_name("a_1");
  EXPECT_EQ(coll_.find(Document(), o)->to_vector().size(), 15u);
  EXPECT_EQ(coll_.find(Document())->to_vector().size(), 20u);
}

TEST_F(IndexHints, AHintNamingNoIndexFailsBadValue) {
  FindOptions o;
  o.hint = by_name("nope_1");
  try {
    coll_.find(Document(), o)->to_vector();
    FAIL() << "expected BadValue";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), static_cast<int>(ErrorCode::kBadValue));
    EXPECT_NE(std::string(e.what()).find("hint provided does not correspond to an existing index"),
              std::string::npos);
  }
  UpdateOptions u;
  u.hint = by_keys(R"({"zz": 1})");
  EXPECT_THROW(coll_.update_one(J(R"({"b": 1})"), J(R"({"$set": {"x": 1}})"), u), Error);
  EXPECT_FALSE(coll_.find_one(J(R"({"x": 1})")));
}

TEST_F(IndexHints, WritesAndAggregateHonourTheHint) {
  UpdateOptions u;
  u.hint = by_name("a_1");
  // Through the sparse index only documents with `a` are candidates.
  EXPECT_EQ(coll_.update_many(Document(), J(R"({"$set": {"seen": true}})"), u).matched_count, 15);
  FindAndModifyOptions f;
  f.hint = by_keys(R"({"b": -1})");
  f.sort = J(R"({"b": -1})");
  auto doc = coll_.find_one_and_delete(Document(), f);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->get("_id").as_int32(), 19);
  AggregateOptions a;
  a.hint = by_name("a_1");
  auto out = coll_.aggregate({J(R"({"$match": {}})"), J(R"({"$count": "n"})")}, a)->to_vector();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].get("n").as_int32(), 14);  // 15 in the sparse index, less _id 19 deleted
}

}  // namespace
}  // namespace mongostore::client
