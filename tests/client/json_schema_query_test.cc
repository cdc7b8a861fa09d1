// {$jsonSchema: ...} as a query operator through the Client seam, on every backend (the remote
// one goes through `mongostore serve`): find, count, update, delete, aggregate $match, alone
// and combined with other conditions; a malformed schema fails with mongod's code.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "support/backend.h"
#include "support/error_code.h"
#include "support/json.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using testing::Backend;

using mongostore::testing::J;

// {$jsonSchema: SCHEMA}, plus the fields of EXTRA (built, so "$jsonSchema" stays a plain key).
Document schema_filter(std::string_view schema_json, std::string_view extra_json = "{}") {
  Document schema = J(schema_json);
  DocumentBuilder b;
  b.append("$jsonSchema", schema.view());
  b.append_elements(J(extra_json).view());
  return b.finish();
}

std::set<int> ids(const std::vector<Document>& docs) {
  std::set<int> out;
  for (const auto& d : docs) out.insert(d.get("_id").as_int32());
  return out;
}

constexpr const char* kPersonSchema = R"({
  "bsonType": "object",
  "required": ["name"],
  "properties": {
    "name": {"bsonType": "string", "minLength": 1},
    "age": {"bsonType": "int", "minimum": 18},
    "tags": {"bsonType": "array", "items": {"bsonType": "string"}, "uniqueItems": true}
  }
})";

class JsonSchemaQuery : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    client_ = backend_.connect(GetParam());
    coll_ = std::make_unique<Collection>(client_->database("db").collection("people"));
    coll_->insert_many({
        J(R"({"_id": 1, "name": "ada", "age": 36, "tags": ["x", "y"]})"),
        J(R"({"_id": 2, "name": "bob", "age": "old"})"),
        J(R"({"_id": 3, "name": 5})"),
        J(R"({"_id": 4, "age": 20})"),
        J(R"({"_id": 5, "name": "eve"})"),
        J(R"({"_id": 6, "name": "fay", "age": 12})"),
        J(R"({"_id": 7, "name": "gus", "tags": ["a", "a"]})"),
    });
  }

  std::set<int> find(const Document& filter) { return ids(coll_->find(filter)->to_vector()); }

  testing::BackendHolder backend_;
  std::shared_ptr<Client> client_;
  std::unique_ptr<Collection> coll_;
};

TEST_P(JsonSchemaQuery, FindAndCount) {
  EXPECT_EQ(find(schema_filter(kPersonSchema)), (std::set<int>{1, 5}));
  EXPECT_EQ(coll_->count_documents(schema_filter(kPersonSchema)), 2);
  ASSERT_TRUE(coll_->find_one(schema_filter(kPersonSchema)));
  // A schema every document satisfies, and one none does.
  EXPECT_EQ(coll_->count_documents(schema_filter("{}")), 7);
  EXPECT_EQ(coll_->count_documents(schema_filter(R"({"bsonType": "array"})")), 0);
}

TEST_P(JsonSchemaQuery, CombinedWithOtherConditions) {
  EXPECT_EQ(find(schema_filter(kPersonSchema, R"({"_id": {"$gt": 1}})")), (std::set<int>{5}));
  EXPECT_EQ(find(schema_filter(kPersonSchema, R"({"_id": 1})")), (std::set<int>{1}));

  DocumentBuilder and_b;
  and_b.open_array("$and")
      .push(schema_filter(kPersonSchema).view())
      .push(J(R"({"age": 36})").view())
      .close();
  EXPECT_EQ(find(and_b.finish()), (std::set<int>{1}));

  DocumentBuilder nor_b;
  nor_b.open_array("$nor").push(schema_filter(kPersonSchema).view()).close();
  EXPECT_EQ(find(nor_b.finish()), (std::set<int>{2, 3, 4, 6, 7}));

  DocumentBuilder or_b;
  or_b.open_array("$or")
      .push(schema_filter(R"({"required": ["age"], "properties": {"age": {"bsonType": "string"}}})")
                .view())
      .push(J(R"({"_id": 3})").view())
      .close();
  EXPECT_EQ(find(or_b.finish()), (std::set<int>{2, 3}));
}

TEST_P(JsonSchemaQuery, AggregateMatch) {
  DocumentBuilder match;
  match.append("$match", schema_filter(kPersonSchema).view());
  auto docs = coll_->aggregate({match.finish(), J(R"({"$sort": {"_id": 1}})")})->to_vector();
  EXPECT_EQ(ids(docs), (std::set<int>{1, 5}));
}

TEST_P(JsonSchemaQuery, UpdateAndDelete) {
  auto r = coll_->update_many(schema_filter(kPersonSchema), J(R"({"$set": {"valid": true}})"));
  EXPECT_EQ(r.matched_count, 2);
  EXPECT_EQ(find(J(R"({"valid": true})")), (std::set<int>{1, 5}));
  // Delete what the schema refuses.
  Document refused = J(std::string(R"({"not": )") + kPersonSchema + "}");
  EXPECT_EQ(coll_->delete_many(schema_filter(refused.to_json())), 5);
  EXPECT_EQ(coll_->count_documents(Document()), 2);
  EXPECT_EQ(coll_->delete_one(schema_filter(kPersonSchema)), 1);
  EXPECT_EQ(coll_->count_documents(Document()), 1);
}

TEST_P(JsonSchemaQuery, DistinctAndFindAndModify) {
  auto names = coll_->distinct("name", schema_filter(kPersonSchema));
  std::set<std::string> got;
  for (const auto& v : names) got.insert(std::string(v.view().as_string()));
  EXPECT_EQ(got, (std::set<std::string>{"ada", "eve"}));

  auto before = coll_->find_one_and_update(schema_filter(kPersonSchema, R"({"_id": {"$gt": 1}})"),
                                           J(R"({"$set": {"age": 40}})"));
  ASSERT_TRUE(before);
  EXPECT_EQ(before->get("_id").as_int32(), 5);
  EXPECT_EQ(find(schema_filter(kPersonSchema)), (std::set<int>{1, 5}));  // still valid
  auto removed = coll_->find_one_and_delete(schema_filter(R"({"required": ["age"],
      "properties": {"age": {"bsonType": "int", "maximum": 17}}})"));
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->get("_id").as_int32(), 6);
}

TEST_P(JsonSchemaQuery, MalformedSchemasFailWithMongodsCodes) {
  EXPECT_EQ(testing::code_of([&] { find(schema_filter(R"({"required": []})")); }), 9);
  EXPECT_EQ(testing::code_of([&] { find(schema_filter(R"({"bsonType": "integer"})")); }), 9);
  EXPECT_EQ(testing::code_of([&] { find(schema_filter(R"({"foo": 1})")); }), 9);
  EXPECT_EQ(testing::code_of([&] { find(schema_filter(R"({"minimum": "x"})")); }), 14);
  EXPECT_EQ(testing::code_of([&] { coll_->count_documents(schema_filter(R"({"allOf": []})")); }),
            2);
  EXPECT_EQ(
      testing::code_of([&] { coll_->delete_many(schema_filter(R"({"properties": {"a": 1}})")); }),
      14);
  DocumentBuilder b;
  b.append("$jsonSchema", 1);
  Document not_object = b.finish();
  EXPECT_EQ(testing::code_of([&] { find(not_object); }), 14);
  // Nothing was deleted by the failed delete.
  EXPECT_EQ(coll_->count_documents(Document()), 7);
}

// mongod bans $jsonSchema in an $elemMatch projection and in a partial index filter
// (QueryFeatureNotAllowed 224).
TEST_P(JsonSchemaQuery, NotAllowedInProjectionOrPartialIndex) {
  FindOptions options;
  DocumentBuilder projection;
  projection.open_document("tags").append("$elemMatch", schema_filter("{}").view()).close();
  options.projection = projection.finish();
  EXPECT_EQ(testing::code_of([&] { coll_->find(J("{}"), options)->to_vector(); }), 224);

  DocumentBuilder index_options;
  index_options.append("partialFilterExpression", schema_filter("{}").view());
  EXPECT_EQ(
      testing::code_of([&] { coll_->create_index(J(R"({"name": 1})"), index_options.finish()); }),
      224);
  EXPECT_EQ(client_->list_indexes("db", "people").size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, JsonSchemaQuery, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::client
