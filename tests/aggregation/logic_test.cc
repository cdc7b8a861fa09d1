// Comparison, boolean and conditional expressions.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

TEST(AggLogic, Comparison) {
  EXPECT_EQ(E(R"({"$cmp": [1, 2]})"), V("-1"));
  EXPECT_EQ(E(R"({"$cmp": ["b", "a"]})"), V("1"));
  EXPECT_EQ(E(R"({"$cmp": [1, 1.0]})"), V("0"));
  EXPECT_EQ(E(R"({"$eq": [1, 1.0]})"), V("true"));
  EXPECT_EQ(E(R"({"$ne": [1, 2]})"), V("true"));
  EXPECT_EQ(E(R"({"$gt": ["a", 1]})"), V("true"));  // strings sort after numbers
  EXPECT_EQ(E(R"({"$gte": [2, 2]})"), V("true"));
  EXPECT_EQ(E(R"({"$lt": [null, 0]})"), V("true"));
  EXPECT_EQ(E(R"({"$lte": [3, 2]})"), V("false"));
  // Missing is not null.
  EXPECT_EQ(E(R"({"$eq": ["$missing", null]})"), V("false"));
  EXPECT_EQ(E(R"({"$lt": ["$missing", null]})"), V("true"));
  EXPECT_EQ(EE(R"({"$eq": [1, 2, 3]})"), 16020);
}

TEST(AggLogic, Boolean) {
  EXPECT_EQ(E(R"({"$and": [1, true, "x"]})"), V("true"));
  EXPECT_EQ(E(R"({"$and": [1, 0]})"), V("false"));
  EXPECT_EQ(E(R"({"$and": []})"), V("true"));
  EXPECT_EQ(E(R"({"$or": [null, false, "$missing"]})"), V("false"));
  EXPECT_EQ(E(R"({"$or": [null, 1]})"), V("true"));
  EXPECT_EQ(E(R"({"$or": []})"), V("false"));
  EXPECT_EQ(E(R"({"$not": [0]})"), V("true"));
  EXPECT_EQ(E(R"({"$not": "$missing"})"), V("true"));
  EXPECT_EQ(E(R"({"$not": [[]]})"), V("false"));  // an array is truthy
  // $and short-circuits: the division by zero is never evaluated.
  EXPECT_EQ(E(R"({"$and": [false, {"$divide": [1, 0]}]})"), V("false"));
}

TEST(AggLogic, Cond) {
  EXPECT_EQ(E(R"({"$cond": [true, 1, 2]})"), V("1"));
  EXPECT_EQ(E(R"({"$cond": [null, 1, 2]})"), V("2"));
  EXPECT_EQ(
      E(R"({"$cond": {"if": {"$gt": ["$a", 1]}, "then": "big", "else": "small"}})", R"({"a": 5})"),
      V("\"big\""));
  EXPECT_EQ(EE(R"({"$cond": {"if": true, "then": 1}})"), 17082);
  EXPECT_EQ(EE(R"({"$cond": {"if": true, "then": 1, "else": 2, "x": 3}})"), 17083);
  EXPECT_EQ(EE(R"({"$cond": [true, 1]})"), 16020);
}

TEST(AggLogic, IfNull) {
  EXPECT_EQ(E(R"({"$ifNull": ["$a", "d"]})", R"({"a": null})"), V("\"d\""));
  EXPECT_EQ(E(R"({"$ifNull": ["$a", "d"]})", "{}"), V("\"d\""));
  EXPECT_EQ(E(R"({"$ifNull": ["$a", "d"]})", R"({"a": 0})"), V("0"));
  EXPECT_EQ(E(R"({"$ifNull": ["$a", "$b", 3]})", R"({"b": 2})"), V("2"));
  EXPECT_EQ(E(R"({"$ifNull": ["$a", "$b"]})", "{}"), "missing");
}

TEST(AggLogic, Switch) {
  const char* sw = R"({"$switch": {"branches": [
      {"case": {"$lt": ["$a", 0]}, "then": "neg"},
      {"case": {"$eq": ["$a", 0]}, "then": "zero"}], "default": "pos"}})";
  EXPECT_EQ(E(sw, R"({"a": -1})"), V("\"neg\""));
  EXPECT_EQ(E(sw, R"({"a": 0})"), V("\"zero\""));
  EXPECT_EQ(E(sw, R"({"a": 3})"), V("\"pos\""));
  std::string msg;
  EXPECT_EQ(EE(R"({"$switch": {"branches": [{"case": false, "then": 1}]}})", "{}", &msg), 40066);
  EXPECT_EQ(EE(R"({"$switch": {"branches": []}})"), 40068);
  EXPECT_EQ(EE(R"({"$switch": {"branches": [{"then": 1}]}})"), 40064);
}

}  // namespace
}  // namespace mongostore::engine::agg_test
