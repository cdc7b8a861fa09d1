// Expression basics: literals, field paths (through arrays), variables, $literal, $let,
// object and array expressions, parse errors.
#include "aggregation/aggregation_test_util.h"

namespace mongostore::engine::agg_test {
namespace {

TEST(AggExpression, LiteralsAndFieldPaths) {
  EXPECT_EQ(E("1"), V("1"));
  EXPECT_EQ(E("\"abc\""), V("\"abc\""));
  EXPECT_EQ(E("\"$a\"", R"({"a": 5})"), V("5"));
  EXPECT_EQ(E("\"$a.b\"", R"({"a": {"b": "x"}})"), V("\"x\""));
  EXPECT_EQ(E("\"$a.b\"", R"({"a": 1})"), "missing");
  EXPECT_EQ(E("\"$nope\"", R"({"a": 1})"), "missing");
}

TEST(AggExpression, FieldPathThroughArrays) {
  EXPECT_EQ(E("\"$a.b\"", R"({"a": [{"b": 1}, {"c": 2}, {"b": 3}, 4]})"), V("[1, 3]"));
  EXPECT_EQ(E("\"$a.b.c\"", R"({"a": [{"b": [{"c": 1}, {"c": 2}]}, {"b": {"c": 3}}]})"),
            V("[[1, 2], 3]"));
  EXPECT_EQ(E("\"$a\"", R"({"a": [1, 2]})"), V("[1, 2]"));
  EXPECT_EQ(E("\"$a.b\"", R"({"a": []})"), V("[]"));
}

TEST(AggExpression, SystemVariables) {
  EXPECT_EQ(E("\"$$ROOT\"", R"({"a": 1})"), V(R"({"a": 1})"));
  EXPECT_EQ(E("\"$$CURRENT.a\"", R"({"a": 1})"), V("1"));
  EXPECT_EQ(E("\"$$ROOT.a.b\"", R"({"a": {"b": 2}})"), V("2"));
  EXPECT_EQ(E("\"$$REMOVE\"", R"({"a": 1})"), "missing");
}

TEST(AggExpression, UndefinedVariable) {
  std::string msg;
  EXPECT_EQ(EE("\"$$x\"", "{}", &msg), 17276);
  EXPECT_EQ(msg, "Use of undefined variable: x");
}

TEST(AggExpression, LiteralOperator) {
  EXPECT_EQ(E(R"({"$literal": "$a"})", R"({"a": 1})"), V("\"$a\""));
  EXPECT_EQ(E(R"({"$literal": {"$add": [1, 2]}})"), V(R"({"$add": [1, 2]})"));
}

TEST(AggExpression, Let) {
  EXPECT_EQ(E(R"({"$let": {"vars": {"x": 2, "y": "$a"}, "in": {"$add": ["$$x", "$$y"]}}})",
              R"({"a": 3})"),
            V("5"));
  // Inner scopes shadow outer ones; definitions see the outer scope.
  EXPECT_EQ(E(R"({"$let": {"vars": {"x": 1}, "in": {"$let": {"vars": {"x": {"$add": ["$$x", 10]}},
              "in": "$$x"}}}})"),
            V("11"));
  EXPECT_EQ(E(R"({"$let": {"vars": {"x": {"a": 1}}, "in": "$$x.a"}})"), V("1"));
  EXPECT_EQ(EE(R"({"$let": {"vars": {"x": 1}}})"), 16877);
  EXPECT_EQ(EE(R"({"$let": {"vars": {"X": 1}, "in": 1}})"), 16870);
}

TEST(AggExpression, ObjectAndArrayExpressions) {
  EXPECT_EQ(E(R"({"x": "$a", "y": {"z": "$b"}, "gone": "$missing"})", R"({"a": 1, "b": 2})"),
            V(R"({"x": 1, "y": {"z": 2}})"));
  EXPECT_EQ(E(R"(["$a", "$missing", 3])", R"({"a": 1})"), V("[1, null, 3]"));
}

TEST(AggExpression, Errors) {
  std::string msg;
  EXPECT_EQ(EE(R"({"$foo": 1})", "{}", &msg), 168);
  EXPECT_EQ(msg, "Unrecognized expression '$foo'");
  EXPECT_EQ(EE(R"({"$cmp": [1]})", "{}", &msg), 16020);
  EXPECT_EQ(msg, "Expression $cmp takes exactly 2 arguments. 1 were passed in.");
  EXPECT_EQ(EE(R"({"$add": [1], "b": 2})"), 15983);
  EXPECT_EQ(EE("\"$\""), 16872);
  EXPECT_EQ(EE("\"$a..b\""), 15998);
  EXPECT_EQ(EE(R"({"a": 1, "$b": 2})"), 16404);
}

TEST(AggExpression, EvaluateWithVariables) {
  bson::Document spec = J(R"({"e": {"$multiply": ["$$k", "$a"]}})");
  Expression e = Expression::compile(spec.get("e"));
  Variables vars;
  bson::Document k = J(R"({"v": 4})");
  vars.emplace_back("k", bson::OwnedValue(k.get("v")));
  bson::Document d = J(R"({"a": 3})");
  EXPECT_EQ(wrap(e.evaluate(d, vars).view()), V("12"));
}

}  // namespace
}  // namespace mongostore::engine::agg_test
