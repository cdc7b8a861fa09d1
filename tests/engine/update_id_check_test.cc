// Update::apply looks up neither version's _id for an operator update whose path tree has no
// top-level "_id" (it copies the original's _id byte for byte): such updates write what the
// same update with a no-op on _id writes (which takes the check), and every update that does
// name _id, or a path below it, is still checked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/update.h"
#include "support/error_code.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using mongostore::testing::code_of;
using mongostore::testing::J;

bool same_bytes(const bson::Document& a, const bson::Document& b) {
  auto x = a.view().bytes();
  auto y = b.view().bytes();
  return std::equal(x.begin(), x.end(), y.begin(), y.end());
}

const char* const kDocs[] = {
    R"({"_id": 1, "a": 1, "b": {"c": [1, 2]}})",
    R"({"a": 1, "_id": {"x": 1, "y": [1]}, "b": {"c": [1, 2]}})",
    R"({"a": 1, "b": {"c": [1, 2]}, "_id": "last"})",
};

const char* const kUpdates[] = {
    R"({"$set": {"a": 2}})",
    R"({"$set": {"b.c.1": 5, "n": {"m": 1}}, "$inc": {"a": 1}})",
    R"({"$unset": {"a": ""}, "$push": {"b.c": 3}})",
    R"({"$rename": {"a": "z"}})",
    R"({"$set": {"_idx": 1, "id": 2}})",
};

TEST(UpdateIdCheck, AnUpdateNotNamingIdWritesWhatTheCheckedUpdateWrites) {
  for (const char* doc_json : kDocs) {
    bson::Document doc = J(doc_json);
    bson::Value id = doc.view().get("_id");
    for (const char* update_json : kUpdates) {
      SCOPED_TRACE(std::string(doc_json) + " " + update_json);
      bson::Document update = J(update_json);
      // The same update plus {$min: {_id: <its own value>}}: a no-op that names _id.
      bson::DocumentBuilder checked;
      checked.append_elements(update.view());
      checked.open_document("$min").append("_id", id).close();
      bson::Document with_id = checked.finish();
      auto fast = Update::compile(update.view()).apply(doc.view());
      auto slow = Update::compile(with_id.view()).apply(doc.view());
      EXPECT_TRUE(same_bytes(fast.document, slow.document)) << fast.document.to_json();
      EXPECT_EQ(fast.modified, slow.modified);
    }
  }
}

TEST(UpdateIdCheck, EveryUpdateNamingIdIsStillChecked) {
  const int32_t kImmutable = static_cast<int32_t>(ErrorCode::kImmutableField);
  auto code = [](const char* doc, const char* update) {
    return code_of([&] { Update::compile(J(update).view()).apply(J(doc).view()); });
  };
  EXPECT_EQ(code(R"({"_id": 1})", R"({"$set": {"_id": 2}})"), kImmutable);
  EXPECT_EQ(code(R"({"_id": 1})", R"({"$inc": {"_id": 1}})"), kImmutable);
  EXPECT_EQ(code(R"({"_id": 1})", R"({"$unset": {"_id": ""}})"), kImmutable);
  EXPECT_EQ(code(R"({"_id": 1, "a": 2})", R"({"$rename": {"a": "_id"}})"), kImmutable);
  EXPECT_EQ(code(R"({"_id": 1})", R"({"$rename": {"_id": "a"}})"), kImmutable);
  EXPECT_EQ(code(R"({"_id": {"x": 1}})", R"({"$set": {"_id.x": 2}})"), kImmutable);
  EXPECT_EQ(code(R"({"_id": {"x": 1}})", R"({"$set": {"_id.y": 2}})"), kImmutable);
  EXPECT_EQ(code(R"({"_id": [1, 2]})", R"({"$push": {"_id": 3}})"), kImmutable);
  // Naming _id with its own value is allowed, and so is creating one where there is none.
  EXPECT_EQ(code(R"({"_id": 1})", R"({"$set": {"_id": 1}})"), 0);
  EXPECT_EQ(code(R"({"a": 1})", R"({"$set": {"_id": 5}})"), 0);
}

}  // namespace
}  // namespace mongostore::engine
