// The `_id` index (the record table itself) as a planner candidate: an `_id` $in or range
// reads only the keys it names, a sort on `_id` needs no blocking sort, and every read and
// write path (find with batches, count, distinct, update, delete, findAndModify) gives the
// same documents as a collection scan would.
#include <gtest/gtest.h>

#include <algorithm>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/explain.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

class IdIndex : public ::testing::Test {
 protected:
  void SetUp() override {
    e_ = testing::memory_engine();
    for (int32_t i = 0; i < 200; ++i) {
      e_->insert_one("db", "c", make_document("_id", i, "even", i % 2 == 0));
    }
  }
  std::vector<int32_t> ids(const Document& filter, FindOptions o = {}) {
    std::vector<int32_t> out;
    for (const auto& d : e_->find("db", "c", filter, o)->to_vector()) {
      out.push_back(d.get("_id").as_int32());
    }
    return out;
  }
  Document explain(const Document& filter, FindOptions o = {}) {
    return e_->explain_find("db", "c", filter, o);
  }
  std::shared_ptr<Engine> e_;
};

TEST_F(IdIndex, AnInListReadsOnlyItsKeys) {
  Document filter = make_document("_id", make_document("$in", make_array(150, 3, 77, 1000)));
  EXPECT_EQ(ids(filter), (std::vector<int32_t>{3, 77, 150}));
  Document x = explain(filter);
  EXPECT_EQ(testing::plan_stage(x), "FETCH") << x.to_json();
  EXPECT_EQ(testing::plan_index(x), "_id_") << x.to_json();
  EXPECT_LE(testing::plan_stat(x, "totalDocsExamined"), 4) << x.to_json();
  EXPECT_EQ(testing::plan_stat(x, "nReturned"), 3);
}

TEST_F(IdIndex, ARangeReadsOnlyTheRange) {
  Document filter = make_document("_id", make_document("$gte", 10, "$lt", 20), "even", true);
  EXPECT_EQ(ids(filter), (std::vector<int32_t>{10, 12, 14, 16, 18}));
  Document x = explain(filter);
  EXPECT_EQ(testing::plan_index(x), "_id_") << x.to_json();
  EXPECT_EQ(testing::plan_stat(x, "totalDocsExamined"), 10) << x.to_json();
}

TEST_F(IdIndex, ASortOnIdNeedsNoBlockingSortInEitherDirection) {
  FindOptions o;
  o.sort = make_document("_id", -1);
  o.limit = 3;
  EXPECT_EQ(ids(Document(), o), (std::vector<int32_t>{199, 198, 197}));
  Document x = explain(Document(), o);
  EXPECT_NE(testing::plan_stage(x), "SORT") << x.to_json();
  o.sort = make_document("_id", 1);
  o.limit = 0;
  std::vector<int32_t> all = ids(make_document("_id", make_document("$lt", 50)), o);
  ASSERT_EQ(all.size(), 50u);
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
}

TEST_F(IdIndex, ACursorResumesInTheRangeAcrossBatchesAndWrites) {
  FindOptions o;
  o.batch_size = 7;
  auto cursor =
      e_->find("db", "c", make_document("_id", make_document("$gte", 100, "$lt", 130)), o);
  std::vector<double> seen;
  bool wrote = false;
  while (!cursor->exhausted()) {
    for (const auto& d : cursor->next_batch()) seen.push_back(d.get("_id").number_as_double());
    if (!wrote) {
      // Between batches: a document inside the range not yet read, one outside it.
      e_->insert_one("db", "c", make_document("_id", 129.5));
      e_->insert_one("db", "c", make_document("_id", 500));
      wrote = true;
    }
  }
  std::vector<double> want;
  for (int32_t i = 100; i < 130; ++i) want.push_back(i);
  want.push_back(129.5);  // after 129 in `_id` order
  EXPECT_EQ(seen, want);
}

TEST_F(IdIndex, WritesAndCountsThroughTheIdIndexMatchACollectionScan) {
  Document in = make_document("_id", make_document("$in", make_array(5, 6, 7, 8, 9999)));
  EXPECT_EQ(e_->count_documents("db", "c", in), 4);
  UpdateResult u = e_->update_many("db", "c", in, make_document("$set", make_document("x", 1)));
  EXPECT_EQ(u.matched_count, 4);
  EXPECT_EQ(u.modified_count, 4);
  EXPECT_EQ(e_->count_documents("db", "c", make_document("x", 1)), 4);
  auto distinct = e_->distinct("db", "c", "even", in);
  EXPECT_EQ(distinct.size(), 2u);
  auto removed = e_->find_one_and_delete("db", "c", make_document("_id", make_document("$gt", 195)),
                                         FindAndModifyOptions{});
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->get("_id").as_int32(), 196);
  EXPECT_EQ(e_->delete_many("db", "c", make_document("_id", make_document("$gte", 190))), 9);
  EXPECT_EQ(e_->count_documents("db", "c", Document()), 190);
}

}  // namespace
}  // namespace mongostore::engine
