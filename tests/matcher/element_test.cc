// $exists $type $size $mod $regex.
#include "matcher_test_util.h"

namespace mongostore::engine::testing {

using bson::DocumentBuilder;

TEST(MatcherExists, Basics) {
  EXPECT_TRUE(M(R"({"a": {"$exists": true}})", R"({"a": null})"));
  EXPECT_FALSE(M(R"({"a": {"$exists": true}})", R"({"b": 1})"));
  EXPECT_TRUE(M(R"({"a": {"$exists": false}})", R"({"b": 1})"));
  EXPECT_FALSE(M(R"({"a": {"$exists": false}})", R"({"a": 0})"));
  EXPECT_TRUE(M(R"({"a": {"$exists": 1}})", R"({"a": []})"));
  EXPECT_TRUE(M(R"({"a": {"$exists": 0}})", R"({})"));
  EXPECT_TRUE(M(R"({"a.b": {"$exists": true}})", R"({"a": [{"c": 1}, {"b": 2}]})"));
  EXPECT_FALSE(M(R"({"a.b": {"$exists": true}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(M(R"({"a.b": {"$exists": false}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(M(R"({"a.1": {"$exists": true}})", R"({"a": [1, 2]})"));
  EXPECT_FALSE(M(R"({"a.2": {"$exists": true}})", R"({"a": [1, 2]})"));
}

TEST(MatcherType, Aliases) {
  EXPECT_TRUE(M(type_filter(R"("string")"), R"({"a": "x"})"));
  EXPECT_FALSE(M(type_filter(R"("string")"), R"({"a": 1})"));
  EXPECT_TRUE(M(type_filter(R"("int")"), R"({"a": 1})"));
  EXPECT_FALSE(M(type_filter(R"("int")"), R"({"a": 1.5})"));
  EXPECT_TRUE(M(type_filter(R"("double")"), R"({"a": 1.5})"));
  EXPECT_TRUE(M(type_filter(R"("long")"), R"({"a": {"$numberLong": "1"}})"));
  EXPECT_TRUE(M(type_filter(R"("decimal")"), R"({"a": {"$numberDecimal": "1"}})"));
  EXPECT_TRUE(M(type_filter(R"("number")"), R"({"a": {"$numberDecimal": "1"}})"));
  EXPECT_FALSE(M(type_filter(R"("number")"), R"({"a": "1"})"));
  EXPECT_TRUE(M(type_filter(R"("null")"), R"({"a": null})"));
  EXPECT_FALSE(M(type_filter(R"("null")"), R"({})"));
  EXPECT_TRUE(M(type_filter(R"("object")"), R"({"a": {}})"));
  EXPECT_TRUE(M(type_filter(R"("array")"), R"({"a": []})"));
  EXPECT_TRUE(M(type_filter(R"("array")"), R"({"a": [1]})"));
  EXPECT_FALSE(M(type_filter(R"("array")"), R"({"a": 1})"));
  EXPECT_TRUE(M(type_filter(R"("bool")"), R"({"a": false})"));
  EXPECT_TRUE(M(type_filter(R"("date")"), R"({"a": {"$date": "2020-01-01T00:00:00Z"}})"));
  EXPECT_TRUE(M(type_filter(R"("objectId")"), R"({"a": {"$oid": "0123456789abcdef01234567"}})"));
  EXPECT_TRUE(
      M(type_filter(R"("binData")"), R"({"a": {"$binary": {"base64": "AAE=", "subType": "00"}}})"));
  EXPECT_TRUE(M(type_filter(R"("timestamp")"), R"({"a": {"$timestamp": {"t": 1, "i": 2}}})"));
  EXPECT_TRUE(M(type_filter(R"("minKey")"), R"({"a": {"$minKey": 1}})"));
  EXPECT_TRUE(M(type_filter(R"("maxKey")"), R"({"a": {"$maxKey": 1}})"));
  EXPECT_TRUE(M(type_filter(R"("regex")"),
                R"({"a": {"$regularExpression": {"pattern": "x", "options": ""}}})"));
  EXPECT_TRUE(M(type_filter(R"("javascript")"), R"({"a": {"$code": "return 1"}})"));
  EXPECT_TRUE(M(type_filter(R"("symbol")"), R"({"a": {"$symbol": "s"}})"));
  EXPECT_TRUE(M(type_filter(R"("undefined")"), R"({"a": {"$undefined": true}})"));
}

TEST(MatcherType, CodesArraysAndElements) {
  EXPECT_TRUE(M(type_filter(R"(2)"), R"({"a": "x"})"));
  EXPECT_TRUE(M(type_filter(R"(16)"), R"({"a": 1})"));
  EXPECT_TRUE(M(type_filter(R"(-1)"), R"({"a": {"$minKey": 1}})"));
  EXPECT_TRUE(M(type_filter(R"(127)"), R"({"a": {"$maxKey": 1}})"));
  EXPECT_TRUE(M(type_filter(R"(2.0)"), R"({"a": "x"})"));
  EXPECT_TRUE(M(type_filter(R"(["string", 16])"), R"({"a": 1})"));
  EXPECT_FALSE(M(type_filter(R"(["string", 16])"), R"({"a": 1.5})"));
  EXPECT_FALSE(M(type_filter(R"([])"), R"({"a": 1})"));
  EXPECT_TRUE(M(type_filter(R"("string")"), R"({"a": [1, "x"]})"));  // array elements
  EXPECT_TRUE(M(R"({"a.b": {"$type": "int"}})", R"({"a": [{"b": "x"}, {"b": 3}]})"));
}

TEST(MatcherSize, Basics) {
  EXPECT_TRUE(M(R"({"a": {"$size": 2}})", R"({"a": [1, 2]})"));
  EXPECT_FALSE(M(R"({"a": {"$size": 2}})", R"({"a": [1]})"));
  EXPECT_TRUE(M(R"({"a": {"$size": 0}})", R"({"a": []})"));
  EXPECT_FALSE(M(R"({"a": {"$size": 0}})", R"({})"));
  EXPECT_FALSE(M(R"({"a": {"$size": 1}})", R"({"a": "x"})"));
  EXPECT_TRUE(M(R"({"a": {"$size": 1}})", R"({"a": [[1, 2]]})"));
  EXPECT_FALSE(M(R"({"a": {"$size": 2}})", R"({"a": [[1, 2]]})"));  // nested arrays not expanded
  EXPECT_TRUE(M(R"({"a": {"$size": 2.0}})", R"({"a": [1, 2]})"));
  EXPECT_TRUE(M(R"({"a.b": {"$size": 1}})", R"({"a": [{"b": [1, 2]}, {"b": [3]}]})"));
  EXPECT_TRUE(M(R"({"a": {"$not": {"$size": 1}}})", R"({"a": [1, 2]})"));
}

TEST(MatcherMod, Basics) {
  EXPECT_TRUE(M(R"({"a": {"$mod": [4, 0]}})", R"({"a": 8})"));
  EXPECT_FALSE(M(R"({"a": {"$mod": [4, 0]}})", R"({"a": 9})"));
  EXPECT_TRUE(M(R"({"a": {"$mod": [4, 1]}})", R"({"a": 9.5})"));  // truncated
  EXPECT_TRUE(M(R"({"a": {"$mod": [4, -1]}})", R"({"a": -5})"));
  EXPECT_TRUE(M(R"({"a": {"$mod": [4, 1]}})", R"({"a": [2, 5]})"));
  EXPECT_FALSE(M(R"({"a": {"$mod": [4, 0]}})", R"({"a": "8"})"));
  EXPECT_FALSE(M(R"({"a": {"$mod": [4, 0]}})", R"({})"));
  EXPECT_FALSE(M(R"({"a": {"$mod": [4, 0]}})", R"({"a": {"$numberDouble": "NaN"}})"));
  EXPECT_TRUE(M(R"({"a": {"$mod": [4.9, 1]}})", R"({"a": 5})"));  // divisor truncated to 4
  EXPECT_TRUE(
      M(R"({"a": {"$mod": [-1, 0]}})", R"({"a": {"$numberLong": "-9223372036854775808"}})"));
}

bson::Document regex_filter(std::string_view pattern, std::string_view options = "",
                            bool with_options = false) {
  DocumentBuilder b;
  b.open_document("a").append("$regex", pattern);
  if (with_options) b.append("$options", options);
  b.close();
  return b.finish();
}

TEST(MatcherRegex, StringForm) {
  EXPECT_TRUE(M(regex_filter("^ab"), R"({"a": "abc"})"));
  EXPECT_FALSE(M(regex_filter("^ab"), R"({"a": "cab"})"));
  EXPECT_FALSE(M(regex_filter("^ab"), R"({"a": "ABC"})"));
  EXPECT_TRUE(M(regex_filter("^ab", "i", true), R"({"a": "ABC"})"));
  EXPECT_TRUE(M(regex_filter("b", ""), R"({"a": ["x", "abc"]})"));
  EXPECT_FALSE(M(regex_filter("b"), R"({"a": 1})"));
  EXPECT_FALSE(M(regex_filter("b"), R"({})"));
  EXPECT_TRUE(M(regex_filter("b"), R"({"a": {"$symbol": "abc"}})"));
  EXPECT_TRUE(M(regex_filter("^b$", "m", true), R"({"a": "a\nb\nc"})"));
  EXPECT_FALSE(M(regex_filter("^b$"), R"({"a": "a\nb\nc"})"));
  EXPECT_TRUE(M(regex_filter("a.c", "s", true), R"({"a": "a\nc"})"));
  EXPECT_FALSE(M(regex_filter("a.c"), R"({"a": "a\nc"})"));
  EXPECT_TRUE(M(regex_filter("a b c # comment", "x", true), R"({"a": "abc"})"));
  EXPECT_TRUE(M(regex_filter("^é.$"), R"({"a": "éü"})"));  // UTF-8 aware
}

TEST(MatcherRegex, BsonRegexValues) {
  const char* f = R"({"a": {"$regularExpression": {"pattern": "^x", "options": "i"}}})";
  EXPECT_TRUE(M(f, R"({"a": "Xy"})"));
  EXPECT_FALSE(M(f, R"({"a": "yX"})"));
  // a regex value in the document matches an identical regex
  EXPECT_TRUE(M(f, R"({"a": {"$regularExpression": {"pattern": "^x", "options": "i"}}})"));
  EXPECT_FALSE(M(f, R"({"a": {"$regularExpression": {"pattern": "^x", "options": ""}}})"));
  // {$regex: /re/} and {$regex: /re/, $options: "i"}
  EXPECT_TRUE(
      M(op_filter("a", "$regex", R"({"$regularExpression": {"pattern": "^x", "options": ""}})"),
        R"({"a": "xy"})"));
  DocumentBuilder b;
  b.open_document("a").append("$regex", bson::RegexView{"^x", ""}).append("$options", "i").close();
  EXPECT_TRUE(M(b.finish(), R"({"a": "Xy"})"));
  // combined with other operators
  DocumentBuilder c;
  c.open_document("a").append("$regex", "^x").append("$ne", "xyz").close();
  bson::Document cf = c.finish();
  EXPECT_TRUE(M(cf, R"({"a": "xy"})"));
  EXPECT_FALSE(M(cf, R"({"a": "xyz"})"));
}

}  // namespace mongostore::engine::testing

namespace mongostore::engine::testing {

TEST(MatcherRegex, InsideNotAndElemMatch) {
  bson::DocumentBuilder n;
  n.open_document("a").open_document("$not").append("$regex", "^x").append("$options", "i");
  bson::Document not_filter = n.finish();
  EXPECT_TRUE(M(not_filter, R"({"a": "yx"})"));
  EXPECT_FALSE(M(not_filter, R"({"a": "Xy"})"));
  EXPECT_TRUE(M(not_filter, R"({})"));

  bson::DocumentBuilder e;
  e.open_document("a").open_document("$elemMatch").append("$regex", "^x");
  bson::Document em = e.finish();
  EXPECT_TRUE(M(em, R"({"a": ["a", "xa"]})"));
  EXPECT_FALSE(M(em, R"({"a": "xa"})"));
  EXPECT_FALSE(M(em, R"({"a": ["ax"]})"));
}

}  // namespace mongostore::engine::testing
