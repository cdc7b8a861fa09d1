// An update's result is checked for the stored nesting limit (100 levels) on the top-level
// values it changed only (update_document, TopLevelDiff): the fields it left byte for byte
// as they were were checked when stored. These pin that every way of changing a value still
// has it checked: a nested path, a field behind a removed one, an array grown by $push, a
// field past the 32 top-level fields TopLevelDiff remembers, a replacement; and that a
// document already at the limit stays updatable in its other fields.
#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/engine/limits.h"
#include "support/error_code.h"
#include "support/json.h"
#include "support/nested_bson.h"

namespace mongostore::client {
namespace {

using bson::Document;
using mongostore::testing::code_of;
using mongostore::testing::J;
using mongostore::testing::nested_document;

constexpr int kOverflow = 15;
constexpr size_t kLimit = engine::kMaxStoredDocumentDepth;

// {<op>: {<path>: v}} where v holds `levels` nested documents, itself included.
Document op_with_chain(const std::string& op, const std::string& path, size_t levels) {
  Document holder = nested_document({}, {{"a"}}, levels);
  bson::DocumentBuilder b;
  b.open_document(op).append(path, holder.view().get("a")).close();
  return b.finish();
}

class UpdatedDepth : public ::testing::Test {
 protected:
  int update(std::string_view filter, const Document& u) {
    return code_of([&] { coll_.update_one(J(filter).view(), u.view()); });
  }
  std::shared_ptr<Client> client_ = connect("embedded:memory");
  Collection coll_ = client_->database("db").collection("c");
};

TEST_F(UpdatedDepth, ANestedPathIsChecked) {
  coll_.insert_one(J(R"({"_id": 1, "x": 1, "a": {"k": 1}, "z": 2})").view());
  // a.b holds `levels`: the document nests levels + 1.
  EXPECT_EQ(update(R"({"_id": 1})", op_with_chain("$set", "a.b", kLimit)), kOverflow);
  EXPECT_EQ(update(R"({"_id": 1})", op_with_chain("$set", "a.b", kLimit - 1)), 0);
  // Now at the limit: the other fields still update; one more level does not.
  EXPECT_EQ(update(R"({"_id": 1})", J(R"({"$set": {"x": 5, "z": {"q": [1]}}})")), 0);
  EXPECT_EQ(update(R"({"_id": 1})", J(R"({"$inc": {"x": 1}})")), 0);
  EXPECT_EQ(update(R"({"_id": 1})", op_with_chain("$set", "a.c", kLimit)), kOverflow);
  EXPECT_EQ(coll_.find_one(J(R"({"_id": 1})").view())->get("x").number_as_double(), 6);
}

TEST_F(UpdatedDepth, AFieldBehindARemovedOneIsChecked) {
  coll_.insert_one(J(R"({"_id": 1, "x": 1, "y": 1, "a": {}})").view());
  bson::DocumentBuilder b;
  b.open_document("$unset").append("x", 1).close();
  Document holder = nested_document({}, {{"a"}}, kLimit + 1);
  b.open_document("$set").append("a", holder.view().get("a")).close();
  EXPECT_EQ(update(R"({"_id": 1})", b.finish()), kOverflow);
  EXPECT_TRUE(coll_.find_one(J(R"({"_id": 1, "x": 1})").view()).has_value());
}

TEST_F(UpdatedDepth, AnArrayGrownByPushIsChecked) {
  coll_.insert_one(J(R"({"_id": 1, "arr": [1, {"k": 2}], "b": 1})").view());
  // An element of arr holding `levels` nests levels + 1 (the array itself).
  EXPECT_EQ(update(R"({"_id": 1})", op_with_chain("$push", "arr", kLimit)), kOverflow);
  EXPECT_EQ(update(R"({"_id": 1})", op_with_chain("$push", "arr", kLimit - 1)), 0);
}

TEST_F(UpdatedDepth, AFieldPastTheRememberedOnesIsChecked) {
  bson::DocumentBuilder wide;
  wide.append("_id", 1);
  for (int i = 0; i < 40; ++i) wide.append("f" + std::to_string(i), i);
  coll_.insert_one(wide.finish().view());
  EXPECT_EQ(update(R"({"_id": 1})", op_with_chain("$set", "f38", kLimit + 1)), kOverflow);
  EXPECT_EQ(update(R"({"_id": 1})", op_with_chain("$set", "g", kLimit + 1)), kOverflow);
  EXPECT_EQ(update(R"({"_id": 1})", op_with_chain("$set", "f38", kLimit)), 0);
  EXPECT_EQ(update(R"({"_id": 1})", J(R"({"$set": {"f39": "x"}})")), 0);
}

TEST_F(UpdatedDepth, AReplacementIsChecked) {
  coll_.insert_one(J(R"({"_id": 1, "a": {"b": 1}})").view());
  Document over = nested_document({}, {{"a"}}, kLimit + 1);
  EXPECT_EQ(code_of([&] { coll_.replace_one(J(R"({"_id": 1})").view(), over.view()); }), kOverflow);
  Document at = nested_document({}, {{"a"}}, kLimit);
  EXPECT_EQ(code_of([&] { coll_.replace_one(J(R"({"_id": 1})").view(), at.view()); }), 0);
}

}  // namespace
}  // namespace mongostore::client
