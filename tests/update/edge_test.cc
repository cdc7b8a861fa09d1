// Combinations and edge cases across operators and paths.
#include "update_test_util.h"

namespace mongostore::engine::update_test {
namespace {

TEST(UpdateEdge, SiblingArrayElementsUnderDifferentOperators) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [{"x": 0}, {"y": 1}]})",
                R"({"$set": {"a.0.x": 1}, "$inc": {"a.1.y": 1}})",
                R"({"_id": 1, "a": [{"x": 1}, {"y": 2}]})");
}

TEST(UpdateEdge, IncPastEndPads) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1]})", R"({"$inc": {"a.2": 5}})",
                R"({"_id": 1, "a": [1, null, 5]})");
}

TEST(UpdateEdge, UnsetPastEndDoesNotPad) {
  EXPECT_FALSE(run(R"({"_id": 1, "a": [1]})", R"({"$unset": {"a.4": 1}})").modified);
}

TEST(UpdateEdge, NumericFieldOrderWhenCreating) {
  EXPECT_UPDATE(R"({"_id": 1, "a": {}})", R"({"$set": {"a.10": 1, "a.9": 2, "a.b": 3}})",
                R"({"_id": 1, "a": {"9": 2, "10": 1, "b": 3}})");
}

TEST(UpdateEdge, SetOnInsertDoesNotCreateParentsOnUpdate) {
  auto r = run(R"({"_id": 1})", R"({"$setOnInsert": {"a.b": 1}})");
  EXPECT_FALSE(r.modified);
  auto r2 = run(R"({"_id": 1})", R"({"$setOnInsert": {"a.b": 1}})", {}, std::nullopt, true);
  EXPECT_EQ(canon(r2.document), canon(R"({"_id": 1, "a": {"b": 1}})"));
}

TEST(UpdateEdge, MixedCreatingAndNonCreatingUnderMissingParent) {
  EXPECT_UPDATE(R"({"_id": 1})", R"({"$unset": {"a.b": 1}, "$set": {"a.c": 1}})",
                R"({"_id": 1, "a": {"c": 1}})");
}

TEST(UpdateEdge, RenameIntoNewNestedPath) {
  EXPECT_UPDATE(R"({"_id": 1, "a": 1})", R"({"$rename": {"a": "x.y.z"}})",
                R"({"_id": 1, "x": {"y": {"z": 1}}})");
}

TEST(UpdateEdge, UnsetAllPositionalNullsElements) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [1, 2]})", R"({"$unset": {"a.$[]": 1}})",
                R"({"_id": 1, "a": [null, null]})");
}

TEST(UpdateEdge, AllPositionalOnEmptyArrayIsNoop) {
  EXPECT_FALSE(run(R"({"_id": 1, "a": []})", R"({"$set": {"a.$[]": 1}})").modified);
}

TEST(UpdateEdge, PositionalConflictsWithSameIndex) {
  expect_error(
      [] { run(R"({"_id": 1, "a": [1, 2]})", R"({"$set": {"a.$": 5, "a.0": 6}})", {}, 0); },
      ErrorCode::kConflictingUpdateOperators);
}

TEST(UpdateEdge, PushOnPositionalElement) {
  auto r =
      run(R"({"_id": 1, "g": [{"xs": [1]}, {"xs": [2]}]})", R"({"$push": {"g.$.xs": 3}})", {}, 1);
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1, "g": [{"xs": [1]}, {"xs": [2, 3]}]})"));
}

TEST(UpdateEdge, PullRegex) {
  EXPECT_UPDATE(R"({"_id": 1, "a": ["apple", "banana", "avocado"]})",
                R"({"$pull": {"a": {"$regex": "^a"}}})", R"({"_id": 1, "a": ["banana"]})");
}

TEST(UpdateEdge, PullWithAndCondition) {
  EXPECT_UPDATE(R"({"_id": 1, "a": [{"n": 1}, {"n": 5}, {"n": 9}]})",
                R"({"$pull": {"a": {"$and": [{"n": {"$gt": 2}}, {"n": {"$lt": 8}}]}}})",
                R"({"_id": 1, "a": [{"n": 1}, {"n": 9}]})");
}

TEST(UpdateEdge, FilterOnMissingFieldOfElements) {
  auto r = run(R"({"_id": 1, "a": [{"k": 1}, {"j": 1}, 5]})", R"({"$set": {"a.$[e].hit": true}})",
               {R"({"e.k": 1})"});
  EXPECT_EQ(canon(r.document), canon(R"({"_id": 1, "a": [{"k": 1, "hit": true}, {"j": 1}, 5]})"));
}

TEST(UpdateEdge, DeepExistingStructurePreserved) {
  EXPECT_UPDATE(R"({"_id": 1, "p": {"q": {"r": 1, "s": [1, {"t": 2}]}, "u": 3}, "z": 0})",
                R"({"$set": {"p.q.s.1.t": 20, "p.q.s.1.v": 1}, "$inc": {"z": 1}})",
                R"({"_id": 1, "p": {"q": {"r": 1, "s": [1, {"t": 20, "v": 1}]}, "u": 3}, "z": 1})");
}

TEST(UpdateEdge, ModifiedFlagAcrossOperators) {
  const char* doc = R"({"_id": 1, "a": [1, 2], "n": 5, "s": "x"})";
  EXPECT_FALSE(run(doc, R"({"$addToSet": {"a": 1}})").modified);
  EXPECT_FALSE(run(doc, R"({"$max": {"n": 1}})").modified);
  EXPECT_FALSE(run(doc, R"({"$pullAll": {"a": [7]}})").modified);
  EXPECT_FALSE(run(doc, R"({"$mul": {"n": 1}})").modified);
  EXPECT_TRUE(run(doc, R"({"$push": {"a": 1}})").modified);
  EXPECT_TRUE(run(doc, R"({"$rename": {"s": "t"}})").modified);
}

TEST(UpdateEdge, StringIdInMessages) {
  expect_apply_error(R"({"_id": "wf", "a": true})", R"({"$inc": {"a": 1}})",
                     ErrorCode::kTypeMismatch,
                     "Cannot apply $inc to a value of non-numeric type. {_id: \"wf\"} has the "
                     "field 'a' of non-numeric type bool");
}

TEST(UpdateEdge, ManyTargetedFieldsAtOneLevel) {
  // More targeted fields than the applier tracks inline: each existing one is rewritten in
  // place exactly once, and only the missing ones are appended.
  std::string doc = R"({"_id": 1)", set = R"({"$inc": {)", expected = R"({"_id": 1)";
  for (int i = 0; i < 24; ++i) {
    std::string f = "\"f" + std::to_string(i) + "\"";
    doc += ", " + f + ": " + std::to_string(i);
    set += (i ? ", " : "") + f + ": 100";
    expected += ", " + f + ": " + std::to_string(100 + i);
  }
  set += R"(, "new1": 1, "new2": 2}})";
  expected += R"(, "new1": 1, "new2": 2})";
  doc += "}";
  EXPECT_UPDATE(doc, set, expected);
}

}  // namespace
}  // namespace mongostore::engine::update_test
