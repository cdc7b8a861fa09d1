// $push and $addToSet copy existing arrays as bytes; arrays with non-canonical keys (which a
// foreign writer may have stored) are renumbered instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/update.h"

namespace mongostore::engine {
namespace {

using bson::make_array;
using bson::make_document;

bson::Document odd_keys_array_doc() {
  bson::DocumentBuilder b;
  b.append("_id", 1);
  b.open_array("a").append("x", 1).append("y", 2).close();
  return b.finish();
}

TEST(ArrayFastPath, PushAppendsToCanonicalArrays) {
  auto doc = make_document("_id", 1, "a", make_array(1, 2));
  auto r = Update::compile(make_document("$push", make_document("a", 3))).apply(doc);
  EXPECT_EQ(r.document, make_document("_id", 1, "a", make_array(1, 2, 3)));
  EXPECT_TRUE(r.modified);
}

TEST(ArrayFastPath, PushRenumbersNonCanonicalKeys) {
  auto r =
      Update::compile(make_document("$push", make_document("a", 3))).apply(odd_keys_array_doc());
  EXPECT_EQ(r.document, make_document("_id", 1, "a", make_array(1, 2, 3)));
}

TEST(ArrayFastPath, AddToSetRenumbersNonCanonicalKeysAndSkipsPresentValues) {
  auto u = Update::compile(
      make_document("$addToSet", make_document("a", make_document("$each", make_array(2, 5, 5)))));
  auto r = u.apply(odd_keys_array_doc());
  EXPECT_EQ(r.document, make_document("_id", 1, "a", make_array(1, 2, 5)));
  auto canonical = make_document("_id", 1, "a", make_array(1, 2));
  EXPECT_EQ(u.apply(canonical).document, make_document("_id", 1, "a", make_array(1, 2, 5)));
  auto none = Update::compile(make_document("$addToSet", make_document("a", 2))).apply(canonical);
  EXPECT_FALSE(none.modified);
}

// $push with $slice and neither $sort nor $position writes the kept run of (existing, $each)
// directly, as bytes when nothing is cut: every slice against the elements it must keep,
// for canonical, renumbered and missing arrays.
TEST(ArrayFastPath, PushWithSliceKeepsExactlyTheSlicedRun) {
  for (int existing = -1; existing <= 5; ++existing) {  // -1: no field
    for (int added = 1; added <= 3; ++added) {
      for (int slice = -8; slice <= 8; ++slice) {
        std::vector<int> all;
        bson::DocumentBuilder doc;
        doc.append("_id", 1);
        if (existing >= 0) {
          doc.open_array("a");
          for (int i = 0; i < existing; ++i) {
            doc.push(i);
            all.push_back(i);
          }
          doc.close();
        }
        bson::DocumentBuilder each;
        each.open_array("$each");
        for (int i = 0; i < added; ++i) {
          each.push(100 + i);
          all.push_back(100 + i);
        }
        each.close().append("$slice", slice);
        const size_t n = all.size();
        const size_t keep = static_cast<size_t>(slice < 0 ? -slice : slice);
        std::vector<int> kept = slice >= 0
                                    ? std::vector<int>(all.begin(), all.begin() + std::min(keep, n))
                                    : std::vector<int>(all.end() - std::min(keep, n), all.end());
        bson::DocumentBuilder expected;
        expected.append("_id", 1).open_array("a");
        for (int v : kept) expected.push(v);
        expected.close();
        auto r = Update::compile(make_document("$push", make_document("a", each.finish())))
                     .apply(doc.finish());
        EXPECT_EQ(r.document, expected.finish())
            << existing << " existing, " << added << " added, $slice " << slice;
      }
    }
  }
  auto trimmed = Update::compile(make_document(
      "$push", make_document("a", make_document("$each", make_array(3), "$slice", -2))));
  EXPECT_EQ(trimmed.apply(odd_keys_array_doc()).document,
            make_document("_id", 1, "a", make_array(2, 3)));
  auto all = Update::compile(make_document(
      "$push", make_document("a", make_document("$each", make_array(3), "$slice", 10))));
  EXPECT_EQ(all.apply(odd_keys_array_doc()).document,
            make_document("_id", 1, "a", make_array(1, 2, 3)));
}

}  // namespace
}  // namespace mongostore::engine
