// IdGuardFilter (engine/write/id_guard_filter.h): which updateOne filters take the `_id` guard
// fast path (ExecutionStore's compare-and-set does), which are left to the matcher, and how a
// stored document is judged. The results of both paths are compared on every backend in
// tests/client/id_guard_update_test.cc.
#include "engine/write/id_guard_filter.h"

#include <gtest/gtest.h>

#include "mongostore/bson/builder.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

bool recognised(const Document& filter, const UpdateOptions& options = {}) {
  return IdGuardFilter::recognise(filter.view(), options).has_value();
}

TEST(IdGuardFilter, RecognisesTheCommitsGuards) {
  EXPECT_TRUE(recognised(make_document("_id", "e1", "version", int64_t{4})));
  EXPECT_TRUE(recognised(make_document("_id", "e1", "version", int64_t{4}, "trace_next",
                                       make_document("$exists", true))));
  EXPECT_TRUE(recognised(make_document("version", 4, "_id", 1)));
  EXPECT_TRUE(recognised(make_document("_id", bson::ObjectId::generate())));
  Document filter = make_document("v", 1, "_id", 7);
  auto id = IdGuardFilter::recognise(filter.view(), {});  // a view into `filter`
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->as_int32(), 7);
}

TEST(IdGuardFilter, LeavesEverythingElseToTheMatcher) {
  EXPECT_FALSE(recognised(make_document("version", 4)));  // no _id
  EXPECT_FALSE(recognised(make_document("_id", 1, "_id", 2)));
  EXPECT_FALSE(recognised(make_document("_id", make_document("$in", make_array(1, 2)))));
  EXPECT_FALSE(recognised(make_document("_id", make_document("a", 1))));
  EXPECT_FALSE(recognised(make_document("_id", make_array(1))));
  EXPECT_FALSE(recognised(make_document("_id", 1, "v", bson::Null{})));
  EXPECT_FALSE(recognised(make_document("_id", 1, "v", make_document("$gt", 1))));
  EXPECT_FALSE(recognised(make_document("_id", 1, "v", make_document("$exists", false))));
  EXPECT_FALSE(recognised(make_document("_id", 1, "v", make_document("$exists", 1))));
  EXPECT_FALSE(
      recognised(make_document("_id", 1, "v", make_document("$exists", true, "$type", "int"))));
  EXPECT_FALSE(recognised(make_document("_id", 1, "a.b", 1)));
  EXPECT_FALSE(recognised(make_document("_id", 1, "$comment", "x")));
  EXPECT_FALSE(recognised(make_document("_id", 1, "v", make_array(1))));
  for (int i = 0; i < 7; ++i) {
    UpdateOptions options;
    switch (i) {
      case 0:
        options.upsert = true;
        break;
      case 1:
        options.update_is_pipeline = true;
        break;
      case 2:
        options.array_filters.push_back(make_document("x", 1));
        break;
      case 3:
        options.hint.name = "_id_";
        break;
      case 4:
        options.sort = make_document("_id", 1);
        break;
      case 5:
        options.let = make_document("x", 1);
        break;
      case 6:
        options.collation = make_document("locale", "simple");
        break;
    }
    EXPECT_FALSE(recognised(make_document("_id", 1, "v", 1), options)) << i;
  }
}

TEST(IdGuardFilter, JudgesTheStoredDocument) {
  using O = IdGuardFilter::Outcome;
  Document stored = make_document("_id", 1, "v", int64_t{3}, "s", "a", "n", bson::Null{}, "arr",
                                  make_array(1, 2));
  auto test = [&](const Document& filter) {
    return IdGuardFilter::test(filter.view(), stored.view());
  };
  EXPECT_EQ(test(make_document("_id", 1, "v", 3.0, "s", "a")), O::kMatch);
  EXPECT_EQ(test(make_document("_id", 1, "v", 4)), O::kNoMatch);
  EXPECT_EQ(test(make_document("_id", 1, "s", "A")), O::kNoMatch);
  EXPECT_EQ(test(make_document("_id", 1, "missing", 0)), O::kNoMatch);
  EXPECT_EQ(test(make_document("_id", 1, "n", make_document("$exists", true))), O::kMatch);
  EXPECT_EQ(test(make_document("_id", 1, "missing", make_document("$exists", true))), O::kNoMatch);
  EXPECT_EQ(test(make_document("_id", 1, "arr", 1)), O::kUndecided);
}

}  // namespace
}  // namespace mongostore::engine
