// String expressions.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

TEST(AggString, Concat) {
  EXPECT_EQ(E(R"({"$concat": ["a", "-", "$b"]})", R"({"b": "c"})"), V("\"a-c\""));
  EXPECT_EQ(E(R"({"$concat": ["a", null]})"), V("null"));
  EXPECT_EQ(E(R"({"$concat": ["a", "$missing"]})"), V("null"));
  EXPECT_EQ(E(R"({"$concat": []})"), V("\"\""));
  std::string msg;
  EXPECT_EQ(EE(R"({"$concat": ["a", 1]})", "{}", &msg), 16702);
  EXPECT_EQ(msg, "$concat only supports strings, not int");
}

TEST(AggString, CaseAndLength) {
  EXPECT_EQ(E(R"({"$toLower": "AbC"})"), V("\"abc\""));
  EXPECT_EQ(E(R"({"$toUpper": "AbC"})"), V("\"ABC\""));
  EXPECT_EQ(E(R"({"$toUpper": null})"), V("\"\""));
  EXPECT_EQ(E(R"({"$toUpper": 12})"), V("\"12\""));
  EXPECT_EQ(E(R"({"$strLenCP": "héllo"})"), V("5"));
  EXPECT_EQ(EE(R"({"$strLenCP": 1})"), 34471);
}

TEST(AggString, SubstrSplitIndexOf) {
  EXPECT_EQ(E(R"({"$substrCP": ["héllo", 1, 3]})"), V("\"éll\""));
  EXPECT_EQ(E(R"({"$substrCP": ["abc", 5, 3]})"), V("\"\""));
  EXPECT_EQ(E(R"({"$substrCP": [null, 0, 1]})"), V("\"\""));
  EXPECT_EQ(EE(R"({"$substrCP": ["abc", -1, 1]})"), 34455);
  EXPECT_EQ(EE(R"({"$substrCP": ["abc", "x", 1]})"), 34450);
  EXPECT_EQ(E(R"({"$split": ["a,b,,c", ","]})"), V(R"(["a", "b", "", "c"])"));
  EXPECT_EQ(E(R"({"$split": [null, ","]})"), V("null"));
  EXPECT_EQ(EE(R"({"$split": ["abc", ""]})"), 40087);
  EXPECT_EQ(EE(R"({"$split": [1, ","]})"), 40085);
  EXPECT_EQ(E(R"({"$indexOfCP": ["héllo", "l"]})"), V("2"));
  EXPECT_EQ(E(R"({"$indexOfCP": ["hello", "l", 3]})"), V("3"));
  EXPECT_EQ(E(R"({"$indexOfCP": ["hello", "z"]})"), V("-1"));
  EXPECT_EQ(E(R"({"$indexOfCP": [null, "z"]})"), V("null"));
  EXPECT_EQ(EE(R"({"$indexOfCP": [1, "z"]})"), 40093);
}

TEST(AggString, Trim) {
  EXPECT_EQ(E(R"({"$trim": {"input": "  a b  "}})"), V("\"a b\""));
  EXPECT_EQ(E(R"({"$ltrim": {"input": "  a  "}})"), V("\"a  \""));
  EXPECT_EQ(E(R"({"$rtrim": {"input": "  a  "}})"), V("\"  a\""));
  EXPECT_EQ(E(R"({"$trim": {"input": "xxaxx", "chars": "x"}})"), V("\"a\""));
  EXPECT_EQ(E(R"({"$trim": {"input": null}})"), V("null"));
  EXPECT_EQ(EE(R"({"$trim": {"input": 1}})"), 50699);
  EXPECT_EQ(EE(R"({"$trim": {"chars": "x"}})"), 50695);
}

TEST(AggString, RegexMatch) {
  EXPECT_EQ(E(R"({"$regexMatch": {"input": "Hello", "regex": "^h", "options": "i"}})"), V("true"));
  EXPECT_EQ(E(R"({"$regexMatch": {"input": "Hello", "regex": "^h"}})"), V("false"));
  EXPECT_EQ(E(R"({"$regexMatch": {"input": "$missing", "regex": "a"}})"), V("false"));
  EXPECT_EQ(EE(R"({"$regexMatch": {"input": 1, "regex": "a"}})"), 51104);
  EXPECT_EQ(EE(R"({"$regexMatch": {"input": "a", "regex": 1}})"), 51105);
}

}  // namespace
}  // namespace mongostore::engine::agg_test
