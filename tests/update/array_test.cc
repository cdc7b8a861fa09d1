// $push, $addToSet, $pop, $pull, $pullAll.
#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

TEST(UpdatePush, AppendsAndCreates) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1]})", R"({"$push": {"a": 2}})", R"({"_id": 1, "a": [1, 2]})");
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$push": {"a": 2}})", R"({"_id": 1, "a": [2]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [1]})", R"({"$push": {"a": [2, 3]}})",
                R"({"_id": 1, "a": [1, [2, 3]]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [1]})", R"({"$push": {"a": {"b": 1}}})",
                R"({"_id": 1, "a": [1, {"b": 1}]})");
}

TEST(UpdatePush, Each) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1]})", R"({"$push": {"a": {"$each": [2, 3]}}})",
                R"({"_id": 1, "a": [1, 2, 3]})");
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$push": {"a": {"$each": []}}})", R"({"_id": 1, "a": []})");
}

TEST(UpdatePush, Slice) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3]})",
                R"({"$push": {"a": {"$each": [4, 5], "$slice": -3}}})",
                R"({"_id": 1, "a": [3, 4, 5]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3]})", R"({"$push": {"a": {"$each": [4], "$slice": 2}}})",
                R"({"_id": 1, "a": [1, 2]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3]})", R"({"$push": {"a": {"$each": [4], "$slice": 0}}})",
                R"({"_id": 1, "a": []})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [1]})", R"({"$push": {"a": {"$each": [2], "$slice": -5}}})",
                R"({"_id": 1, "a": [1, 2]})");
}

TEST(UpdatePush, Position) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2]})", R"({"$push": {"a": {"$each": [9], "$position": 0}}})",
                R"({"_id": 1, "a": [9, 1, 2]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3]})",
                R"({"$push": {"a": {"$each": [9], "$position": -1}}})",
                R"({"_id": 1, "a": [1, 2, 9, 3]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [1]})", R"({"$push": {"a": {"$each": [9], "$position": 7}}})",
                R"({"_id": 1, "a": [1, 9]})");
}

TEST(UpdatePush, Sort) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [3, 1]})", R"({"$push": {"a": {"$each": [2], "$sort": 1}}})",
                R"({"_id": 1, "a": [1, 2, 3]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [3, 1]})",
                R"({"$push": {"a": {"$each": [2], "$sort": -1, "$slice": 2}}})",
                R"({"_id": 1, "a": [3, 2]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [{"s": 3, "n": 1}, {"s": 1, "n": 2}]})",
                R"({"$push": {"a": {"$each": [{"s": 2, "n": 3}], "$sort": {"s": 1}}}})",
                R"({"_id": 1, "a": [{"s": 1, "n": 2}, {"s": 2, "n": 3}, {"s": 3, "n": 1}]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [{"x": {"s": 1}}, {"x": {"s": 2}}]})",
                R"({"$push": {"a": {"$each": [], "$sort": {"x.s": -1}}}})",
                R"({"_id": 1, "a": [{"x": {"s": 2}}, {"x": {"s": 1}}]})");
}

TEST(UpdatePush, Errors) {
  expect_apply_error(R"({"_id": 1, "a": 1})", R"({"$push": {"a": 2}})", ErrorCode::kBadValue,
                     "The field 'a' must be an array but is of type int in document {_id: 1}");
  expect_compile_error(R"({"$push": {"a": {"$each": 1}}})", ErrorCode::kBadValue);
  expect_compile_error(R"({"$push": {"a": {"$each": [1], "$slice": 1.5}}})", ErrorCode::kBadValue);
  expect_compile_error(R"({"$push": {"a": {"$each": [1], "$position": "x"}}})",
                       ErrorCode::kBadValue);
  expect_compile_error(R"({"$push": {"a": {"$each": [1], "$sort": 2}}})", ErrorCode::kBadValue);
  expect_compile_error(R"({"$push": {"a": {"$each": [1], "$sort": {}}}})", ErrorCode::kBadValue);
  expect_compile_error(R"({"$push": {"a": {"$each": [1], "$foo": 1}}})", ErrorCode::kBadValue,
                       "Unrecognized clause in $push: $foo");
}

TEST(UpdateAddToSet, AddsOnlyNew) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2]})", R"({"$addToSet": {"a": 3}})",
                R"({"_id": 1, "a": [1, 2, 3]})");
  auto r = run(R"({"_id": 1, "a": [1, 2]})", R"({"$addToSet": {"a": 2.0}})");
  EXPECT_FALSE(r.modified);
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$addToSet": {"a": 1}})", R"({"_id": 1, "a": [1]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [{"x": 1}]})", R"({"$addToSet": {"a": {"x": 1}}})",
                R"({"_id": 1, "a": [{"x": 1}]})");
}

TEST(UpdateAddToSet, Each) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1]})", R"({"$addToSet": {"a": {"$each": [1, 2, 2, 3]}}})",
                R"({"_id": 1, "a": [1, 2, 3]})");
  expect_compile_error(R"({"$addToSet": {"a": {"$each": 1}}})", ErrorCode::kBadValue);
}

TEST(UpdateAddToSet, NonArray) {
  expect_apply_error(R"({"_id": 1, "a": 1})", R"({"$addToSet": {"a": 2}})", ErrorCode::kBadValue);
}

TEST(UpdatePop, FirstAndLast) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3]})", R"({"$pop": {"a": 1}})",
                R"({"_id": 1, "a": [1, 2]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3]})", R"({"$pop": {"a": -1}})",
                R"({"_id": 1, "a": [2, 3]})");
  EXPECT_FALSE(run(R"({"_id": 1, "a": []})", R"({"$pop": {"a": 1}})").modified);
  EXPECT_FALSE(run(R"({"_id": 1})", R"({"$pop": {"a": 1}})").modified);
}

TEST(UpdatePop, Errors) {
  expect_compile_error(R"({"$pop": {"a": 2}})", ErrorCode::kFailedToParse);
  expect_compile_error(R"({"$pop": {"a": "x"}})", ErrorCode::kFailedToParse);
  expect_apply_error(R"({"_id": 1, "a": 1})", R"({"$pop": {"a": 1}})", ErrorCode::kTypeMismatch);
}

TEST(UpdatePull, Values) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 1, 3]})", R"({"$pull": {"a": 1}})",
                R"({"_id": 1, "a": [2, 3]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [[1, 2], [3]]})", R"({"$pull": {"a": [1, 2]}})",
                R"({"_id": 1, "a": [[3]]})");
  EXPECT_FALSE(run(R"({"_id": 1, "a": [1]})", R"({"$pull": {"a": 5}})").modified);
  EXPECT_FALSE(run(R"({"_id": 1})", R"({"$pull": {"a": 5}})").modified);
}

TEST(UpdatePull, OperatorCondition) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 6, 8, 3]})", R"({"$pull": {"a": {"$gte": 6}}})",
                R"({"_id": 1, "a": [1, 3]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": ["x", "y", "z"]})", R"({"$pull": {"a": {"$in": ["x", "z"]}}})",
                R"({"_id": 1, "a": ["y"]})");
}

TEST(UpdatePull, DocumentCondition) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [{"seq": 1}, {"seq": 3, "x": 1}, 3]})",
                R"({"$pull": {"a": {"seq": 3}}})", R"({"_id": 1, "a": [{"seq": 1}, 3]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [{"n": 1, "t": "a"}, {"n": 5, "t": "a"}, {"n": 7, "t": "b"}]})",
                R"({"$pull": {"a": {"n": {"$gt": 2}, "t": "a"}}})",
                R"({"_id": 1, "a": [{"n": 1, "t": "a"}, {"n": 7, "t": "b"}]})");
}

TEST(UpdatePull, NonArray) {
  expect_apply_error(R"({"_id": 1, "a": 1})", R"({"$pull": {"a": 1}})", ErrorCode::kBadValue);
}

TEST(UpdatePullAll, RemovesAllListed) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3, 1, 4]})", R"({"$pullAll": {"a": [1, 4]}})",
                R"({"_id": 1, "a": [2, 3]})");
  expect_compile_error(R"({"$pullAll": {"a": 1}})", ErrorCode::kBadValue);
}

}  // namespace
}  // namespace mongostore::engine::update_test
