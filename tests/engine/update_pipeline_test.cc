// Update pipelines (updates given as a list of stages) through the Client seam, and find
// projections with the array operators through the engine's find path.
#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "support/error_code.h"
#include "support/json.h"

namespace mongostore::client {
namespace {

using bson::Document;

using mongostore::testing::J;
// A braced list would also convert to a DocumentView, so pipelines are spelled as vectors.
using Stages = std::vector<Document>;

class UpdatePipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    coll_.insert_one(J(R"({"_id": 1, "a": 2, "b": 3, "t": {"u": 1}, "tags": ["x", "y"]})").view());
  }
  std::string stored(int id) {
    auto doc = coll_.find_one(bson::make_document("_id", id));
    return doc ? doc->to_json() : "none";
  }
  static int code_of(const std::function<void()>& f) { return testing::code_of(f); }
  std::shared_ptr<Client> client_ = connect("embedded:memory");
  Collection coll_ = client_->database("db").collection("c");
};

TEST_F(UpdatePipeline, SetUnsetAndExpressionsSeeTheStoredDocument) {
  auto r = coll_.update_one(
      J(R"({"_id": 1})"),
      Stages{J(R"({"$set": {"sum": {"$add": ["$a", "$b"]}}})"), J(R"({"$unset": ["t", "tags"]})")});
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(r.modified_count, 1);
  EXPECT_EQ(stored(1), J(R"({"_id": 1, "a": 2, "b": 3, "sum": 5})").to_json());
  // The same pipeline again changes nothing: modifiedCount 0.
  r = coll_.update_one(J(R"({"_id": 1})"),
                       Stages{J(R"({"$set": {"sum": {"$add": ["$a", "$b"]}}})")});
  EXPECT_EQ(r.modified_count, 0);
}

TEST_F(UpdatePipeline, ReplaceRootKeepsTheIdAndCannotChangeIt) {
  coll_.update_one(J(R"({"_id": 1})"), Stages{J(R"({"$replaceRoot": {"newRoot": "$t"}})")});
  EXPECT_EQ(stored(1), J(R"({"_id": 1, "u": 1})").to_json());
  EXPECT_EQ(code_of([&] {
              coll_.update_one(J(R"({"_id": 1})"), Stages{J(R"({"$replaceWith": {"_id": 2}})")});
            }),
            static_cast<int>(ErrorCode::kImmutableField));
  EXPECT_EQ(stored(1), J(R"({"_id": 1, "u": 1})").to_json());  // untouched by the failure
}

TEST_F(UpdatePipeline, UpdateManyAndUpsert) {
  coll_.insert_one(J(R"({"_id": 2, "a": 10, "b": 1})").view());
  auto r = coll_.update_many(J("{}"), Stages{J(R"({"$set": {"d": {"$subtract": ["$a", "$b"]}}})")});
  EXPECT_EQ(r.modified_count, 2);
  EXPECT_EQ(coll_.find_one(J(R"({"_id": 2})"))->get("d").as_int32(), 9);
  UpdateOptions upsert;
  upsert.upsert = true;
  r = coll_.update_one(J(R"({"_id": 7, "k": "v"})"),
                       Stages{J(R"({"$set": {"n": {"$literal": 1}}})")}, upsert);
  ASSERT_TRUE(r.upserted_id);
  EXPECT_EQ(stored(7), J(R"({"_id": 7, "k": "v", "n": 1})").to_json());
}

TEST_F(UpdatePipeline, FindOneAndUpdateReturnsTheNewDocument) {
  FindAndModifyOptions o;
  o.return_document = ReturnDocument::kAfter;
  o.projection = J(R"({"a": 1})");
  auto doc = coll_.find_one_and_update(
      J(R"({"_id": 1})"), Stages{J(R"({"$set": {"a": {"$multiply": ["$a", 10]}}})")}, o);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->to_json(), J(R"({"_id": 1, "a": 20})").to_json());
}

TEST_F(UpdatePipeline, BadPipelinesFailWithMongoDBsCodes) {
  EXPECT_EQ(code_of([&] { coll_.update_one(J(R"({"_id": 1})"), Stages{J(R"({"$match": {}})")}); }),
            static_cast<int>(ErrorCode::kInvalidOptions));
  EXPECT_EQ(code_of([&] {
              coll_.update_one(J(R"({"_id": 1})"), Stages{J(R"({"$set": {"x": {"$nope": 1}}})")});
            }),
            168);  // InvalidPipelineOperator
  EXPECT_EQ(code_of([&] { coll_.update_one(J(R"({"_id": 1})"), std::vector<Document>{}); }),
            static_cast<int>(ErrorCode::kBadValue));
  UpdateOptions filtered;
  filtered.array_filters.push_back(J(R"({"e": 1})"));
  EXPECT_EQ(code_of([&] {
              coll_.update_one(J(R"({"_id": 1})"), Stages{J(R"({"$set": {"x": 1}})")}, filtered);
            }),
            static_cast<int>(ErrorCode::kFailedToParse));
  EXPECT_EQ(stored(1),
            J(R"({"_id": 1, "a": 2, "b": 3, "t": {"u": 1}, "tags": ["x", "y"]})").to_json());
}

TEST_F(UpdatePipeline, FindProjectionOperatorsThroughTheEngine) {
  FindOptions o;
  o.projection = J(R"({"tags": {"$slice": -1}, "t": 0})");
  EXPECT_EQ(coll_.find_one(J(R"({"_id": 1})"), o)->to_json(),
            J(R"({"_id": 1, "a": 2, "b": 3, "tags": ["y"]})").to_json());
  o.projection = J(R"({"tags.$": 1})");
  EXPECT_EQ(coll_.find(J(R"({"tags": "y"})"), o)->to_vector().at(0).to_json(),
            J(R"({"_id": 1, "tags": ["y"]})").to_json());
  o.projection = J(R"({"tags": {"$elemMatch": {"$eq": "x"}}})");
  EXPECT_EQ(coll_.find(J("{}"), o)->to_vector().at(0).to_json(),
            J(R"({"_id": 1, "tags": ["x"]})").to_json());
}

}  // namespace
}  // namespace mongostore::client
