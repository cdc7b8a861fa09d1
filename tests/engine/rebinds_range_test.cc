// rebinds_range (engine/query/prepared_find.h): a prepared find's run tells a filter that is
// its prepared filter with only the range's number changed (a sweep rebound to `now`) without
// parsing it. Pinned against rebindable_range, the parse, on such filters and on filters that
// differ in anything else: the number's type, a non-finite number, the path, the operator,
// the branch order, and prepared filters that are not rebindable at all.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "engine/query/prepared_find.h"
#include "engine/query/range_rebind.h"
#include "mongostore/bson/builder.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

template <class N>
Document due(N now, const char* op = "$lte", const char* path = "next_fire_at") {
  return make_document("$or", make_array(make_document(path, bson::Null{}),
                                         make_document(path, make_document(op, now))));
}

template <class N>
Document plain(N now, const char* op = "$lte") {
  return make_document("next_fire_at", make_document(op, now));
}

void expect_as_parsed(const Document& prepared, const std::vector<Document>& runs) {
  FindOptions options;
  std::shared_ptr<const CompiledFind> find =
      compile_find("db", "c", prepared.view(), options, options);
  for (const Document& run : runs) {
    SCOPED_TRACE(prepared.to_json() + " run with " + run.to_json());
    EXPECT_EQ(rebinds_range(*find, run.view()), rebindable_range(run.view()));
  }
}

TEST(RebindsRange, AgreesWithTheParseOnEveryRun) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Document> runs = {
      due(0.0),
      due(1.7e9),
      due(-0.0),
      due(-1e300),
      due(inf),
      due(-inf),
      due(nan),
      due(int32_t{5}),
      due(int64_t{5}),
      due(int64_t{-9}),
      due(1.0, "$lt"),
      due(1.0, "$gte"),
      due(1.0, "$eq"),
      due(1.0, "$lte", "next_fire_ax"),
      make_document("$or", make_array(make_document("next_fire_at", make_document("$lte", 1.0)),
                                      make_document("next_fire_at", bson::Null{}))),
      plain(3.0),
      plain(int32_t{3}),
      plain(inf),
      plain(3.0, "$gt"),
      make_document("next_fire_at", 3.0),
      make_document(),
  };
  expect_as_parsed(due(0.0), runs);
  expect_as_parsed(due(int32_t{0}), runs);
  expect_as_parsed(due(int64_t{0}), runs);
  expect_as_parsed(plain(0.0), runs);
  expect_as_parsed(plain(int64_t{7}, "$gt"), runs);
  // Prepared filters that are not rebindable: every run is parsed.
  expect_as_parsed(make_document("next_fire_at", 3.0), runs);
  expect_as_parsed(due(inf), runs);
  expect_as_parsed(make_document("a", make_document("$lte", 1.0), "b", 2), runs);
}

TEST(RebindsRange, APreparedSweepFilterRunWithAnotherFiniteNumberRebinds) {
  FindOptions options;
  std::shared_ptr<const CompiledFind> find =
      compile_find("db", "c", due(0.0).view(), options, options);
  ASSERT_TRUE(find->range_number.has_value());
  EXPECT_TRUE(rebinds_range(*find, due(123.5).view()));
  EXPECT_FALSE(rebinds_range(*find, due(std::numeric_limits<double>::quiet_NaN()).view()));
  EXPECT_FALSE(rebinds_range(*find, due(1.0, "$eq").view()));
}

}  // namespace
}  // namespace mongostore::engine
