// $inc, $mul and $bit: numeric type promotion, overflow, errors.
#include <cstdint>

#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

TEST(UpdateInc, Basic) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 1})", R"({"$inc": {"a": 2}})", R"({"_id": 1, "a": 3})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 1})", R"({"$inc": {"a": -2}})", R"({"_id": 1, "a": -1})");
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$inc": {"a.b": 5}})", R"({"_id": 1, "a": {"b": 5}})");
}

TEST(UpdateInc, MissingTakesArgumentType) {
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$inc": {"a": {"$numberLong": "5"}}})",
                R"({"_id": 1, "a": {"$numberLong": "5"}})");
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$inc": {"a": 1.5}})", R"({"_id": 1, "a": 1.5})");
}

TEST(UpdateInc, Int32OverflowPromotesToInt64) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 2147483647})", R"({"$inc": {"a": 1}})",
                R"({"_id": 1, "a": {"$numberLong": "2147483648"}})");
  EXPECT_UPDATE(R"({"_id": 1, "a": -2147483648})", R"({"$inc": {"a": -1}})",
                R"({"_id": 1, "a": {"$numberLong": "-2147483649"}})");
}

TEST(UpdateInc, Int32PlusInt64IsInt64) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 1})", R"({"$inc": {"a": {"$numberLong": "1"}}})",
                R"({"_id": 1, "a": {"$numberLong": "2"}})");
}

TEST(UpdateInc, Int64OverflowFails) {
  expect_apply_error(
      R"({"_id": 1, "a": {"$numberLong": "9223372036854775807"}})", R"({"$inc": {"a": 1}})",
      ErrorCode::kBadValue,
      "Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) for "
      "document {_id: 1}");
}

TEST(UpdateInc, DoubleWins) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 1})", R"({"$inc": {"a": 0.5}})", R"({"_id": 1, "a": 1.5})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 0.5})", R"({"$inc": {"a": 1}})", R"({"_id": 1, "a": 1.5})");
}

TEST(UpdateInc, Decimal) {
  EXPECT_UPDATE(R"({"_id": 1, "a": {"$numberDecimal": "1.1"}})",
                R"({"$inc": {"a": {"$numberDecimal": "2.25"}}})",
                R"({"_id": 1, "a": {"$numberDecimal": "3.35"}})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 1})", R"({"$inc": {"a": {"$numberDecimal": "0.5"}}})",
                R"({"_id": 1, "a": {"$numberDecimal": "1.5"}})");
  EXPECT_UPDATE(R"({"_id": 1, "a": {"$numberDecimal": "1"}})",
                R"({"$inc": {"a": {"$numberDecimal": "-1"}}})",
                R"({"_id": 1, "a": {"$numberDecimal": "0"}})");
  EXPECT_UPDATE(
      R"({"_id": 1, "a": {"$numberDecimal": "9999999999999999999999999999999999"}})",
      R"({"$inc": {"a": {"$numberDecimal": "1"}}})",
      R"({"_id": 1, "a": {"$numberDecimal": "1.000000000000000000000000000000000E+34"}})");
}

TEST(UpdateInc, DecimalSpecialsAndDoubles) {
  EXPECT_UPDATE(R"({"_id": 1, "a": {"$numberDecimal": "NaN"}})", R"({"$inc": {"a": 1}})",
                R"({"_id": 1, "a": {"$numberDecimal": "NaN"}})");
  EXPECT_UPDATE(R"({"_id": 1, "a": {"$numberDecimal": "Infinity"}})",
                R"({"$inc": {"a": {"$numberDecimal": "-Infinity"}}})",
                R"({"_id": 1, "a": {"$numberDecimal": "NaN"}})");
  // Doubles join decimal arithmetic with 15 significant digits, as in MongoDB.
  EXPECT_UPDATE(R"({"_id": 1, "a": 1.5})", R"({"$inc": {"a": {"$numberDecimal": "1"}}})",
                R"({"_id": 1, "a": {"$numberDecimal": "2.50000000000000"}})");
  EXPECT_UPDATE(R"({"_id": 1, "a": {"$numberDecimal": "-2.5"}})",
                R"({"$mul": {"a": {"$numberLong": "-4"}}})",
                R"({"_id": 1, "a": {"$numberDecimal": "10.0"}})");
}

TEST(UpdateInc, ByZeroIsNotModified) {
  EXPECT_FALSE(run(R"({"_id": 1, "a": 5})", R"({"$inc": {"a": 0}})").modified);
}

TEST(UpdateInc, NonNumericTarget) {
  expect_apply_error(R"({"_id": 1, "a": "x"})", R"({"$inc": {"a": 1}})", ErrorCode::kTypeMismatch,
                     "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field "
                     "'a' of non-numeric type string");
}

TEST(UpdateInc, NonNumericArgument) {
  expect_compile_error(R"({"$inc": {"a": "x"}})", ErrorCode::kTypeMismatch,
                       "Cannot increment with non-numeric argument: {a: \"x\"}");
}

TEST(UpdateMul, Basic) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 3})", R"({"$mul": {"a": 4}})", R"({"_id": 1, "a": 12})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 3})", R"({"$mul": {"a": 0.5}})", R"({"_id": 1, "a": 1.5})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 65536})", R"({"$mul": {"a": 65536}})",
                R"({"_id": 1, "a": {"$numberLong": "4294967296"}})");
  EXPECT_UPDATE(R"({"_id": 1, "a": {"$numberDecimal": "1.5"}})",
                R"({"$mul": {"a": {"$numberDecimal": "2"}}})",
                R"({"_id": 1, "a": {"$numberDecimal": "3.0"}})");
}

TEST(UpdateMul, MissingSetsZeroOfArgumentType) {
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$mul": {"a": 5}})", R"({"_id": 1, "a": 0})");
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$mul": {"a": 2.5}})",
                R"({"_id": 1, "a": {"$numberDouble": "0.0"}})");
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$mul": {"a": {"$numberLong": "5"}}})",
                R"({"_id": 1, "a": {"$numberLong": "0"}})");
}

TEST(UpdateMul, Errors) {
  expect_compile_error(R"({"$mul": {"a": "x"}})", ErrorCode::kTypeMismatch,
                       "Cannot multiply with non-numeric argument: {a: \"x\"}");
  expect_apply_error(R"({"_id": 1, "a": {"$numberLong": "9223372036854775807"}})",
                     R"({"$mul": {"a": 2}})", ErrorCode::kBadValue);
  expect_apply_error(R"({"_id": 1, "a": [1]})", R"({"$mul": {"a": 2}})", ErrorCode::kTypeMismatch);
}

TEST(UpdateBit, AndOrXor) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 13})", R"({"$bit": {"a": {"and": 10}}})",
                R"({"_id": 1, "a": 8})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 13})", R"({"$bit": {"a": {"or": 2}}})",
                R"({"_id": 1, "a": 15})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 13})", R"({"$bit": {"a": {"xor": 5}}})",
                R"({"_id": 1, "a": 8})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 1})",
                R"({"$bit": {"a": {"or": {"$numberLong": "4294967296"}}}})",
                R"({"_id": 1, "a": {"$numberLong": "4294967297"}})");
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$bit": {"a": {"or": 5}}})", R"({"_id": 1, "a": 5})");
}

TEST(UpdateBit, Errors) {
  expect_compile_error(R"({"$bit": {"a": 5}})", ErrorCode::kBadValue);
  expect_compile_error(R"({"$bit": {"a": {"nand": 5}}})", ErrorCode::kBadValue);
  expect_compile_error(R"({"$bit": {"a": {"and": 5.5}}})", ErrorCode::kBadValue);
  expect_compile_error(R"({"$bit": {"a": {}}})", ErrorCode::kBadValue);
  expect_apply_error(R"({"_id": 1, "a": 1.5})", R"({"$bit": {"a": {"and": 1}}})",
                     ErrorCode::kBadValue);
}

}  // namespace
}  // namespace mongostore::engine::update_test
