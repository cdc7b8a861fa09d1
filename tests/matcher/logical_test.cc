// $and $or $nor $not, $comment, $alwaysTrue/$alwaysFalse.
#include "matcher_test_util.h"

namespace mongostore::engine::testing {

TEST(MatcherLogical, And) {
  EXPECT_TRUE(M(R"({"$and": [{"a": 1}, {"b": 2}]})", R"({"a": 1, "b": 2})"));
  EXPECT_FALSE(M(R"({"$and": [{"a": 1}, {"b": 2}]})", R"({"a": 1, "b": 3})"));
  EXPECT_TRUE(M(R"({"$and": [{"a": {"$gt": 1}}, {"a": {"$lt": 3}}]})", R"({"a": 2})"));
}

TEST(MatcherLogical, Or) {
  EXPECT_TRUE(M(R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"b": 2})"));
  EXPECT_FALSE(M(R"({"$or": [{"a": 1}, {"b": 2}]})", R"({"a": 2, "b": 1})"));
  EXPECT_TRUE(M(R"({"x": 1, "$or": [{"a": 1}, {"b": 2}]})", R"({"x": 1, "a": 1})"));
  EXPECT_FALSE(M(R"({"x": 1, "$or": [{"a": 1}, {"b": 2}]})", R"({"x": 2, "a": 1})"));
}

TEST(MatcherLogical, Nor) {
  EXPECT_TRUE(M(R"({"$nor": [{"a": 1}, {"b": 2}]})", R"({"a": 2})"));
  EXPECT_FALSE(M(R"({"$nor": [{"a": 1}, {"b": 2}]})", R"({"b": 2})"));
  EXPECT_TRUE(M(R"({"$nor": [{"a": 1}]})", R"({})"));
}

TEST(MatcherLogical, Not) {
  EXPECT_TRUE(M(R"({"a": {"$not": {"$gt": 5}}})", R"({"a": 3})"));
  EXPECT_FALSE(M(R"({"a": {"$not": {"$gt": 5}}})", R"({"a": 7})"));
  EXPECT_TRUE(M(R"({"a": {"$not": {"$gt": 5}}})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$not": {"$gt": 5}}})", R"({"a": "x"})"));
  EXPECT_FALSE(M(R"({"a": {"$not": {"$gt": 5}}})", R"({"a": [1, 9]})"));
  EXPECT_FALSE(M(R"({"a": {"$not": {"$gt": 1, "$lt": 5}}})", R"({"a": 3})"));
  EXPECT_TRUE(M(R"({"a": {"$not": {"$gt": 1, "$lt": 5}}})", R"({"a": 7})"));
  const char* re = R"({"a": {"$not": {"$regularExpression": {"pattern": "^x", "options": ""}}}})";
  EXPECT_TRUE(M(re, R"({"a": "yx"})"));
  EXPECT_FALSE(M(re, R"({"a": "xy"})"));
  EXPECT_TRUE(M(re, R"({"a": 1})"));
}

TEST(MatcherLogical, CommentAndConstants) {
  EXPECT_TRUE(M(R"({"$comment": "hello", "a": 1})", R"({"a": 1})"));
  EXPECT_FALSE(M(R"({"$comment": "hello", "a": 1})", R"({"a": 2})"));
  EXPECT_TRUE(M(R"({"$alwaysTrue": 1})", R"({"a": 2})"));
  EXPECT_FALSE(M(R"({"$alwaysFalse": 1})", R"({"a": 2})"));
  EXPECT_TRUE(M(R"({"$or": [{"$alwaysFalse": 1}, {"a": 2}]})", R"({"a": 2})"));
}

TEST(MatcherLogical, EmptyFilter) {
  EXPECT_TRUE(M(R"({})", R"({"a": 1})"));
  EXPECT_TRUE(M(R"({})", R"({})"));
  EXPECT_TRUE(Matcher::compile(J("{}")).is_empty());
  EXPECT_FALSE(Matcher::compile(J(R"({"a": 1})")).is_empty());
  EXPECT_TRUE(Matcher().matches(J(R"({"a": 1})")));
  EXPECT_TRUE(Matcher().is_empty());
}

}  // namespace mongostore::engine::testing

namespace mongostore::engine::testing {
TEST(MatcherLogical, CommentOnlyIsEmpty) {
  EXPECT_TRUE(Matcher::compile(J(R"({"$comment": "x"})")).is_empty());
  EXPECT_TRUE(M(R"({"$comment": "x"})", R"({"a": 1})"));
}
}  // namespace mongostore::engine::testing
