// $set, $unset, $rename, $setOnInsert, $currentDate, $min, $max and path handling.
#include "mongostore/bson/builder.h"
#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

TEST(UpdateSet, ExistingFieldKeepsPosition) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 1, "b": 2})", R"({"$set": {"a": 5}})",
                R"({"_id": 1, "a": 5, "b": 2})");
}

TEST(UpdateSet, NewFieldsAppendInLexicographicOrder) {
  EXPECT_UPDATE(R"({"_id": 1, "m": 1})", R"({"$set": {"z": 1, "b": 2, "a": 3}})",
                R"({"_id": 1, "m": 1, "a": 3, "b": 2, "z": 1})");
}

TEST(UpdateSet, DottedPathCreatesIntermediateDocuments) {
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$set": {"a.b.c": 1}})",
                R"({"_id": 1, "a": {"b": {"c": 1}}})");
  EXPECT_UPDATE(R"({"_id": 1, "a": {"x": 1}})", R"({"$set": {"a.b": 2}})",
                R"({"_id": 1, "a": {"x": 1, "b": 2}})");
}

TEST(UpdateSet, SiblingPathsShareParent) {
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$set": {"a.y": 1, "a.x": 2}})",
                R"({"_id": 1, "a": {"x": 2, "y": 1}})");
}

TEST(UpdateSet, ReplacesSubdocumentAndChangesType) {
  EXPECT_UPDATE(R"({"_id": 1, "a": {"b": 1}})", R"({"$set": {"a": [1, 2]}})",
                R"({"_id": 1, "a": [1, 2]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 1})", R"({"$set": {"a": 1.5}})", R"({"_id": 1, "a": 1.5})");
}

TEST(UpdateSet, SameValueIsNotModified) {
  auto r = run(R"({"_id": 1, "a": 1, "b": {"c": 2}})", R"({"$set": {"a": 1, "b.c": 2}})");
  EXPECT_FALSE(r.modified);
  auto r2 = run(R"({"_id": 1, "a": 1})", R"({"$set": {"a": 2}})");
  EXPECT_TRUE(r2.modified);
}

TEST(UpdateSet, TypeChangeOfEqualNumberIsModified) {
  auto r = run(R"({"_id": 1, "a": 1})", R"({"$set": {"a": 1.0}})");
  EXPECT_TRUE(r.modified);
}

TEST(UpdateSet, ArrayIndexPath) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3]})", R"({"$set": {"a.1": 9}})",
                R"({"_id": 1, "a": [1, 9, 3]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": [{"b": 1}, {"b": 2}]})", R"({"$set": {"a.1.b": 9}})",
                R"({"_id": 1, "a": [{"b": 1}, {"b": 9}]})");
}

TEST(UpdateSet, PastTheEndPadsWithNull) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1]})", R"({"$set": {"a.3": 4}})",
                R"({"_id": 1, "a": [1, null, null, 4]})");
  EXPECT_UPDATE(R"({"_id": 1, "a": []})", R"({"$set": {"a.1.b": 4}})",
                R"({"_id": 1, "a": [null, {"b": 4}]})");
}

TEST(UpdateSet, PaddingIsBounded) {
  // mongod pads at most 1,500,000 nulls (found by fuzz/update_fuzzer: {$set: {"a.7134252": 1}}
  // built a 7-million-element array).
  expect_apply_error(R"({"_id": 1, "a": [1]})", R"({"$set": {"a.7134252": 1}})",
                     ErrorCode::kCannotBackfillArray, "can't backfill more than 1500000 elements");
  expect_apply_error(R"({"_id": 1, "a": []})", R"({"$set": {"a.1500001.b": 1}})",
                     ErrorCode::kCannotBackfillArray);
  bson::Document done =
      run(R"({"_id": 1, "a": [0]})", R"({"$set": {"a.1500001": 1}})", {}).document;
  EXPECT_EQ(done.get("a").as_array().count(), 1500002u);
}

TEST(UpdateSet, NumericKeyOnDocumentIsFieldName) {
  EXPECT_UPDATE(R"({"_id": 1, "a": {"x": 1}})", R"({"$set": {"a.0": 4}})",
                R"({"_id": 1, "a": {"x": 1, "0": 4}})");
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$set": {"a.0": 4}})", R"({"_id": 1, "a": {"0": 4}})");
}

TEST(UpdateSet, TraversingScalarFails) {
  expect_apply_error(R"({"_id": 1, "a": 1})", R"({"$set": {"a.b": 2}})", ErrorCode::kPathNotViable,
                     "Cannot create field 'b' in element {a: 1}");
  expect_apply_error(R"({"_id": 1, "a": [1, 2]})", R"({"$set": {"a.b": 2}})",
                     ErrorCode::kPathNotViable);
  expect_apply_error(R"({"_id": 1, "a": [1, 2]})", R"({"$set": {"a.0.b": 2}})",
                     ErrorCode::kPathNotViable, "Cannot create field 'b' in element {0: 1}");
}

TEST(UpdateSet, EmptyOperatorIsNoop) {
  auto r = run(R"({"_id": 1, "a": 1})", R"({"$set": {}})");
  EXPECT_FALSE(r.modified);
}

TEST(UpdateSet, InputIsNotMutatedAndUpdateIsReusable) {
  Update u = compile(R"({"$inc": {"n": 1}})");
  bson::Document d = J(R"({"_id": 1, "n": 1})");
  auto r1 = u.apply(d.view());
  auto r2 = u.apply(r1.document.view());
  EXPECT_EQ(canon(d), canon(R"({"_id": 1, "n": 1})"));
  EXPECT_EQ(canon(r2.document), canon(R"({"_id": 1, "n": 3})"));
}

TEST(UpdateSet, UpdateOwnsItsBytes) {
  std::optional<Update> u;
  {
    bson::Document src = J(R"({"$set": {"a": "a long enough string value"}})");
    u = Update::compile(src.view());
  }
  auto r = u->apply(J(R"({"_id": 1})").view());
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1, "a": "a long enough string value"})"));
}

TEST(UpdateUnset, RemovesFields) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 1, "b": {"c": 1, "d": 2}})",
                R"({"$unset": {"a": "", "b.c": 1}})", R"({"_id": 1, "b": {"d": 2}})");
}

TEST(UpdateUnset, MissingIsNoopAndDoesNotCreate) {
  auto r = run(R"({"_id": 1, "a": 1})", R"({"$unset": {"x": 1, "y.z": 1, "a.b": 1}})");
  EXPECT_FALSE(r.modified);
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1, "a": 1})"));
}

TEST(UpdateUnset, ArrayElementBecomesNull) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2, 3]})", R"({"$unset": {"a.1": 1}})",
                R"({"_id": 1, "a": [1, null, 3]})");
}

TEST(UpdateUnset, UnsetIdFails) {
  expect_apply_error(R"({"_id": 1})", R"({"$unset": {"_id": 1}})", ErrorCode::kImmutableField);
}

TEST(UpdateRename, MovesValue) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 1, "b": 2})", R"({"$rename": {"a": "z"}})",
                R"({"_id": 1, "b": 2, "z": 1})");
  EXPECT_UPDATE(R"({"_id": 1, "a": {"b": 1}})", R"({"$rename": {"a.b": "c.d"}})",
                R"({"_id": 1, "a": {}, "c": {"d": 1}})");
}

TEST(UpdateRename, OverwritesTarget) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 1, "b": 2})", R"({"$rename": {"a": "b"}})",
                R"({"_id": 1, "b": 1})");
}

TEST(UpdateRename, MissingSourceIsNoop) {
  auto r = run(R"({"_id": 1, "b": 2})", R"({"$rename": {"a": "b"}})");
  EXPECT_FALSE(r.modified);
}

TEST(UpdateRename, Errors) {
  expect_compile_error(R"({"$rename": {"a": 1}})", ErrorCode::kBadValue,
                       "The 'to' field for $rename must be a string: a: 1");
  expect_compile_error(R"({"$rename": {"a": "a"}})", ErrorCode::kBadValue);
  expect_compile_error(R"({"$rename": {"a": "a.b"}})", ErrorCode::kBadValue);
  expect_compile_error(R"({"$rename": {"a.$": "b"}})", ErrorCode::kBadValue);
  expect_apply_error(R"({"_id": 1, "a": [{"b": 1}]})", R"({"$rename": {"a.0.b": "c"}})",
                     ErrorCode::kBadValue);
  expect_compile_error(R"({"$rename": {"a": "b"}, "$set": {"b": 1}})",
                       ErrorCode::kConflictingUpdateOperators);
}

TEST(UpdateSetOnInsert, OnlyOnInsert) {
  auto r = run(R"({"_id": 1})", R"({"$setOnInsert": {"a": 1}, "$set": {"b": 2}})", {}, std::nullopt,
               false);
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1, "b": 2})"));
  auto r2 = run(R"({"_id": 1})", R"({"$setOnInsert": {"a": 1}, "$set": {"b": 2}})", {},
                std::nullopt, true);
  EXPECT_EQ(canon(r2.document), canon(R"({"_id": 1, "a": 1, "b": 2})"));
  auto r3 = run(R"({"_id": 1, "a": 5})", R"({"$setOnInsert": {"a": 1}})");
  EXPECT_FALSE(r3.modified);
}

TEST(UpdateCurrentDate, DateAndTimestamp) {
  // Built directly: extended JSON would read {"$type": ...} as legacy binary.
  bson::DocumentBuilder b;
  b.open_document("$currentDate").append("a", true);
  b.open_document("b").append("$type", "timestamp").close();
  b.open_document("c").append("$type", "date").close();
  b.close();
  bson::Document update = b.finish();
  auto r = Update::compile(update.view()).apply(J(R"({"_id": 1})").view());
  EXPECT_EQ(r.document.get("a").type(), bson::BsonType::kDateTime);
  EXPECT_EQ(r.document.get("b").type(), bson::BsonType::kTimestamp);
  EXPECT_EQ(r.document.get("c").type(), bson::BsonType::kDateTime);
  EXPECT_GT(r.document.get("a").as_datetime().millis, 1600000000000);
  EXPECT_GT(r.document.get("b").as_timestamp().seconds, 1600000000u);
  bson::DocumentBuilder bad;
  bad.open_document("$currentDate").open_document("a").append("$type", "x").close().close();
  bson::Document bad_update = bad.finish();
  expect_error([&] { Update::compile(bad_update.view()); }, ErrorCode::kBadValue);
  expect_compile_error(R"({"$currentDate": {"a": 1}})", ErrorCode::kBadValue);
}

TEST(UpdateMinMax, Basic) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 5, "b": 5})", R"({"$min": {"a": 3, "b": 7}})",
                R"({"_id": 1, "a": 3, "b": 5})");
  EXPECT_UPDATE(R"({"_id": 1, "a": 5, "b": 5})", R"({"$max": {"a": 3, "b": 7}})",
                R"({"_id": 1, "a": 5, "b": 7})");
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$max": {"a": 3}})", R"({"_id": 1, "a": 3})");
  // Across types by MongoDB's order: strings sort above numbers.
  EXPECT_UPDATE(R"({"_id": 1, "a": 5})", R"({"$max": {"a": "x"}})", R"({"_id": 1, "a": "x"})");
  auto r = run(R"({"_id": 1, "a": 5})", R"({"$min": {"a": 5.0}})");
  EXPECT_FALSE(r.modified);
}

}  // namespace
}  // namespace mongostore::engine::update_test
