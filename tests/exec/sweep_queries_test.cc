// due_filter writes each sweep's `now` into a copy of bytes built once: it must give exactly
// the document the builder gives for that number.
#include "exec/sweep_queries.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mongostore/bson/builder.h"

namespace mongostore::exec {
namespace {

// The filter's `now`: the $lte of its second branch.
double now_of(const bson::Document& filter) {
  return filter.get("$or")
      .as_array()
      .get("1")
      .as_document()
      .get("next_fire_at")
      .as_document()
      .get("$lte")
      .number_as_double();
}

TEST(DueFilter, IsTheBuiltFilterByteForByte) {
  for (double now :
       {0.0, -0.0, 1.0, 1733400000.125, -3.5, 1e300, std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::denorm_min()}) {
    bson::Document expected = bson::make_document(
        "$or",
        bson::make_array(bson::make_document("next_fire_at", bson::Null{}),
                         bson::make_document("next_fire_at", bson::make_document("$lte", now))));
    bson::Document got = due_filter(now);
    EXPECT_EQ(got.view(), expected.view()) << now;
    EXPECT_EQ(now_of(got), now);
  }
}

TEST(DueFilter, CallsDoNotShareBytes) {
  bson::Document a = due_filter(1.0);
  bson::Document b = due_filter(2.0);
  EXPECT_EQ(now_of(a), 1.0);
  EXPECT_EQ(now_of(b), 2.0);
}

}  // namespace
}  // namespace mongostore::exec
