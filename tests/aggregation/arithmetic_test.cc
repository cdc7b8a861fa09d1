// Arithmetic expressions: results, numeric type widening, null propagation and errors.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

TEST(AggArithmetic, Add) {
  EXPECT_EQ(E(R"({"$add": [1, 2]})"), V("3"));
  EXPECT_EQ(E(R"({"$add": [1, 2.5]})"), V("3.5"));
  EXPECT_EQ(E(R"({"$add": [2147483647, 1]})"), V(R"({"$numberLong": "2147483648"})"));
  EXPECT_EQ(E(R"({"$add": [{"$numberLong": "1"}, 1]})"), V(R"({"$numberLong": "2"})"));
  EXPECT_EQ(E(R"({"$add": [1, {"$numberDecimal": "1.5"}]})"), V(R"({"$numberDecimal": "2.5"})"));
  EXPECT_EQ(E(R"({"$add": []})"), V("0"));
  EXPECT_EQ(E(R"({"$add": [1, null]})"), V("null"));
  EXPECT_EQ(E(R"({"$add": [1, "$missing"]})"), V("null"));
  EXPECT_EQ(E(R"({"$add": ["$d", 1000]})", R"({"d": {"$date": "2020-01-01T00:00:00Z"}})"),
            V(R"({"$date": "2020-01-01T00:00:01Z"})"));
}

TEST(AggArithmetic, AddErrors) {
  std::string msg;
  EXPECT_EQ(EE(R"({"$add": [1, "x"]})", "{}", &msg), 16554);
  EXPECT_EQ(msg, "$add only supports numeric or date types, not string");
  EXPECT_EQ(EE(R"({"$add": ["$d", "$d"]})", R"({"d": {"$date": "2020-01-01T00:00:00Z"}})"), 16612);
}

TEST(AggArithmetic, Subtract) {
  EXPECT_EQ(E(R"({"$subtract": [5, 3]})"), V("2"));
  EXPECT_EQ(E(R"({"$subtract": [5, 0.5]})"), V("4.5"));
  EXPECT_EQ(E(R"({"$subtract": [null, 1]})"), V("null"));
  EXPECT_EQ(
      E(R"({"$subtract": ["$a", "$b"]})",
        R"({"a": {"$date": "2020-01-01T00:00:01Z"}, "b": {"$date": "2020-01-01T00:00:00Z"}})"),
      V(R"({"$numberLong": "1000"})"));
  EXPECT_EQ(E(R"({"$subtract": ["$a", 1000]})", R"({"a": {"$date": "2020-01-01T00:00:01Z"}})"),
            V(R"({"$date": "2020-01-01T00:00:00Z"})"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$subtract": ["x", 1]})", "{}", &msg), 16556);
  EXPECT_EQ(msg, "can't $subtract int from string");
  EXPECT_EQ(EE(R"({"$subtract": [1]})"), 16020);
}

TEST(AggArithmetic, MultiplyDivideMod) {
  EXPECT_EQ(E(R"({"$multiply": [2, 3, 4]})"), V("24"));
  EXPECT_EQ(E(R"({"$multiply": [2, 1.5]})"), V("3.0"));
  EXPECT_EQ(E(R"({"$multiply": [2, null]})"), V("null"));
  EXPECT_EQ(EE(R"({"$multiply": [2, "a"]})"), 16555);
  EXPECT_EQ(E(R"({"$divide": [6, 4]})"), V("1.5"));
  EXPECT_EQ(E(R"({"$divide": [6, 3]})"), V("2.0"));
  EXPECT_EQ(E(R"({"$divide": ["$x", 3]})"), V("null"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$divide": [1, 0]})", "{}", &msg), 2);
  EXPECT_EQ(msg, "can't $divide by zero");
  EXPECT_EQ(EE(R"({"$divide": [1, "a"]})"), 16609);
  EXPECT_EQ(E(R"({"$mod": [7, 3]})"), V("1"));
  EXPECT_EQ(E(R"({"$mod": [-7, 3]})"), V("-1"));
  EXPECT_EQ(E(R"({"$mod": [7.5, 2]})"), V("1.5"));
  EXPECT_EQ(EE(R"({"$mod": [7, 0]})"), 16610);
}

TEST(AggArithmetic, UnaryOperators) {
  EXPECT_EQ(E(R"({"$abs": -3})"), V("3"));
  EXPECT_EQ(E(R"({"$abs": -3.5})"), V("3.5"));
  EXPECT_EQ(E(R"({"$abs": null})"), V("null"));
  EXPECT_EQ(EE(R"({"$abs": "x"})"), 28765);
  EXPECT_EQ(E(R"({"$ceil": 1.2})"), V("2.0"));
  EXPECT_EQ(E(R"({"$floor": -1.2})"), V("-2.0"));
  EXPECT_EQ(E(R"({"$floor": 5})"), V("5"));
  EXPECT_EQ(E(R"({"$sqrt": 16})"), V("4.0"));
  EXPECT_EQ(EE(R"({"$sqrt": -1})"), 28714);
  EXPECT_EQ(E(R"({"$exp": 0})"), V("1.0"));
  EXPECT_EQ(E(R"({"$ln": 1})"), V("0.0"));
  EXPECT_EQ(EE(R"({"$ln": 0})"), 28766);
  EXPECT_EQ(E(R"({"$log10": 100})"), V("2.0"));
  EXPECT_EQ(E(R"({"$log": [8, 2]})"), V("3.0"));
  EXPECT_EQ(EE(R"({"$log": [8, 1]})"), 28759);
}

TEST(AggArithmetic, PowRoundTrunc) {
  EXPECT_EQ(E(R"({"$pow": [2, 10]})"), V("1024"));
  EXPECT_EQ(E(R"({"$pow": [2, -1]})"), V("0.5"));
  EXPECT_EQ(E(R"({"$pow": [2.0, 2]})"), V("4.0"));
  EXPECT_EQ(EE(R"({"$pow": [0, -1]})"), 28764);
  EXPECT_EQ(E(R"({"$round": [2.5]})"), V("2.0"));
  EXPECT_EQ(E(R"({"$round": [3.5]})"), V("4.0"));
  EXPECT_EQ(E(R"({"$round": [1.2345, 2]})"), V("1.23"));
  EXPECT_EQ(E(R"({"$round": [1234, -2]})"), V("1200"));
  EXPECT_EQ(E(R"({"$trunc": [1.99]})"), V("1.0"));
  EXPECT_EQ(E(R"({"$trunc": [-1.99, 1]})"), V("-1.9"));
  EXPECT_EQ(E(R"({"$round": null})"), V("null"));
}

}  // namespace
}  // namespace mongostore::engine::agg_test
