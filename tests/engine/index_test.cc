// Secondary indexes: kinds, uniqueness, maintenance on every write path, persistence,
// concurrency, the planner's choice (through explain) and results equal to a collection scan.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <random>
#include <thread>

#include "engine/sort_spec.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/engine/engine.h"
#include "support/explain.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

using testing::memory_engine;

class EngineIndex : public ::testing::Test {
 protected:
  void SetUp() override { e_ = memory_engine(); }
  std::vector<int32_t> ids(const Document& filter, FindOptions o = {}) {
    std::vector<int32_t> out;
    for (const auto& d : e_->find("db", "c", filter, o)->to_vector()) {
      out.push_back(d.get("_id").as_int32());
    }
    return out;
  }
  std::vector<int32_t> sorted_ids(const Document& filter) {
    auto v = ids(filter);
    std::sort(v.begin(), v.end());
    return v;
  }
  Document explain(const Document& filter, FindOptions o = {}) {
    return e_->explain_find("db", "c", filter, o);
  }
  static std::string stage(const Document& explain) { return testing::plan_stage(explain); }
  static std::string index_name(const Document& explain) { return testing::plan_index(explain); }
  static int64_t stat(const Document& explain, const char* name) {
    return testing::plan_stat(explain, name);
  }
  std::shared_ptr<Engine> e_;
};

TEST_F(EngineIndex, CreateListAndNames) {
  EXPECT_EQ(e_->create_index("db", "c", make_document("a", 1)), "a_1");
  EXPECT_EQ(e_->create_index("db", "c", make_document("a", 1, "b", -1)), "a_1_b_-1");
  EXPECT_EQ(e_->create_index("db", "c", make_document("x.y", 1),
                             make_document("name", "xy", "unique", true, "sparse", true)),
            "xy");
  auto indexes = e_->list_indexes("db", "c");
  ASSERT_EQ(indexes.size(), 4u);
  EXPECT_EQ(indexes[0], make_document("v", 2, "key", make_document("_id", 1), "name", "_id_"));
  EXPECT_EQ(indexes[1], make_document("v", 2, "key", make_document("a", 1), "name", "a_1"));
  EXPECT_EQ(indexes[2],
            make_document("v", 2, "key", make_document("a", 1, "b", -1), "name", "a_1_b_-1"));
  EXPECT_EQ(indexes[3], make_document("v", 2, "key", make_document("x.y", 1), "name", "xy",
                                      "unique", true, "sparse", true));
  try {
    e_->list_indexes("db", "missing");
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), 26);
  }
  EXPECT_THROW(e_->create_index("db", "c", make_document("a", 0)), Error);
  EXPECT_THROW(e_->create_index("db", "c", Document()), Error);
}

TEST_F(EngineIndex, ConflictsAndDrops) {
  e_->create_index("db", "c", make_document("a", 1));
  // Identical: a no-op.
  EXPECT_EQ(e_->create_index("db", "c", make_document("a", 1)), "a_1");
  EXPECT_EQ(e_->list_indexes("db", "c").size(), 2u);
  try {
    e_->create_index("db", "c", make_document("b", 1), make_document("name", "a_1"));
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), 86);  // IndexKeySpecsConflict
  }
  try {
    e_->create_index("db", "c", make_document("a", 1), make_document("unique", true));
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), 85);  // IndexOptionsConflict
  }
  try {
    e_->drop_index("db", "c", "_id_");
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), 72);
    EXPECT_STREQ(err.what(), "cannot drop _id index");
  }
  try {
    e_->drop_index("db", "c", "nope");
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), 27);
  }
  e_->create_index("db", "c", make_document("b", -1));
  e_->drop_index("db", "c", make_document("b", -1).view());
  e_->drop_index("db", "c", std::string_view("a_1"));
  EXPECT_EQ(e_->list_indexes("db", "c").size(), 1u);
  e_->create_index("db", "c", make_document("x", 1));
  e_->create_index("db", "c", make_document("y", 1));
  e_->drop_index("db", "c", std::string_view("*"));
  EXPECT_EQ(e_->list_indexes("db", "c").size(), 1u);
}

TEST_F(EngineIndex, EqualityAndRangeUseTheIndexOnTenThousandDocuments) {
  std::vector<Document> docs;
  for (int i = 0; i < 10000; ++i) docs.push_back(make_document("_id", i, "a", i, "b", i % 10));
  e_->insert_many("db", "c", docs);
  Document scan = explain(make_document("a", 5000));
  EXPECT_EQ(stage(scan), "COLLSCAN");
  EXPECT_EQ(stat(scan, "totalDocsExamined"), 10000);
  e_->create_index("db", "c", make_document("a", 1));
  Document eq = explain(make_document("a", 5000));
  EXPECT_EQ(stage(eq), "FETCH");
  EXPECT_EQ(index_name(eq), "a_1");
  EXPECT_EQ(stat(eq, "nReturned"), 1);
  EXPECT_EQ(stat(eq, "totalKeysExamined"), 1);
  EXPECT_EQ(stat(eq, "totalDocsExamined"), 1);
  Document range = explain(make_document("a", make_document("$gte", 100, "$lt", 110)));
  EXPECT_EQ(index_name(range), "a_1");
  EXPECT_EQ(stat(range, "nReturned"), 10);
  EXPECT_LE(stat(range, "totalKeysExamined"), 11);
  EXPECT_EQ(stat(range, "totalDocsExamined"), 10);
  EXPECT_EQ(range.get_path("queryPlanner.winningPlan.inputStage.indexBounds.a")
                .as_array()
                .get("0")
                .as_string(),
            "[100, 110)");
  Document in = explain(make_document("a", make_document("$in", make_array(7, 3, 9999))));
  EXPECT_EQ(stat(in, "nReturned"), 3);
  EXPECT_EQ(stat(in, "totalDocsExamined"), 3);
  EXPECT_EQ(sorted_ids(make_document("a", make_document("$in", make_array(7, 3, 9999)))),
            (std::vector<int32_t>{3, 7, 9999}));
  // Other filter fields are still checked on the fetched documents.
  EXPECT_EQ(sorted_ids(make_document("a", make_document("$lt", 30), "b", 5)),
            (std::vector<int32_t>{5, 15, 25}));
  EXPECT_EQ(e_->count_documents("db", "c", make_document("a", make_document("$gt", 9990))), 9);
  // A filter on an unindexed field is a collection scan.
  EXPECT_EQ(stage(explain(make_document("b", 3))), "COLLSCAN");
  // The sort on an indexed field needs no blocking sort.
  FindOptions o;
  o.sort = make_document("a", -1);
  o.limit = 3;
  Document sorted = explain(Document(), o);
  EXPECT_EQ(stage(sorted), "FETCH");
  EXPECT_EQ(stat(sorted, "totalDocsExamined"), 3);
  EXPECT_EQ(ids(Document(), o), (std::vector<int32_t>{9999, 9998, 9997}));
}

TEST_F(EngineIndex, CompoundAndDescending) {
  e_->create_index("db", "c", make_document("a", 1, "b", -1));
  int id = 0;
  for (int a = 0; a < 5; ++a) {
    for (int b = 0; b < 5; ++b)
      e_->insert_one("db", "c", make_document("_id", id++, "a", a, "b", b));
  }
  Document ex = explain(make_document("a", 2, "b", make_document("$gt", 2)));
  EXPECT_EQ(index_name(ex), "a_1_b_-1");
  EXPECT_EQ(stat(ex, "totalDocsExamined"), 2);
  EXPECT_EQ(sorted_ids(make_document("a", 2, "b", make_document("$gt", 2))),
            (std::vector<int32_t>{13, 14}));
  FindOptions o;
  o.sort = make_document("b", -1);
  EXPECT_EQ(ids(make_document("a", 3), o), (std::vector<int32_t>{19, 18, 17, 16, 15}));
  EXPECT_EQ(stage(explain(make_document("a", 3), o)), "FETCH");
  o.sort = make_document("a", -1, "b", 1);  // the reverse of the index order
  Document back = explain(make_document("a", make_document("$gte", 3)), o);
  EXPECT_EQ(stage(back), "FETCH");
  EXPECT_EQ(back.get_path("queryPlanner.winningPlan.inputStage.direction").as_string(), "backward");
  EXPECT_EQ(ids(make_document("a", make_document("$gte", 3)), o),
            (std::vector<int32_t>{20, 21, 22, 23, 24, 15, 16, 17, 18, 19}));
  o.sort = make_document("a", 1, "b", 1);  // not the index order: blocking sort
  EXPECT_EQ(stage(explain(make_document("a", 1), o)), "SORT");
  // Only a prefix of the fields can be used: {b: ...} alone is a collection scan.
  EXPECT_EQ(stage(explain(make_document("b", 1))), "COLLSCAN");
}

TEST_F(EngineIndex, UniqueViolationsOnInsertUpdateAndBuild) {
  e_->create_index("db", "c", make_document("a", 1), make_document("unique", true));
  e_->insert_one("db", "c", make_document("_id", 1, "a", 1));
  try {
    e_->insert_one("db", "c", make_document("_id", 2, "a", 1.0));
    FAIL();
  } catch (const DuplicateKeyError& err) {
    EXPECT_EQ(err.code(), 11000);
    EXPECT_STREQ(err.what(),
                 "E11000 duplicate key error collection: db.c index: a_1 dup key: { a: 1.0 }");
    EXPECT_EQ(err.key_pattern(), make_document("a", 1));
    EXPECT_EQ(err.key_value(), make_document("a", 1.0));
  }
  // The whole insert rolled back: no document, no stray index entry.
  EXPECT_FALSE(e_->find_by_id("db", "c", make_document("v", 2).get("v")).has_value());
  // A missing field is null: two documents without `a` collide.
  e_->insert_one("db", "c", make_document("_id", 3));
  try {
    e_->insert_one("db", "c", make_document("_id", 4, "b", 1));
    FAIL();
  } catch (const DuplicateKeyError& err) {
    EXPECT_STREQ(err.what(),
                 "E11000 duplicate key error collection: db.c index: a_1 dup key: { a: null }");
  }
  // An update into a taken key fails and leaves the document as it was.
  e_->insert_one("db", "c", make_document("_id", 5, "a", 5));
  EXPECT_THROW(e_->update_one("db", "c", make_document("_id", 5),
                              make_document("$set", make_document("a", 1))),
               DuplicateKeyError);
  EXPECT_EQ(e_->find_by_id("db", "c", make_document("v", 5).get("v"))->get("a").as_int32(), 5);
  EXPECT_THROW(e_->find_one_and_replace("db", "c", make_document("_id", 5), make_document("a", 1)),
               DuplicateKeyError);
  // Moving a key frees the old one.
  e_->update_one("db", "c", make_document("_id", 5), make_document("$set", make_document("a", 6)));
  e_->insert_one("db", "c", make_document("_id", 6, "a", 5));
  e_->delete_one("db", "c", make_document("a", 6));
  e_->insert_one("db", "c", make_document("_id", 7, "a", 6));
  EXPECT_EQ(e_->count_documents("db", "c", Document()), 4);
  // Compound unique: only the whole key must be distinct (and, since missing is null, the
  // documents already in db.c, which have neither field, would collide: use another one).
  e_->create_index("db", "u", make_document("x", 1, "y", 1), make_document("unique", true));
  e_->insert_one("db", "u", make_document("_id", 10, "x", 1, "y", 1));
  e_->insert_one("db", "u", make_document("_id", 11, "x", 1, "y", 2));
  try {
    e_->insert_one("db", "u", make_document("_id", 12, "x", 1, "y", 2));
    FAIL();
  } catch (const DuplicateKeyError& err) {
    EXPECT_STREQ(
        err.what(),
        "E11000 duplicate key error collection: db.u index: x_1_y_1 dup key: { x: 1, y: 2 }");
    EXPECT_EQ(err.key_value(), make_document("x", 1, "y", 2));
  }
  EXPECT_THROW(
      e_->create_index("db", "c", make_document("x", 1, "y", 1), make_document("unique", true)),
      DuplicateKeyError);
  // A build over duplicates fails and leaves nothing behind.
  e_->insert_one("db", "c", make_document("_id", 20, "a", 20, "d", 1));
  e_->insert_one("db", "c", make_document("_id", 21, "a", 21, "d", 1));
  Document sparse_unique = make_document("unique", true, "sparse", true);
  EXPECT_THROW(e_->create_index("db", "c", make_document("d", 1), sparse_unique),
               DuplicateKeyError);
  EXPECT_EQ(e_->list_indexes("db", "c").size(), 2u);
  e_->delete_one("db", "c", make_document("_id", 21));
  EXPECT_EQ(e_->create_index("db", "c", make_document("d", 1), sparse_unique), "d_1");
  EXPECT_THROW(e_->insert_one("db", "c", make_document("_id", 22, "d", 1)), DuplicateKeyError);
}

TEST_F(EngineIndex, MultikeyIndexes) {
  e_->create_index("db", "c", make_document("a", 1));
  e_->insert_one("db", "c", make_document("_id", 1, "a", make_array(1, 2, 3)));
  e_->insert_one("db", "c", make_document("_id", 2, "a", make_array(4, 11)));
  e_->insert_one("db", "c", make_document("_id", 3, "a", 7));
  e_->insert_one("db", "c", make_document("_id", 4, "a", make_array()));
  Document ex = explain(make_document("a", 2));
  EXPECT_EQ(index_name(ex), "a_1");
  EXPECT_TRUE(ex.get_path("queryPlanner.winningPlan.inputStage.isMultiKey").as_bool());
  EXPECT_EQ(ids(make_document("a", 2)), (std::vector<int32_t>{1}));
  // One document per match even though it has several keys in range.
  EXPECT_EQ(sorted_ids(make_document("a", make_document("$gt", 0))),
            (std::vector<int32_t>{1, 2, 3}));
  // [4, 11] matches {$gt: 5, $lt: 10} (each condition by some element): bounds stay loose.
  EXPECT_EQ(sorted_ids(make_document("a", make_document("$gt", 5, "$lt", 10))),
            (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(sorted_ids(make_document("a", make_array())), (std::vector<int32_t>{4}));
  // No sort from a multikey index: MongoDB sorts arrays by their smallest element.
  FindOptions o;
  o.sort = make_document("a", 1);
  EXPECT_EQ(stage(explain(Document(), o)), "SORT");
  EXPECT_EQ(ids(Document(), o), (std::vector<int32_t>{4, 1, 2, 3}));
  // Updates and deletes maintain every element's entry.
  e_->update_one("db", "c", make_document("_id", 1), make_document("$pull", make_document("a", 2)));
  EXPECT_TRUE(ids(make_document("a", 2)).empty());
  EXPECT_EQ(ids(make_document("a", 3)), (std::vector<int32_t>{1}));
  e_->delete_many("db", "c", make_document("a", 11));
  EXPECT_TRUE(ids(make_document("a", 4)).empty());
  // Dotted paths through arrays of documents.
  e_->create_index("db", "c", make_document("s.k", 1));
  e_->insert_one(
      "db", "c",
      make_document("_id", 9, "s", make_array(make_document("k", "x"), make_document("k", "y"))));
  EXPECT_EQ(ids(make_document("s.k", "y")), (std::vector<int32_t>{9}));
  EXPECT_EQ(index_name(explain(make_document("s.k", "y"))), "s.k_1");
}

TEST_F(EngineIndex, ParallelArraysAreRejected) {
  e_->create_index("db", "c", make_document("a", 1, "b", 1));
  e_->insert_one("db", "c", make_document("_id", 1, "a", make_array(1, 2), "b", 1));
  try {
    e_->insert_one("db", "c", make_document("_id", 2, "a", make_array(1), "b", make_array(2)));
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), 171);
    EXPECT_STREQ(err.what(), "cannot index parallel arrays [b] [a]");
  }
  EXPECT_EQ(e_->count_documents("db", "c", Document()), 1);
  // And a build over such a document fails.
  e_->insert_one("db", "d", make_document("_id", 1, "x", make_array(1), "y", make_array(2)));
  EXPECT_THROW(e_->create_index("db", "d", make_document("x", 1, "y", 1)), Error);
  EXPECT_EQ(e_->list_indexes("db", "d").size(), 1u);
}

TEST_F(EngineIndex, SparseIndexes) {
  e_->create_index("db", "c", make_document("a", 1), make_document("sparse", true, "unique", true));
  e_->insert_one("db", "c", make_document("_id", 1, "a", 1));
  // Missing fields are not indexed, so they do not collide.
  e_->insert_one("db", "c", make_document("_id", 2));
  e_->insert_one("db", "c", make_document("_id", 3));
  e_->insert_one("db", "c", make_document("_id", 4, "a", bson::Null{}));
  EXPECT_THROW(e_->insert_one("db", "c", make_document("_id", 5, "a", bson::Null{})),
               DuplicateKeyError);
  EXPECT_EQ(index_name(explain(make_document("a", 1))), "a_1");
  EXPECT_EQ(ids(make_document("a", 1)), (std::vector<int32_t>{1}));
  // {a: null} also matches missing fields, which a sparse index lacks: not used.
  EXPECT_EQ(stage(explain(make_document("a", bson::Null{}))), "COLLSCAN");
  EXPECT_EQ(sorted_ids(make_document("a", bson::Null{})), (std::vector<int32_t>{2, 3, 4}));
  FindOptions o;
  o.sort = make_document("a", 1);
  EXPECT_EQ(ids(Document(), o).size(), 4u);  // a sort alone must not drop unindexed documents
}

TEST_F(EngineIndex, PartialIndexes) {
  e_->create_index(
      "db", "c", make_document("a", 1),
      make_document("unique", true, "partialFilterExpression", make_document("status", "A")));
  EXPECT_EQ(e_->list_indexes("db", "c")[1],
            make_document("v", 2, "key", make_document("a", 1), "name", "a_1", "unique", true,
                          "partialFilterExpression", make_document("status", "A")));
  e_->insert_one("db", "c", make_document("_id", 1, "a", 1, "status", "A"));
  e_->insert_one("db", "c", make_document("_id", 2, "a", 1, "status", "B"));  // not indexed
  EXPECT_THROW(e_->insert_one("db", "c", make_document("_id", 3, "a", 1, "status", "A")),
               DuplicateKeyError);
  // Moving a document into the filter indexes it (and can violate uniqueness).
  EXPECT_THROW(e_->update_one("db", "c", make_document("_id", 2),
                              make_document("$set", make_document("status", "A"))),
               DuplicateKeyError);
  EXPECT_EQ(index_name(explain(make_document("a", 1, "status", "A"))), "a_1");
  EXPECT_EQ(ids(make_document("a", 1, "status", "A")), (std::vector<int32_t>{1}));
  // Without the partial filter's condition the index could miss documents.
  EXPECT_EQ(stage(explain(make_document("a", 1))), "COLLSCAN");
  EXPECT_EQ(sorted_ids(make_document("a", 1)), (std::vector<int32_t>{1, 2}));
}

TEST_F(EngineIndex, CursorsResumeInTheIndexBetweenBatches) {
  e_->create_index("db", "c", make_document("a", 1));
  for (int i = 0; i < 50; ++i) {
    // Documents 0..9 are arrays with three elements in range: still returned once each.
    if (i < 10) {
      e_->insert_one("db", "c", make_document("_id", i, "a", make_array(i, i + 100, i + 200)));
    } else {
      e_->insert_one("db", "c", make_document("_id", i, "a", i));
    }
  }
  FindOptions o;
  o.batch_size = 7;
  auto cursor = e_->find("db", "c", make_document("a", make_document("$gte", 0)), o);
  std::vector<int32_t> seen;
  size_t batches = 0;
  while (!cursor->exhausted()) {
    auto batch = cursor->next_batch();
    EXPECT_LE(batch.size(), 7u);
    if (!batch.empty()) ++batches;
    for (const auto& d : batch) seen.push_back(d.get("_id").as_int32());
  }
  EXPECT_GE(batches, 8u);
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(seen[static_cast<size_t>(i)], i);
  // A sort from a non-multikey index, backwards, with skip and limit, in batches.
  e_->create_index("db", "c", make_document("n", -1));
  for (int i = 0; i < 30; ++i) e_->insert_one("db", "d", make_document("_id", i, "n", i % 10));
  e_->create_index("db", "d", make_document("n", -1));
  FindOptions s;
  s.sort = make_document("n", 1);
  s.skip = 2;
  s.limit = 20;
  s.batch_size = 3;
  auto sorted = e_->find("db", "d", make_document("n", make_document("$gte", 1)), s)->to_vector();
  ASSERT_EQ(sorted.size(), 20u);
  for (size_t i = 1; i < sorted.size(); ++i) {
    EXPECT_LE(sorted[i - 1].get("n").as_int32(), sorted[i].get("n").as_int32());
  }
  EXPECT_EQ(sorted.front().get("n").as_int32(), 1);
  EXPECT_EQ(stage(e_->explain_find("db", "d", make_document("n", make_document("$gte", 1)), s)),
            "FETCH");
  // Forwards through a non-multikey index, in batches: each document once.
  FindOptions four;
  four.batch_size = 4;
  std::vector<int32_t> forward;
  for (const auto& d :
       e_->find("db", "d", make_document("n", make_document("$lte", 8)), four)->to_vector()) {
    forward.push_back(d.get("_id").as_int32());
  }
  std::sort(forward.begin(), forward.end());
  EXPECT_EQ(forward.size(), 27u);
  EXPECT_EQ(std::unique(forward.begin(), forward.end()), forward.end());
  // Dropping the index under an open cursor kills it, as in MongoDB (QueryPlanKilled).
  FindOptions small;
  small.batch_size = 2;
  auto open = e_->find("db", "d", make_document("n", make_document("$gte", 0)), small);
  EXPECT_EQ(open->next_batch().size(), 2u);
  e_->drop_index("db", "d", std::string_view("n_-1"));
  try {
    open->next_batch();
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), 175);
  }
}

TEST_F(EngineIndex, EveryWritePathMaintainsEntries) {
  e_->create_index("db", "c", make_document("a", 1));
  e_->insert_one("db", "c", make_document("_id", 1, "a", 1));
  e_->replace_one("db", "c", make_document("_id", 1), make_document("a", 2));
  EXPECT_TRUE(ids(make_document("a", 1)).empty());
  EXPECT_EQ(ids(make_document("a", 2)), (std::vector<int32_t>{1}));
  e_->update_many("db", "c", make_document("a", 2), make_document("$inc", make_document("a", 1)));
  EXPECT_EQ(ids(make_document("a", 3)), (std::vector<int32_t>{1}));
  e_->find_one_and_update("db", "c", make_document("a", 3),
                          make_document("$set", make_document("a", 4)));
  EXPECT_EQ(ids(make_document("a", 4)), (std::vector<int32_t>{1}));
  UpdateOptions up;
  up.upsert = true;
  e_->update_one("db", "c", make_document("a", 9), make_document("$set", make_document("_id", 2)),
                 up);
  EXPECT_EQ(ids(make_document("a", 9)), (std::vector<int32_t>{2}));
  EXPECT_TRUE(e_->find_one_and_delete("db", "c", make_document("a", 4)).has_value());
  EXPECT_TRUE(ids(make_document("a", 4)).empty());
  EXPECT_EQ(e_->delete_many("db", "c", make_document("a", make_document("$gte", 0))), 1);
  EXPECT_EQ(e_->count_documents("db", "c", Document()), 0);
  Document ex = explain(make_document("a", make_document("$gte", 0)));
  EXPECT_EQ(stat(ex, "totalKeysExamined"), 0);  // no stale entries
}

TEST(EngineIndexDurable, IndexesSurviveReopenAndDropWithTheirCollection) {
  auto dir = std::filesystem::temp_directory_path() /
             ("mongostore-index-" + std::to_string(std::random_device{}()));
  EngineOptions o;
  o.path = dir.string();
  {
    auto e = Engine::open(o);
    e->create_index("db", "c", make_document("a", 1), make_document("unique", true));
    e->create_index("db", "c", make_document("t", 1));
    e->insert_one("db", "c", make_document("_id", 1, "a", 1, "t", make_array("x", "y")));
    e->create_index("db", "d", make_document("z", 1));
  }
  {
    auto e = Engine::open(o);
    auto indexes = e->list_indexes("db", "c");
    ASSERT_EQ(indexes.size(), 3u);
    EXPECT_EQ(indexes[1].get("name").as_string(), "a_1");
    EXPECT_THROW(e->insert_one("db", "c", make_document("_id", 2, "a", 1)), DuplicateKeyError);
    Document ex = e->explain_find("db", "c", make_document("t", "y"));
    EXPECT_EQ(ex.get_path("queryPlanner.winningPlan.inputStage.indexName").as_string(), "t_1");
    EXPECT_TRUE(ex.get_path("queryPlanner.winningPlan.inputStage.isMultiKey").as_bool());
    EXPECT_EQ(e->find("db", "c", make_document("t", "y"))->to_vector().size(), 1u);
    EXPECT_TRUE(e->drop_collection("db", "c"));
    e->drop_index("db", "d", std::string_view("z_1"));
  }
  {
    auto e = Engine::open(o);
    EXPECT_FALSE(e->collection_exists("db", "c"));
    EXPECT_EQ(e->list_indexes("db", "d").size(), 1u);
    e->insert_one("db", "c", make_document("_id", 1, "a", 1));
    e->insert_one("db", "c", make_document("_id", 2, "a", 1));  // the old unique index is gone
    EXPECT_EQ(e->list_indexes("db", "c").size(), 1u);
  }
  std::filesystem::remove_all(dir);
}

TEST_F(EngineIndex, ConcurrentInsertsOfOneUniqueKeyHaveOneWinner) {
  e_->create_index("db", "c", make_document("k", 1), make_document("unique", true));
  constexpr int kRounds = 200, kThreads = 4;
  for (int round = 0; round < kRounds; ++round) {
    std::atomic<int> wins{0}, dups{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        try {
          e_->insert_one("db", "c", make_document("_id", round * kThreads + t, "k", round));
          ++wins;
        } catch (const DuplicateKeyError&) {
          ++dups;
        }
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_EQ(wins.load(), 1) << "round " << round;
    ASSERT_EQ(dups.load(), kThreads - 1);
  }
  EXPECT_EQ(e_->count_documents("db", "c", Document()), kRounds);
}

TEST_F(EngineIndex, ConcurrentUpdatesIntoOneUniqueKeyHaveOneWinner) {
  e_->create_index("db", "c", make_document("k", 1), make_document("unique", true));
  constexpr int kRounds = 100, kThreads = 3;
  for (int t = 0; t < kThreads; ++t)
    e_->insert_one("db", "c", make_document("_id", t, "k", -1 - t));
  for (int round = 0; round < kRounds; ++round) {
    std::atomic<int> wins{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        try {
          e_->update_one("db", "c", make_document("_id", t),
                         make_document("$set", make_document("k", round)));
          ++wins;
        } catch (const DuplicateKeyError&) {
        }
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_EQ(wins.load(), 1) << "round " << round;
    ASSERT_EQ(e_->count_documents("db", "c", make_document("k", round)), 1);
  }
  // The index holds exactly one entry per document.
  Document ex = e_->explain_find("db", "c", make_document("k", make_document("$gte", -10)));
  EXPECT_EQ(ex.get_path("executionStats.totalKeysExamined").as_int64(), kThreads);
}

// Random documents and filters: the results through indexes equal those of a collection
// scan over the same documents.
TEST(EngineIndexProperty, IndexedResultsEqualCollectionScan) {
  auto e = memory_engine();
  std::mt19937 rng(12345);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  auto random_value = [&](bson::DocumentBuilder& b, const char* field) {
    switch (pick(9)) {
      case 0:
        return;  // missing
      case 1:
        b.append(field, bson::Null{});
        return;
      case 2:
        b.append(field, make_array(pick(10), pick(10)));
        return;
      case 3:
        b.append(field, std::string(1, static_cast<char>('a' + pick(5))));
        return;
      case 4:
        b.append(field, pick(10) + 0.5);
        return;
      case 5:
        b.append(field, make_array());
        return;
      default:
        b.append(field, pick(10));
    }
  };
  for (int i = 0; i < 600; ++i) {
    bson::DocumentBuilder b;
    b.append("_id", i);
    random_value(b, "a");
    if (pick(3) != 0) {
      // b is an array only when a is not, so the compound index accepts every document.
      bson::Document partial = b.finish();
      bson::DocumentBuilder again;
      again.append_elements(partial.view());
      if (partial.get("a").is_array()) {
        again.append("b", pick(10));
      } else {
        random_value(again, "b");
      }
      again.append("c", pick(4));
      Document d = again.finish();
      e->insert_one("db", "plain", d);
      e->insert_one("db", "indexed", d);
      continue;
    }
    b.append("c", pick(4));
    Document d = b.finish();
    e->insert_one("db", "plain", d);
    e->insert_one("db", "indexed", d);
  }
  e->create_index("db", "indexed", make_document("a", 1));
  e->create_index("db", "indexed", make_document("b", -1, "a", 1));
  e->create_index("db", "indexed", make_document("c", 1, "b", 1));
  e->create_index("db", "indexed", make_document("b", 1), make_document("sparse", true));
  e->create_index("db", "indexed", make_document("c", -1),
                  make_document("partialFilterExpression", make_document("c", 2)));
  auto random_condition = [&]() -> Document {
    int v = pick(10);
    switch (pick(9)) {
      case 0:
        return make_document("$gt", v);
      case 1:
        return make_document("$gte", v, "$lt", v + pick(5));
      case 2:
        return make_document("$lte", v);
      case 3:
        return make_document("$in", make_array(v, pick(10), "b"));
      case 4:
        return make_document("$eq", bson::Null{});
      case 5:
        return make_document("$gt", "b");
      case 6:
        return make_document("$lt", v + 0.5, "$gt", v - 3);
      case 7:
        return make_document("$ne", v);
      default:
        return make_document("$eq", v);
    }
  };
  const char* fields[] = {"a", "b", "c"};
  int used_index = 0;
  for (int q = 0; q < 400; ++q) {
    bson::DocumentBuilder f;
    int n = 1 + pick(2);
    for (int i = 0; i < n; ++i) f.append(fields[(q + i) % 3], random_condition());
    Document filter = f.finish();
    FindOptions o;
    o.batch_size = static_cast<size_t>(1 + pick(40));  // cursors resume in the index
    if (pick(3) == 0) o.sort = make_document(fields[pick(3)], pick(2) ? 1 : -1, "_id", 1);
    if (pick(4) == 0) o.sort = make_document(fields[pick(3)], pick(2) ? 1 : -1);
    if (pick(5) == 0) o.limit = 1 + pick(30);
    std::vector<Document> expected = e->find("db", "plain", filter, o)->to_vector();
    std::vector<Document> got = e->find("db", "indexed", filter, o)->to_vector();
    if (o.limit > 0 || (o.sort.view().count() == 1)) {
      // A limit, or a sort with ties, leaves the choice among equal documents open: compare
      // the sort keys and the counts, then the full sets without the limit below.
      ASSERT_EQ(got.size(), expected.size()) << filter.to_json() << " sort " << o.sort.to_json();
      if (!o.sort.empty()) {
        SortSpec spec = SortSpec::compile(o.sort.view());
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(spec.key_for(got[i].view()), spec.key_for(expected[i].view()))
              << filter.to_json() << " sort " << o.sort.to_json() << " at " << i;
        }
      }
      o.limit = 0;
      o.sort = Document();
      expected = e->find("db", "plain", filter, o)->to_vector();
      got = e->find("db", "indexed", filter, o)->to_vector();
    }
    if (o.sort.empty()) {
      auto by_id = [](const Document& x, const Document& y) {
        return x.get("_id").as_int32() < y.get("_id").as_int32();
      };
      std::sort(expected.begin(), expected.end(), by_id);
      std::sort(got.begin(), got.end(), by_id);
    }
    ASSERT_EQ(got.size(), expected.size()) << filter.to_json() << " sort " << o.sort.to_json();
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], expected[i]) << filter.to_json() << " sort " << o.sort.to_json();
    }
    ASSERT_EQ(e->count_documents("db", "indexed", filter),
              e->count_documents("db", "plain", filter))
        << filter.to_json();
    auto distinct_plain = e->distinct("db", "plain", "b", filter);
    auto distinct_indexed = e->distinct("db", "indexed", "b", filter);
    ASSERT_EQ(distinct_plain.size(), distinct_indexed.size()) << filter.to_json();
    for (size_t i = 0; i < distinct_plain.size(); ++i) {
      ASSERT_TRUE(bson::values_equal(distinct_plain[i].view(), distinct_indexed[i].view()))
          << filter.to_json();
    }
    Document ex = e->explain_find("db", "indexed", filter, o);
    std::string s(ex.get_path("queryPlanner.winningPlan.stage").as_string());
    if (s == "FETCH" || ex.get_path("queryPlanner.winningPlan.inputStage.stage").is_string()) {
      ++used_index;
    }
  }
  EXPECT_GT(used_index, 100);  // the comparison exercised the indexes

  // Writes through indexed filters keep both collections identical, and the indexes stay
  // consistent with the documents (queries still agree afterwards).
  for (int w = 0; w < 300; ++w) {
    Document filter = make_document(fields[pick(3)], random_condition());
    Document update;
    switch (pick(4)) {
      case 0:
        update = make_document("$set", make_document("a", make_array(pick(10), pick(10))));
        break;
      case 1:
        update = make_document("$inc", make_document("c", 1));
        break;
      case 2:
        update = make_document("$unset", make_document("a", ""));
        break;
      default:
        update = make_document("$set", make_document("a", pick(10), "b", pick(10)));
    }
    int op = pick(5);
    bool many = pick(4) == 0;
    auto apply = [&](const char* coll) -> int64_t {
      try {
        // Single-document writes take a sort: without one, "the first match" is in plan
        // order, which legitimately differs between the two collections.
        FindAndModifyOptions fo;
        fo.sort = make_document("_id", op == 3 ? -1 : 1);
        if (op == 0) return e->find_one_and_delete("db", coll, filter, fo).has_value() ? 1 : 0;
        if (op == 1) return e->update_many("db", coll, filter, update).modified_count;
        if (op == 2) {
          fo.sort = make_document("a", 1, "_id", 1);
          return e->find_one_and_update("db", coll, filter, update, fo).has_value() ? 1 : 0;
        }
        if (op == 4 && many) return e->delete_many("db", coll, filter);
        return e->find_one_and_update("db", coll, filter, update, fo).has_value() ? 1 : 0;
      } catch (const Error& err) {
        return -err.code();  // e.g. a $inc on a non-number: both sides must fail alike
      }
    };
    int64_t a = apply("plain");
    int64_t b = apply("indexed");
    if (a == -171 || b == -171) {
      // Parallel arrays: only the indexed side refuses, as in MongoDB. Undo on the plain side
      // by copying the indexed side's documents back.
      e->drop_collection("db", "plain");
      for (const auto& d : e->find("db", "indexed", Document())->to_vector()) {
        e->insert_one("db", "plain", d);
      }
      continue;
    }
    ASSERT_EQ(a, b) << filter.to_json() << " " << update.to_json() << " op " << op;
  }
  auto all_plain = e->find("db", "plain", Document())->to_vector();
  auto all_indexed = e->find("db", "indexed", Document())->to_vector();
  ASSERT_EQ(all_plain.size(), all_indexed.size());
  for (size_t i = 0; i < all_plain.size(); ++i) ASSERT_EQ(all_plain[i], all_indexed[i]);
  for (int q = 0; q < 200; ++q) {
    Document filter = make_document(fields[pick(3)], random_condition());
    auto expected = e->find("db", "plain", filter)->to_vector();
    auto got = e->find("db", "indexed", filter)->to_vector();
    auto by_id = [](const Document& x, const Document& y) {
      return x.get("_id").as_int32() < y.get("_id").as_int32();
    };
    std::sort(expected.begin(), expected.end(), by_id);
    std::sort(got.begin(), got.end(), by_id);
    ASSERT_EQ(got.size(), expected.size()) << filter.to_json();
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << filter.to_json();
  }
}

}  // namespace
}  // namespace mongostore::engine
