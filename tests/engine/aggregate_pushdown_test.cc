// The leading $match / $sort / $limit of a pipeline run as the find that feeds it: a leading
// $sort that an index gives streams from the index instead of holding every document, so it
// succeeds past the 100 MB blocking-sort limit; without such an index it fails (292) unless
// allowDiskUse is set.
#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "support/json.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_document;

using mongostore::testing::J;

class AggregatePushdown : public ::testing::Test {
 protected:
  void SetUp() override {
    // 26 documents of 4 MiB: 104 MiB, past the blocking sort's 100 MiB.
    const std::string big(4 * 1024 * 1024, 'x');
    for (int i = 0; i < 26; ++i) {
      coll_.insert_one(make_document("_id", i, "a", (i * 7) % 26, "big", big));
    }
  }
  std::vector<int> sorted_a(const AggregateOptions& o = {}) {
    std::vector<int> out;
    auto docs = coll_
                    .aggregate({J(R"({"$match": {"a": {"$gte": 0}}})"),
                                J(R"({"$sort": {"a": -1}})"), J(R"({"$project": {"a": 1}})")},
                               o)
                    ->to_vector();
    for (const auto& d : docs) out.push_back(d.get("a").as_int32());
    return out;
  }
  std::shared_ptr<Client> client_ = connect("embedded:memory");
  Collection coll_ = client_->database("db").collection("c");
};

TEST_F(AggregatePushdown, ALeadingSortWithoutAnIndexIsBlockingAndBounded) {
  try {
    sorted_a();
    FAIL() << "expected QueryExceededMemoryLimitNoDiskUseAllowed";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 292);
  }
  AggregateOptions disk;
  disk.allow_disk_use = true;
  auto a = sorted_a(disk);
  ASSERT_EQ(a.size(), 26u);
  EXPECT_EQ(a.front(), 25);
  EXPECT_EQ(a.back(), 0);
}

TEST_F(AggregatePushdown, ALeadingSortStreamsFromAnIndexThatGivesTheOrder) {
  coll_.create_index(J(R"({"a": 1})"));
  auto a = sorted_a();
  ASSERT_EQ(a.size(), 26u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], 25 - static_cast<int>(i));
}

TEST_F(AggregatePushdown, SortThenLimitKeepsOnlyTheFirstDocuments) {
  auto docs = coll_
                  .aggregate({J(R"({"$sort": {"a": 1}})"), J(R"({"$limit": 3})"),
                              J(R"({"$project": {"_id": 0, "a": 1}})")})
                  ->to_vector();
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0].get("a").as_int32(), 0);
  EXPECT_EQ(docs[2].get("a").as_int32(), 2);
}

}  // namespace
}  // namespace mongostore::client

namespace mongostore::client {
namespace {

// The top-k sort kept for a limit returns exactly the slice of the full stable sort.
TEST(TopKSort, SkipAndLimitReturnTheSliceOfTheFullSort) {
  auto coll = connect("embedded:memory")->database("db").collection("c");
  for (int i = 0; i < 300; ++i) coll.insert_one(make_document("_id", i, "k", (i * 37) % 11));
  FindOptions all;
  all.sort = make_document("k", -1);
  std::vector<bson::Document> full = coll.find(Document(), all)->to_vector();
  ASSERT_EQ(full.size(), 300u);
  for (int64_t skip : {0, 1, 17, 290}) {
    for (int64_t limit : {1, 5, 40}) {
      FindOptions o = all;
      o.skip = skip;
      o.limit = limit;
      auto part = coll.find(Document(), o)->to_vector();
      size_t expected = static_cast<size_t>(std::min<int64_t>(limit, 300 - skip));
      ASSERT_EQ(part.size(), expected) << skip << " " << limit;
      for (size_t i = 0; i < part.size(); ++i) {
        EXPECT_EQ(part[i].get("_id").as_int32(), full[skip + i].get("_id").as_int32());
      }
    }
  }
}

}  // namespace
}  // namespace mongostore::client
