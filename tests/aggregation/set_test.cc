// Set expressions: arrays read as sets (duplicates once, 1 equals 1.0), null propagation
// where mongod propagates it, and mongod's errors for non-arrays.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

TEST(AggSet, UnionAndIntersectionComeOutInValueOrder) {
  EXPECT_EQ(E(R"({"$setUnion": [[3, 1, 1], [2, 1.0]]})"), V("[1, 2, 3]"));
  EXPECT_EQ(E(R"({"$setUnion": [["b"], ["a", "b"]]})"), V(R"(["a", "b"])"));
  EXPECT_EQ(E(R"({"$setUnion": []})"), V("[]"));
  EXPECT_EQ(E(R"({"$setIntersection": [[1, 2, 3], [3, 2, 4], [2, 3]]})"), V("[2, 3]"));
  EXPECT_EQ(E(R"({"$setIntersection": [[1, 2], [3]]})"), V("[]"));
  EXPECT_EQ(E(R"({"$setUnion": [[1], null]})"), V("null"));
  EXPECT_EQ(E(R"({"$setIntersection": [[1], "$missing"]})"), V("null"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$setUnion": [[1], 5]})", "{}", &msg), 17043);
  EXPECT_EQ(msg, "All operands of $setUnion must be arrays. One argument is of type: int");
  EXPECT_EQ(EE(R"({"$setIntersection": [[1], "a"]})"), 17047);
}

TEST(AggSet, DifferenceKeepsTheFirstArraysOrder) {
  EXPECT_EQ(E(R"({"$setDifference": [[3, 1, 3, 2], [2]]})"), V("[3, 1]"));
  EXPECT_EQ(E(R"({"$setDifference": [[1], "$missing"]})"), V("null"));
  EXPECT_EQ(EE(R"({"$setDifference": [1, [1]]})"), 17048);
  EXPECT_EQ(EE(R"({"$setDifference": [[1], 1]})"), 17049);
  EXPECT_EQ(EE(R"({"$setDifference": [[1]]})"), 16020);
}

TEST(AggSet, EqualsAndSubset) {
  EXPECT_EQ(E(R"({"$setEquals": [[1, 2, 2], [2, 1.0]]})"), V("true"));
  EXPECT_EQ(E(R"({"$setEquals": [[1], [1, 2]]})"), V("false"));
  EXPECT_EQ(E(R"({"$setEquals": [[1], [1], [2]]})"), V("false"));
  EXPECT_EQ(EE(R"({"$setEquals": [[1], null]})"), 17044);  // no null propagation here
  EXPECT_EQ(E(R"({"$setIsSubset": [[1, 1], [1, 2]]})"), V("true"));
  EXPECT_EQ(E(R"({"$setIsSubset": [[], []]})"), V("true"));
  EXPECT_EQ(E(R"({"$setIsSubset": [[1, 3], [1, 2]]})"), V("false"));
  EXPECT_EQ(EE(R"({"$setIsSubset": [null, [1]]})"), 17046);
  EXPECT_EQ(EE(R"({"$setIsSubset": [[1], null]})"), 17042);
}

TEST(AggSet, AllAndAnyElementTrue) {
  EXPECT_EQ(E(R"({"$allElementsTrue": [[1, true, "a", []]]})"), V("true"));
  EXPECT_EQ(E(R"({"$allElementsTrue": [[1, 0]]})"), V("false"));
  EXPECT_EQ(E(R"({"$allElementsTrue": [[]]})"), V("true"));
  EXPECT_EQ(E(R"({"$anyElementTrue": [[0, null, false, "$missing"]]})"), V("false"));
  EXPECT_EQ(E(R"({"$anyElementTrue": [[0, 2]]})"), V("true"));
  EXPECT_EQ(E(R"({"$anyElementTrue": [[]]})"), V("false"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$anyElementTrue": null})", "{}", &msg), 17041);
  EXPECT_EQ(msg, "$anyElementTrue's argument must be an array, but is null");
  EXPECT_EQ(EE(R"({"$allElementsTrue": 1})"), 17040);
}

}  // namespace
}  // namespace mongostore::engine::agg_test
