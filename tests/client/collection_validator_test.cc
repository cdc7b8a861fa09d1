// Collection validators (create / collMod `validator`, `validationLevel`, `validationAction`)
// through the Client seam on every backend (the remote one goes through `mongostore serve`):
// every write path checks the document it would store, bypass_document_validation skips the
// check, the options read back as listCollections shows them, and survive a reopen.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "mongostore/bson/builder.h"
#include "mongostore/client/bulk_write.h"
#include "mongostore/client/client.h"
#include "mongostore/document_validation_error.h"
#include "mongostore/error.h"
#include "support/backend.h"
#include "support/error_code.h"
#include "support/json.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::make_document;
using testing::Backend;
using testing::code_of;

using mongostore::testing::J;

// {KEY: <json>}, built so that a $-key stays a plain key.
Document op(std::string_view key, std::string_view json) {
  DocumentBuilder b;
  b.append(key, J(json).view());
  return b.finish();
}

// Documents need a string `name`.
Document name_schema() {
  return op("$jsonSchema",
            R"({"required": ["name"], "properties": {"name": {"bsonType": "string"}}})");
}

CollectionOptions with_validator(Document validator, std::optional<std::string> level = {},
                                 std::optional<std::string> action = {}) {
  CollectionOptions o;
  o.validator = std::move(validator);
  o.validation_level = std::move(level);
  o.validation_action = std::move(action);
  return o;
}

constexpr int32_t kValidationFailure = 121;

// The DocumentValidationError `f` throws (fails the test when it throws none).
std::optional<DocumentValidationError> validation_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const DocumentValidationError& e) {
    return e;
  } catch (const Error& e) {
    ADD_FAILURE() << "expected DocumentValidationFailure, got " << e.code() << " " << e.what();
    return std::nullopt;
  }
  ADD_FAILURE() << "expected DocumentValidationFailure, the write succeeded";
  return std::nullopt;
}

class CollectionValidator : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { connect(); }
  void connect() {
    client_ = backend_.connect(GetParam());
    db_ = std::make_unique<Database>(client_->database("vdb"));
  }
  Collection coll(std::string_view name = "c") { return db_->collection(name); }

  testing::BackendHolder backend_;
  std::shared_ptr<Client> client_;
  std::unique_ptr<Database> db_;
};

TEST_P(CollectionValidator, InsertIsCheckedWithErrInfo) {
  db_->create_collection("c", with_validator(name_schema()));
  coll().insert_one(J(R"({"_id": 1, "name": "ada"})"));
  auto e = validation_error([&] { coll().insert_one(J(R"({"_id": 2, "name": 5})")); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), kValidationFailure);
  EXPECT_EQ(e->code_name(), "DocumentValidationFailure");
  EXPECT_STREQ(e->what(), "Document failed validation");
  EXPECT_EQ(e->err_info().get("failingDocumentId").as_int32(), 2) << e->err_info().to_json();
  EXPECT_EQ(e->err_info().get("details").as_document().get("operatorName").as_string(),
            "$jsonSchema");
  EXPECT_EQ(coll().count_documents(Document()), 1);
  // insert_many is ordered: the documents before the invalid one stay.
  EXPECT_EQ(code_of([&] {
              coll().insert_many({J(R"({"_id": 3, "name": "b"})"), J(R"({"_id": 4})"),
                                  J(R"({"_id": 5, "name": "c"})")});
            }),
            kValidationFailure);
  EXPECT_EQ(coll().count_documents(Document()), 2);
  EXPECT_FALSE(coll().find_one(J(R"({"_id": 5})")));
}

TEST_P(CollectionValidator, OperatorNameOfOtherValidators) {
  db_->create_collection("single", with_validator(J(R"({"a": {"$exists": true}})")));
  auto e = validation_error([&] { coll("single").insert_one(J(R"({"_id": 1})")); });
  ASSERT_TRUE(e);
  Document details = Document::copy_of(e->err_info().get("details").as_document());
  EXPECT_EQ(details.get("operatorName").as_string(), "$exists") << details.to_json();
  EXPECT_TRUE(details.get("specifiedAs").is_document()) << details.to_json();

  db_->create_collection("several", with_validator(J(R"({"a": 1, "b": {"$gt": 2}})")));
  e = validation_error([&] { coll("several").insert_one(J(R"({"_id": 1, "a": 1})")); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->err_info().get("details").as_document().get("operatorName").as_string(), "$and");

  db_->create_collection("expr", with_validator(op("$expr", R"({"$gt": ["$a", "$b"]})")));
  coll("expr").insert_one(J(R"({"_id": 1, "a": 2, "b": 1})"));
  e = validation_error([&] { coll("expr").insert_one(J(R"({"_id": 2, "a": 1, "b": 2})")); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->err_info().get("details").as_document().get("operatorName").as_string(), "$expr");
}

TEST_P(CollectionValidator, UpdatesReplacesAndUpsertsAreChecked) {
  db_->create_collection("c", with_validator(name_schema()));
  coll().insert_one(J(R"({"_id": 1, "name": "ada"})"));
  EXPECT_EQ(
      code_of([&] { coll().update_one(J(R"({"_id": 1})"), J(R"({"$unset": {"name": 1}})")); }),
      kValidationFailure);
  EXPECT_EQ(code_of([&] { coll().update_many(Document(), J(R"({"$set": {"name": 1}})")); }),
            kValidationFailure);
  EXPECT_EQ(code_of([&] { coll().replace_one(J(R"({"_id": 1})"), J(R"({"x": 1})")); }),
            kValidationFailure);
  EXPECT_EQ(coll().find_one(J(R"({"_id": 1})"))->get("name").as_string(), "ada");
  // A valid update goes through.
  EXPECT_EQ(coll().update_one(J(R"({"_id": 1})"), J(R"({"$set": {"name": "bea"}})")).modified_count,
            1);
  // An upsert checks the document it would insert.
  UpdateOptions upsert;
  upsert.upsert = true;
  EXPECT_EQ(
      code_of([&] { coll().update_one(J(R"({"_id": 9})"), J(R"({"$set": {"x": 1}})"), upsert); }),
      kValidationFailure);
  EXPECT_EQ(code_of([&] { coll().replace_one(J(R"({"_id": 9})"), J(R"({"x": 1})"), true); }),
            kValidationFailure);
  EXPECT_FALSE(coll().find_one(J(R"({"_id": 9})")));
  auto r = coll().update_one(J(R"({"_id": 9})"), J(R"({"$set": {"name": "new"}})"), upsert);
  ASSERT_TRUE(r.upserted_id);
  EXPECT_EQ(coll().count_documents(Document()), 2);
}

TEST_P(CollectionValidator, FindAndModifyIsChecked) {
  db_->create_collection("c", with_validator(name_schema()));
  coll().insert_one(J(R"({"_id": 1, "name": "ada"})"));
  auto e = validation_error(
      [&] { coll().find_one_and_update(J(R"({"_id": 1})"), J(R"({"$set": {"name": false}})")); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->err_info().get("failingDocumentId").as_int32(), 1);
  EXPECT_EQ(code_of([&] { coll().find_one_and_replace(J(R"({"_id": 1})"), J(R"({"n": 1})")); }),
            kValidationFailure);
  FindAndModifyOptions upsert;
  upsert.upsert = true;
  EXPECT_EQ(code_of([&] {
              coll().find_one_and_update(J(R"({"_id": 2})"), J(R"({"$set": {"n": 1}})"), upsert);
            }),
            kValidationFailure);
  EXPECT_EQ(coll().count_documents(Document()), 1);
  EXPECT_EQ(coll().find_one(J(R"({"_id": 1})"))->get("name").as_string(), "ada");
  // Deletes are never checked.
  EXPECT_TRUE(coll().find_one_and_delete(J(R"({"_id": 1})")));
}

TEST_P(CollectionValidator, BypassDocumentValidation) {
  db_->create_collection("c", with_validator(name_schema()));
  InsertOptions insert;
  insert.bypass_document_validation = true;
  coll().insert_one(J(R"({"_id": 1})"), insert);
  coll().insert_many({J(R"({"_id": 2})"), J(R"({"_id": 3})")}, insert);
  UpdateOptions update;
  update.bypass_document_validation = true;
  EXPECT_EQ(
      coll().update_one(J(R"({"_id": 1})"), J(R"({"$set": {"x": 1}})"), update).modified_count, 1);
  ReplaceOptions replace;
  replace.bypass_document_validation = true;
  replace.upsert = true;
  EXPECT_TRUE(coll().replace_one(J(R"({"_id": 4})"), J(R"({"y": 1})"), replace).upserted_id);
  FindAndModifyOptions fam;
  fam.bypass_document_validation = true;
  EXPECT_TRUE(coll().find_one_and_update(J(R"({"_id": 2})"), J(R"({"$set": {"z": 1}})"), fam));
  EXPECT_EQ(coll().count_documents(Document()), 4);
}

TEST_P(CollectionValidator, BulkWriteIsCheckedAndCanBypass) {
  db_->create_collection("c", with_validator(name_schema()));
  std::vector<WriteModel> models;
  models.push_back(InsertOne{J(R"({"_id": 1, "name": "a"})")});
  models.push_back(InsertOne{J(R"({"_id": 2})")});
  models.push_back(InsertOne{J(R"({"_id": 3, "name": "c"})")});
  BulkWriteOptions unordered;
  unordered.ordered = false;
  try {
    bulk_write(coll(), models, unordered);
    ADD_FAILURE() << "the invalid document was written";
  } catch (const BulkWriteError& e) {
    ASSERT_EQ(e.write_errors().size(), 1u);
    EXPECT_EQ(e.write_errors()[0].index, 1u);
    EXPECT_EQ(e.write_errors()[0].code, kValidationFailure);
    EXPECT_EQ(e.result().inserted_count, 2);
  }
  BulkWriteOptions bypass;
  bypass.bypass_document_validation = true;
  std::vector<WriteModel> more;
  more.push_back(InsertOne{J(R"({"_id": 4})")});
  more.push_back(ReplaceOne{J(R"({"_id": 1})"), J(R"({"x": 1})")});
  BulkWriteResult r = bulk_write(coll(), more, bypass);
  EXPECT_EQ(r.inserted_count, 1);
  EXPECT_EQ(r.modified_count, 1);
}

TEST_P(CollectionValidator, OutAndMergeTargetsAreChecked) {
  coll("src").insert_many({J(R"({"_id": 1, "name": "a"})"), J(R"({"_id": 2})")});
  db_->create_collection("out", with_validator(name_schema()));
  coll("out").insert_one(J(R"({"_id": 7, "name": "kept"})"));
  Document out_stage = make_document("$out", "out");
  EXPECT_EQ(code_of([&] { coll("src").aggregate({out_stage})->to_vector(); }), kValidationFailure);
  // A failed $out leaves the target as it was, validator included.
  EXPECT_EQ(coll("out").count_documents(Document()), 1);
  Document merge_stage = make_document("$merge", make_document("into", "out"));
  EXPECT_EQ(code_of([&] { coll("src").aggregate({merge_stage})->to_vector(); }),
            kValidationFailure);

  AggregateOptions bypass;
  bypass.bypass_document_validation = true;
  coll("src").aggregate({out_stage}, bypass)->to_vector();
  EXPECT_EQ(coll("out").count_documents(Document()), 2);
  // $out kept the target's validator.
  EXPECT_TRUE(db_->collection_options("out").get("validator").is_document());
  EXPECT_EQ(code_of([&] { coll("out").insert_one(J(R"({"_id": 3})")); }), kValidationFailure);
}

TEST_P(CollectionValidator, ModerateLetsInvalidDocumentsBeUpdated) {
  coll().insert_many({J(R"({"_id": 1})"), J(R"({"_id": 2, "name": "ok"})")});
  db_->modify_collection("c", with_validator(name_schema(), "moderate"));
  // Already invalid: may be updated (and stay invalid).
  EXPECT_EQ(coll().update_one(J(R"({"_id": 1})"), J(R"({"$set": {"x": 1}})")).modified_count, 1);
  // Valid: may not become invalid.
  EXPECT_EQ(
      code_of([&] { coll().update_one(J(R"({"_id": 2})"), J(R"({"$unset": {"name": 1}})")); }),
      kValidationFailure);
  // Inserts are always checked.
  EXPECT_EQ(code_of([&] { coll().insert_one(J(R"({"_id": 3})")); }), kValidationFailure);

  // strict checks the update of an invalid document too.
  db_->modify_collection("c", with_validator(name_schema(), "strict"));
  EXPECT_EQ(code_of([&] { coll().update_one(J(R"({"_id": 1})"), J(R"({"$set": {"x": 2}})")); }),
            kValidationFailure);
}

TEST_P(CollectionValidator, LevelOffAndActionWarn) {
  db_->create_collection("off", with_validator(name_schema(), "off"));
  coll("off").insert_one(J(R"({"_id": 1})"));
  db_->create_collection("warn", with_validator(name_schema(), std::nullopt, "warn"));
  coll("warn").insert_one(J(R"({"_id": 1})"));
  EXPECT_EQ(coll("warn").update_one(J(R"({"_id": 1})"), J(R"({"$set": {"x": 1}})")).modified_count,
            1);
  EXPECT_EQ(coll("warn").count_documents(Document()), 1);
  // Back to error: enforced again.
  CollectionOptions error;
  error.validation_action = "error";
  db_->modify_collection("warn", error);
  EXPECT_EQ(code_of([&] { coll("warn").insert_one(J(R"({"_id": 2})")); }), kValidationFailure);
}

TEST_P(CollectionValidator, OptionsReadBackAsListCollectionsShowsThem) {
  db_->create_collection("plain");
  EXPECT_TRUE(db_->collection_options("plain").empty());
  Document validator = name_schema();
  db_->create_collection("c", with_validator(validator));
  Document options = db_->collection_options("c");
  EXPECT_EQ(options.to_json(), make_document("validator", validator).to_json());

  CollectionOptions level;
  level.validation_level = "moderate";
  db_->modify_collection("c", level);
  EXPECT_EQ(db_->collection_options("c").to_json(),
            make_document("validator", validator, "validationLevel", "moderate").to_json());
  db_->modify_collection("c", with_validator(J(R"({"a": 1})"), std::nullopt, "warn"));
  EXPECT_EQ(db_->collection_options("c").to_json(),
            make_document("validator", J(R"({"a": 1})"), "validationLevel", "moderate",
                          "validationAction", "warn")
                .to_json());
  // An empty validator removes it: every document passes again.
  db_->modify_collection("c", with_validator(Document(), std::nullopt, "error"));
  EXPECT_EQ(db_->collection_options("c").to_json(),
            make_document("validationLevel", "moderate", "validationAction", "error").to_json());
  coll().insert_one(J(R"({"_id": 1})"));

  db_->create_collection("all", with_validator(validator, "strict", "error"));
  EXPECT_EQ(db_->collection_options("all").to_json(),
            make_document("validator", validator, "validationLevel", "strict", "validationAction",
                          "error")
                .to_json());
}

TEST_P(CollectionValidator, BadOptionsFailAsMongodFails) {
  // A malformed schema fails with the matcher's error, and nothing is created.
  EXPECT_NE(code_of([&] {
              db_->create_collection("c", with_validator(op("$jsonSchema", R"({"required": []})")));
            }),
            0);
  EXPECT_TRUE(db_->list_collection_names().empty());
  EXPECT_EQ(code_of([&] { db_->create_collection("c", with_validator(J(R"({"$where": "1"})"))); }),
            static_cast<int32_t>(ErrorCode::kBadValue));
  EXPECT_EQ(code_of([&] { db_->create_collection("c", with_validator(name_schema(), "loose")); }),
            static_cast<int32_t>(ErrorCode::kBadValue));
  EXPECT_EQ(code_of([&] {
              db_->create_collection("c", with_validator(name_schema(), std::nullopt, "ignore"));
            }),
            static_cast<int32_t>(ErrorCode::kBadValue));
  EXPECT_EQ(
      code_of([&] { db_->create_collection("c", with_validator(J(R"({"a": {"$bad": 1}})"))); }),
      static_cast<int32_t>(ErrorCode::kBadValue));
  // collMod of a missing collection.
  EXPECT_EQ(code_of([&] { db_->modify_collection("missing", with_validator(name_schema())); }),
            static_cast<int32_t>(ErrorCode::kNamespaceNotFound));
  // A bad collMod changes nothing.
  db_->create_collection("c", with_validator(name_schema()));
  EXPECT_NE(code_of([&] {
              db_->modify_collection("c", with_validator(op("$jsonSchema", R"({"type": "nope"})")));
            }),
            0);
  EXPECT_EQ(db_->collection_options("c").to_json(),
            make_document("validator", name_schema()).to_json());
}

// Code and message of the Error `f` throws ({0, ""} when it throws none).
std::pair<int32_t, std::string> error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  return {0, ""};
}

TEST_P(CollectionValidator, ValidatorsAreRefusedWhereMongodRefusesThem) {
  constexpr int32_t kInvalidOptions = 72;
  for (std::string_view name : {"admin", "local", "config"}) {
    Database db = client_->database(name);
    auto [code, message] =
        error_of([&] { db.create_collection("c", with_validator(name_schema())); });
    EXPECT_EQ(code, kInvalidOptions) << name;
    EXPECT_EQ(message, "Document validators are not allowed on collections in the " +
                           std::string(name) + " database");
    // Without a validator the collection is made; collMod cannot add one either.
    db.create_collection("c", CollectionOptions());
    std::tie(code, message) =
        error_of([&] { db.modify_collection("c", with_validator(name_schema())); });
    EXPECT_EQ(code, kInvalidOptions) << name;
    EXPECT_EQ(message, "Document validators are not allowed on collections in the " +
                           std::string(name) + " database");
    EXPECT_TRUE(db.collection_options("c").empty()) << db.collection_options("c").to_json();
    db.collection("c").drop();
  }
  auto [code, message] =
      error_of([&] { db_->create_collection("system.x", with_validator(name_schema())); });
  EXPECT_EQ(code, kInvalidOptions);
  EXPECT_EQ(message, "Document validators not allowed on system collection vdb.system.x");
  EXPECT_TRUE(db_->list_collection_names().empty());
  // An empty validator is no validator: allowed everywhere.
  client_->database("admin").create_collection("d", with_validator(Document()));
  client_->database("admin").collection("d").drop();
}

TEST_P(CollectionValidator, ErrInfoDetailsNameTheRulesNotSatisfied) {
  db_->create_collection(
      "c", with_validator(op("$jsonSchema", R"({"title": "person", "required": ["name", "age"],
                                                "properties": {"name": {"bsonType": "string",
                                                "description": "must be a string"}}})")));
  auto e = validation_error([&] { coll().insert_one(J(R"({"_id": 1, "name": 5})")); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->err_info().to_json(), J(R"({"failingDocumentId": 1, "details": {
      "operatorName": "$jsonSchema", "title": "person", "schemaRulesNotSatisfied": [
        {"operatorName": "properties", "propertiesNotSatisfied": [
          {"propertyName": "name", "description": "must be a string", "details": [
            {"operatorName": "bsonType", "specifiedAs": {"bsonType": "string"},
             "reason": "type did not match", "consideredValue": 5,
             "consideredType": "int"}]}]},
        {"operatorName": "required", "specifiedAs": {"required": ["name", "age"]},
         "missingProperties": ["age"]}]}})")
                                         .to_json());
  db_->create_collection("q", with_validator(J(R"({"a": {"$gte": 10}, "b": 1})")));
  e = validation_error([&] { coll("q").insert_one(J(R"({"_id": 1, "a": 3, "b": 1})")); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->err_info().to_json(), J(R"({"failingDocumentId": 1, "details": {
      "operatorName": "$and", "clausesNotSatisfied": [
        {"index": 0, "details": {"operatorName": "$gte", "specifiedAs": {"a": {"$gte": 10}},
                                 "reason": "comparison failed", "consideredValue": 3}}]}})")
                                         .to_json());
}

TEST_P(CollectionValidator, SurvivesReopen) {
  if (GetParam() != Backend::kDurable) GTEST_SKIP() << "needs a durable data directory";
  db_->create_collection("c", with_validator(name_schema(), "moderate", "error"));
  db_.reset();
  client_.reset();  // closes the engine
  connect();
  EXPECT_EQ(db_->collection_options("c").to_json(),
            make_document("validator", name_schema(), "validationLevel", "moderate",
                          "validationAction", "error")
                .to_json());
  EXPECT_EQ(code_of([&] { coll().insert_one(J(R"({"_id": 1})")); }), kValidationFailure);
  coll().insert_one(J(R"({"_id": 2, "name": "x"})"));
  // An $expr validator is compiled again at open.
  db_->create_collection("expr", with_validator(op("$expr", R"({"$gt": ["$a", "$b"]})")));
  db_.reset();
  client_.reset();
  connect();
  EXPECT_EQ(code_of([&] { coll("expr").insert_one(J(R"({"_id": 1, "a": 1, "b": 2})")); }),
            kValidationFailure);
  coll("expr").insert_one(J(R"({"_id": 2, "a": 3, "b": 2})"));
  // A collMod is durable too.
  db_->modify_collection("c", with_validator(J(R"({"a": 1})"), "strict"));
  db_.reset();
  client_.reset();
  connect();
  EXPECT_EQ(db_->collection_options("c").to_json(),
            make_document("validator", J(R"({"a": 1})"), "validationLevel", "strict",
                          "validationAction", "error")
                .to_json());
  EXPECT_EQ(code_of([&] { coll().insert_one(J(R"({"_id": 3, "name": "x"})")); }),
            kValidationFailure);
}

// The dispatch collection of ../shared/reference/httk-store-mongo.md §1.4 (see
// tests/matcher/json_schema_test.cc, JsonSchemaHttkShapes), as a collection validator.
TEST_P(CollectionValidator, HttkDispatchShapeIsEnforced) {
  Document validator = op("$jsonSchema", R"({
    "bsonType": "object",
    "required": ["_id", "record", "sid"],
    "additionalProperties": false,
    "properties": {
      "_id": {"bsonType": "string"},
      "record": {"enum": ["Structure", "Computation"]},
      "sid": {"bsonType": ["int", "long"]}
    }
  })");
  db_->create_collection("dispatch", with_validator(validator, "strict", "error"));
  Collection dispatch = coll("dispatch");
  dispatch.insert_one(J(R"({"_id": "k1", "record": "Structure", "sid": 4})"));
  dispatch.insert_one(J(R"({"_id": "k2", "record": "Computation", "sid": {"$numberLong": "4"}})"));
  for (const char* bad : {R"({"_id": "k3", "record": "Other", "sid": 4})",
                          R"({"_id": 3, "record": "Structure", "sid": 4})",
                          R"({"_id": "k3", "record": "Structure", "sid": 4.5})",
                          R"({"_id": "k3", "record": "Structure"})",
                          R"({"_id": "k3", "record": "Structure", "sid": 4, "x": 0})"}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(code_of([&] { dispatch.insert_one(J(bad)); }), kValidationFailure);
  }
  EXPECT_EQ(code_of([&] {
              dispatch.update_one(J(R"({"_id": "k1"})"), J(R"({"$set": {"sid": "four"}})"));
            }),
            kValidationFailure);
  EXPECT_EQ(dispatch.count_documents(Document()), 2);
}

INSTANTIATE_TEST_SUITE_P(Backends, CollectionValidator, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::client
