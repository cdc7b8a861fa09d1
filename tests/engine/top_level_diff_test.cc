// TopLevelDiff (engine/write/top_level_diff.h): lookups in either version answer what
// DocumentView::get answers, and every top-level value of the new version that is not
// byte-identical to a value of the old version is visited as changed (update_document checks
// the nesting depth of those alone, so a value missed here would escape the depth limit).
#include "engine/write/top_level_diff.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"

namespace mongostore::engine {
namespace {

std::vector<bson::Value> changed(const TopLevelDiff& diff) {
  std::vector<bson::Value> out;
  diff.for_each_changed([&](const bson::Value& v) { out.push_back(v); });
  return out;
}

TEST(TopLevelDiff, LookupsAnswerAsGetDoes) {
  bson::DocumentBuilder b;
  b.append("_id", 1).append("a", "x").append("b", 2.5).append("a", "second");
  b.open_array("c").push(1).push(2).close();
  b.append("", "empty key");
  bson::Document doc = b.finish();
  bson::Document other = bson::make_document("a", 7, "zz", 1);
  const std::vector<std::string> keys = {"c", "a", "_id", "missing", "", "b", "a", "c", "zz"};
  TopLevelDiff diff(doc.view(), other.view());
  TopLevelDiff reversed(other.view(), doc.view());
  for (const std::string& key : keys) {
    EXPECT_TRUE(diff.before(key).identical(doc.view().get(key))) << key;
    EXPECT_EQ(diff.before(key).is_missing(), doc.view().get(key).is_missing()) << key;
    EXPECT_TRUE(diff.after(key).identical(other.view().get(key))) << key;
    EXPECT_TRUE(reversed.after(key).identical(doc.view().get(key))) << key;
  }
  TopLevelDiff empty(bson::Document().view(), bson::Document().view());
  EXPECT_TRUE(empty.before("a").is_missing());
  EXPECT_TRUE(empty.after("a").is_missing());
  EXPECT_TRUE(changed(empty).empty());
}

// Past the fields it remembers, a lookup still finds the first field of its name, and every
// field there counts as changed.
TEST(TopLevelDiff, WideDocumentsAnswerPastTheRememberedFields) {
  bson::DocumentBuilder b;
  for (int i = 0; i < 50; ++i) b.append("f" + std::to_string(i), i);
  b.append("f3", "duplicate");
  bson::Document doc = b.finish();
  TopLevelDiff diff(doc.view(), doc.view());
  for (int i : {49, 2, 20, 3, 40, 33, 32, 31, 0, 38}) {
    const std::string key = "f" + std::to_string(i);
    EXPECT_TRUE(diff.before(key).identical(doc.view().get(key))) << key;
    EXPECT_TRUE(diff.after(key).identical(doc.view().get(key))) << key;
  }
  EXPECT_TRUE(diff.after("nope").is_missing());
  // 51 fields, 32 remembered and unchanged: the other 19 are visited.
  EXPECT_EQ(changed(diff).size(), 19u);
}

TEST(TopLevelDiff, VisitsWhatAnUpdateChanged) {
  bson::Document before = bson::make_document("_id", 1, "a", 1, "b", "x", "c", 3);
  // $set b: only b.
  // (Each new version is kept alive while the visited values, views into it, are read.)
  bson::Document set = bson::make_document("_id", 1, "a", 1, "b", "y", "c", 3);
  std::vector<bson::Value> set_b = changed(TopLevelDiff(before.view(), set.view()));
  ASSERT_EQ(set_b.size(), 1u);
  EXPECT_EQ(set_b[0].as_string(), "y");
  // $unset a: nothing left changed (the fields after it are matched one position on).
  EXPECT_TRUE(
      changed(TopLevelDiff(before.view(), bson::make_document("_id", 1, "b", "x", "c", 3).view()))
          .empty());
  // A new field at the end: only it.
  bson::Document grown = bson::make_document("_id", 1, "a", 1, "b", "x", "c", 3, "d", 4);
  std::vector<bson::Value> added = changed(TopLevelDiff(before.view(), grown.view()));
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].as_int32(), 4);
  // The same value under another name is changed.
  EXPECT_EQ(changed(TopLevelDiff(before.view(),
                                 bson::make_document("_id", 1, "z", 1, "b", "x", "c", 3).view()))
                .size(),
            1u);
}

// The soundness the depth check relies on: for random pairs of versions (fields removed,
// added, reordered, changed, duplicated), every new value not byte-identical to some old
// top-level value is visited.
TEST(TopLevelDiff, EveryValueNotInTheOldVersionIsVisited) {
  std::mt19937 rng(29);
  auto random_doc = [&](int fields) {
    bson::DocumentBuilder b;
    for (int i = 0; i < fields; ++i) {
      std::string key = "k" + std::to_string(rng() % 12);
      if (rng() % 3 == 0) {
        b.open_document(key).append("x", static_cast<int32_t>(rng() % 3)).close();
      } else {
        b.append(key, static_cast<int32_t>(rng() % 3));
      }
    }
    return b.finish();
  };
  for (int round = 0; round < 2000; ++round) {
    bson::Document before = random_doc(static_cast<int>(rng() % 40));
    bson::Document after = random_doc(static_cast<int>(rng() % 40));
    std::vector<bson::Value> visited = changed(TopLevelDiff(before.view(), after.view()));
    for (const bson::Element& e : after.view()) {
      bool in_before = false;
      for (const bson::Element& o : before.view())
        in_before = in_before || o.value.identical(e.value);
      if (in_before) continue;
      bool seen = false;
      for (const bson::Value& v : visited) seen = seen || v.data() == e.value.data();
      EXPECT_TRUE(seen) << "round " << round << ": " << e.key;
    }
  }
}

}  // namespace
}  // namespace mongostore::engine
