// IdGuardFilter::recognise reads the filter's elements, and a guard's {$exists: true}, in
// place over the raw bytes. These pin the walk's edges: the _id at any position, guards
// behind it, an empty filter, an empty or one-more-field $exists document, and the first of
// two elements deciding as before.
#include <gtest/gtest.h>

#include "engine/write/id_guard_filter.h"
#include "mongostore/bson/builder.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_document;

std::optional<bson::Value> recognise(const Document& filter) {
  return IdGuardFilter::recognise(filter.view(), UpdateOptions{});
}

TEST(IdGuardRecogniseWalk, TheIdIsFoundAtAnyPositionBehindGuards) {
  const Document exists = make_document("$exists", true);
  Document last = make_document("a", 1, "b", exists, "c", "x", "_id", 42);
  std::optional<bson::Value> id = recognise(last);
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(id->as_int32(), 42);
  Document first = make_document("_id", "e1", "t", exists, "v", int64_t{3});
  ASSERT_TRUE(recognise(first).has_value());
  EXPECT_EQ(recognise(first)->as_string(), "e1");
}

TEST(IdGuardRecogniseWalk, EdgesOfTheWalkAreRefused) {
  EXPECT_FALSE(recognise(Document()).has_value());  // no element at all
  EXPECT_FALSE(recognise(make_document("_id", 1, "t", Document())).has_value());
  EXPECT_FALSE(
      recognise(make_document("_id", 1, "t", make_document("$exists", true, "x", 1))).has_value());
  EXPECT_FALSE(
      recognise(make_document("_id", 1, "t", make_document("x", 1, "$exists", true))).has_value());
  EXPECT_FALSE(
      recognise(make_document("_id", 1, "t", make_document("$exists", false))).has_value());
  // A refused field behind the _id still refuses the whole filter.
  EXPECT_FALSE(recognise(make_document("_id", 1, "a", 1, "$where", "x")).has_value());
  EXPECT_FALSE(recognise(make_document("_id", 1, "a", 1, "", 1)).has_value());
}

}  // namespace
}  // namespace mongostore::engine
