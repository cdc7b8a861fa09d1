// Test helper: two index plans compared field by field, for the planner suites that check a
// rebound or merged plan against the one planning gives.
#pragma once

#include <gtest/gtest.h>

#include "engine/query_planner.h"

namespace mongostore::testing {

/// Expects `a` and `b` to read the same ranges the same way (candidate, score, direction,
/// sort, multikey, exactness).
inline void expect_same_plan(const engine::IndexPlan& a, const engine::IndexPlan& b) {
  ASSERT_EQ(a.ranges.size(), b.ranges.size());
  for (size_t i = 0; i < a.ranges.size(); ++i) {
    EXPECT_EQ(a.ranges[i].start, b.ranges[i].start);
    EXPECT_EQ(a.ranges[i].end, b.ranges[i].end);
    EXPECT_EQ(a.ranges[i].end_unbounded, b.ranges[i].end_unbounded);
  }
  EXPECT_EQ(a.candidate, b.candidate);
  EXPECT_EQ(a.score, b.score);
  EXPECT_EQ(a.reverse, b.reverse);
  EXPECT_EQ(a.provides_sort, b.provides_sort);
  EXPECT_EQ(a.multikey, b.multikey);
  EXPECT_EQ(a.exact, b.exact);
}

}  // namespace mongostore::testing
