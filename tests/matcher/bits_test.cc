// $bitsAllSet $bitsAllClear $bitsAnySet $bitsAnyClear.
#include "matcher_test_util.h"

namespace mongostore::engine::testing {

TEST(MatcherBits, NumericMask) {
  // 54 = 0b110110
  EXPECT_TRUE(M(R"({"a": {"$bitsAllSet": 6}})", R"({"a": 54})"));
  EXPECT_FALSE(M(R"({"a": {"$bitsAllSet": 7}})", R"({"a": 54})"));
  EXPECT_TRUE(M(R"({"a": {"$bitsAllClear": 9}})", R"({"a": 54})"));
  EXPECT_FALSE(M(R"({"a": {"$bitsAllClear": 3}})", R"({"a": 54})"));
  EXPECT_TRUE(M(R"({"a": {"$bitsAnySet": 3}})", R"({"a": 54})"));
  EXPECT_FALSE(M(R"({"a": {"$bitsAnySet": 9}})", R"({"a": 54})"));
  EXPECT_TRUE(M(R"({"a": {"$bitsAnyClear": 3}})", R"({"a": 54})"));
  EXPECT_FALSE(M(R"({"a": {"$bitsAnyClear": 6}})", R"({"a": 54})"));
  EXPECT_TRUE(M(R"({"a": {"$bitsAllSet": 0}})", R"({"a": 54})"));
}

TEST(MatcherBits, PositionsValuesAndTypes) {
  EXPECT_TRUE(M(R"({"a": {"$bitsAllSet": [1, 2, 4, 5]}})", R"({"a": 54})"));
  EXPECT_FALSE(M(R"({"a": {"$bitsAllSet": [0]}})", R"({"a": 54})"));
  EXPECT_TRUE(M(R"({"a": {"$bitsAllSet": [100]}})", R"({"a": -1})"));  // sign extension
  EXPECT_TRUE(M(R"({"a": {"$bitsAllClear": [100]}})", R"({"a": 1})"));
  EXPECT_TRUE(M(R"({"a": {"$bitsAllSet": [1]}})", R"({"a": 2.0})"));
  EXPECT_FALSE(M(R"({"a": {"$bitsAllSet": [1]}})", R"({"a": 2.5})"));  // not integral
  EXPECT_FALSE(M(R"({"a": {"$bitsAllClear": [1]}})", R"({"a": "x"})"));
  EXPECT_FALSE(M(R"({"a": {"$bitsAllClear": [1]}})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$bitsAnySet": [1]}})", R"({"a": [1, 2]})"));
  // BinData values: byte 0 = 0x01, byte 1 = 0x02 -> bits 0 and 9
  const char* bin = R"({"a": {"$binary": {"base64": "AQI=", "subType": "00"}}})";
  EXPECT_TRUE(M(R"({"a": {"$bitsAllSet": [0, 9]}})", bin));
  EXPECT_FALSE(M(R"({"a": {"$bitsAllSet": [1]}})", bin));
  EXPECT_TRUE(M(R"({"a": {"$bitsAllClear": [20]}})", bin));
  // a BinData mask
  EXPECT_TRUE(M(R"({"a": {"$bitsAllSet": {"$binary": {"base64": "AQI=", "subType": "00"}}}})",
                R"({"a": 513})"));
}

TEST(MatcherBits, Errors) {
  EXPECT_EQ(compile_error(R"({"a": {"$bitsAllSet": -1}})"), 2);
  EXPECT_EQ(compile_error(R"({"a": {"$bitsAllSet": 1.5}})"), 2);
  EXPECT_EQ(compile_error(R"({"a": {"$bitsAllSet": [-1]}})"), 2);
  EXPECT_EQ(compile_error(R"({"a": {"$bitsAllSet": ["x"]}})"), 2);
  std::string msg;
  EXPECT_EQ(compile_error(R"({"a": {"$bitsAnySet": "x"}})", &msg), 2);
  EXPECT_NE(msg.find("$bitsAnySet takes an Array, a number, or a BinData"), std::string::npos)
      << msg;
}

}  // namespace mongostore::engine::testing
