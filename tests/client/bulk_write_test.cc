// bulk_write over the Client seam: ordered and unordered batches, counts, ids, write errors.
#include "mongostore/client/bulk_write.h"

#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/client/client.h"
#include "support/backend.h"
#include "support/temp_dir.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

using testing::Backend;

class BulkWrite : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    client_ = backend_.connect(GetParam());
    coll_.emplace(client_->database("db").collection("c"));
  }
  const Collection& coll() const { return *coll_; }

  /// The `x` field of the document with `_id` id, or -1 when there is none.
  int64_t x_of(int id) const {
    auto doc = coll().find_one(make_document("_id", id));
    if (!doc) return -1;
    int64_t x = -1;
    doc->get("x").number_as_exact_int64(&x);
    return x;
  }

  /// Inserts {_id: 1, x: 11} and {_id: 2, x: 22}.
  void seed() const {
    coll().insert_many({make_document("_id", 1, "x", 11), make_document("_id", 2, "x", 22)});
  }

  testing::BackendHolder backend_;
  std::shared_ptr<Client> client_;
  std::optional<Collection> coll_;
};

Document inc_x() {
  return make_document("$inc", make_document("x", 1));
}

int32_t int_of(const bson::OwnedValue& v) {
  return v.view().as_int32();
}

TEST_P(BulkWrite, MixedOrderedBatchCountsEveryKindOfWrite) {
  seed();
  std::vector<WriteModel> ops = {
      InsertOne{make_document("_id", 3, "x", 33)},
      UpdateOne{make_document("_id", 2), inc_x()},
      UpdateMany{make_document("_id", make_document("$gt", 1)), inc_x()},
      InsertOne{make_document("_id", 4, "x", 44)},
      DeleteMany{make_document("x", make_document("$nin", make_array(24, 34)))},
      ReplaceOne{make_document("_id", 4), make_document("_id", 4, "x", 44), true},
  };
  BulkWriteResult r = bulk_write(coll(), ops);
  EXPECT_EQ(r.inserted_count, 2);
  EXPECT_EQ(r.matched_count, 3);
  EXPECT_EQ(r.modified_count, 3);
  EXPECT_EQ(r.deleted_count, 2);
  EXPECT_EQ(r.upserted_count, 1);
  ASSERT_EQ(r.inserted_ids.size(), 2u);
  EXPECT_EQ(int_of(r.inserted_ids.at(0)), 3);
  EXPECT_EQ(int_of(r.inserted_ids.at(3)), 4);
  ASSERT_EQ(r.upserted_ids.size(), 1u);
  EXPECT_EQ(int_of(r.upserted_ids.at(5)), 4);
  EXPECT_EQ(coll().count_documents(Document()), 3);
  EXPECT_EQ(x_of(2), 24);
  EXPECT_EQ(x_of(3), 34);
  EXPECT_EQ(x_of(4), 44);
}

TEST_P(BulkWrite, UpsertedIdsAreKeyedByOperationIndex) {
  std::vector<WriteModel> ops = {
      DeleteOne{make_document("_id", 99)},
      UpdateOne{make_document("_id", 1), make_document("$set", make_document("x", 1)), true},
      UpdateMany{make_document("_id", 2), make_document("$set", make_document("x", 2)), true},
      ReplaceOne{make_document("_id", 3), make_document("x", 3), true},
      UpdateOne{make_document("_id", 1), make_document("$set", make_document("x", 1)), true},
  };
  BulkWriteResult r = bulk_write(coll(), ops);
  EXPECT_EQ(r.upserted_count, 3);
  ASSERT_EQ(r.upserted_ids.size(), 3u);
  EXPECT_EQ(int_of(r.upserted_ids.at(1)), 1);
  EXPECT_EQ(int_of(r.upserted_ids.at(2)), 2);
  EXPECT_EQ(int_of(r.upserted_ids.at(3)), 3);
  // The last one matched the upserted document and changed nothing.
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(r.modified_count, 0);
  EXPECT_EQ(r.deleted_count, 0);
  EXPECT_EQ(x_of(3), 3);
}

TEST_P(BulkWrite, InsertWithoutIdReportsTheGeneratedId) {
  BulkWriteResult r = bulk_write(coll(), {InsertOne{make_document("x", 1)}});
  ASSERT_EQ(r.inserted_ids.size(), 1u);
  bson::Value id = r.inserted_ids.at(0).view();
  ASSERT_EQ(id.type(), bson::BsonType::kObjectId);
  auto doc = coll().find_one(make_document("x", 1));
  ASSERT_TRUE(doc);
  EXPECT_TRUE(bson::values_equal(doc->get("_id"), id));
}

TEST_P(BulkWrite, OrderedStopsAtTheFirstErrorWithThePartialResult) {
  seed();
  std::vector<WriteModel> ops = {
      InsertOne{make_document("_id", 3)},
      UpdateOne{make_document("_id", 1), inc_x()},
      InsertOne{make_document("_id", 2)},  // duplicate
      InsertOne{make_document("_id", 4)},  // never runs
      DeleteMany{Document()},              // never runs
  };
  try {
    bulk_write(coll(), ops);
    FAIL() << "expected BulkWriteError";
  } catch (const BulkWriteError& e) {
    EXPECT_EQ(e.error_code(), ErrorCode::kDuplicateKey);
    EXPECT_EQ(e.code_name(), "DuplicateKey");
    ASSERT_EQ(e.write_errors().size(), 1u);
    const WriteError& w = e.write_errors()[0];
    EXPECT_EQ(w.index, 2u);
    EXPECT_EQ(w.code, 11000);
    EXPECT_EQ(w.code_name(), "DuplicateKey");
    EXPECT_EQ(std::string(e.what()), w.errmsg);
    EXPECT_EQ(w.key_pattern, make_document("_id", 1));
    EXPECT_EQ(w.key_value, make_document("_id", 2));
    EXPECT_EQ(e.result().inserted_count, 1);
    EXPECT_EQ(e.result().matched_count, 1);
    EXPECT_EQ(e.result().modified_count, 1);
    EXPECT_EQ(e.result().deleted_count, 0);
    ASSERT_EQ(e.result().inserted_ids.size(), 1u);
    EXPECT_TRUE(e.result().inserted_ids.contains(0));
  }
  EXPECT_EQ(coll().count_documents(Document()), 3);
  EXPECT_EQ(x_of(1), 12);
  EXPECT_EQ(x_of(4), -1);
}

TEST_P(BulkWrite, UnorderedRunsEverythingAndCollectsAllErrors) {
  seed();
  std::vector<WriteModel> ops = {
      InsertOne{make_document("_id", 1)},  // duplicate
      InsertOne{make_document("_id", 3, "x", 33)},
      UpdateOne{make_document("_id", 2), make_document("$inc", make_document("x", "a"))},
      InsertOne{make_document("_id", 3)},  // duplicate of the batch's own insert
      DeleteOne{make_document("_id", 1)},
      ReplaceOne{make_document("_id", 2), make_document("_id", 7, "x", 0)},  // changes _id
  };
  try {
    bulk_write(coll(), ops, {.ordered = false});
    FAIL() << "expected BulkWriteError";
  } catch (const BulkWriteError& e) {
    ASSERT_EQ(e.write_errors().size(), 4u);
    EXPECT_EQ(e.write_errors()[0].index, 0u);
    EXPECT_EQ(e.write_errors()[0].code, 11000);
    EXPECT_EQ(e.write_errors()[1].index, 2u);
    EXPECT_EQ(e.write_errors()[1].code_name(), "TypeMismatch");
    EXPECT_EQ(e.write_errors()[2].index, 3u);
    EXPECT_EQ(e.write_errors()[2].code, 11000);
    EXPECT_EQ(e.write_errors()[3].index, 5u);
    EXPECT_EQ(e.write_errors()[3].code_name(), "ImmutableField");
    // The first error names the exception; the message says there are more.
    EXPECT_EQ(e.code(), 11000);
    EXPECT_NE(std::string(e.what()).find("3 more write errors"), std::string::npos) << e.what();
    EXPECT_EQ(e.result().inserted_count, 1);
    EXPECT_EQ(e.result().deleted_count, 1);
    EXPECT_EQ(e.result().matched_count, 0);
  }
  EXPECT_EQ(x_of(1), -1);
  EXPECT_EQ(x_of(2), 22);
  EXPECT_EQ(x_of(3), 33);
}

TEST_P(BulkWrite, ServerSideUpdateErrorsAreWriteErrors) {
  seed();
  // An unknown operator passes the driver-side check ($-prefixed) and fails in the engine.
  std::vector<WriteModel> ops = {
      UpdateOne{make_document("_id", 1), make_document("$frobnicate", make_document("x", 1))},
      UpdateOne{make_document("_id", 1), inc_x()},
  };
  try {
    bulk_write(coll(), ops);
    FAIL() << "expected BulkWriteError";
  } catch (const BulkWriteError& e) {
    ASSERT_EQ(e.write_errors().size(), 1u);
    EXPECT_EQ(e.write_errors()[0].index, 0u);
    EXPECT_EQ(e.error_code(), ErrorCode::kFailedToParse);
  }
  EXPECT_EQ(x_of(1), 11);
}

TEST_P(BulkWrite, BulkWriteErrorIsAMongostoreError) {
  seed();
  EXPECT_THROW(bulk_write(coll(), {InsertOne{make_document("_id", 1)}}), Error);
}

TEST_P(BulkWrite, UpdateModelsRequireOperatorsAndNothingIsWritten) {
  seed();
  auto expect_bad_value = [&](const std::vector<WriteModel>& ops, const std::string& contains) {
    try {
      bulk_write(coll(), ops, {.ordered = false});
      ADD_FAILURE() << "expected an error";
    } catch (const BulkWriteError& e) {
      ADD_FAILURE() << "validation must fail before any write: " << e.what();
    } catch (const Error& e) {
      EXPECT_EQ(e.error_code(), ErrorCode::kBadValue);
      EXPECT_NE(std::string(e.what()).find(contains), std::string::npos) << e.what();
    }
  };
  Document insert3 = make_document("_id", 3);
  expect_bad_value({InsertOne{insert3}, UpdateOne{make_document("_id", 1), make_document("x", 5)}},
                   "atomic modifiers");
  expect_bad_value({InsertOne{insert3}, UpdateMany{Document(), make_document("x", 5)}},
                   "atomic modifiers");
  expect_bad_value({InsertOne{insert3}, UpdateOne{make_document("_id", 1), Document()}},
                   "must not be empty");
  expect_bad_value({InsertOne{insert3},
                    UpdateOne{make_document("_id", 1),
                              make_document("$set", make_document("x", 1), "y", 2)}},  // mixed
                   "'y'");
  expect_bad_value({InsertOne{insert3}, ReplaceOne{make_document("_id", 1),
                                                   make_document("$set", make_document("x", 1))}},
                   "atomic modifiers");
  expect_bad_value({}, "at least one operation");
  EXPECT_EQ(coll().count_documents(Document()), 2);
  EXPECT_EQ(x_of(1), 11);
}

TEST_P(BulkWrite, ArrayFiltersReachTheUpdate) {
  coll().insert_one(
      make_document("_id", 1, "y", make_array(make_document("b", 3), make_document("b", 1))));
  coll().insert_one(
      make_document("_id", 2, "y", make_array(make_document("b", 0), make_document("b", 1))));
  Document update = make_document("$set", make_document("y.$[i].b", 2));
  std::vector<WriteModel> ops = {
      UpdateOne{make_document("_id", 1), update, false, {make_document("i.b", 3)}},
      UpdateMany{Document(), update, false, {make_document("i.b", 1)}},
  };
  BulkWriteResult r = bulk_write(coll(), ops);
  EXPECT_EQ(r.matched_count, 3);
  EXPECT_EQ(r.modified_count, 3);
  auto one = coll().find_one(make_document("_id", 1));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->get("y").as_array().get("0").as_document().get("b").as_int32(), 2);
  EXPECT_EQ(one->get("y").as_array().get("1").as_document().get("b").as_int32(), 2);
  auto two = coll().find_one(make_document("_id", 2));
  ASSERT_TRUE(two);
  EXPECT_EQ(two->get("y").as_array().get("0").as_document().get("b").as_int32(), 0);
  EXPECT_EQ(two->get("y").as_array().get("1").as_document().get("b").as_int32(), 2);
}

TEST_P(BulkWrite, DeletesAndNoOpUpdatesCount) {
  seed();
  coll().insert_one(make_document("_id", 3, "x", 11));
  std::vector<WriteModel> ops = {
      UpdateMany{make_document("x", 11), make_document("$set", make_document("x", 11))},
      DeleteOne{make_document("x", 11)},
      DeleteMany{make_document("x", make_document("$gte", 0))},
      DeleteOne{make_document("_id", 1)},
  };
  BulkWriteResult r = bulk_write(coll(), ops);
  EXPECT_EQ(r.matched_count, 2);
  EXPECT_EQ(r.modified_count, 0);
  EXPECT_EQ(r.deleted_count, 3);
  EXPECT_EQ(r.inserted_count, 0);
  EXPECT_TRUE(r.upserted_ids.empty());
  EXPECT_EQ(coll().count_documents(Document()), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, BulkWrite, testing::all_backends(), testing::backend_test_name);

}  // namespace
}  // namespace mongostore::client
