// The Matcher API: id_equality, equality_fields, ownership, copying.
#include "matcher_test_util.h"

#include "mongostore/bson/compare.h"

namespace mongostore::engine::testing {

TEST(MatcherApi, IdEquality) {
  Matcher five = Matcher::compile(J(R"({"_id": 5})"));
  auto id = five.id_equality();
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->as_int32(), 5);

  Matcher m = Matcher::compile(J(R"({"_id": {"$eq": "k"}, "x": 1})"));
  ASSERT_TRUE(m.id_equality().has_value());
  EXPECT_EQ(m.id_equality()->as_string(), "k");

  Matcher a = Matcher::compile(J(R"({"$and": [{"x": 1}, {"_id": 7}]})"));
  ASSERT_TRUE(a.id_equality().has_value());
  EXPECT_EQ(a.id_equality()->as_int32(), 7);

  EXPECT_FALSE(Matcher::compile(J(R"({"_id": {"$gt": 5}})")).id_equality().has_value());
  EXPECT_FALSE(Matcher::compile(J(R"({"$or": [{"_id": 1}, {"_id": 2}]})")).id_equality());
  EXPECT_FALSE(Matcher::compile(J(R"({"_id": {"$in": [1]}})")).id_equality());
  EXPECT_FALSE(Matcher::compile(J(R"({"_id.x": 1})")).id_equality());
  EXPECT_FALSE(Matcher::compile(J(R"({})")).id_equality());
}

TEST(MatcherApi, EqualityFields) {
  Matcher m = Matcher::compile(
      J(R"({"a": 1, "b.c": 2, "$and": [{"d": 3}], "e": {"$gt": 1}, "f": {"$eq": "s"},
            "$or": [{"g": 1}], "h": {"x": 1}})"));
  auto f = m.equality_fields();
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0].first, "a");
  EXPECT_EQ(f[0].second.as_int32(), 1);
  EXPECT_EQ(f[1].first, "b.c");
  EXPECT_EQ(f[2].first, "d");
  EXPECT_EQ(f[2].second.as_int32(), 3);
  EXPECT_EQ(f[3].first, "f");
  EXPECT_EQ(f[3].second.as_string(), "s");
  EXPECT_EQ(f[4].first, "h");
  EXPECT_TRUE(f[4].second.is_document());
}

TEST(MatcherApi, OwnsFilterAndCopies) {
  Matcher m;
  {
    bson::Document filter = J(R"({"a": {"$in": ["x", "y"]}, "_id": "k"})");
    m = Matcher::compile(filter);
  }  // the filter document is gone; the matcher kept its own copy
  EXPECT_TRUE(m.matches(J(R"({"_id": "k", "a": "y"})")));
  EXPECT_EQ(m.id_equality()->as_string(), "k");
  Matcher copy = m;
  Matcher moved = std::move(m);
  EXPECT_TRUE(copy.matches(J(R"({"_id": "k", "a": "x"})")));
  EXPECT_FALSE(moved.matches(J(R"({"_id": "k", "a": "z"})")));
  EXPECT_EQ(copy.filter().to_json(), moved.filter().to_json());
}

}  // namespace mongostore::engine::testing
