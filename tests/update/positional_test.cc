// Positional `$`, all-positional `$[]` and filtered `$[<id>]` with arrayFilters.
#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

TEST(UpdatePositional, DollarUsesMatchedIndex) {
  auto r = run(R"({"_id": 1, "a": [1, 2, 3]})", R"({"$set": {"a.$": 9}})", {}, 1);
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1, "a": [1, 9, 3]})"));
  auto r2 = run(R"({"_id": 1, "a": [{"b": 1}, {"b": 2}]})", R"({"$inc": {"a.$.b": 10}})", {}, 0);
  EXPECT_EQ(canon(r2.document), canon(R"({"_id": 1, "a": [{"b": 11}, {"b": 2}]})"));
}

TEST(UpdatePositional, DollarWithoutMatchFails) {
  expect_apply_error(R"({"_id": 1, "a": [1]})", R"({"$set": {"a.$": 9}})", ErrorCode::kBadValue,
                     "The positional operator did not find the match needed from the query.");
}

TEST(UpdatePositional, AllPositional) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3]})", R"({"$inc": {"a.$[]": 1}})",
                R"({"_id": 1, "a": [2, 3, 4]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [{"b": 1}, {"c": 1}]})", R"({"$set": {"a.$[].b": 5}})",
                R"({"_id": 1, "a": [{"b": 5}, {"c": 1, "b": 5}]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [[1, 2], [3]]})", R"({"$set": {"a.$[].$[]": 0}})",
                R"({"_id": 1, "a": [[0, 0], [0]]})");
}

TEST(UpdatePositional, AllPositionalErrors) {
  expect_apply_error(R"({"_id": 1})", R"({"$set": {"a.$[]": 1}})", ErrorCode::kBadValue,
                     "The path 'a' must exist in the document in order to apply array updates.");
  expect_apply_error(R"({"_id": 1, "a": 1})", R"({"$set": {"a.$[]": 1}})", ErrorCode::kBadValue);
  expect_apply_error(R"({"_id": 1, "a": {"b": 1}})", R"({"$set": {"a.$[]": 1}})",
                     ErrorCode::kBadValue);
}

TEST(UpdatePositional, FilteredPositional) {
  auto r = run(R"({"_id": 1, "a": [1, 5, 8, 2]})", R"({"$set": {"a.$[x]": 0}})",
               {R"({"x": {"$gte": 5}})"});
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1, "a": [1, 0, 0, 2]})"));
  auto r2 = run(R"({"_id": 1, "a": [{"k": "p", "v": 1}, {"k": "q", "v": 2}]})",
                R"({"$inc": {"a.$[e].v": 10}})", {R"({"e.k": "q"})"});
  EXPECT_EQ(canon(r2.document),
            canon(R"({"_id": 1, "a": [{"k": "p", "v": 1}, {"k": "q", "v": 12}]})"));
}

TEST(UpdatePositional, TwoFiltersOnDisjointElements) {
  auto r = run(R"({"_id": 1, "a": [1, 5, 8]})", R"({"$set": {"a.$[lo]": 0, "a.$[hi]": 9}})",
               {R"({"lo": {"$lt": 3}})", R"({"hi": {"$gt": 6}})"});
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1, "a": [0, 5, 9]})"));
}

TEST(UpdatePositional, NestedFilters) {
  auto r = run(R"({"_id": 1, "g": [{"n": 1, "xs": [1, 2, 3]}, {"n": 2, "xs": [1, 2, 3]}]})",
               R"({"$set": {"g.$[o].xs.$[i]": 0}})", {R"({"o.n": 2})", R"({"i": {"$gte": 2}})"});
  EXPECT_EQ(canon(r.document),
            canon(R"({"_id": 1, "g": [{"n": 1, "xs": [1, 2, 3]}, {"n": 2, "xs": [1, 0, 0]}]})"));
}

TEST(UpdatePositional, FilterErrors) {
  expect_compile_error(R"({"$set": {"a.$[x]": 1}})", ErrorCode::kBadValue,
                       "No array filter found for identifier 'x' in path 'a.$[x]'");
  expect_compile_error(R"({"$set": {"a": 1}})", ErrorCode::kFailedToParse, {}, {R"({"x": 1})"});
  expect_compile_error(R"({"$set": {"a.$[x]": 1}})", ErrorCode::kFailedToParse, {},
                       {R"({"x": 1})", R"({"x": 2})"});
  expect_compile_error(R"({"$set": {"a.$[X]": 1}})", ErrorCode::kBadValue, {}, {R"({"X": 1})"});
  expect_compile_error(R"({"$set": {"a.$[x]": 1}})", ErrorCode::kFailedToParse, {},
                       {R"({"x": 1, "y": 2})"});
}

TEST(UpdatePositional, OverlappingMatchConflicts) {
  expect_apply_error(R"({"_id": 1, "a": [1, 5]})", R"({"$set": {"a.$[]": 0, "a.1": 9}})",
                     ErrorCode::kConflictingUpdateOperators);
}

}  // namespace
}  // namespace mongostore::engine::update_test
