// Malformed filters raise MongoDB's error codes and messages.
#include "matcher_test_util.h"

namespace mongostore::engine::testing {

constexpr int32_t kBadValue = 2;
constexpr int32_t kFailedToParse = 9;
constexpr int32_t kTypeMismatch = 14;
constexpr int32_t kNotImplemented = 238;

void expect_error(const bson::Document& filter, int32_t code, std::string_view message_part) {
  std::string msg;
  EXPECT_EQ(compile_error(filter, &msg), code) << filter.to_json();
  EXPECT_NE(msg.find(message_part), std::string::npos) << filter.to_json() << " -> " << msg;
}

void expect_error(std::string_view filter, int32_t code, std::string_view message_part) {
  expect_error(J(filter), code, message_part);
}

TEST(MatcherErrors, UnknownOperators) {
  expect_error(R"({"a": {"$foo": 1}})", kBadValue, "unknown operator: $foo");
  expect_error(R"({"$foo": 1})", kBadValue, "unknown top level operator: $foo");
  expect_error(R"({"a": {"$gt": 1, "b": 1}})", kBadValue, "unknown operator: b");
}

TEST(MatcherErrors, NotImplemented) {
  for (const char* f : {R"({"$where": "this.a == 1"})", R"({"$text": {"$search": "x"}})",
                        R"({"$expr": {"$eq": ["$a", 1]}})", R"({"a": {"$near": [0, 0]}})",
                        R"({"a": {"$nearSphere": [0, 0]}})", R"({"a": {"$geoWithin": {}}})",
                        R"({"a": {"$geoIntersects": {}}})"}) {
    EXPECT_EQ(compile_error(f), kNotImplemented) << f;
  }
}

TEST(MatcherErrors, Logical) {
  expect_error(R"({"$and": []})", kBadValue, "$and/$or/$nor must be a nonempty array");
  expect_error(R"({"$or": []})", kBadValue, "$and/$or/$nor must be a nonempty array");
  expect_error(R"({"$nor": []})", kBadValue, "$and/$or/$nor must be a nonempty array");
  expect_error(R"({"$and": {"a": 1}})", kBadValue, "$and must be an array");
  expect_error(R"({"$or": [1]})", kBadValue, "entries need to be full objects");
  expect_error(R"({"a": {"$not": 1}})", kBadValue, "$not needs a regex or a document");
  expect_error(R"({"a": {"$not": {}}})", kBadValue, "$not cannot be empty");
  expect_error(R"({"$alwaysTrue": 2})", kFailedToParse,
               "$alwaysTrue must be an integer value of 1");
}

TEST(MatcherErrors, Operands) {
  expect_error(R"({"a": {"$in": 1}})", kBadValue, "$in needs an array");
  expect_error(R"({"a": {"$nin": {"x": 1}}})", kBadValue, "$nin needs an array");
  expect_error(R"({"a": {"$in": [{"$gt": 1}]}})", kBadValue, "cannot nest $ under $in");
  expect_error(R"({"a": {"$all": 1}})", kBadValue, "$all needs an array");
  expect_error(R"({"a": {"$all": [{"$elemMatch": {"x": 1}}, 1]}})", kBadValue,
               "$all/$elemMatch has to be consistent");
  expect_error(R"({"a": {"$all": [{"$gt": 1}]}})", kBadValue, "no $ expressions in $all");
  expect_error(R"({"a": {"$size": "2"}})", kBadValue, "$size needs a number");
  expect_error(R"({"a": {"$size": 2.5}})", kBadValue, "$size must be a whole number");
  expect_error(R"({"a": {"$size": -1}})", kBadValue, "$size may not be negative");
  expect_error(R"({"a": {"$elemMatch": 1}})", kBadValue, "$elemMatch needs an Object");
  expect_error(type_filter(R"("foo")"), kBadValue, "Unknown type name alias: foo");
  expect_error(type_filter(R"(100)"), kBadValue, "Invalid numerical type code: 100");
  expect_error(type_filter(R"(["string", "foo"])"), kBadValue, "Unknown type name alias");
  expect_error(type_filter(R"(true)"), kTypeMismatch, "type must be represented");
  expect_error(R"({"a": {"$ne": {"$regularExpression": {"pattern": "x", "options": ""}}}})",
               kBadValue, "Can't have regex as arg to $ne");
}

TEST(MatcherErrors, Mod) {
  expect_error(R"({"a": {"$mod": [4]}})", kBadValue, "malformed mod, not enough elements");
  expect_error(R"({"a": {"$mod": []}})", kBadValue, "malformed mod, not enough elements");
  expect_error(R"({"a": {"$mod": [4, 1, 2]}})", kBadValue, "malformed mod, too many elements");
  expect_error(R"({"a": {"$mod": 4}})", kBadValue, "malformed mod, needs to be an array");
  expect_error(R"({"a": {"$mod": [0, 1]}})", kBadValue, "divisor cannot be 0");
  expect_error(R"({"a": {"$mod": [0.5, 1]}})", kBadValue, "divisor cannot be 0");
  expect_error(R"({"a": {"$mod": ["x", 1]}})", kBadValue, "divisor not a number");
  expect_error(R"({"a": {"$mod": [1, "x"]}})", kBadValue, "remainder not a number");
  // Beyond long long's range (found by fuzz/matcher_fuzzer: the cast was undefined).
  expect_error(R"({"a": {"$mod": [7.7e43, 1]}})", kBadValue,
               "malformed mod, divisor value is invalid :: caused by :: Out of bounds");
  expect_error(R"({"a": {"$mod": [4, -1e19]}})", kBadValue,
               "malformed mod, remainder value is invalid :: caused by :: Out of bounds");
  expect_error(R"({"a": {"$mod": [{"$numberDecimal": "1E+30"}, 1]}})", kBadValue,
               "divisor value is invalid");
  EXPECT_EQ(compile_error(R"({"a": {"$mod": [-9.2233720368547748E18, 1]}})"), 0);
}

TEST(MatcherErrors, Regex) {
  bson::DocumentBuilder b;
  b.open_document("a").append("$regex", "(").close();
  std::string msg;
  EXPECT_EQ(compile_error(b.finish(), &msg), kBadValue);
  EXPECT_NE(msg.find("Regular expression is invalid"), std::string::npos) << msg;

  bson::DocumentBuilder o;
  o.open_document("a").append("$options", "i").close();
  EXPECT_EQ(compile_error(o.finish(), &msg), kBadValue);
  EXPECT_EQ(msg, "$options needs a $regex");

  bson::DocumentBuilder bad_flag;
  bad_flag.open_document("a").append("$regex", "x").append("$options", "z").close();
  EXPECT_EQ(compile_error(bad_flag.finish(), &msg), kBadValue);
  EXPECT_NE(msg.find("invalid flag in regex options: z"), std::string::npos) << msg;

  bson::DocumentBuilder both;
  both.open_document("a")
      .append("$regex", bson::RegexView{"x", "i"})
      .append("$options", "m")
      .close();
  EXPECT_EQ(compile_error(both.finish(), &msg), kBadValue);
  EXPECT_NE(msg.find("options set in both $regex and $options"), std::string::npos) << msg;

  bson::DocumentBuilder num;
  num.open_document("a").append("$regex", 5).close();
  EXPECT_EQ(compile_error(num.finish(), &msg), kBadValue);
  EXPECT_NE(msg.find("$regex has to be a string"), std::string::npos) << msg;
}

}  // namespace mongostore::engine::testing

namespace mongostore::engine::testing {

TEST(MatcherErrors, DepthLimit) {
  auto nested_not = [](int levels) {
    bson::DocumentBuilder b;
    b.open_document("a");
    for (int i = 0; i < levels; ++i) b.open_document("$not");
    b.append("$gt", 1);
    return b.finish();
  };
  std::string msg;
  EXPECT_EQ(compile_error(nested_not(150), &msg), 2);
  EXPECT_NE(msg.find("exceeded maximum query tree depth"), std::string::npos) << msg;
  EXPECT_TRUE(M(nested_not(50), R"({"a": 2})"));   // even number of $not
  EXPECT_FALSE(M(nested_not(51), R"({"a": 2})"));  // odd
}

TEST(MatcherErrors, LiteralOperatorLikeValues) {
  // $eq compares its operand literally, even an operator-looking document
  EXPECT_TRUE(M(R"({"a": {"$eq": {"$gt": 1}}})", R"({"a": {"$gt": 1}})"));
  EXPECT_FALSE(M(R"({"a": {"$eq": {"$gt": 1}}})", R"({"a": 2})"));
  // DBRef-shaped documents are values, not operators
  EXPECT_TRUE(M(R"({"a": {"$ref": "c", "$id": 1}})", R"({"a": {"$ref": "c", "$id": 1}})"));
}

}  // namespace mongostore::engine::testing
