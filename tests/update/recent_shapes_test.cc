// This thread's recent update shapes (engine/update/recent_shapes.h): an update compared with
// a shape it compiled against before and bound in one pass. Differential: every update here
// is run cold (caches cleared: a full compile) and warm (after a warmer put a shape among the
// recent ones) and must give the same document or the same error; the hit counter says which
// path the warm run took, so a case meant to miss cannot quietly hit and the other way round.
#include <string>
#include <thread>

#include "engine/update/recent_shapes.h"
#include "engine/update/shape_cache.h"
#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

using update_detail::RecentShapes;
using update_detail::ShapeCache;

// The document, or the error's code and message.
std::string outcome(std::string_view doc, std::string_view update) {
  try {
    return canon(run(doc, update).document);
  } catch (const Error& e) {
    return "error " + std::to_string(e.code()) + ": " + e.what();
  }
}

struct Runs {
  std::string cold, warm;
  bool hit = false;
};

Runs both_ways(std::string_view doc, std::string_view update, std::string_view warmer) {
  Runs r;
  ShapeCache::instance().clear();  // also makes every remembered shape stale
  r.cold = outcome(doc, update);
  ShapeCache::instance().clear();
  bson::Document seed = J(R"({"_id": 0})");
  (void)compile(warmer).apply(seed.view());
  uint64_t before = RecentShapes::hits_on_this_thread();
  r.warm = outcome(doc, update);
  r.hit = RecentShapes::hits_on_this_thread() != before;
  return r;
}

void expect_hit(std::string_view doc, std::string_view update, std::string_view warmer) {
  Runs r = both_ways(doc, update, warmer);
  EXPECT_TRUE(r.hit) << update << " after " << warmer;
  EXPECT_EQ(r.warm, r.cold) << update << " after " << warmer;
}

// For updates that fail: a bind that throws is not counted as a hit.
void expect_same(std::string_view doc, std::string_view update, std::string_view warmer) {
  Runs r = both_ways(doc, update, warmer);
  EXPECT_EQ(r.warm, r.cold) << update << " after " << warmer;
  EXPECT_EQ(r.cold.rfind("error ", 0), 0u) << r.cold;
}

void expect_miss(std::string_view doc, std::string_view update, std::string_view warmer) {
  Runs r = both_ways(doc, update, warmer);
  EXPECT_FALSE(r.hit) << update << " after " << warmer;
  EXPECT_EQ(r.warm, r.cold) << update << " after " << warmer;
}

constexpr const char* kDoc = R"({"_id": 1, "a": 5, "t": [1, 2], "p": [1, 5, 9], "n": 3})";

TEST(UpdateRecentShapes, SameShapeOtherValuesHits) {
  expect_hit(kDoc, R"({"$set": {"a": "x", "b.c": [1]}, "$inc": {"n": 2}})",
             R"({"$set": {"a": 1, "b.c": {"d": 2}}, "$inc": {"n": 40}})");
  expect_hit(kDoc, R"({"$push": {"t": {"$each": [5, 0], "$slice": -3, "$sort": 1}}})",
             R"({"$push": {"t": {"$each": [9]}}})");
  expect_hit(kDoc, R"({"$pull": {"p": {"$gte": 5}}, "$min": {"n": 1}})",
             R"({"$pull": {"p": 1}, "$min": {"n": 100}})");
  expect_hit(kDoc, R"({"$rename": {"a": "c"}, "$unset": {"n": ""}})",
             R"({"$rename": {"a": "c"}, "$unset": {"n": 1}})");
  // The commit's shape.
  expect_hit(
      R"({"_id": 1, "data": "{}", "version": 1, "outbox": [], "trace": [], "processed": [],
          "trace_next": 0, "next_fire_at": 10.0})",
      R"({"$set": {"data": "{\"k\":2}", "version": 2, "status": "running", "timers.t1": 5.0},
          "$push": {"outbox": {"$each": [{"seq": 1}]}, "trace": {"$each": [{"i": 0}], "$slice": -8}},
          "$addToSet": {"processed": "e2"}, "$inc": {"trace_next": 1}, "$min": {"next_fire_at": 5.0}})",
      R"({"$set": {"data": "{}", "version": 1, "status": "waiting", "timers.t1": 9.0},
          "$push": {"outbox": {"$each": [{"seq": 0}]}, "trace": {"$each": [{"i": 9}], "$slice": -8}},
          "$addToSet": {"processed": "e1"}, "$inc": {"trace_next": 1}, "$min": {"next_fire_at": 9.0}})");
}

TEST(UpdateRecentShapes, RegroupedOperatorsHitWithTheSameResult) {
  // The same ops in the same order, split over two documents of one operator: a full compile
  // builds the same shape.
  expect_hit(kDoc, R"({"$set": {"a": 7}, "$set": {"b": 8}})", R"({"$set": {"a": 1, "b": 2}})");
  expect_hit(kDoc, R"({"$set": {"a": 7, "b": 8}})", R"({"$set": {"a": 1}, "$set": {"b": 2}})");
}

TEST(UpdateRecentShapes, AnyOtherShapeMisses) {
  const char* warmer = R"({"$set": {"a": 1, "b": 2}})";
  expect_miss(kDoc, R"({"$set": {"a": 1, "c": 2}})", warmer);              // another path
  expect_miss(kDoc, R"({"$set": {"a": 1}})", warmer);                      // fewer ops
  expect_miss(kDoc, R"({"$set": {"a": 1, "b": 2, "c": 3}})", warmer);      // more ops
  expect_miss(kDoc, R"({"$set": {"b": 2, "a": 1}})", warmer);              // another order
  expect_miss(kDoc, R"({"$set": {"a": 1}, "$inc": {"b": 2}})", warmer);    // another operator
  expect_miss(kDoc, R"({"$set": {"a": 1, "b": 2}, "$inc": {}})", warmer);  // an empty operator
  expect_miss(kDoc, R"({"$rename": {"a": "d"}})", R"({"$rename": {"a": "c"}})");  // target
  expect_miss(kDoc, R"({"a": 1, "b": 2})", warmer);                               // a replacement
  expect_miss(kDoc, R"({})", warmer);
}

TEST(UpdateRecentShapes, ErrorsAsOnAFullCompile) {
  const char* warmer = R"({"$set": {"a": 1}, "$inc": {"n": 1}, "$pop": {"t": 1}})";
  // A bad argument on a matching update: the same error.
  expect_same(kDoc, R"({"$set": {"a": 1}, "$inc": {"n": "x"}, "$pop": {"t": 1}})", warmer);
  expect_same(kDoc, R"({"$set": {"a": 1}, "$inc": {"n": 1}, "$pop": {"t": 2}})", warmer);
  // A prefix matches and then the update goes its own way: the full compile's error, whether
  // it comes from an argument of the matched prefix or from what follows it.
  expect_miss(kDoc, R"({"$set": {"a": 1}, "$inc": {"n": 1}, "$pop": {"t": 1, "t.x": 1}})", warmer);
  expect_miss(kDoc, R"({"$set": {"a": 1}, "$inc": {"n": 1}, "$bogus": {"t": 1}})", warmer);
  expect_miss(kDoc, R"({"$set": {"a": 1}, "$inc": {"n": 1}, "$pop": 5})", warmer);
  expect_miss(kDoc, R"({"$set": {"a": 1}, "$inc": {"n": 1}, "$pop": {"t": 1}, "$set": {"$x": 1}})",
              warmer);
  Runs r = both_ways(kDoc, R"({"$set": {"a": 1}, "$inc": {"n": "x"}, "$pop": {"u": 1}})", warmer);
  EXPECT_EQ(r.warm, r.cold);
  EXPECT_NE(r.cold.find("error 14"), std::string::npos) << r.cold;  // TypeMismatch of $inc
}

TEST(UpdateRecentShapes, ClearingTheShapeCacheForgetsThem) {
  ShapeCache::instance().clear();
  (void)compile(R"({"$set": {"a": 1}})");
  ShapeCache::instance().clear();
  uint64_t before = RecentShapes::hits_on_this_thread();
  (void)compile(R"({"$set": {"a": 2}})");
  EXPECT_EQ(RecentShapes::hits_on_this_thread(), before);
  EXPECT_EQ(ShapeCache::instance().size(), 1u);  // compiled and cached again
}

TEST(UpdateRecentShapes, PerThread) {
  ShapeCache::instance().clear();
  (void)compile(R"({"$set": {"a": 1}})");
  uint64_t other_hits = 1;
  std::string other_result;
  std::thread([&] {
    uint64_t before = RecentShapes::hits_on_this_thread();
    other_result = outcome(R"({"_id": 1})", R"({"$set": {"a": 9}})");
    other_hits = RecentShapes::hits_on_this_thread() - before;
  }).join();
  EXPECT_EQ(other_hits, 0u);  // another thread found it in the ShapeCache instead
  EXPECT_EQ(other_result, canon(R"({"_id": 1, "a": 9})"));
}

TEST(UpdateRecentShapes, KeepsTheLastFewShapes) {
  ShapeCache::instance().clear();
  for (size_t i = 0; i <= RecentShapes::kMaxEntries; ++i) {
    (void)compile(R"({"$set": {"f)" + std::to_string(i) + R"(": 1}})");
  }
  uint64_t before = RecentShapes::hits_on_this_thread();
  // The newest kMaxEntries are kept, the first is not.
  (void)compile(R"({"$set": {"f)" + std::to_string(RecentShapes::kMaxEntries) + R"(": 2}})");
  (void)compile(R"({"$set": {"f1": 2}})");
  EXPECT_EQ(RecentShapes::hits_on_this_thread(), before + 2);
  (void)compile(R"({"$set": {"f0": 2}})");
  EXPECT_EQ(RecentShapes::hits_on_this_thread(), before + 2);
  EXPECT_EQ(outcome(R"({"_id": 1})", R"({"$set": {"f1": 3}})"), canon(R"({"_id": 1, "f1": 3})"));
}

}  // namespace
}  // namespace mongostore::engine::update_test
