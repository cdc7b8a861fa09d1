// Type, object and date expressions.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

// {$type: ARG} built directly: libbson's JSON reader takes {"$type": ...} for a wrapper.
std::string type_of(std::string_view doc) {
  bson::DocumentBuilder b;
  b.append("$type", "$a");
  bson::Document spec = bson::make_document("e", b.finish());
  Expression e = Expression::compile(spec.get("e"));
  bson::Document d = J(doc);
  return wrap(e.evaluate(d).view());
}

TEST(AggType, Type) {
  EXPECT_EQ(type_of(R"({"a": 1})"), V("\"int\""));
  EXPECT_EQ(type_of(R"({"a": 1.5})"), V("\"double\""));
  EXPECT_EQ(type_of(R"({"a": "x"})"), V("\"string\""));
  EXPECT_EQ(type_of(R"({"a": [1]})"), V("\"array\""));
  EXPECT_EQ(type_of(R"({"a": null})"), V("\"null\""));
  EXPECT_EQ(type_of(R"({})"), V("\"missing\""));
  EXPECT_EQ(E(R"({"$isNumber": "$a"})", R"({"a": 1})"), V("true"));
}

TEST(AggType, Conversions) {
  EXPECT_EQ(E(R"({"$toString": 12})"), V("\"12\""));
  EXPECT_EQ(E(R"({"$toString": 2.5})"), V("\"2.5\""));
  EXPECT_EQ(E(R"({"$toString": true})"), V("\"true\""));
  EXPECT_EQ(E(R"({"$toString": "$d"})", R"({"d": {"$date": "2018-03-27T16:58:51.538Z"}})"),
            V("\"2018-03-27T16:58:51.538Z\""));
  EXPECT_EQ(E(R"({"$toString": null})"), V("null"));
  EXPECT_EQ(E(R"({"$toInt": "42"})"), V("42"));
  EXPECT_EQ(E(R"({"$toInt": 4.9})"), V("4"));
  EXPECT_EQ(E(R"({"$toInt": true})"), V("1"));
  EXPECT_EQ(E(R"({"$toLong": 5})"), V(R"({"$numberLong": "5"})"));
  EXPECT_EQ(E(R"({"$toDouble": "1.5"})"), V("1.5"));
  EXPECT_EQ(E(R"({"$toDouble": 2})"), V("2.0"));
  EXPECT_EQ(E(R"({"$toBool": 0})"), V("false"));
  EXPECT_EQ(E(R"({"$toBool": "false"})"), V("true"));
  EXPECT_EQ(E(R"({"$toDecimal": 1})"), V(R"({"$numberDecimal": "1"})"));
  EXPECT_EQ(E(R"({"$toDate": "2020-01-02T03:04:05Z"})"), V(R"({"$date": "2020-01-02T03:04:05Z"})"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$toInt": "abc"})", "{}", &msg), 241);
  EXPECT_NE(msg.find("Failed to parse number 'abc'"), std::string::npos);
  EXPECT_EQ(EE(R"({"$toInt": [[1]]})"), 241);
}

// Strings to numbers fail as mongod's number parser does, with its reason in its order;
// hexadecimal is refused before parsing.
TEST(AggType, StringToNumberFailuresAreMongods) {
  auto reason = [](std::string_view expr) {
    std::string msg;
    EXPECT_EQ(EE(expr, "{}", &msg), 241) << expr;
    size_t colon = msg.rfind(": ");
    return colon == std::string::npos ? msg : msg.substr(colon + 2);
  };
  EXPECT_EQ(reason(R"({"$toInt": ""})"), "No digits");
  EXPECT_EQ(reason(R"({"$toInt": "-"})"), "No digits");
  EXPECT_EQ(reason(R"({"$toInt": "x"})"), "Did not consume whole string.");
  EXPECT_EQ(reason(R"({"$toInt": " 5"})"), "Did not consume whole string.");
  EXPECT_EQ(reason(R"({"$toInt": "1e3"})"), "Did not consume whole string.");
  EXPECT_EQ(reason(R"({"$toInt": "2147483648"})"), "Overflow");
  EXPECT_EQ(reason(R"({"$toInt": "999999999999999999999999"})"), "Overflow");
  EXPECT_EQ(reason(R"({"$toLong": "9223372036854775808"})"), "Overflow");
  EXPECT_EQ(E(R"({"$toInt": "+5"})"), V("5"));
  EXPECT_EQ(E(R"({"$toInt": "-2147483648"})"), V("-2147483648"));
  EXPECT_EQ(E(R"({"$toLong": "-9223372036854775808"})"),
            V(R"({"$numberLong": "-9223372036854775808"})"));
  EXPECT_EQ(reason(R"({"$toDouble": ""})"), "Empty string");
  EXPECT_EQ(reason(R"({"$toDouble": " 5"})"), "Leading whitespace");
  EXPECT_EQ(reason(R"({"$toDouble": "x"})"), "Did not consume any digits");
  EXPECT_EQ(reason(R"({"$toDouble": "5 "})"), "Did not consume whole string.");
  EXPECT_EQ(reason(R"({"$toDouble": "1e-400"})"), "Out of range");
  EXPECT_EQ(E(R"({"$toDouble": "inf"})"), V(R"({"$numberDouble": "Infinity"})"));
  EXPECT_EQ(E(R"({"$toDouble": ".5"})"), V("0.5"));
  EXPECT_EQ(reason(R"({"$toDecimal": ""})"), "Empty string");
  EXPECT_EQ(reason(R"({"$toDecimal": "x"})"), "Failed to parse string to decimal");
  std::string msg;
  for (const char* op : {"$toInt", "$toDouble", "$toDecimal"}) {
    EXPECT_EQ(EE(std::string("{\"") + op + "\": \"0x10\"}", "{}", &msg), 241);
    EXPECT_EQ(msg, "Illegal hexadecimal input in $convert with no onError value: 0x10");
  }
  // A double that overflows is shown as mongod streams it.
  EXPECT_EQ(EE(R"({"$toInt": 1e300})", "{}", &msg), 241);
  EXPECT_EQ(msg, "Conversion would overflow target type in $convert with no onError value: 1e+300");
  // The shorthands' own arity error.
  EXPECT_EQ(EE(R"({"$toInt": []})", "{}", &msg), 50723);
  EXPECT_EQ(msg, "$toInt requires a single argument, got 0");
  EXPECT_EQ(EE(R"({"$toDate": [1, 2]})"), 50723);
  EXPECT_EQ(E(R"({"$toInt": ["7"]})"), V("7"));
  // Dates: white space around and a bare year-month parse, as mongod's parser allows.
  EXPECT_EQ(E(R"({"$toDate": " 2020-01-01 "})"), V(R"({"$date": "2020-01-01T00:00:00Z"})"));
  EXPECT_EQ(E(R"({"$toDate": "2020-01"})"), V(R"({"$date": "2020-01-01T00:00:00Z"})"));
  EXPECT_EQ(EE(R"({"$toDate": "2020-13"})"), 241);
}

TEST(AggType, Convert) {
  EXPECT_EQ(E(R"({"$convert": {"input": "12", "to": "int"}})"), V("12"));
  EXPECT_EQ(E(R"({"$convert": {"input": "12", "to": 1}})"), V("12.0"));
  EXPECT_EQ(E(R"({"$convert": {"input": "x", "to": "int", "onError": -1}})"), V("-1"));
  EXPECT_EQ(E(R"({"$convert": {"input": null, "to": "int", "onNull": 0}})"), V("0"));
  EXPECT_EQ(E(R"({"$convert": {"input": "$missing", "to": "int"}})"), V("null"));
  EXPECT_EQ(EE(R"({"$convert": {"input": 1, "to": "foo"}})"), 2);
  EXPECT_EQ(EE(R"({"$convert": {"input": 1}})"), 9);
}

TEST(AggObject, MergeObjects) {
  EXPECT_EQ(E(R"({"$mergeObjects": [{"a": 1, "b": 1}, {"b": 2, "c": 3}, null]})"),
            V(R"({"a": 1, "b": 2, "c": 3})"));
  EXPECT_EQ(E(R"({"$mergeObjects": ["$x", {"a": 1}]})"), V(R"({"a": 1})"));
  EXPECT_EQ(EE(R"({"$mergeObjects": [1]})"), 40400);
}

TEST(AggObject, FieldsAndArrays) {
  EXPECT_EQ(E(R"({"$getField": "a"})", R"({"a": 7})"), V("7"));
  EXPECT_EQ(E(R"({"$getField": {"field": "x.y", "input": {"$literal": {"x.y": 1}}}})"), V("1"));
  EXPECT_EQ(E(R"({"$setField": {"field": "b", "input": {"a": 1}, "value": 2}})"),
            V(R"({"a": 1, "b": 2})"));
  EXPECT_EQ(E(R"({"$setField": {"field": "a", "input": {"a": 1}, "value": "$$REMOVE"}})"), V("{}"));
  EXPECT_EQ(E(R"({"$objectToArray": {"a": 1, "b": "x"}})"),
            V(R"([{"k": "a", "v": 1}, {"k": "b", "v": "x"}])"));
  EXPECT_EQ(E(R"({"$objectToArray": null})"), V("null"));
  EXPECT_EQ(EE(R"({"$objectToArray": 1})"), 40390);
  EXPECT_EQ(E(R"({"$arrayToObject": [[["a", 1], ["b", 2]]]})"), V(R"({"a": 1, "b": 2})"));
  EXPECT_EQ(E(R"({"$arrayToObject": [[{"k": "a", "v": 1}, {"k": "a", "v": 3}]]})"),
            V(R"({"a": 3})"));
  EXPECT_EQ(EE(R"({"$arrayToObject": 1})"), 40386);
}

const char* kDate = R"({"d": {"$date": "2021-03-07T14:05:09.123Z"}})";

TEST(AggDate, Parts) {
  EXPECT_EQ(E(R"({"$year": "$d"})", kDate), V("2021"));
  EXPECT_EQ(E(R"({"$month": "$d"})", kDate), V("3"));
  EXPECT_EQ(E(R"({"$dayOfMonth": "$d"})", kDate), V("7"));
  EXPECT_EQ(E(R"({"$hour": "$d"})", kDate), V("14"));
  EXPECT_EQ(E(R"({"$minute": "$d"})", kDate), V("5"));
  EXPECT_EQ(E(R"({"$second": "$d"})", kDate), V("9"));
  EXPECT_EQ(E(R"({"$millisecond": "$d"})", kDate), V("123"));
  EXPECT_EQ(E(R"({"$dayOfWeek": "$d"})", kDate), V("1"));  // a Sunday
  EXPECT_EQ(E(R"({"$dayOfYear": "$d"})", kDate), V("66"));
  EXPECT_EQ(E(R"({"$hour": {"date": "$d", "timezone": "+02:00"}})", kDate), V("16"));
  EXPECT_EQ(E(R"({"$year": "$missing"})", kDate), V("null"));
  std::string msg;
  EXPECT_EQ(EE(R"({"$year": "x"})", "{}", &msg), 16006);
  EXPECT_EQ(msg, "can't convert from BSON type string to Date");
}

TEST(AggDate, DateToString) {
  EXPECT_EQ(E(R"({"$dateToString": {"date": "$d"}})", kDate), V("\"2021-03-07T14:05:09.123Z\""));
  EXPECT_EQ(
      E(R"({"$dateToString": {"date": "$d", "format": "%Y/%m/%d %H:%M:%S %j %w %u %%"}})", kDate),
      V("\"2021/03/07 14:05:09 066 1 7 %\""));
  EXPECT_EQ(
      E(R"({"$dateToString": {"date": "$d", "format": "%H:%M %z", "timezone": "-0130"}})", kDate),
      V("\"12:35 -0130\""));
  EXPECT_EQ(E(R"({"$dateToString": {"date": "$x", "onNull": "none"}})", kDate), V("\"none\""));
  EXPECT_EQ(E(R"({"$dateToString": {"date": "$x"}})", kDate), V("null"));
  EXPECT_EQ(EE(R"({"$dateToString": {"date": "$d", "format": "%Q"}})", kDate), 18536);
  EXPECT_EQ(EE(R"({"$dateToString": {"date": "$d", "timezone": "Mars/Olympus"}})", kDate), 40485);
}

}  // namespace
}  // namespace mongostore::engine::agg_test
