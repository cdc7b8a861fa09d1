// The update shape cache (engine/update/shape_cache.h): an update of a shape compiled before
// reuses the shape and binds only its own values. Every test here runs each update both ways
// (cold: the cache cleared; warm: its shape cached by a differently-valued update) and expects
// the same document or the same error, so a value that leaked from the cached shape, or a
// check skipped on the warm path, fails.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "engine/update/shape_cache.h"
#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

using update_detail::shape_key;
using update_detail::ShapeCache;

std::string cold(std::string_view doc, std::string_view update) {
  ShapeCache::instance().clear();
  return canon(run(doc, update).document);
}

// `update` after `warmer` (same shape, other values) put its shape in the cache.
std::string warm(std::string_view doc, std::string_view update, std::string_view warmer) {
  ShapeCache::instance().clear();
  bson::Document seed = J(R"({"_id": 0})");
  (void)compile(warmer).apply(seed.view());
  EXPECT_EQ(ShapeCache::instance().size(), 1u) << warmer;
  return canon(run(doc, update).document);
}

void expect_same_both_ways(std::string_view doc, std::string_view update, std::string_view warmer,
                           std::string_view expected) {
  EXPECT_EQ(cold(doc, update), canon(expected)) << update;
  EXPECT_EQ(warm(doc, update, warmer), canon(expected)) << update << " after " << warmer;
}

TEST(UpdateShapeCache, ValuesAreBoundPerUpdate) {
  expect_same_both_ways(R"({"_id": 1, "a": 5, "n": 1})",
                        R"({"$set": {"a": "x", "b.c": [1]}, "$inc": {"n": 2}})",
                        R"({"$set": {"a": 1, "b.c": {"d": 2}}, "$inc": {"n": 40}})",
                        R"({"_id": 1, "a": "x", "n": 3, "b": {"c": [1]}})");
  expect_same_both_ways(R"({"_id": 1, "m": 7})", R"({"$min": {"m": 3}, "$max": {"k": 9}})",
                        R"({"$min": {"m": 100}, "$max": {"k": -1}})",
                        R"({"_id": 1, "m": 3, "k": 9})");
}

TEST(UpdateShapeCache, PushModifiersAreBoundPerUpdate) {
  // $each's length, $slice, $position and $sort are values: the same shape.
  expect_same_both_ways(R"({"_id": 1, "t": [3, 1]})",
                        R"({"$push": {"t": {"$each": [5, 0], "$slice": -3, "$sort": 1}}})",
                        R"({"$push": {"t": {"$each": [9], "$slice": 10, "$sort": -1}}})",
                        R"({"_id": 1, "t": [1, 3, 5]})");
  expect_same_both_ways(R"({"_id": 1, "t": [3, 1]})", R"({"$push": {"t": {"$each": [7]}}})",
                        R"({"$push": {"t": {"$each": [1, 2], "$position": 0}}})",
                        R"({"_id": 1, "t": [3, 1, 7]})");
  expect_same_both_ways(R"({"_id": 1, "t": [3, 1]})", R"({"$push": {"t": 4}})",
                        R"({"$push": {"t": {"$each": [1, 2]}}})", R"({"_id": 1, "t": [3, 1, 4]})");
  expect_same_both_ways(R"({"_id": 1, "s": ["a"]})",
                        R"({"$addToSet": {"s": {"$each": ["a", "b"]}}})",
                        R"({"$addToSet": {"s": "z"}})", R"({"_id": 1, "s": ["a", "b"]})");
  expect_same_both_ways(R"({"_id": 1, "p": [1, 5, 9]})", R"({"$pull": {"p": {"$gte": 5}}})",
                        R"({"$pull": {"p": 1}})", R"({"_id": 1, "p": [1]})");
  expect_same_both_ways(R"({"_id": 1, "p": [1, 5, 9]})", R"({"$pop": {"p": -1}})",
                        R"({"$pop": {"p": 1}})", R"({"_id": 1, "p": [5, 9]})");
  expect_same_both_ways(R"({"_id": 1, "b": 12})", R"({"$bit": {"b": {"or": 1}}})",
                        R"({"$bit": {"b": {"and": 4, "xor": 2}}})", R"({"_id": 1, "b": 13})");
}

TEST(UpdateShapeCache, RenameTargetIsPartOfTheShape) {
  expect_same_both_ways(R"({"_id": 1, "a": 1})", R"({"$rename": {"a": "c"}})",
                        R"({"$rename": {"a": "b"}})", R"({"_id": 1, "c": 1})");
  EXPECT_NE(shape_key(J(R"({"$rename": {"a": "b"}})").view()),
            shape_key(J(R"({"$rename": {"a": "c"}})").view()));
}

TEST(UpdateShapeCache, BadArgumentsFailAsOnAFullCompile) {
  struct Case {
    const char* warmer;
    const char* bad;
    ErrorCode code;
  };
  const Case cases[] = {
      {R"({"$inc": {"a": 1}})", R"({"$inc": {"a": "x"}})", ErrorCode::kTypeMismatch},
      {R"({"$push": {"a": {"$each": [1]}}})", R"({"$push": {"a": {"$each": 5}}})",
       ErrorCode::kBadValue},
      {R"({"$push": {"a": {"$each": [1], "$slice": 1}}})",
       R"({"$push": {"a": {"$each": [1], "$slice": 1.5}}})", ErrorCode::kBadValue},
      {R"({"$pop": {"a": 1}})", R"({"$pop": {"a": 2}})", ErrorCode::kFailedToParse},
      {R"({"$bit": {"a": {"or": 1}}})", R"({"$bit": {"a": {"or": 1.5}}})", ErrorCode::kBadValue},
      {R"({"$currentDate": {"a": true}})", R"({"$currentDate": {"a": {"$type": "x"}}})",
       ErrorCode::kBadValue},
      {R"({"$pullAll": {"a": [1]}})", R"({"$pullAll": {"a": 1}})", ErrorCode::kBadValue},
      // The first bad argument in document order is the one reported.
      {R"({"$inc": {"a": 1, "b": 2}})", R"({"$inc": {"a": "x", "b": "y"}})",
       ErrorCode::kTypeMismatch},
  };
  for (const Case& c : cases) {
    std::string cold_message, warm_message;
    ShapeCache::instance().clear();
    try {
      compile(c.bad);
      ADD_FAILURE() << c.bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), static_cast<int32_t>(c.code)) << c.bad;
      cold_message = e.what();
    }
    (void)compile(c.warmer);
    ASSERT_EQ(ShapeCache::instance().size(), 1u) << c.warmer;
    try {
      compile(c.bad);
      ADD_FAILURE() << c.bad << " after " << c.warmer;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), static_cast<int32_t>(c.code)) << c.bad;
      warm_message = e.what();
    }
    EXPECT_EQ(warm_message, cold_message) << c.bad;
  }
}

TEST(UpdateShapeCache, FailedCompilesAreNotCached) {
  ShapeCache::instance().clear();
  expect_compile_error(R"({"$set": {"a": 1, "a.b": 2}})", ErrorCode::kConflictingUpdateOperators);
  expect_compile_error(R"({"$set": {"$x": 1}})", ErrorCode::kDollarPrefixedFieldName);
  EXPECT_EQ(ShapeCache::instance().size(), 0u);
  // And again: still an error, not a cached shape.
  expect_compile_error(R"({"$set": {"a": 1, "a.b": 2}})", ErrorCode::kConflictingUpdateOperators);
}

TEST(UpdateShapeCache, KeysAreUnambiguous) {
  // A field name may hold any byte but NUL: counts keep these two shapes apart.
  bson::Document one = bson::make_document("$set", bson::make_document("\x01$inc", 5));
  bson::Document two =
      bson::make_document("$set", bson::make_document(), "$inc", bson::make_document());
  EXPECT_NE(shape_key(one.view()), shape_key(two.view()));
  ShapeCache::instance().clear();
  bson::Document doc = J(R"({"_id": 1})");
  Update::compile(two.view()).apply(doc.view());
  bson::Document out = Update::compile(one.view()).apply(doc.view()).document;
  EXPECT_EQ(out.view().get("\x01$inc").as_int32(), 5);
}

TEST(UpdateShapeCache, NotCached) {
  ShapeCache::instance().clear();
  (void)compile(R"({"a": 1})");                                           // a replacement
  (void)compile(R"({"$set": {"a.$[x]": 1}})", {R"({"x": {"$gt": 1}})"});  // arrayFilters
  std::string big = R"({"$set": {)";
  for (int i = 0; i < 40; ++i) big += (i ? "," : "") + ("\"f" + std::to_string(i) + "\": 1");
  big += "}}";
  (void)compile(big);  // more than kMaxOps
  EXPECT_EQ(ShapeCache::instance().size(), 0u);
}

TEST(UpdateShapeCache, BoundedAndEvictsTheOldest) {
  ShapeCache::instance().clear();
  const size_t n = ShapeCache::kMaxEntries + 10;
  for (size_t i = 0; i < n; ++i) {
    (void)compile(R"({"$set": {"f)" + std::to_string(i) + R"(": 1}})");
  }
  EXPECT_EQ(ShapeCache::instance().size(), ShapeCache::kMaxEntries);
  // The newest is there, the oldest is not.
  EXPECT_NE(ShapeCache::instance().find(
                *shape_key(J(R"({"$set": {"f)" + std::to_string(n - 1) + R"(": 1}})").view())),
            nullptr);
  EXPECT_EQ(ShapeCache::instance().find(*shape_key(J(R"({"$set": {"f0": 1}})").view())), nullptr);
}

TEST(UpdateShapeCache, ConcurrentCompilesOfManyShapes) {
  // More shapes than the cache holds, from several threads: every result is right (bounded:
  // 4 threads x 2,000 updates).
  ShapeCache::instance().clear();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &wrong] {
      bson::Document doc = J(R"({"_id": 1, "n": 1})");
      for (int i = 0; i < 2000; ++i) {
        int shape = (i * 7 + t) % (static_cast<int>(ShapeCache::kMaxEntries) + 50);
        std::string field = "f" + std::to_string(shape);
        bson::Document u = bson::make_document("$set", bson::make_document(field, i), "$inc",
                                               bson::make_document("n", t));
        bson::Document out = Update::compile(u.view()).apply(doc.view()).document;
        if (out.view().get(field).as_int32() != i || out.view().get("n").as_int32() != 1 + t) {
          ++wrong;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(ShapeCache::instance().size(), ShapeCache::kMaxEntries);
}

}  // namespace
}  // namespace mongostore::engine::update_test
