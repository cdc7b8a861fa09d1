// Queries and writes through the engine: filters, sort, distinct, updates, findAndModify.
#include <gtest/gtest.h>

#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

class EngineQuery : public ::testing::Test {
 protected:
  void SetUp() override { e_ = testing::memory_engine(); }
  std::vector<int32_t> ids(const Document& filter, FindOptions o = {}) {
    std::vector<int32_t> out;
    for (const auto& d : e_->find("db", "c", filter, o)->to_vector()) {
      out.push_back(d.get("_id").as_int32());
    }
    return out;
  }
  std::shared_ptr<Engine> e_;
};

TEST_F(EngineQuery, FilterSortSkipLimit) {
  e_->insert_one("db", "c", make_document("_id", 1, "a", 5, "tags", make_array("x", "y")));
  e_->insert_one("db", "c", make_document("_id", 2, "a", 3));
  e_->insert_one("db", "c", make_document("_id", 3, "a", make_array(1, 9)));
  e_->insert_one("db", "c", make_document("_id", 4));
  EXPECT_EQ(ids(make_document("tags", "x")), (std::vector<int32_t>{1}));
  EXPECT_EQ(ids(make_document("a", make_document("$gt", 4))), (std::vector<int32_t>{1, 3}));
  FindOptions o;
  o.sort = make_document("a", 1);
  // Missing sorts as null (first); the array sorts by its smallest element (1).
  EXPECT_EQ(ids(Document(), o), (std::vector<int32_t>{4, 3, 2, 1}));
  o.sort = make_document("a", -1);
  // Descending uses the largest element (9).
  EXPECT_EQ(ids(Document(), o), (std::vector<int32_t>{3, 1, 2, 4}));
  o.skip = 1;
  o.limit = 2;
  EXPECT_EQ(ids(Document(), o), (std::vector<int32_t>{1, 2}));
  o = FindOptions();
  o.sort = make_document("a", 2);
  EXPECT_THROW(ids(Document(), o), Error);
}

TEST_F(EngineQuery, DistinctFlattensArraysAndCollapsesEqualNumbers) {
  e_->insert_one("db", "c", make_document("_id", 1, "v", 1));
  e_->insert_one("db", "c", make_document("_id", 2, "v", 1.0));
  e_->insert_one("db", "c", make_document("_id", 3, "v", make_array(2, "x")));
  e_->insert_one("db", "c", make_document("_id", 4));
  auto values = e_->distinct("db", "c", "v", Document());
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0].view().number_as_double(), 1.0);
  EXPECT_EQ(values[1].view().as_int32(), 2);
  EXPECT_EQ(values[2].view().as_string(), "x");
}

TEST_F(EngineQuery, UpdateOperatorsAndNoOpUpdates) {
  e_->insert_one("db", "c", make_document("_id", 1, "n", 1, "arr", make_array(1, 2, 3)));
  auto r = e_->update_one(
      "db", "c", make_document("_id", 1),
      make_document("$inc", make_document("n", 2), "$push", make_document("arr", 4)));
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(r.modified_count, 1);
  auto doc = e_->find_one("db", "c", make_document("_id", 1));
  EXPECT_EQ(doc->get("n").as_int32(), 3);
  EXPECT_EQ(doc->get("arr").as_array().count(), 4u);
  r = e_->update_one("db", "c", make_document("_id", 1),
                     make_document("$set", make_document("n", 3)));
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(r.modified_count, 0);
  // Positional $ uses the array index the filter matched.
  e_->update_one("db", "c", make_document("_id", 1, "arr", 2),
                 make_document("$set", make_document("arr.$", 20)));
  doc = e_->find_one("db", "c", make_document("_id", 1));
  EXPECT_EQ(doc->get("arr").as_array().get("1").as_int32(), 20);
  // A failed update leaves the document untouched.
  EXPECT_THROW(e_->update_one("db", "c", make_document("_id", 1),
                              make_document("$inc", make_document("arr", 1))),
               Error);
  EXPECT_EQ(*e_->find_one("db", "c", make_document("_id", 1)), *doc);
  r = e_->update_many("db", "c", Document(), make_document("$set", make_document("flag", true)));
  EXPECT_EQ(r.modified_count, 1);
}

TEST_F(EngineQuery, UpsertSeedsFromTheFilter) {
  auto r = e_->update_one(
      "db", "c", make_document("k", "a", "n", make_document("$gt", 1)),
      make_document("$set", make_document("v", 1), "$setOnInsert", make_document("created", true)),
      UpdateOptions{.upsert = true});
  ASSERT_TRUE(r.upserted_id);
  auto doc = e_->find_one("db", "c", make_document("k", "a"));
  ASSERT_TRUE(doc);
  EXPECT_FALSE(doc->has("n"));  // only equality fields seed the document
  EXPECT_TRUE(doc->get("created").as_bool());
  EXPECT_EQ(doc->get("v").as_int32(), 1);
}

TEST_F(EngineQuery, FindOneAndUpdateCounterIsAtomic) {
  // The ExecutionStore's seq allocator: upsert + $inc + returnDocument: after.
  constexpr int kThreads = 8, kEach = 250;
  std::vector<std::vector<int64_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        FindAndModifyOptions o;
        o.upsert = true;
        o.return_document = ReturnDocument::kAfter;
        auto doc =
            e_->find_one_and_update("db", "counters", make_document("_id", "outbox"),
                                    make_document("$inc", make_document("n", int64_t(1))), o);
        got[t].push_back(doc->get("n").as_int64());
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<int64_t> all;
  for (auto& g : got) all.insert(all.end(), g.begin(), g.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), size_t(kThreads * kEach));
  for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], int64_t(i + 1));
  EXPECT_EQ(e_->count_documents("db", "counters", Document()), 1);
}

TEST_F(EngineQuery, FindAndModifyReportsWhetherItMatchedOrUpserted) {
  // The server's lastErrorObject is built from this, so it must be exact under concurrency.
  FindAndModifyOutcome outcome;
  FindAndModifyOptions o;
  o.upsert = true;
  o.return_document = ReturnDocument::kAfter;
  o.outcome = &outcome;
  auto inc = make_document("$inc", make_document("n", 1));
  auto first = e_->find_one_and_update("db", "c", make_document("k", "a"), inc, o);
  ASSERT_TRUE(first);
  EXPECT_FALSE(outcome.matched);
  ASSERT_TRUE(outcome.upserted_id);
  EXPECT_EQ(outcome.upserted_id->view().as_object_id(), first->get("_id").as_object_id());
  auto second = e_->find_one_and_update("db", "c", make_document("k", "a"), inc, o);
  EXPECT_TRUE(outcome.matched);
  EXPECT_FALSE(outcome.upserted_id);
  EXPECT_EQ(second->get("n").as_int32(), 2);
  o.upsert = false;
  EXPECT_FALSE(e_->find_one_and_update("db", "c", make_document("k", "b"), inc, o));
  EXPECT_FALSE(outcome.matched);
  EXPECT_FALSE(outcome.upserted_id);
  EXPECT_TRUE(e_->find_one_and_delete("db", "c", make_document("k", "a"), o));
  EXPECT_TRUE(outcome.matched);
}

TEST_F(EngineQuery, FindOneAndReplaceAndDeleteHonourSort) {
  for (int i = 1; i <= 3; ++i) e_->insert_one("db", "c", make_document("_id", i, "p", 10 - i));
  FindAndModifyOptions o;
  o.sort = make_document("p", 1);
  auto before = e_->find_one_and_replace("db", "c", Document(), make_document("p", 100), o);
  ASSERT_TRUE(before);
  EXPECT_EQ(before->get("_id").as_int32(), 3);
  auto deleted = e_->find_one_and_delete("db", "c", Document(), o);
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->get("_id").as_int32(), 2);
  EXPECT_EQ(e_->count_documents("db", "c", Document()), 2);
  EXPECT_THROW(
      e_->find_one_and_replace("db", "c", Document(), make_document("$set", make_document("p", 1))),
      Error);
}

TEST_F(EngineQuery, IncrementsFromManyThreadsAreNotLost) {
  e_->insert_one("db", "c", make_document("_id", 1, "n", 0));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        e_->update_one("db", "c", make_document("_id", 1),
                       make_document("$inc", make_document("n", 1)));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(e_->find_one("db", "c", make_document("_id", 1))->get("n").as_int32(), 8000);
}

TEST_F(EngineQuery, ConcurrentUpsertsOfOneKeyCreateOneDocument) {
  for (int round = 0; round < 20; ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        e_->update_one("db", "up", make_document("_id", round),
                       make_document("$inc", make_document("hits", 1)),
                       UpdateOptions{.upsert = true});
      });
    }
    for (auto& th : threads) th.join();
    auto doc = e_->find_one("db", "up", make_document("_id", round));
    ASSERT_TRUE(doc);
    EXPECT_EQ(doc->get("hits").as_int32(), 4);
  }
  EXPECT_EQ(e_->count_documents("db", "up", Document()), 20);
}

TEST_F(EngineQuery, ProjectionIncludesAndExcludes) {
  e_->insert_one("db", "c", make_document("_id", 1, "a", 1, "b", make_document("c", 2, "d", 3)));
  FindOptions o;
  o.projection = make_document("b.c", 1);
  auto doc = e_->find_one("db", "c", Document(), o);
  EXPECT_EQ(*doc, make_document("_id", 1, "b", make_document("c", 2)));
  o.projection = make_document("a", 0, "_id", 0);
  doc = e_->find_one("db", "c", Document(), o);
  EXPECT_EQ(*doc, make_document("b", make_document("c", 2, "d", 3)));
  o.projection = make_document("a", 1, "b", 0);
  EXPECT_THROW(e_->find_one("db", "c", Document(), o), Error);
}

}  // namespace
}  // namespace mongostore::engine

namespace mongostore::engine {
namespace {

TEST_F(EngineQuery, ExprInFindFilters) {
  e_->insert_one("db", "c", make_document("_id", 1, "a", 5, "b", 3));
  e_->insert_one("db", "c", make_document("_id", 2, "a", 1, "b", 3));
  e_->insert_one("db", "c", make_document("_id", 3, "a", 9, "b", 3, "tag", "x"));
  auto gt = make_document("$expr", make_document("$gt", make_array("$a", "$b")));
  EXPECT_EQ(ids(gt), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(ids(make_document("tag", "x", "$expr", make_document("$gt", make_array("$a", "$b")))),
            (std::vector<int32_t>{3}));
  EXPECT_EQ(
      e_->count_documents("db", "c", make_document("$or", make_array(gt, make_document("_id", 2)))),
      3);
  EXPECT_THROW(ids(make_document("$expr", make_document("$bogus", 1))), Error);
}

}  // namespace
}  // namespace mongostore::engine
