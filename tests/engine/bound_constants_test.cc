// The index bound constants (engine/query/bound_constants.h): each enumerator gives the value it
// names, and together they ascend in MongoDB's index key order as the bracket ends must
// (MinKey, null, NaN, -inf, inf, "", {}, [], ObjectIds, booleans, dates, timestamps, MaxKey).
#include "engine/query/bound_constants.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "mongostore/bson/compare.h"

namespace mongostore::engine {
namespace {

using bson::BsonType;

TEST(BoundConstants, EachGivesTheValueItNames) {
  EXPECT_EQ(bound_constant(BoundConstant::kMinKey).type(), BsonType::kMinKey);
  EXPECT_EQ(bound_constant(BoundConstant::kMaxKey).type(), BsonType::kMaxKey);
  EXPECT_TRUE(bound_constant(BoundConstant::kNull).is_null());

  bson::Value nan = bound_constant(BoundConstant::kNaN);
  ASSERT_EQ(nan.type(), BsonType::kDouble);
  EXPECT_TRUE(std::isnan(nan.as_double()));
  ASSERT_EQ(bound_constant(BoundConstant::kInfinity).type(), BsonType::kDouble);
  EXPECT_EQ(bound_constant(BoundConstant::kInfinity).as_double(),
            std::numeric_limits<double>::infinity());
  ASSERT_EQ(bound_constant(BoundConstant::kNegativeInfinity).type(), BsonType::kDouble);
  EXPECT_EQ(bound_constant(BoundConstant::kNegativeInfinity).as_double(),
            -std::numeric_limits<double>::infinity());

  ASSERT_TRUE(bound_constant(BoundConstant::kEmptyString).is_string());
  EXPECT_EQ(bound_constant(BoundConstant::kEmptyString).as_string(), "");
  ASSERT_TRUE(bound_constant(BoundConstant::kEmptyObject).is_document());
  EXPECT_TRUE(bound_constant(BoundConstant::kEmptyObject).as_document().begin() ==
              bound_constant(BoundConstant::kEmptyObject).as_document().end());
  ASSERT_TRUE(bound_constant(BoundConstant::kEmptyArray).is_array());
  EXPECT_TRUE(bound_constant(BoundConstant::kEmptyArray).as_array().begin() ==
              bound_constant(BoundConstant::kEmptyArray).as_array().end());

  ASSERT_EQ(bound_constant(BoundConstant::kFalse).type(), BsonType::kBool);
  EXPECT_FALSE(bound_constant(BoundConstant::kFalse).as_bool());
  ASSERT_EQ(bound_constant(BoundConstant::kTrue).type(), BsonType::kBool);
  EXPECT_TRUE(bound_constant(BoundConstant::kTrue).as_bool());

  ASSERT_EQ(bound_constant(BoundConstant::kObjectIdMin).type(), BsonType::kObjectId);
  EXPECT_EQ(bound_constant(BoundConstant::kObjectIdMin).as_object_id().to_hex(),
            "000000000000000000000000");
  ASSERT_EQ(bound_constant(BoundConstant::kObjectIdMax).type(), BsonType::kObjectId);
  EXPECT_EQ(bound_constant(BoundConstant::kObjectIdMax).as_object_id().to_hex(),
            "ffffffffffffffffffffffff");

  ASSERT_EQ(bound_constant(BoundConstant::kDateMin).type(), BsonType::kDateTime);
  EXPECT_EQ(bound_constant(BoundConstant::kDateMin).as_datetime().millis,
            std::numeric_limits<int64_t>::min());
  ASSERT_EQ(bound_constant(BoundConstant::kDateMax).type(), BsonType::kDateTime);
  EXPECT_EQ(bound_constant(BoundConstant::kDateMax).as_datetime().millis,
            std::numeric_limits<int64_t>::max());

  ASSERT_EQ(bound_constant(BoundConstant::kTimestampMin).type(), BsonType::kTimestamp);
  EXPECT_EQ(bound_constant(BoundConstant::kTimestampMin).as_timestamp().seconds, 0u);
  EXPECT_EQ(bound_constant(BoundConstant::kTimestampMin).as_timestamp().increment, 0u);
  ASSERT_EQ(bound_constant(BoundConstant::kTimestampMax).type(), BsonType::kTimestamp);
  EXPECT_EQ(bound_constant(BoundConstant::kTimestampMax).as_timestamp().seconds,
            std::numeric_limits<uint32_t>::max());
  EXPECT_EQ(bound_constant(BoundConstant::kTimestampMax).as_timestamp().increment,
            std::numeric_limits<uint32_t>::max());
}

TEST(BoundConstants, AscendInIndexKeyOrder) {
  const std::vector<BoundConstant> ascending = {
      BoundConstant::kMinKey,           BoundConstant::kNull,       BoundConstant::kNaN,
      BoundConstant::kNegativeInfinity, BoundConstant::kInfinity,   BoundConstant::kEmptyString,
      BoundConstant::kEmptyObject,      BoundConstant::kEmptyArray, BoundConstant::kObjectIdMin,
      BoundConstant::kObjectIdMax,      BoundConstant::kFalse,      BoundConstant::kTrue,
      BoundConstant::kDateMin,          BoundConstant::kDateMax,    BoundConstant::kTimestampMin,
      BoundConstant::kTimestampMax,     BoundConstant::kMaxKey};
  ASSERT_EQ(ascending.size(), static_cast<size_t>(BoundConstant::kCount));
  for (size_t i = 1; i < ascending.size(); ++i) {
    EXPECT_LT(bson::compare_values(bound_constant(ascending[i - 1]), bound_constant(ascending[i])),
              0)
        << "constants " << i - 1 << " and " << i << " of the list";
  }
}

}  // namespace
}  // namespace mongostore::engine
