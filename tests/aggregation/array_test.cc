// Array expressions.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

// $in reads its array in place where it can (root paths, literals, $ifNull of those) and
// builds it otherwise (paths through arrays); the answers must be the same either way.
TEST(AggArray, InOverPathsLiteralsAndIfNull) {
  const char* doc =
      R"({"p": ["a", "b"], "s": {"ids": ["x", 1, 2.5]}, "arr": [{"v": 1}, {"v": 2}]})";
  EXPECT_EQ(E(R"({"$in": ["b", "$p"]})", doc), V("true"));
  EXPECT_EQ(E(R"({"$in": ["c", "$p"]})", doc), V("false"));
  EXPECT_EQ(E(R"({"$in": ["x", "$s.ids"]})", doc), V("true"));
  EXPECT_EQ(E(R"({"$in": [1.0, "$s.ids"]})", doc), V("true"));   // numbers compare by value
  EXPECT_EQ(E(R"({"$in": ["1", "$s.ids"]})", doc), V("false"));  // a string is not a number
  EXPECT_EQ(E(R"({"$in": [{"$symbol": "x"}, "$s.ids"]})", doc), V("true"));
  EXPECT_EQ(E(R"({"$in": ["a", {"$ifNull": ["$missing", "$p"]}]})", doc), V("true"));
  EXPECT_EQ(E(R"({"$in": ["a", {"$ifNull": ["$missing", []]}]})", doc), V("false"));
  EXPECT_EQ(E(R"({"$in": [2, "$arr.v"]})", doc), V("true"));  // built through the array
  EXPECT_EQ(E(R"({"$in": [3, "$arr.v"]})", doc), V("false"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$in": [1, "$s"]})", doc, &msg), 40081);
  EXPECT_EQ(msg, "$in requires an array as a second argument, found: object");
  EXPECT_EQ(EE(R"({"$in": [1]})", doc, &msg), 16020);
}

TEST(AggArray, InSizeElemAt) {
  EXPECT_EQ(E(R"({"$in": [2, [1, 2, 3]]})"), V("true"));
  EXPECT_EQ(E(R"({"$in": [2.0, [1, 2]]})"), V("true"));
  EXPECT_EQ(E(R"({"$in": [5, "$a"]})", R"({"a": [1]})"), V("false"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$in": [1, "$a"]})", "{}", &msg), 40081);
  EXPECT_EQ(msg, "$in requires an array as a second argument, found: missing");
  EXPECT_EQ(E(R"({"$size": [[1, 2, 3]]})"), V("3"));
  EXPECT_EQ(EE(R"({"$size": "$a"})", R"({"a": 1})", &msg), 17124);
  EXPECT_EQ(msg, "The argument to $size must be an array, but was of type: int");
  EXPECT_EQ(E(R"({"$arrayElemAt": [[1, 2, 3], 0]})"), V("1"));
  EXPECT_EQ(E(R"({"$arrayElemAt": [[1, 2, 3], -1]})"), V("3"));
  EXPECT_EQ(E(R"({"$arrayElemAt": [[1, 2, 3], 5]})"), "missing");
  EXPECT_EQ(E(R"({"$arrayElemAt": ["$x", 0]})"), V("null"));
  EXPECT_EQ(EE(R"({"$arrayElemAt": [1, 0]})"), 28689);
  EXPECT_EQ(EE(R"({"$arrayElemAt": [[1], 0.5]})"), 28691);
}

TEST(AggArray, FirstLastIsArrayReverse) {
  EXPECT_EQ(E(R"({"$first": [[1, 2, 3]]})"), V("1"));
  EXPECT_EQ(E(R"({"$last": "$a"})", R"({"a": [1, 2, 3]})"), V("3"));
  EXPECT_EQ(E(R"({"$first": [[]]})"), "missing");
  EXPECT_EQ(E(R"({"$last": "$missing"})"), V("null"));
  EXPECT_EQ(E(R"({"$isArray": [[1]]})"), V("true"));
  EXPECT_EQ(E(R"({"$isArray": "$a"})", R"({"a": 1})"), V("false"));
  EXPECT_EQ(E(R"({"$reverseArray": [[1, 2, 3]]})"), V("[3, 2, 1]"));
  EXPECT_EQ(E(R"({"$reverseArray": "$x"})"), V("null"));
  EXPECT_EQ(EE(R"({"$reverseArray": 1})"), 34435);
}

TEST(AggArray, ConcatSliceIndexOfRange) {
  EXPECT_EQ(E(R"({"$concatArrays": [[1], [2, 3], []]})"), V("[1, 2, 3]"));
  EXPECT_EQ(E(R"({"$concatArrays": [[1], "$x"]})"), V("null"));
  EXPECT_EQ(EE(R"({"$concatArrays": [[1], 2]})"), 28664);
  EXPECT_EQ(E(R"({"$slice": [[1, 2, 3, 4], 2]})"), V("[1, 2]"));
  EXPECT_EQ(E(R"({"$slice": [[1, 2, 3, 4], -2]})"), V("[3, 4]"));
  EXPECT_EQ(E(R"({"$slice": [[1, 2, 3, 4], 1, 2]})"), V("[2, 3]"));
  EXPECT_EQ(E(R"({"$slice": [[1, 2, 3, 4], -3, 2]})"), V("[2, 3]"));
  EXPECT_EQ(E(R"({"$slice": [[1, 2], 5, 2]})"), V("[]"));
  EXPECT_EQ(E(R"({"$slice": ["$x", 1]})"), V("null"));
  EXPECT_EQ(EE(R"({"$slice": [[1], 0, 0]})"), 28729);
  EXPECT_EQ(E(R"({"$indexOfArray": [["a", "b", "a"], "a"]})"), V("0"));
  EXPECT_EQ(E(R"({"$indexOfArray": [["a", "b", "a"], "a", 1]})"), V("2"));
  EXPECT_EQ(E(R"({"$indexOfArray": [["a", "b"], "c"]})"), V("-1"));
  EXPECT_EQ(E(R"({"$indexOfArray": [null, "c"]})"), V("null"));
  EXPECT_EQ(E(R"({"$range": [0, 5]})"), V("[0, 1, 2, 3, 4]"));
  EXPECT_EQ(E(R"({"$range": [0, 10, 3]})"), V("[0, 3, 6, 9]"));
  EXPECT_EQ(E(R"({"$range": [5, 0, -2]})"), V("[5, 3, 1]"));
  EXPECT_EQ(EE(R"({"$range": [0, 5, 0]})"), 34449);
  EXPECT_EQ(EE(R"({"$range": ["a", 5]})"), 34443);
}

TEST(AggArray, FilterMapReduce) {
  EXPECT_EQ(E(R"({"$filter": {"input": [1, 2, 3, 4], "cond": {"$gt": ["$$this", 2]}}})"),
            V("[3, 4]"));
  EXPECT_EQ(E(R"({"$filter": {"input": "$a", "as": "x", "cond": {"$eq": ["$$x.k", 1]}}})",
              R"({"a": [{"k": 1}, {"k": 2}, {"k": 1, "z": 0}]})"),
            V(R"([{"k": 1}, {"k": 1, "z": 0}])"));
  EXPECT_EQ(E(R"({"$filter": {"input": [1, 2, 3], "cond": true, "limit": 2}})"), V("[1, 2]"));
  EXPECT_EQ(E(R"({"$filter": {"input": "$x", "cond": true}})"), V("null"));
  EXPECT_EQ(EE(R"({"$filter": {"input": 1, "cond": true}})"), 28651);
  EXPECT_EQ(EE(R"({"$filter": {"input": [1]}})"), 28650);
  EXPECT_EQ(E(R"({"$map": {"input": [1, 2], "as": "v", "in": {"$multiply": ["$$v", "$k"]}}})",
              R"({"k": 10})"),
            V("[10, 20]"));
  EXPECT_EQ(E(R"({"$map": {"input": [1, 2], "in": "$$this"}})"), V("[1, 2]"));
  EXPECT_EQ(EE(R"({"$map": {"input": "x", "in": 1}})"), 16883);
  EXPECT_EQ(E(R"({"$reduce": {"input": [1, 2, 3], "initialValue": 0,
              "in": {"$add": ["$$value", "$$this"]}}})"),
            V("6"));
  EXPECT_EQ(E(R"({"$reduce": {"input": [[1], [2, 3]], "initialValue": [],
              "in": {"$concatArrays": ["$$value", "$$this"]}}})"),
            V("[1, 2, 3]"));
  EXPECT_EQ(EE(R"({"$reduce": {"input": 5, "initialValue": 0, "in": 1}})"), 40080);
}

TEST(AggArray, SortArray) {
  EXPECT_EQ(E(R"({"$sortArray": {"input": [3, "a", 1, null, 2.5], "sortBy": 1}})"),
            V(R"([null, 1, 2.5, 3, "a"])"));
  EXPECT_EQ(E(R"({"$sortArray": {"input": [3, 1, 2], "sortBy": -1}})"), V("[3, 2, 1]"));
  EXPECT_EQ(E(R"({"$sortArray": {"input": [{"a": 2, "i": 0}, {"a": 1, "i": 1}, 5, {"a": 1, "i": 2}],
                                 "sortBy": {"a": 1}}})"),
            V(R"([5, {"a": 1, "i": 1}, {"a": 1, "i": 2}, {"a": 2, "i": 0}])"));
  EXPECT_EQ(E(R"({"$sortArray": {"input": "$missing", "sortBy": 1}})"), V("null"));
  EXPECT_EQ(EE(R"({"$sortArray": {"input": 1, "sortBy": 1}})"), 2942504);
  EXPECT_EQ(EE(R"({"$sortArray": {"input": [1], "sortBy": 2}})"), 2942506);
  EXPECT_EQ(EE(R"({"$sortArray": {"input": [1], "sortBy": true}})"), 2942507);
  EXPECT_EQ(EE(R"({"$sortArray": {"input": [1]}})"), 2942503);
  EXPECT_EQ(EE(R"({"$sortArray": {"sortBy": 1}})"), 2942502);
  EXPECT_EQ(EE(R"({"$sortArray": {"input": [1], "sortBy": 1, "x": 1}})"), 2942501);
  EXPECT_EQ(EE(R"({"$sortArray": [1]})"), 2942500);
}

TEST(AggArray, Zip) {
  EXPECT_EQ(E(R"({"$zip": {"inputs": [[1, 2, 3], ["a", "b"]]}})"), V(R"([[1, "a"], [2, "b"]])"));
  EXPECT_EQ(E(R"({"$zip": {"inputs": [[1, 2, 3], ["a"]], "useLongestLength": true}})"),
            V(R"([[1, "a"], [2, null], [3, null]])"));
  EXPECT_EQ(E(R"({"$zip": {"inputs": [[1, 2], ["a"]], "useLongestLength": true,
                           "defaults": [0, "z"]}})"),
            V(R"([[1, "a"], [2, "z"]])"));
  EXPECT_EQ(E(R"({"$zip": {"inputs": [[1], "$missing"]}})"), V("null"));
  EXPECT_EQ(EE(R"({"$zip": {"inputs": [[1], 2]}})"), 34468);
  EXPECT_EQ(EE(R"({"$zip": {"inputs": []}})"), 34465);
  EXPECT_EQ(EE(R"({"$zip": {"inputs": [[1]], "defaults": [1]}})"), 34466);
  EXPECT_EQ(EE(R"({"$zip": {"inputs": [[1]], "useLongestLength": true, "defaults": [1, 2]}})"),
            34467);
  EXPECT_EQ(EE(R"({"$zip": {"inputs": [[1]], "useLongestLength": 1}})"), 34463);
  EXPECT_EQ(EE(R"({"$zip": {"inputs": [[1]], "x": 1}})"), 34464);
  EXPECT_EQ(EE(R"({"$zip": [1]})"), 34460);
}

}  // namespace
}  // namespace mongostore::engine::agg_test

namespace mongostore::engine::agg_test {
namespace {

TEST(AggArray, AccumulatorExpressions) {
  EXPECT_EQ(E(R"({"$sum": "$a.p"})", R"({"a": [{"p": 1}, {"p": 2.5}, {"q": 1}]})"), V("3.5"));
  EXPECT_EQ(E(R"({"$sum": [1, 2, "x"]})"), V("3"));
  EXPECT_EQ(E(R"({"$sum": "$missing"})"), V("0"));
  EXPECT_EQ(E(R"({"$avg": [[1, 2, 3, 4]]})"), V("2.5"));
  EXPECT_EQ(E(R"({"$avg": "$missing"})"), V("null"));
  EXPECT_EQ(E(R"({"$min": [3, 1, null, 2]})"), V("1"));
  EXPECT_EQ(E(R"({"$max": "$a"})", R"({"a": [3, "z", 1]})"), V("\"z\""));
}

}  // namespace
}  // namespace mongostore::engine::agg_test
