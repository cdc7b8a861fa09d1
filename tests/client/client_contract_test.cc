// The Client seam's contract, written once and run per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/client/bulk_write.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "support/backend.h"
#include "support/error_code.h"
#include "support/temp_dir.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_document;

using testing::Backend;

class ClientContract : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { client_ = backend_.connect(GetParam()); }
  testing::BackendHolder backend_;
  std::shared_ptr<Client> client_;
};

TEST_P(ClientContract, RoundTripThroughHandles) {
  auto coll = client_->database("shop").collection("orders");
  coll.insert_one(make_document("_id", 1, "total", 9.5));
  coll.insert_many({make_document("_id", 2), make_document("_id", 3)});
  EXPECT_EQ(coll.count_documents(Document()), 3);
  auto doc = coll.find_one(make_document("_id", 1));
  ASSERT_TRUE(doc);
  EXPECT_DOUBLE_EQ(doc->get("total").as_double(), 9.5);
  EXPECT_EQ(client_->list_database_names(), (std::vector<std::string>{"shop"}));
  EXPECT_EQ(client_->database("shop").list_collection_names(),
            (std::vector<std::string>{"orders"}));
  EXPECT_EQ(coll.replace_one(make_document("_id", 2), make_document("v", 1)).modified_count, 1);
  EXPECT_EQ(coll.delete_one(make_document("_id", 3)), 1);
  EXPECT_EQ(coll.count_documents(Document()), 2);
  EXPECT_TRUE(coll.drop());
  EXPECT_TRUE(client_->list_database_names().empty());
}

TEST_P(ClientContract, DuplicateKeyIsTyped) {
  auto coll = client_->database("db").collection("c");
  coll.insert_one(make_document("_id", "x"));
  EXPECT_THROW(coll.insert_one(make_document("_id", "x")), DuplicateKeyError);
}

TEST_P(ClientContract, InsertManyIsOrderedAndStopsAtTheFirstError) {
  auto coll = client_->database("db").collection("c");
  coll.insert_one(make_document("_id", 2));
  EXPECT_THROW(
      coll.insert_many({make_document("_id", 1), make_document("_id", 2), make_document("_id", 3)}),
      DuplicateKeyError);
  EXPECT_TRUE(coll.find_one(make_document("_id", 1)));
  EXPECT_FALSE(coll.find_one(make_document("_id", 3)));
}

TEST_P(ClientContract, UpsertByIdCreatesOnce) {
  auto coll = client_->database("db").collection("c");
  auto r = coll.replace_one(make_document("_id", "k"), make_document("n", 1), /*upsert=*/true);
  EXPECT_EQ(r.matched_count, 0);
  ASSERT_TRUE(r.upserted_id.has_value());
  EXPECT_EQ(r.upserted_id->view().as_string(), "k");
  r = coll.replace_one(make_document("_id", "k"), make_document("n", 2), true);
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_FALSE(r.upserted_id.has_value());
  EXPECT_EQ(coll.count_documents(Document()), 1);
}

// replaceOne, deleteOne and deleteMany take a hint on every backend: through a sparse index
// only the documents it holds are candidates, and a hint naming no index fails BadValue with
// nothing written.
TEST_P(ClientContract, ReplaceAndDeleteHonourTheHint) {
  auto coll = client_->database("db").collection("c");
  for (int i = 0; i < 6; ++i) {
    coll.insert_one(i % 2 == 0 ? make_document("_id", i, "k", 1)
                               : make_document("_id", i, "k", 1, "a", i));
  }
  coll.create_index(make_document("a", 1), make_document("sparse", true));
  IndexHint sparse;
  sparse.name = "a_1";
  ReplaceOptions replace;
  replace.hint = sparse;
  auto r = coll.replace_one(make_document("k", 1), make_document("k", 2), replace);
  EXPECT_EQ(r.matched_count, 1);
  auto replaced = coll.find_one(make_document("k", 2));
  ASSERT_TRUE(replaced);
  EXPECT_EQ(replaced->get("_id").as_int32() % 2, 1);  // one the sparse index holds
  DeleteOptions remove;
  remove.hint = sparse;
  // The replacement has no `a`, so it left the index: two odd ids remain there.
  EXPECT_EQ(coll.delete_many(Document(), remove), 2);
  EXPECT_EQ(coll.count_documents(Document()), 4);
  IndexHint missing;
  missing.keys = make_document("zz", 1);
  remove.hint = missing;
  replace.hint = missing;
  for (auto write : {std::function<void()>([&] { coll.delete_one(Document(), remove); }),
                     std::function<void()>(
                         [&] { coll.replace_one(Document(), make_document("k", 3), replace); })}) {
    try {
      write();
      ADD_FAILURE() << "expected BadValue";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), static_cast<int>(ErrorCode::kBadValue)) << e.what();
    }
  }
  EXPECT_EQ(coll.count_documents(Document()), 4);
  EXPECT_EQ(coll.count_documents(make_document("k", 3)), 0);
}

// $out replaces the target atomically and keeps its indexes, as MongoDB's does: a failing
// $out (here a duplicate `_id` in the results) leaves the target as it was.
TEST_P(ClientContract, OutReplacesTheTargetAtomicallyAndKeepsItsIndexes) {
  auto db = client_->database("db");
  auto source = db.collection("source");
  auto target = db.collection("target");
  for (int i = 0; i < 4; ++i) source.insert_one(make_document("_id", i, "v", i * 10));
  target.insert_one(make_document("_id", 100, "v", -1));
  target.create_index(make_document("v", 1), make_document("unique", true));
  source
      .aggregate({make_document("$match", make_document("v", make_document("$gte", 10))),
                  make_document("$out", "target")})
      ->to_vector();
  EXPECT_EQ(target.count_documents(Document()), 3);
  EXPECT_FALSE(target.find_one(make_document("_id", 100)));
  bool kept = false;
  for (const Document& index : target.list_indexes()) {
    kept = kept || index.get("name").as_string() == "v_1";
  }
  EXPECT_TRUE(kept) << "the target's index was dropped";
  // Two results with one `_id`: DuplicateKey, and the target keeps its three documents.
  auto duplicate = {make_document("$project", make_document("_id", 0, "v", 1)),
                    make_document("$addFields", make_document("_id", "same")),
                    make_document("$out", "target")};
  EXPECT_THROW(source.aggregate(std::vector<Document>(duplicate))->to_vector(), Error);
  EXPECT_EQ(target.count_documents(Document()), 3);
  // The unique index holds for $out's results too.
  auto clash = {make_document("$addFields", make_document("v", 7)),
                make_document("$out", "target")};
  EXPECT_THROW(source.aggregate(std::vector<Document>(clash))->to_vector(), Error);
  EXPECT_EQ(target.count_documents(Document()), 3);
  // A failing $out into a new collection creates nothing.
  auto fresh = {make_document("$addFields", make_document("_id", "same")),
                make_document("$out", "fresh")};
  EXPECT_THROW(source.aggregate(std::vector<Document>(fresh))->to_vector(), Error);
  auto names = db.list_collection_names();
  EXPECT_EQ(std::count(names.begin(), names.end(), "fresh"), 0);
}

// updateOne and replaceOne with a sort write the first match in that order (MongoDB 8.0);
// updateMany with a sort is refused.
std::vector<int32_t> ids_of(std::unique_ptr<Cursor> cursor) {
  std::vector<int32_t> ids;
  for (const Document& d : cursor->to_vector()) ids.push_back(d.get("_id").as_int32());
  return ids;
}

// A command's `let` (MongoDB 5.0): $$name in the filter's $expr (also inside $or) and in an
// update pipeline, on find, update, replace, delete, findAndModify and bulk writes alike.
TEST_P(ClientContract, LetVariablesReachExprFiltersAndUpdatePipelines) {
  auto coll = client_->database("db").collection("c");
  coll.insert_many({make_document("_id", 1, "qty", 5), make_document("_id", 2, "qty", 9),
                    make_document("_id", 3, "qty", 12), make_document("_id", 4, "qty", 20)});
  const Document above = Document::from_json(R"({"$expr": {"$gt": ["$qty", "$$min"]}})");
  FindOptions find;
  find.sort = make_document("_id", 1);
  find.let = make_document("min", 8);
  EXPECT_EQ(ids_of(coll.find(above, find)), (std::vector<int32_t>{2, 3, 4}));
  // The values are expressions, evaluated once.
  find.let = Document::from_json(R"({"min": {"$add": [6, 6]}})");
  EXPECT_EQ(ids_of(coll.find(above, find)), (std::vector<int32_t>{4}));
  find.let = make_document("id", 1);
  EXPECT_EQ(ids_of(coll.find(Document::from_json(
                                 R"({"$or": [{"$expr": {"$eq": ["$_id", "$$id"]}}, {"qty": 12}]})"),
                             find)),
            (std::vector<int32_t>{1, 3}));

  UpdateOptions update;
  update.let = Document::from_json(R"({"cap": 10, "tag": "capped"})");
  auto updated = coll.update_many(
      Document::from_json(R"({"$expr": {"$lt": ["$qty", "$$cap"]}})"),
      std::vector<Document>{Document::from_json(R"({"$set": {"qty": "$$cap", "tag": "$$tag"}})")},
      update);
  EXPECT_EQ(updated.modified_count, 2);
  EXPECT_EQ(*coll.find_one(make_document("_id", 2)),
            make_document("_id", 2, "qty", 10, "tag", "capped"));

  const Document by_id = Document::from_json(R"({"$expr": {"$eq": ["$_id", "$$id"]}})");
  ReplaceOptions replace;
  replace.let = make_document("id", 3);
  EXPECT_EQ(coll.replace_one(by_id, make_document("v", 1), replace).modified_count, 1);
  EXPECT_EQ(*coll.find_one(make_document("_id", 3)), make_document("_id", 3, "v", 1));

  FindAndModifyOptions modify;
  modify.let = Document::from_json(R"({"id": 4, "half": 0.5})");
  modify.return_document = ReturnDocument::kAfter;
  auto after = coll.find_one_and_update(
      by_id,
      std::vector<Document>{
          Document::from_json(R"({"$set": {"qty": {"$multiply": ["$qty", "$$half"]}}})")},
      modify);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->get("qty").as_double(), 10.0);

  BulkWriteOptions bulk;
  bulk.let = make_document("id", 1);
  UpdateMany mark;
  mark.filter = by_id;
  mark.update = Document::from_json(R"({"$set": {"bulk": true}})");
  EXPECT_EQ(bulk_write(coll, {mark}, bulk).modified_count, 1);
  EXPECT_TRUE(coll.find_one(make_document("_id", 1, "bulk", true)));

  DeleteOptions remove;
  remove.let = make_document("id", 2);
  EXPECT_EQ(coll.delete_many(by_id, remove), 1);
  EXPECT_EQ(coll.count_documents(Document()), 3);

  // A variable nobody defined, and a name MongoDB rejects, fail with mongod's codes.
  EXPECT_EQ(testing::code_of([&] { coll.find(above)->to_vector(); }), 17276);
  FindOptions bad;
  bad.let = make_document("Min", 1);
  EXPECT_EQ(testing::code_of([&] { coll.find(above, bad)->to_vector(); }), 16870);
  DeleteOptions bad_delete;
  bad_delete.let = make_document("Min", 1);
  EXPECT_EQ(testing::code_of([&] { coll.delete_many(above, bad_delete); }), 16870);
  EXPECT_EQ(coll.count_documents(Document()), 3);
}

// A database-level aggregation ({aggregate: 1}) starts from $documents; $merge's
// whenMatched: "fail" is a DuplicateKeyError carrying the `on` fields and their values.
TEST_P(ClientContract, DatabaseLevelAggregateAndMergeDuplicateKey) {
  auto db = client_->database("db");
  auto docs = db.aggregate({Document::from_json(R"({"$documents": [{"a": 2}, {"a": 1}]})"),
                            Document::from_json(R"({"$sort": {"a": 1}})")})
                  ->to_vector();
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0], make_document("a", 1));
  db.collection("t").insert_one(make_document("_id", 2, "x", 1));
  db.aggregate({Document::from_json(R"({"$documents": [{"_id": 3, "x": 1}]})"),
                Document::from_json(R"({"$merge": {"into": "t"}})")});
  EXPECT_EQ(db.collection("t").count_documents(Document()), 2);
  try {
    db.aggregate({Document::from_json(R"({"$documents": [{"_id": 2, "x": 1}]})"),
                  Document::from_json(R"({"$merge": {"into": "t", "whenMatched": "fail"}})")});
    ADD_FAILURE() << "expected a DuplicateKeyError";
  } catch (const DuplicateKeyError& e) {
    EXPECT_EQ(e.code(), 11000);
    EXPECT_EQ(e.key_pattern(), make_document("_id", 1));
    EXPECT_EQ(e.key_value(), make_document("_id", 2));
  }
  // Any other first stage needs a collection.
  EXPECT_EQ(testing::code_of([&] { db.aggregate({make_document("$match", Document())}); }), 73);
}

// The sort of updateOne / replaceOne is MongoDB 8.0's. The embedded engine has it; the remote
// backend sends it, and `mongostore serve`, which implements 7.0 (docs/compatibility.md),
// refuses it as a 7.0 server does: BSON field 'update.updates.sort' is an unknown field.
TEST_P(ClientContract, UpdateOneAndReplaceOneWriteTheFirstMatchInSortOrder) {
  auto coll = client_->database("db").collection("c");
  for (int i = 1; i <= 4; ++i) coll.insert_one(make_document("_id", i, "rank", 10 - i));
  UpdateOptions update;
  update.sort = make_document("rank", 1);  // lowest rank: _id 4
  if (GetParam() == Backend::kRemote) {
    auto set = make_document("$set", make_document("hit", 1));
    EXPECT_EQ(testing::code_of([&] { coll.update_one(Document(), set, update); }), 40415);
    ReplaceOptions replace;
    replace.sort = make_document("_id", -1);
    EXPECT_EQ(testing::code_of([&] { coll.replace_one(Document(), make_document(), replace); }),
              40415);
    EXPECT_EQ(coll.count_documents(make_document("hit", 1)), 0);
    return;
  }
  EXPECT_EQ(coll.update_one(Document(), make_document("$set", make_document("hit", 1)), update)
                .modified_count,
            1);
  EXPECT_TRUE(coll.find_one(make_document("_id", 4, "hit", 1)));
  ReplaceOptions replace;
  replace.sort = make_document("_id", -1);
  replace.hint.name = "_id_";
  EXPECT_EQ(coll.replace_one(make_document("_id", make_document("$lt", 4)),
                             make_document("rank", 0), replace)
                .modified_count,
            1);
  EXPECT_TRUE(coll.find_one(make_document("_id", 3, "rank", 0)));
  // In a bulk write too.
  UpdateOne model;
  model.update = make_document("$set", make_document("bulk", 1));
  model.sort = make_document("rank", -1);  // highest rank: _id 1 (9)
  bulk_write(coll, {model});
  EXPECT_TRUE(coll.find_one(make_document("_id", 1, "bulk", 1)));
  try {
    coll.update_many(Document(), make_document("$set", make_document("all", 1)), update);
    ADD_FAILURE() << "expected InvalidOptions";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), static_cast<int>(ErrorCode::kInvalidOptions)) << e.what();
  }
  EXPECT_EQ(coll.count_documents(make_document("all", 1)), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, ClientContract, testing::all_backends(),
                         testing::backend_test_name);

TEST(Connect, UrisAreDocumentedAndCheckedLoudly) {
  // Nothing listens on port 1: the first round trip fails with HostUnreachable once server
  // selection gives up, as a typed error rather than a hang or a crash.
  try {
    auto remote = connect("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200");
    EXPECT_EQ(remote->backend_name(), "remote");
    remote->ping();
    FAIL() << "ping of an unreachable server must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 6) << e.what();
  }
  // Each malformed URI fails BadValue, naming what is wrong; none is opened with a default.
  auto bad_value = [](const std::string& uri, const std::string& named) {
    try {
      connect(uri);
      ADD_FAILURE() << uri << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), 2) << uri << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << uri << ": " << e.what();
    }
  };
  bad_value("mongodb://127.0.0.1:notaport", "");
  bad_value("embedded:memory?bogus=1", "bogus");
  bad_value("embedded:/tmp/x?durability=sometimes", "sometimes");
  bad_value("embedded:memory?durability=durable", "embedded:memory");
  bad_value("embedded:memory?cacheSizeMB=lots", "'lots'");
  bad_value("embedded:memory?cacheSizeMB=0", "'0'");
  bad_value("embedded:memory?cacheSizeMB=-5", "'-5'");
  bad_value("embedded:memory?cacheSizeMB=10485761", "'10485761'");
  bad_value("embedded:memory?cacheSizeMB=99999999999999999999", "cacheSizeMB");
  bad_value("embedded:memory?cacheSizeMB=", "cacheSizeMB");
  bad_value("", "empty");
  EXPECT_EQ(connect("embedded:memory?cacheSizeMB=64&durability=in-memory")->backend_name(),
            "embedded");
  auto memory = connect("embedded:memory");
  EXPECT_EQ(memory->backend_name(), "embedded");
  memory->ping();
}

TEST(Connect, JournaledDirectoryUri) {
  testing::TempDir dir;
  {
    auto c = connect("embedded:" + dir.sub("j") + "?durability=journaled");
    c->database("db").collection("c").insert_one(make_document("_id", 1));
  }
  auto c = connect(dir.sub("j"));  // a bare path means embedded:<path>
  EXPECT_EQ(c->database("db").collection("c").count_documents(Document()), 1);
}

}  // namespace
}  // namespace mongostore::client
