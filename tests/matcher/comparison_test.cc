// Equality and comparison operators: $eq $ne $gt $gte $lt $lte $in $nin.
#include "matcher_test_util.h"

namespace mongostore::engine::testing {

TEST(MatcherEquality, ImplicitScalar) {
  EXPECT_TRUE(M(R"({"a": 1})", R"({"a": 1})"));
  EXPECT_TRUE(M(R"({"a": 1})", R"({"a": 1.0})"));
  EXPECT_TRUE(M(R"({"a": 1})", R"({"a": {"$numberLong": "1"}})"));
  EXPECT_TRUE(M(R"({"a": 1})", R"({"a": {"$numberDecimal": "1.00"}})"));
  EXPECT_FALSE(M(R"({"a": 1})", R"({"a": "1"})"));
  EXPECT_FALSE(M(R"({"a": 1})", R"({"b": 1})"));
  EXPECT_TRUE(M(R"({"a": "x", "b": true})", R"({"a": "x", "b": true})"));
  EXPECT_FALSE(M(R"({"a": "x", "b": true})", R"({"a": "x", "b": false})"));
}

TEST(MatcherEquality, ArrayElementsAndWholeArray) {
  EXPECT_TRUE(M(R"({"tags": "x"})", R"({"tags": ["x", "y"]})"));
  EXPECT_FALSE(M(R"({"tags": "z"})", R"({"tags": ["x", "y"]})"));
  EXPECT_TRUE(M(R"({"a": [1, 2]})", R"({"a": [1, 2]})"));
  EXPECT_FALSE(M(R"({"a": [1, 2]})", R"({"a": [2, 1]})"));
  EXPECT_TRUE(M(R"({"a": [1, 2]})", R"({"a": [[1, 2], 3]})"));
  EXPECT_FALSE(M(R"({"a": 1})", R"({"a": [[1]]})"));  // no recursion into nested arrays
  EXPECT_TRUE(M(R"({"a": []})", R"({"a": []})"));
  EXPECT_TRUE(M(R"({"a": []})", R"({"a": [[]]})"));
}

TEST(MatcherEquality, Documents) {
  EXPECT_TRUE(M(R"({"a": {"b": 1, "c": 2}})", R"({"a": {"b": 1, "c": 2}})"));
  EXPECT_FALSE(M(R"({"a": {"b": 1, "c": 2}})", R"({"a": {"c": 2, "b": 1}})"));  // order matters
  EXPECT_FALSE(M(R"({"a": {"b": 1}})", R"({"a": {"b": 1, "c": 2}})"));
  EXPECT_TRUE(M(R"({"a": {"b": 1}})", R"({"a": [{"b": 1}]})"));
  EXPECT_TRUE(M(R"({"a": {"$eq": {"b": 1}}})", R"({"a": {"b": 1}})"));
}

TEST(MatcherEquality, NullMatchesNullAndMissing) {
  EXPECT_TRUE(M(R"({"a": null})", R"({"a": null})"));
  EXPECT_TRUE(M(R"({"a": null})", R"({"b": 1})"));
  EXPECT_FALSE(M(R"({"a": null})", R"({"a": 0})"));
  EXPECT_TRUE(M(R"({"a": null})", R"({"a": [1, null]})"));
  EXPECT_FALSE(M(R"({"a": null})", R"({"a": [1, 2]})"));
  EXPECT_FALSE(M(R"({"a": null})", R"({"a": []})"));
  EXPECT_TRUE(M(R"({"a.b": null})", R"({"a": [{"b": 1}, {"c": 1}]})"));
  EXPECT_FALSE(M(R"({"a.b": null})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  EXPECT_TRUE(M(R"({"a.b": null})", R"({"a": 5})"));
  EXPECT_TRUE(M(R"({"a.b": null})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$eq": null}})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$gte": null}})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$lte": null}})", R"({"a": null})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": null}})", R"({})"));
  EXPECT_FALSE(M(R"({"a": {"$lt": null}})", R"({"a": null})"));
}

TEST(MatcherEquality, Ne) {
  EXPECT_TRUE(M(R"({"a": {"$ne": 1}})", R"({"a": 2})"));
  EXPECT_FALSE(M(R"({"a": {"$ne": 1}})", R"({"a": 1})"));
  EXPECT_TRUE(M(R"({"a": {"$ne": 1}})", R"({"b": 1})"));    // missing
  EXPECT_TRUE(M(R"({"a": {"$ne": 1}})", R"({"a": "1"})"));  // other type
  EXPECT_FALSE(M(R"({"a": {"$ne": 1}})", R"({"a": [2, 1]})"));
  EXPECT_TRUE(M(R"({"a": {"$ne": 1}})", R"({"a": [2, 3]})"));
  EXPECT_FALSE(M(R"({"a": {"$ne": null}})", R"({"b": 1})"));
  EXPECT_TRUE(M(R"({"a": {"$ne": null}})", R"({"a": 0})"));
}

TEST(MatcherComparison, Numbers) {
  EXPECT_TRUE(M(R"({"a": {"$gt": 5}})", R"({"a": 6})"));
  EXPECT_TRUE(M(R"({"a": {"$gt": 5}})", R"({"a": 5.5})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": 5}})", R"({"a": 5})"));
  EXPECT_TRUE(M(R"({"a": {"$gte": 5}})", R"({"a": 5})"));
  EXPECT_TRUE(M(R"({"a": {"$lt": 5}})", R"({"a": -1})"));
  EXPECT_FALSE(M(R"({"a": {"$lt": 5}})", R"({"a": 5})"));
  EXPECT_TRUE(M(R"({"a": {"$lte": 5}})", R"({"a": {"$numberLong": "5"}})"));
  EXPECT_TRUE(M(R"({"a": {"$gt": 1, "$lt": 3}})", R"({"a": 2})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": 1, "$lt": 3}})", R"({"a": 3})"));
}

TEST(MatcherComparison, TypeBracketed) {
  EXPECT_FALSE(M(R"({"a": {"$gt": 5}})", R"({"a": "abc"})"));
  EXPECT_FALSE(M(R"({"a": {"$lt": "a"}})", R"({"a": 5})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": 5}})", R"({"a": null})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": 5}})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$gt": "a"}})", R"({"a": "b"})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": "b"}})", R"({"a": "a"})"));
  EXPECT_TRUE(M(R"({"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}})",
                R"({"a": {"$date": "2021-01-01T00:00:00Z"}})"));
  EXPECT_FALSE(
      M(R"({"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}})", R"({"a": 99999999999999})"));
}

TEST(MatcherComparison, MinKeyMaxKeyCompareAcrossTypes) {
  EXPECT_TRUE(M(R"({"a": {"$gt": {"$minKey": 1}}})", R"({"a": "x"})"));
  EXPECT_TRUE(M(R"({"a": {"$lt": {"$maxKey": 1}}})", R"({"a": 5})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": {"$maxKey": 1}}})", R"({"a": 5})"));
  EXPECT_TRUE(M(R"({"a": {"$eq": {"$minKey": 1}}})", R"({"a": {"$minKey": 1}})"));
}

TEST(MatcherComparison, NaN) {
  EXPECT_TRUE(M(R"({"a": {"$numberDouble": "NaN"}})", R"({"a": {"$numberDouble": "NaN"}})"));
  EXPECT_FALSE(M(R"({"a": {"$lt": 5}})", R"({"a": {"$numberDouble": "NaN"}})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": 5}})", R"({"a": {"$numberDouble": "NaN"}})"));
  EXPECT_TRUE(
      M(R"({"a": {"$gte": {"$numberDouble": "NaN"}}})", R"({"a": {"$numberDouble": "NaN"}})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": {"$numberDouble": "NaN"}}})", R"({"a": 1})"));
}

TEST(MatcherComparison, Arrays) {
  EXPECT_TRUE(M(R"({"a": {"$gt": 5}})", R"({"a": [1, 10]})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": 5}})", R"({"a": [1, 2]})"));
  // each operator may be satisfied by a different element
  EXPECT_TRUE(M(R"({"a": {"$gt": 5, "$lt": 3}})", R"({"a": [1, 10]})"));
  EXPECT_TRUE(M(R"({"a": {"$gt": [1]}})", R"({"a": [2]})"));
  EXPECT_FALSE(M(R"({"a": {"$gt": 5}})", R"({"a": []})"));
}

TEST(MatcherIn, Basics) {
  EXPECT_TRUE(M(R"({"a": {"$in": [1, 2, 3]}})", R"({"a": 2})"));
  EXPECT_FALSE(M(R"({"a": {"$in": [1, 2, 3]}})", R"({"a": 4})"));
  EXPECT_TRUE(M(R"({"a": {"$in": [1, "x"]}})", R"({"a": ["y", "x"]})"));
  EXPECT_FALSE(M(R"({"a": {"$in": []}})", R"({"a": 1})"));
  EXPECT_TRUE(M(R"({"a": {"$in": [null]}})", R"({})"));
  EXPECT_FALSE(M(R"({"a": {"$in": [1]}})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$in": [[1, 2]]}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(M(R"({"a": {"$in": [2.0]}})", R"({"a": 2})"));
}

TEST(MatcherIn, Regex) {
  const char* f =
      R"({"a": {"$in": [{"$regularExpression": {"pattern": "^ab", "options": ""}}, 5]}})";
  EXPECT_TRUE(M(f, R"({"a": "abc"})"));
  EXPECT_TRUE(M(f, R"({"a": 5})"));
  EXPECT_FALSE(M(f, R"({"a": "cab"})"));
  EXPECT_TRUE(M(f, R"({"a": ["zz", "abz"]})"));
}

TEST(MatcherIn, Nin) {
  EXPECT_TRUE(M(R"({"a": {"$nin": [1, 2]}})", R"({"a": 3})"));
  EXPECT_FALSE(M(R"({"a": {"$nin": [1, 2]}})", R"({"a": 2})"));
  EXPECT_TRUE(M(R"({"a": {"$nin": [1, 2]}})", R"({})"));
  EXPECT_FALSE(M(R"({"a": {"$nin": [1, 2]}})", R"({"a": [3, 1]})"));
  EXPECT_FALSE(M(R"({"a": {"$nin": [null]}})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$nin": []}})", R"({"a": 1})"));
}

}  // namespace mongostore::engine::testing
