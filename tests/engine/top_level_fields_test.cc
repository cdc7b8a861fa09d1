// TopLevelFields (engine/write/top_level_fields.h): lookups in any order, repeated or missing,
// answer what DocumentView::get answers, though the document is walked at most once.
#include "engine/write/top_level_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"

namespace mongostore::engine {
namespace {

TEST(TopLevelFields, AnswersAsGetDoesInAnyOrder) {
  bson::DocumentBuilder b;
  b.append("_id", 1).append("a", "x").append("b", 2.5).append("a", "second");
  b.open_array("c").push(1).push(2).close();
  b.append("", "empty key");
  bson::Document doc = b.finish();
  const std::vector<std::string> keys = {"c", "a", "_id", "missing", "", "b", "a", "c", "zz"};
  TopLevelFields fields(doc.view());
  for (const std::string& key : keys) {
    bson::Value expected = doc.view().get(key);
    bson::Value got = fields.get(key);
    EXPECT_EQ(got.is_missing(), expected.is_missing()) << key;
    EXPECT_TRUE(got.identical(expected)) << key;  // the first of duplicate keys, as get
  }
  TopLevelFields empty(bson::Document().view());
  EXPECT_TRUE(empty.get("a").is_missing());
}

// Past the fields it remembers, a lookup still finds the first field of its name.
TEST(TopLevelFields, WideDocumentsAnswerPastTheRememberedFields) {
  bson::DocumentBuilder b;
  for (int i = 0; i < 40; ++i) b.append("f" + std::to_string(i), i);
  b.append("f3", "duplicate");
  bson::Document doc = b.finish();
  TopLevelFields fields(doc.view());
  for (int i : {39, 2, 20, 3, 17, 16, 15, 0, 38}) {
    const std::string key = "f" + std::to_string(i);
    EXPECT_TRUE(fields.get(key).identical(doc.view().get(key))) << key;
  }
  EXPECT_TRUE(fields.get("nope").is_missing());
}

}  // namespace
}  // namespace mongostore::engine
