// require_update_operators (src/client/write_validation.h), which reads the update's top-level
// keys from its bytes: every key of every value type is reached, and the first plain key is
// the one named.
#include <gtest/gtest.h>

#include <string>

#include "client/write_validation.h"
#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::client {
namespace {

using bson::make_array;
using bson::make_document;

std::string refusal(const bson::Document& update) {
  try {
    require_update_operators(update.view(), "updateOne");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), static_cast<int32_t>(ErrorCode::kBadValue));
    return e.what();
  }
  return "";
}

TEST(UpdateOperators, OperatorsOfEveryValueTypePass) {
  bson::DocumentBuilder b;
  b.append("$set", make_document("a", 1, "b", make_array(1, "x")));
  b.append("$inc", int64_t{1}).append("$min", 2.5).append("$x", "str").append("$n", bson::Null{});
  b.append("$b", true).append("$arr", make_array(make_document("k", 1)));
  EXPECT_EQ(refusal(b.finish()), "");
}

TEST(UpdateOperators, AnEmptyUpdateIsRefused) {
  EXPECT_NE(refusal(bson::Document()).find("updateOne: update document must not be empty"),
            std::string::npos);
}

TEST(UpdateOperators, APlainKeyAfterValuesOfEveryTypeIsNamed) {
  // Each value before it must be skipped by its exact size to reach the key.
  bson::DocumentBuilder b;
  b.append("$set", make_document("a", std::string(300, 'x')));
  b.append("$s", "a string").append("$d", 1.5).append("$i", 7).append("$l", int64_t{8});
  b.append("$t", true).append("$n", bson::Null{}).append("$a", make_array(1, 2));
  b.append("plain", 1).append("$after", 2);
  const std::string message = refusal(b.finish());
  EXPECT_NE(message.find("must contain only atomic modifiers ($-operators), found 'plain'"),
            std::string::npos)
      << message;
}

TEST(UpdateOperators, APlainFirstKeyAndAnEmptyKeyAreRefused) {
  EXPECT_NE(refusal(make_document("a", 1, "$set", make_document("b", 1))).find("found 'a'"),
            std::string::npos);
  EXPECT_NE(refusal(make_document("$set", make_document("b", 1), "", 1)).find("found ''"),
            std::string::npos);
}

}  // namespace
}  // namespace mongostore::client
