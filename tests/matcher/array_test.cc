// $all and $elemMatch.
#include "matcher_test_util.h"

namespace mongostore::engine::testing {

TEST(MatcherAll, Basics) {
  EXPECT_TRUE(M(R"({"a": {"$all": [1, 2]}})", R"({"a": [3, 2, 1]})"));
  EXPECT_FALSE(M(R"({"a": {"$all": [1, 2]}})", R"({"a": [1, 3]})"));
  EXPECT_TRUE(M(R"({"a": {"$all": [1]}})", R"({"a": 1})"));  // scalar field
  EXPECT_FALSE(M(R"({"a": {"$all": []}})", R"({"a": [1]})"));
  EXPECT_FALSE(M(R"({"a": {"$all": [1]}})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$all": [[1, 2]]}})", R"({"a": [[1, 2], 3]})"));
  EXPECT_TRUE(M(R"({"a": {"$all": [[1, 2]]}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(M(R"({"a.b": {"$all": [1, 2]}})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  const char* re =
      R"({"a": {"$all": [{"$regularExpression": {"pattern": "^x", "options": ""}}, "yy"]}})";
  EXPECT_TRUE(M(re, R"({"a": ["xa", "yy"]})"));
  EXPECT_FALSE(M(re, R"({"a": ["ax", "yy"]})"));
}

TEST(MatcherAll, WithElemMatch) {
  const char* f =
      R"({"a": {"$all": [{"$elemMatch": {"x": 1, "y": 2}}, {"$elemMatch": {"x": 3}}]}})";
  EXPECT_TRUE(M(f, R"({"a": [{"x": 1, "y": 2}, {"x": 3}]})"));
  EXPECT_FALSE(M(f, R"({"a": [{"x": 1}, {"y": 2}, {"x": 3}]})"));
  EXPECT_TRUE(M(R"({"a": {"$all": [{"$elemMatch": {"$gt": 5}}]}})", R"({"a": [1, 6]})"));
}

TEST(MatcherElemMatch, ObjectForm) {
  const char* f = R"({"a": {"$elemMatch": {"x": 1, "y": {"$gt": 1}}}})";
  EXPECT_TRUE(M(f, R"({"a": [{"x": 1, "y": 2}]})"));
  EXPECT_FALSE(M(f, R"({"a": [{"x": 1, "y": 0}, {"x": 2, "y": 2}]})"));  // same element
  EXPECT_FALSE(M(f, R"({"a": {"x": 1, "y": 2}})"));                      // not an array
  EXPECT_FALSE(M(f, R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {}}})", R"({"a": [1, {}]})"));
  EXPECT_FALSE(M(R"({"a": {"$elemMatch": {}}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$or": [{"x": 1}, {"x": 2}]}}})", R"({"a": [{"x": 2}]})"));
  EXPECT_TRUE(M(R"({"a.b": {"$elemMatch": {"c": 1}}})", R"({"a": [{"b": [{"c": 1}]}]})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"0": 1}}})", R"({"a": [[1, 2]]})"));  // nested array
}

TEST(MatcherElemMatch, ValueForm) {
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$gt": 1, "$lt": 3}}})", R"({"a": [0, 2, 4]})"));
  EXPECT_FALSE(M(R"({"a": {"$elemMatch": {"$gt": 1, "$lt": 3}}})", R"({"a": [0, 4]})"));
  EXPECT_FALSE(M(R"({"a": {"$elemMatch": {"$gt": 1}}})", R"({"a": 5})"));
  EXPECT_FALSE(M(R"({"a": {"$elemMatch": {"$gt": 1}}})", R"({"a": [[5]]})"));  // no recursion
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$not": {"$gt": 1}}}})", R"({"a": [5, 0]})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$in": ["x", "z"]}}})", R"({"a": ["y", "z"]})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$elemMatch": {"$eq": 2}}}})", R"({"a": [[1], [2]]})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$type": "string"}}})", R"({"a": [1, "s"]})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$size": 2}}})", R"({"a": [[1], [1, 2]]})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$exists": true}}})", R"({"a": [1]})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$eq": null}}})", R"({"a": [null]})"));
}

}  // namespace mongostore::engine::testing
