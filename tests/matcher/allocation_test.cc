// Matching a compiled filter does not allocate in the common case.
#include <atomic>
#include <cstdlib>
#include <new>

#include "matcher_test_util.h"

#if !defined(__SANITIZE_ADDRESS__)
namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace mongostore::engine::testing {

TEST(MatcherAllocation, MatchingDoesNotAllocate) {
  bson::DocumentBuilder re;
  re.append("name", bson::RegexView{"^ad", "i"});
  Matcher m = Matcher::compile(J(R"({"a.b": {"$gt": 1, "$lt": 10}, "tags": {"$in": ["x", "y"]},
      "$or": [{"c": null}, {"c": {"$exists": false}}], "d": {"$elemMatch": {"e": {"$ne": 3}}},
      "f": {"$type": "number"}, "g": {"$size": 2}, "h": {"$all": [1, 2]}, "i": {"$mod": [2, 0]}})"));
  Matcher r = Matcher::compile(re.finish());
  bson::Document doc = J(R"({"a": [{"b": 0}, {"b": 5}], "tags": ["z", "y"], "d": [{"e": 4}],
      "f": 1.5, "g": [1, 2], "h": [2, 1], "i": 4, "name": "Ada"})");
  ASSERT_TRUE(m.matches(doc));
  ASSERT_TRUE(r.matches(doc));  // warms the thread's PCRE2 match data
  MatchDetails details;
  long before = g_allocations.load();
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(m.matches(doc, &details));
    EXPECT_TRUE(r.matches(doc));
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  before = g_allocations.load();
  Matcher again = Matcher::compile(J(R"({"a": 1})"));  // the counter does see allocations
  EXPECT_GT(g_allocations.load() - before, 0);
}

}  // namespace mongostore::engine::testing
#endif
