// $push and $addToSet copy existing arrays as bytes; arrays with non-canonical keys (which a
// foreign writer may have stored) are renumbered instead.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mongostore::engine
