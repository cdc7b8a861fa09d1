// Trace indexes stamped on read (src/exec/trace_index.h), on stored values this store did
// not write: any number, at the ends of int64, must give an answer, never overflow.
#include "exec/trace_index.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::exec {
namespace {

using bson::make_array;
using bson::make_document;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(TraceIndex, StampsUnstampedStepsBackFromTraceNextAndKeepsStampedOnes) {
  auto doc = make_document("trace",
                           make_array(make_document("s", 0, "index", int64_t{0}),
                                      make_document("s", 1), make_document("s", 2)),
                           "trace_next", int64_t{9});
  auto steps = stamp_trace(doc.get("trace"), doc.get("trace_next"), "e");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].get("index").as_int64(), 0);
  EXPECT_EQ(steps[1].get("index").as_int64(), 7);
  EXPECT_EQ(steps[2].get("index").as_int64(), 8);
}

TEST(TraceIndex, ExtremeStoredValuesDoNotOverflow) {
  auto low = make_document("trace", make_array(make_document("s", 1), make_document("s", 2)),
                           "trace_next", kMin + 1);
  auto steps = stamp_trace(low.get("trace"), low.get("trace_next"), "e");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_FALSE(steps[0].has("index"));  // nothing below kMin to give
  EXPECT_EQ(steps[1].get("index").as_int64(), kMin);

  auto high = make_document("trace", make_array(make_document("s", 1, "index", kMax)));
  EXPECT_EQ(adopted_trace_next(high.get("trace"), std::nullopt), 0);
  EXPECT_EQ(adopted_trace_next(high.get("trace"), int64_t{5}), 5);
  auto seed = make_document("trace", make_array(make_document("index", int64_t{4}), "not a step"));
  EXPECT_EQ(adopted_trace_next(seed.get("trace"), int64_t{3}), 5);
  EXPECT_EQ(adopted_trace_next(bson::Value(), std::nullopt), 0);
}

TEST(TraceIndex, AStepThatIsNotADocumentIsRefusedByName) {
  auto doc = make_document("trace", make_array(1));
  try {
    stamp_trace(doc.get("trace"), bson::Value(), "exe-7");
    FAIL() << "a non-document step must fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 9);
    EXPECT_NE(std::string(e.what()).find("exe-7"), std::string::npos);
  }
}

}  // namespace
}  // namespace mongostore::exec
