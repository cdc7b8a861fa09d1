// Dotted paths through documents and arrays, numeric components, MatchDetails.
#include "matcher_test_util.h"

namespace mongostore::engine::testing {

TEST(MatcherPath, NestedDocuments) {
  EXPECT_TRUE(M(R"({"a.b.c": 1})", R"({"a": {"b": {"c": 1}}})"));
  EXPECT_FALSE(M(R"({"a.b.c": 1})", R"({"a": {"b": {"c": 2}}})"));
  EXPECT_FALSE(M(R"({"a.b.c": 1})", R"({"a": {"b": 1}})"));
  EXPECT_TRUE(M(R"({"a.b": {"c": 1}})", R"({"a": {"b": {"c": 1}}})"));
}

TEST(MatcherPath, ThroughArrays) {
  EXPECT_TRUE(M(R"({"a.b": 2})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  EXPECT_FALSE(M(R"({"a.b": 3})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  EXPECT_TRUE(M(R"({"a.b": 2})", R"({"a": [{"b": [1, 2]}]})"));
  EXPECT_TRUE(M(R"({"a.b.c": 3})", R"({"a": [{"b": [{"c": 1}, {"c": 3}]}]})"));
  EXPECT_FALSE(M(R"({"a.b": 1})", R"({"a": [[{"b": 1}]]})"));  // arrays of arrays not traversed
  EXPECT_TRUE(M(R"({"a.b": {"$gt": 1}})", R"({"a": [{"b": 0}, {"b": 5}]})"));
  // conditions on one path may be met by different elements
  EXPECT_TRUE(M(R"({"a.b": {"$gt": 1, "$lt": 3}})", R"({"a": [{"b": 0}, {"b": 5}]})"));
}

TEST(MatcherPath, NumericComponents) {
  EXPECT_TRUE(M(R"({"a.0": 5})", R"({"a": [5, 6]})"));
  EXPECT_FALSE(M(R"({"a.0": 6})", R"({"a": [5, 6]})"));
  EXPECT_TRUE(M(R"({"a.1": 6})", R"({"a": [5, 6]})"));
  EXPECT_TRUE(M(R"({"a.0.b": 1})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  EXPECT_FALSE(M(R"({"a.0.b": 2})", R"({"a": [{"b": 1}, {"b": 2}]})"));
  EXPECT_TRUE(M(R"({"a.0": 7})", R"({"a": {"0": 7}})"));    // field named "0"
  EXPECT_TRUE(M(R"({"a.0": 7})", R"({"a": [{"0": 7}]})"));  // in an element
  EXPECT_TRUE(M(R"({"a.0": 1})", R"({"a": [[1, 2]]})"));    // element is an array
  EXPECT_TRUE(M(R"({"a.0.1": 2})", R"({"a": [[1, 2]]})"));
}

TEST(MatcherPath, ArrayIndexDetails) {
  MatchDetails d;
  Matcher m = Matcher::compile(J(R"({"a": 3})"));
  ASSERT_TRUE(m.matches(J(R"({"a": [1, 2, 3]})"), &d));
  ASSERT_TRUE(d.array_index.has_value());
  EXPECT_EQ(*d.array_index, 2u);
  ASSERT_TRUE(m.matches(J(R"({"a": 3})"), &d));
  EXPECT_FALSE(d.array_index.has_value());
  EXPECT_FALSE(m.matches(J(R"({"a": [1]})"), &d));
  EXPECT_FALSE(d.array_index.has_value());

  Matcher m2 = Matcher::compile(J(R"({"a.b": 2})"));
  ASSERT_TRUE(m2.matches(J(R"({"a": [{"b": 1}, {"b": [0, 2]}]})"), &d));
  EXPECT_EQ(d.array_index, std::optional<size_t>(1));  // outermost array

  Matcher m3 = Matcher::compile(J(R"({"a": {"$elemMatch": {"$gt": 4}}})"));
  ASSERT_TRUE(m3.matches(J(R"({"a": [1, 5, 7]})"), &d));
  EXPECT_EQ(d.array_index, std::optional<size_t>(1));

  Matcher m4 = Matcher::compile(J(R"({"x": 1, "a.b": {"$gte": 3}})"));
  ASSERT_TRUE(m4.matches(J(R"({"x": 1, "a": [{"b": 1}, {"b": 2}, {"b": 3}]})"), &d));
  EXPECT_EQ(d.array_index, std::optional<size_t>(2));
}

}  // namespace mongostore::engine::testing

namespace mongostore::engine::testing {

// The cases of MongoDB's null_query_semantics.js (without undefined, which mongostore never
// writes).
TEST(MatcherPath, DottedNullSemantics) {
  const char* eq = R"({"a.b": {"$eq": null}})";
  for (const char* doc : {R"({"a": {}})", R"({"a": null})", R"({"a": 4})", R"({"a": {"b": null}})",
                          R"({})", R"({"a": [{"b": null}, {}]})",
                          R"({"a": [{"b": null}, {"b": 3}]})", R"({"a": [{"b": 3}, {}]})"}) {
    EXPECT_TRUE(M(eq, doc)) << doc;
  }
  for (const char* doc :
       {R"({"a": {"b": "hi"}})", R"({"a": [[]]})", R"({"a": []})", R"({"a": [{"b": 1}, {"b": 3}]})",
        R"({"a": [null, null]})", R"({"a": [1, "string", 4]})", R"({"a": [1, null]})"}) {
    EXPECT_FALSE(M(eq, doc)) << doc;
    EXPECT_TRUE(M(R"({"a.b": {"$ne": null}})", doc)) << doc;
    EXPECT_TRUE(M(R"({"a.b": {"$nin": [null, 75]}})", doc)) << doc;
  }
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"b": {"$eq": null}}}})", R"({"a": [[]]})"));
  EXPECT_FALSE(M(R"({"a": {"$elemMatch": {"$eq": null}}})", R"({"a": null})"));
  EXPECT_TRUE(M(R"({"a": {"$elemMatch": {"$ne": null}}})", R"({"a": [[]]})"));
  EXPECT_FALSE(M(R"({"a": {"$not": {"$gte": null}}})", R"({})"));
  EXPECT_TRUE(M(R"({"a": {"$not": {"$gte": null}}})", R"({"a": []})"));
  EXPECT_TRUE(M(R"({"a.b": {"$exists": false}})", R"({"a": 4})"));
  EXPECT_FALSE(M(R"({"a.b": {"$exists": false}})", R"({"a": {"b": null}})"));
}

}  // namespace mongostore::engine::testing

namespace mongostore::engine::testing {

TEST(MatcherPath, ArrayIndexFromWinningOrBranchOnly) {
  MatchDetails d;
  Matcher m = Matcher::compile(J(R"({"$or": [{"a": 2, "b": 9}, {"c": 1}]})"));
  ASSERT_TRUE(m.matches(J(R"({"a": [1, 2], "b": 0, "c": 1})"), &d));
  EXPECT_FALSE(d.array_index.has_value());
  ASSERT_TRUE(m.matches(J(R"({"a": [1, 2], "b": 9})"), &d));
  EXPECT_EQ(d.array_index, std::optional<size_t>(1));
  Matcher n = Matcher::compile(J(R"({"a": {"$not": {"$eq": 5}}})"));
  ASSERT_TRUE(n.matches(J(R"({"a": [1, 2]})"), &d));
  EXPECT_FALSE(d.array_index.has_value());
}

}  // namespace mongostore::engine::testing
