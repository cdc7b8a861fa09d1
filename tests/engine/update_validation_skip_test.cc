// validate_write returns before building the collection's namespace when the collection has
// no validator (most writes). These pin that the check still follows the collection's
// current options on every write: an update by _id and a general update are refused once
// collMod adds a validator, and let through again once collMod removes it.
#include <gtest/gtest.h>

#include <functional>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/error.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::make_document;

int32_t code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

TEST(UpdateValidationSkip, AValidatorAddedAndRemovedByCollModGovernsTheNextUpdate) {
  auto e = testing::memory_engine(/*cache_size_mb=*/64);
  e->insert_one("db", "c", make_document("_id", 1, "a", 1));
  auto unset_a = make_document("$unset", make_document("a", ""));
  auto set_a = make_document("$set", make_document("a", 2));
  // No validator: the write is not checked.
  EXPECT_EQ(e->update_one("db", "c", make_document("_id", 1), set_a).modified_count, 1);

  e->modify_collection(
      "db", "c", make_document("validator", make_document("a", make_document("$exists", true))));
  EXPECT_EQ(code_of([&] { e->update_one("db", "c", make_document("_id", 1), unset_a); }), 121);
  EXPECT_EQ(code_of([&] { e->update_one("db", "c", make_document("a", 2), unset_a); }), 121);
  EXPECT_EQ(e->find_by_id("db", "c", make_document("_id", 1).get("_id"))->get("a").as_int32(), 2);

  e->modify_collection("db", "c", make_document("validator", bson::Document()));
  EXPECT_EQ(e->update_one("db", "c", make_document("_id", 1), unset_a).modified_count, 1);
  EXPECT_FALSE(e->find_by_id("db", "c", make_document("_id", 1).get("_id"))->has("a"));
}

}  // namespace
}  // namespace mongostore::engine
