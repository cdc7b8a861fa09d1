// Classification of update documents, parse errors, conflicts and the immutable _id.
#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

TEST(UpdateParse, Classification) {
  EXPECT_FALSE(compile(R"({"$set": {"a": 1}})").is_replacement());
  EXPECT_TRUE(compile(R"({"a": 1})").is_replacement());
  EXPECT_TRUE(compile(R"({})").is_replacement());
}

TEST(UpdateParse, UnknownModifier) {
  expect_compile_error(R"({"$foo": {"a": 1}})", ErrorCode::kFailedToParse,
                       "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style "
                       "update specified as an array");
}

TEST(UpdateParse, MixedOperatorsAndFields) {
  expect_compile_error(R"({"$set": {"a": 1}, "b": 1})", ErrorCode::kFailedToParse);
  expect_compile_error(R"({"b": 1, "$set": {"a": 1}})", ErrorCode::kDollarPrefixedFieldName);
}

TEST(UpdateParse, OperatorArgumentMustBeDocument) {
  expect_compile_error(R"({"$set": 1})", ErrorCode::kFailedToParse);
}

TEST(UpdateParse, BadPaths) {
  expect_compile_error(R"({"$set": {"": 1}})", static_cast<ErrorCode>(56));
  expect_compile_error(R"({"$set": {"a..b": 1}})", static_cast<ErrorCode>(56));
  expect_compile_error(R"({"$set": {"a.$foo": 1}})", ErrorCode::kDollarPrefixedFieldName);
  expect_compile_error(R"({"$set": {"$": 1}})", ErrorCode::kDollarPrefixedFieldName);
}

TEST(UpdateParse, ConflictingPaths) {
  expect_compile_error(R"({"$set": {"a": 1}, "$inc": {"a": 1}})",
                       ErrorCode::kConflictingUpdateOperators,
                       "Updating the path 'a' would create a conflict at 'a'");
  expect_compile_error(R"({"$set": {"a": 1}, "$inc": {"a.b": 1}})",
                       ErrorCode::kConflictingUpdateOperators,
                       "Updating the path 'a.b' would create a conflict at 'a'");
  expect_compile_error(R"({"$set": {"a.b": 1}, "$unset": {"a": 1}})",
                       ErrorCode::kConflictingUpdateOperators,
                       "Updating the path 'a' would create a conflict at 'a'");
  // Siblings and shared prefixes of different names are fine.
  EXPECT_NO_THROW(compile(R"({"$set": {"a.b": 1, "a.c": 1, "ab": 1}})"));
}

TEST(UpdateId, OperatorChangingIdFails) {
  expect_apply_error(
      R"({"_id": 1, "a": 1})", R"({"$set": {"_id": 2}})", ErrorCode::kImmutableField,
      "Performing an update on the path '_id' would modify the immutable field '_id'");
  expect_apply_error(R"({"_id": {"x": 1}})", R"({"$set": {"_id.x": 2}})",
                     ErrorCode::kImmutableField);
  EXPECT_FALSE(run(R"({"_id": 1, "a": 1})", R"({"$set": {"_id": 1}})").modified);
}

TEST(UpdateId, UpsertSeedWithoutIdMayGainOne) {
  auto r = run(R"({})", R"({"$set": {"_id": 5, "a": 1}})", {}, std::nullopt, true);
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 5, "a": 1})"));
}

TEST(UpdateReplacement, KeepsOriginalIdFirst) {
  auto r = run(R"({"_id": 1, "a": 1, "b": 2})", R"({"c": 3, "a": 4})");
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1, "c": 3, "a": 4})"));
  EXPECT_TRUE(r.modified);
  auto r2 = run(R"({"_id": 1, "a": 1})", R"({"a": 1, "_id": 1})");
  EXPECT_EQ(canon(r2.document), canon(R"({"_id": 1, "a": 1})"));
  EXPECT_FALSE(r2.modified);
}

TEST(UpdateReplacement, EmptyReplacementKeepsId) {
  auto r = run(R"({"_id": 1, "a": 1})", R"({})");
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1})"));
}

TEST(UpdateReplacement, DifferentIdFails) {
  expect_apply_error(
      R"({"_id": 1, "a": 1})", R"({"_id": 2, "a": 1})", ErrorCode::kImmutableField,
      "Performing an update on the path '_id' would modify the immutable field '_id'");
}

TEST(UpdateReplacement, DollarFieldFails) {
  expect_compile_error(R"({"a": 1, "$b": 1})", ErrorCode::kDollarPrefixedFieldName);
}

TEST(UpdateReplacement, UpsertSeedTakesReplacementId) {
  auto r = run(R"({})", R"({"a": 1, "_id": 7})", {}, std::nullopt, true);
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 7, "a": 1})"));
}

}  // namespace
}  // namespace mongostore::engine::update_test
