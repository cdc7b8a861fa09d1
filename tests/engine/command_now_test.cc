// $$NOW is one time per command, as MongoDB's: the same in every stage, sub-pipeline and
// document of an aggregate, in a find filter's $expr however late its getMore comes, and in
// an update's filter and pipeline across every document an updateMany rewrites. NowScope
// pins the time so the tests can say which.
#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/engine.h"
#include "support/json.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_document;

using mongostore::testing::J;

constexpr bson::DateTime kThen{1'700'000'000'000};

class CommandNow : public ::testing::Test {
 protected:
  void SetUp() override {
    e_ = testing::memory_engine();
    std::vector<Document> docs;
    for (int i = 0; i < 3000; ++i) {
      docs.push_back(make_document("_id", i, "due", bson::DateTime{kThen.millis + i % 3 - 1}));
    }
    e_->insert_many("db", "c", docs);
  }
  std::shared_ptr<Engine> e_;
};

TEST_F(CommandNow, AnAggregateSeesOneTimeInEveryStageAndSubPipeline) {
  std::unique_ptr<Cursor> cursor;
  {
    NowScope now(kThen);
    AggregateOptions o;
    o.batch_size = 10;
    cursor = e_->aggregate(
        "db", "c",
        {J(R"({"$match": {"$expr": {"$lte": ["$due", "$$NOW"]}}})"),
         J(R"({"$set": {"first": "$$NOW"}})"), J(R"({"$lookup": {"from": "c", "pipeline": [
                {"$match": {"$expr": {"$eq": ["$due", "$$NOW"]}}}, {"$limit": 1},
                {"$project": {"_id": 0, "inner": "$$NOW"}}], "as": "j"}})"),
         J(R"({"$set": {"last": "$$NOW"}})")},
        o);
  }
  // The scope is gone: later batches (a getMore) still run with the command's time.
  size_t n = 0;
  while (!cursor->exhausted()) {
    for (const Document& d : cursor->next_batch()) {
      ++n;
      EXPECT_LE(d.get("due").as_datetime().millis, kThen.millis);
      EXPECT_EQ(d.get("first").as_datetime(), kThen);
      EXPECT_EQ(d.get("last").as_datetime(), kThen);
      ASSERT_EQ(d.get_path("j").as_array().begin()->value.as_document().get("inner").as_datetime(),
                kThen);
    }
  }
  EXPECT_EQ(n, 2000u);  // due = then - 1 and then, not then + 1
}

TEST_F(CommandNow, AFindFilterKeepsItsCommandsTime) {
  std::unique_ptr<Cursor> cursor;
  {
    NowScope now(kThen);
    FindOptions o;
    o.batch_size = 7;
    cursor = e_->find("db", "c", J(R"({"$expr": {"$eq": ["$due", "$$NOW"]}})"), o);
  }
  size_t n = 0;
  while (!cursor->exhausted()) n += cursor->next_batch().size();
  EXPECT_EQ(n, 1000u);
}

TEST_F(CommandNow, AnUpdateSharesOneTimeBetweenItsFilterAndEveryDocument) {
  UpdateOptions o;
  o.update_is_pipeline = true;
  UpdateResult r;
  {
    NowScope now(kThen);
    Document pipeline = J(R"({"p": [{"$set": {"seen": "$$NOW"}}]})");
    r = e_->update_many("db", "c", J(R"({"$expr": {"$lt": ["$due", "$$NOW"]}})"),
                        pipeline.get("p").as_array(), o);
  }
  EXPECT_EQ(r.matched_count, 1000);
  auto seen = e_->find("db", "c", J(R"({"seen": {"$exists": true}})"))->to_vector();
  ASSERT_EQ(seen.size(), 1000u);
  for (const Document& d : seen) {
    EXPECT_EQ(d.get("seen").as_datetime(), kThen);
    EXPECT_LT(d.get("due").as_datetime().millis, kThen.millis);
  }
}

// Without a scope the clock gives the time, still once: 3,000 documents rewritten by one
// updateMany all carry the same value (they would straddle milliseconds if each read it).
TEST_F(CommandNow, WithoutAScopeTheClockIsReadOncePerCommand) {
  UpdateOptions o;
  o.update_is_pipeline = true;
  Document pipeline = J(R"({"p": [{"$set": {"a": "$$NOW"}}, {"$set": {"b": "$$NOW"}}]})");
  e_->update_many("db", "c", Document(), pipeline.get("p").as_array(), o);
  auto docs = e_->find("db", "c", Document())->to_vector();
  ASSERT_EQ(docs.size(), 3000u);
  bson::DateTime first = docs.front().get("a").as_datetime();
  for (const Document& d : docs) {
    EXPECT_EQ(d.get("a").as_datetime(), first);
    EXPECT_EQ(d.get("b").as_datetime(), first);
  }
}

}  // namespace
}  // namespace mongostore::engine
