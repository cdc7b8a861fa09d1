// Collations through the engine: filters, sort, count, distinct, writes, aggregation, and
// that indexes with the simple collation never answer a query with another collation wrongly
// (indexes with a collation: collation_index_test.cc).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/error.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

Document ci() {
  return make_document("locale", "en", "strength", 2);
}

class EngineCollation : public ::testing::Test {
 protected:
  void SetUp() override {
    e_ = testing::memory_engine();
    const char* names[] = {"Müller", "muller", "MÜLLER", "Zoë", "adam", "Adam", "10", "9"};
    int id = 1;
    for (const char* n : names) {
      e_->insert_one("db", "c",
                     make_document("_id", id++, "name", n, "nested", make_document("n", n), "list",
                                   make_array(n, 0)));
    }
  }
  std::vector<int32_t> ids(const Document& filter, FindOptions o = {}) {
    std::vector<int32_t> out;
    for (const auto& d : e_->find("db", "c", filter, o)->to_vector()) {
      out.push_back(d.get("_id").as_int32());
    }
    return out;
  }
  std::shared_ptr<Engine> e_;
};

TEST_F(EngineCollation, EqualityRangesAndInUnderStrength2) {
  FindOptions o;
  o.collation = ci();
  o.sort = make_document("_id", 1);
  EXPECT_EQ(ids(make_document("name", "MÜLLER"), o), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(ids(make_document("name", "MÜLLER")), (std::vector<int32_t>{3}));
  EXPECT_EQ(ids(make_document("name", "adam"), o), (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(ids(make_document("name", make_document("$in", make_array("ZOË", "x"))), o),
            (std::vector<int32_t>{4}));
  EXPECT_EQ(ids(make_document("name", make_document("$nin", make_array("adam", "müller"))), o),
            (std::vector<int32_t>{2, 4, 7, 8}));
  EXPECT_EQ(ids(make_document("name", make_document("$ne", "ADAM")), o),
            (std::vector<int32_t>{1, 2, 3, 4, 7, 8}));
  // Inside embedded documents and arrays.
  EXPECT_EQ(ids(make_document("nested", make_document("n", "ADAM")), o),
            (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(ids(make_document("list", "ADAM"), o), (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(ids(make_document("list", make_array("adam", 0)), o), (std::vector<int32_t>{5, 6}));
  // Ranges: language order (ä with a, not after z).
  EXPECT_EQ(ids(make_document("name", make_document("$gte", "m", "$lt", "n")), o),
            (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(ids(make_document("name", make_document("$gte", "m", "$lt", "n"))),
            (std::vector<int32_t>{2}));
  // $regex ignores the collation.
  EXPECT_EQ(ids(make_document("name", make_document("$regex", "^adam$")), o),
            (std::vector<int32_t>{5}));
}

TEST_F(EngineCollation, SortAndNumericOrdering) {
  FindOptions o;
  o.collation = make_document("locale", "en", "numericOrdering", true);
  o.sort = make_document("name", 1, "_id", 1);
  EXPECT_EQ(ids(make_document(), o), (std::vector<int32_t>{8, 7, 5, 6, 2, 1, 3, 4}));
  o.collation = Document();
  EXPECT_EQ(ids(make_document(), o), (std::vector<int32_t>{7, 8, 6, 3, 1, 4, 5, 2}));
  // Top-k (a limit) and descending.
  o.collation = make_document("locale", "en");
  o.sort = make_document("name", -1);
  o.limit = 2;
  EXPECT_EQ(ids(make_document(), o), (std::vector<int32_t>{4, 3}));
  // A blocking sort with allowDiskUse and the sort on an embedded field.
  o.limit = 0;
  o.allow_disk_use = true;
  o.sort = make_document("nested.n", 1, "_id", 1);
  o.collation = make_document("locale", "en", "numericOrdering", true);
  EXPECT_EQ(ids(make_document(), o), (std::vector<int32_t>{8, 7, 5, 6, 2, 1, 3, 4}));
}

TEST_F(EngineCollation, CountAndDistinct) {
  CountOptions c;
  c.collation = ci();
  EXPECT_EQ(e_->count_documents("db", "c", make_document("name", "ADAM"), c), 2);
  EXPECT_EQ(e_->count_documents("db", "c", make_document("name", "ADAM")), 0);
  DistinctOptions d;
  d.collation = ci();
  std::vector<std::string> names;
  for (const auto& v : e_->distinct("db", "c", "name", make_document(), d)) {
    names.emplace_back(v.view().as_string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"10", "9", "adam", "muller", "Müller", "Zoë"}));
  EXPECT_EQ(e_->distinct("db", "c", "name", make_document()).size(), 8u);
}

TEST_F(EngineCollation, WritesUseTheCollation) {
  UpdateOptions u;
  u.collation = ci();
  UpdateResult r = e_->update_many("db", "c", make_document("name", "ADAM"),
                                   make_document("$set", make_document("seen", true)), u);
  EXPECT_EQ(r.matched_count, 2);
  // $addToSet and $pull compare under the collation too.
  r = e_->update_one("db", "c", make_document("_id", 5),
                     make_document("$addToSet", make_document("list", "ADAM")), u);
  EXPECT_EQ(r.modified_count, 0);
  r = e_->update_one("db", "c", make_document("_id", 5),
                     make_document("$addToSet", make_document("list", "ADAM")));
  EXPECT_EQ(r.modified_count, 1);
  r = e_->update_one("db", "c", make_document("_id", 5),
                     make_document("$pull", make_document("list", "adam")), u);
  EXPECT_EQ(r.modified_count, 1);
  EXPECT_EQ(e_->find_one("db", "c", make_document("_id", 5))->get("list").as_array().count(), 1u);
  ReplaceOptions rep;
  rep.collation = ci();
  r = e_->replace_one("db", "c", make_document("name", "ZOË"), make_document("name", "zoe"), rep);
  EXPECT_EQ(r.matched_count, 1);
  FindAndModifyOptions f;
  f.collation = ci();
  f.sort = make_document("_id", -1);
  auto gone = e_->find_one_and_delete("db", "c", make_document("name", "ADAM"), f);
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(gone->get("_id").as_int32(), 6);
  DeleteOptions del;
  del.collation = ci();
  EXPECT_EQ(e_->delete_many("db", "c", make_document("name", "müller"), del), 2);
  EXPECT_EQ(e_->count_documents("db", "c", make_document()), 5);
}

TEST_F(EngineCollation, AggregationMatchSortGroup) {
  AggregateOptions a;
  a.collation = ci();
  auto rows =
      e_->aggregate(
            "db", "c",
            {make_document("$match", make_document("name", "ADAM")),
             make_document("$group", make_document("_id", "$name", "n", make_document("$sum", 1)))},
            a)
          ->to_vector();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].get("_id").as_string(), "adam");
  EXPECT_EQ(rows[0].get("n").as_int32(), 2);
  // A $sort after a stage that is not pushed into the find.
  rows = e_->aggregate("db", "c",
                       {make_document("$project", make_document("name", 1)),
                        make_document("$sort", make_document("name", -1, "_id", 1)),
                        make_document("$limit", 3)},
                       a)
             ->to_vector();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].get("_id").as_int32(), 4);
  EXPECT_EQ(rows[1].get("_id").as_int32(), 1);
  EXPECT_EQ(rows[2].get("_id").as_int32(), 3);
  // $lookup matches the foreign documents under the collation.
  e_->insert_one("db", "people", make_document("_id", 1, "who", "ZOË"));
  rows = e_->aggregate("db", "people",
                       {make_document("$lookup", make_document("from", "c", "localField", "who",
                                                               "foreignField", "name", "as", "m"))},
                       a)
             ->to_vector();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].get("m").as_array().count(), 1u);
}

TEST_F(EngineCollation, IndexesWithTheSimpleCollationDoNotAnswerCollatedQueries) {
  e_->create_index("db", "c", make_document("name", 1));
  FindOptions o;
  o.collation = ci();
  o.sort = make_document("_id", 1);
  EXPECT_EQ(ids(make_document("name", "MÜLLER"), o), (std::vector<int32_t>{1, 3}));
  Document plan = e_->explain_find("db", "c", make_document("name", "MÜLLER"), o);
  EXPECT_NE(plan.view().to_json().find("COLLSCAN"), std::string::npos) << plan.view().to_json();
  // Hinted: the whole index is read, the collation decides.
  o.hint.name = "name_1";
  EXPECT_EQ(ids(make_document("name", "MÜLLER"), o), (std::vector<int32_t>{1, 3}));
  // The index's order is not the collation's: the sort is still right.
  FindOptions s;
  s.collation = make_document("locale", "en", "numericOrdering", true);
  s.sort = make_document("name", 1, "_id", 1);
  EXPECT_EQ(ids(make_document(), s), (std::vector<int32_t>{8, 7, 5, 6, 2, 1, 3, 4}));
  // Without a collation the index serves the query as before.
  FindOptions plain;
  Document simple_plan = e_->explain_find("db", "c", make_document("name", "MÜLLER"), plain);
  EXPECT_NE(simple_plan.view().to_json().find("IXSCAN"), std::string::npos);
  EXPECT_EQ(ids(make_document("name", "MÜLLER")), (std::vector<int32_t>{3}));
}

TEST_F(EngineCollation, BadCollationsFailAsMongod) {
  auto code = [&](const Document& collation) {
    FindOptions o;
    o.collation = collation;
    try {
      e_->find("db", "c", make_document(), o)->to_vector();
    } catch (const Error& e) {
      return e.code();
    }
    return 0;
  };
  EXPECT_EQ(code(make_document("locale", "xx_YY")), 2);
  EXPECT_EQ(code(make_document("strength", 2)), 40414);
  EXPECT_EQ(code(make_document("locale", "en", "bogus", 1)), 40415);
  EXPECT_EQ(code(make_document("locale", "simple")), 0);
}

}  // namespace
}  // namespace mongostore::engine
