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
  // mongod's codes and messages for a bad pattern, flag or option combination.
  std::string msg;
  EXPECT_EQ(EE(R"({"$regexMatch": {"input": "a", "regex": "("}})", "{}", &msg), 51111);
  EXPECT_EQ(msg.rfind("Invalid Regex in $regexMatch: ", 0), 0u) << msg;
  EXPECT_EQ(EE(R"({"$regexMatch": {"input": "a", "regex": "$r"}})", R"({"r": "("})"), 51111);
  EXPECT_EQ(EE(R"({"$regexMatch": {"input": "a", "regex": "a", "options": "z"}})", "{}", &msg),
            51108);
  EXPECT_EQ(msg, "$regexMatch invalid flag in regex options: z");
  EXPECT_EQ(EE(R"({"$regexMatch": {"input": "a", "regex": "a", "options": 1}})"), 51106);
  EXPECT_EQ(EE(R"({"$regexMatch": {"input": "a", "options": "m",
                   "regex": {"$regularExpression": {"pattern": "a", "options": "i"}}}})",
               "{}", &msg),
            51107);
  EXPECT_EQ(msg,
            "$regexMatch: found regex option(s) specified in both 'regex' and 'option' fields");
  // The input's type is checked even when the regex is null; a null input is just false.
  EXPECT_EQ(EE(R"({"$regexMatch": {"input": 1, "regex": null}})"), 51104);
  EXPECT_EQ(E(R"({"$regexMatch": {"input": null, "regex": null}})"), V("false"));
  // A regex computed per document, and one given as a regex value with its own options.
  EXPECT_EQ(E(R"({"$regexMatch": {"input": "$s", "regex": "$r"}})", R"({"s": "abc", "r": "b"})"),
            V("true"));
  EXPECT_EQ(E(R"({"$regexMatch": {"input": "$s", "regex": "$r"}})", R"({"s": "abc", "r": "d"})"),
            V("false"));
  EXPECT_EQ(E(R"({"$regexMatch": {"input": "ABC",
                  "regex": {"$regularExpression": {"pattern": "^a", "options": "i"}}}})"),
            V("true"));
}

TEST(AggString, RegexFindAndFindAll) {
  EXPECT_EQ(E(R"({"$regexFind": {"input": "a1b22", "regex": "(\\d)(x)?"}})"),
            V(R"({"match": "1", "idx": 1, "captures": ["1", null]})"));
  EXPECT_EQ(E(R"({"$regexFind": {"input": "abc", "regex": "z"}})"), V("null"));
  EXPECT_EQ(E(R"({"$regexFind": {"input": "$missing", "regex": "z"}})"), V("null"));
  EXPECT_EQ(
      E(R"({"$regexFindAll": {"input": "a1b22c333", "regex": "\\d+"}})"),
      V(R"([{"match": "1", "idx": 1, "captures": []}, {"match": "22", "idx": 3, "captures": []},
                  {"match": "333", "idx": 6, "captures": []}])"));
  // idx counts code points, not bytes.
  EXPECT_EQ(E(R"({"$regexFindAll": {"input": "héllo wörld", "regex": "ö"}})"),
            V(R"([{"match": "ö", "idx": 7, "captures": []}])"));
  // An empty match moves on one character; the end of the input is not searched again.
  EXPECT_EQ(
      E(R"({"$regexFindAll": {"input": "ab", "regex": ""}})"),
      V(R"([{"match": "", "idx": 0, "captures": []}, {"match": "", "idx": 1, "captures": []}])"));
  EXPECT_EQ(E(R"({"$regexFindAll": {"input": "", "regex": ""}})"),
            V(R"([{"match": "", "idx": 0, "captures": []}])"));
  EXPECT_EQ(E(R"({"$regexFindAll": {"input": null, "regex": "z"}})"), V("[]"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$regexFind": {"input": "a", "regex": "("}})", "{}", &msg), 51111);
  EXPECT_EQ(msg.rfind("Invalid Regex in $regexFind: ", 0), 0u) << msg;
  EXPECT_EQ(EE(R"({"$regexFindAll": {"input": 1, "regex": "a"}})"), 51104);
}

TEST(AggString, ReplaceOneAndAll) {
  EXPECT_EQ(E(R"({"$replaceOne": {"input": "a.b.c", "find": ".", "replacement": "-"}})"),
            V(R"("a-b.c")"));
  EXPECT_EQ(E(R"({"$replaceAll": {"input": "a.b.c", "find": ".", "replacement": "-"}})"),
            V(R"("a-b-c")"));
  EXPECT_EQ(E(R"({"$replaceAll": {"input": "aaa", "find": "aa", "replacement": "b"}})"),
            V(R"("ba")"));
  EXPECT_EQ(E(R"({"$replaceAll": {"input": "héé", "find": "", "replacement": "-"}})"),
            V(R"("-h-é-é-")"));
  EXPECT_EQ(E(R"({"$replaceOne": {"input": "abc", "find": "", "replacement": "-"}})"),
            V(R"("-abc")"));
  EXPECT_EQ(E(R"({"$replaceAll": {"input": "$missing", "find": "a", "replacement": "b"}})"),
            V("null"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$replaceAll": {"input": 1, "find": "a", "replacement": "b"}})", "{}", &msg),
            51746);
  EXPECT_EQ(msg, "$replaceAll requires that 'input' be a string, found: 1");
  EXPECT_EQ(EE(R"({"$replaceOne": {"input": "a", "find": 1, "replacement": "b"}})"), 51745);
  EXPECT_EQ(EE(R"({"$replaceOne": {"input": "a", "find": "a", "replacement": 1}})"), 51744);
  EXPECT_EQ(EE(R"({"$replaceOne": {"input": "a", "find": "a"}})"), 51747);
  EXPECT_EQ(EE(R"({"$replaceOne": {"input": "a", "find": "a", "x": 1, "replacement": ""}})"),
            51750);
  EXPECT_EQ(EE(R"({"$replaceOne": "a"})"), 51751);
}

TEST(AggString, StrcasecmpAndSubstrBytes) {
  EXPECT_EQ(E(R"({"$strcasecmp": ["ABC", "abc"]})"), V("0"));
  EXPECT_EQ(E(R"({"$strcasecmp": ["abd", "ABC"]})"), V("1"));
  EXPECT_EQ(E(R"({"$strcasecmp": ["a", "B"]})"), V("-1"));
  EXPECT_EQ(E(R"({"$strcasecmp": [null, ""]})"), V("0"));
  EXPECT_EQ(E(R"({"$substrBytes": ["héllo", 0, 3]})"), V(R"("hé")"));
  EXPECT_EQ(E(R"({"$substrBytes": ["abc", 1, -1]})"), V(R"("bc")"));
  EXPECT_EQ(E(R"({"$substrBytes": ["abc", -1, 1]})"), V(R"("")"));
  EXPECT_EQ(E(R"({"$substrBytes": ["abc", 5, 1]})"), V(R"("")"));
  EXPECT_EQ(E(R"({"$substr": [12345, 1, 2]})"), V(R"("23")"));
  EXPECT_EQ(EE(R"({"$substrBytes": ["héllo", 0, 2]})"), 28657);
  EXPECT_EQ(EE(R"({"$substrBytes": ["héllo", 2, 2]})"), 28656);
  EXPECT_EQ(EE(R"({"$substrBytes": ["abc", "1", 2]})"), 16034);
  EXPECT_EQ(EE(R"({"$substrBytes": ["abc", 1, "2"]})"), 16035);
}

}  // namespace
}  // namespace mongostore::engine::agg_test
