// updateOne with a filter that pins `_id` and guards top-level fields by scalar equality
// ({_id, version}: a compare-and-set), which the embedded engine runs without compiling or
// planning the filter (engine/write/id_guard_filter.h), on every backend (the remote one runs
// it in the server's engine): the same results and errors as MongoDB's updateOne: a match, a
// guard miss, no document, a {$exists: true} guard, numbers equal across types, a missing guarded
// field, a guarded array (the positional `$` still finds its element), a dropped collection
// (nothing created), update errors, indexes and validators added between runs, and the shapes it
// must not take (null guards, collations) still answered by the matcher.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "support/backend.h"
#include "support/error_code.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;
using testing::Backend;
using testing::code_of;

class IdGuardUpdateContract : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { client_ = backend_.connect(GetParam()); }
  Database db() const { return client_->database("guard"); }
  Collection items() const { return db().collection("items"); }
  std::string doc(int id) const {
    auto d = items().find_one(make_document("_id", id));
    return d ? d->to_json() : "none";
  }

  testing::BackendHolder backend_;
  std::shared_ptr<Client> client_;
};

TEST_P(IdGuardUpdateContract, MatchGuardMissAndNoDocument) {
  items().insert_one(make_document("_id", 1, "version", int64_t{3}, "s", "a"));
  UpdateResult r = items().update_one(make_document("_id", 1, "version", int64_t{3}),
                                      make_document("$set", make_document("version", int64_t{4})));
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(r.modified_count, 1);
  // The same guard again: a compare-and-set miss changes nothing.
  const std::string after = doc(1);
  r = items().update_one(make_document("_id", 1, "version", int64_t{3}),
                         make_document("$set", make_document("version", int64_t{9})));
  EXPECT_EQ(r.matched_count, 0);
  EXPECT_EQ(r.modified_count, 0);
  EXPECT_EQ(doc(1), after);
  // No such _id.
  r = items().update_one(make_document("_id", 2, "version", int64_t{4}),
                         make_document("$set", make_document("s", "b")));
  EXPECT_EQ(r.matched_count, 0);
  EXPECT_FALSE(r.upserted_id.has_value());
  EXPECT_EQ(doc(2), "none");
  // A match that changes nothing: matched, not modified.
  r = items().update_one(make_document("_id", 1, "s", "a"),
                         make_document("$set", make_document("s", "a")));
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(r.modified_count, 0);
  // Strings compare as bytes.
  r = items().update_one(make_document("_id", 1, "s", "A"),
                         make_document("$set", make_document("s", "x")));
  EXPECT_EQ(r.matched_count, 0);
}

TEST_P(IdGuardUpdateContract, NumbersEqualAcrossTypesAndMissingFieldsDoNot) {
  items().insert_one(make_document("_id", int64_t{1}, "version", 7, "n", 2.0));
  // _id 1 (int32) finds _id 1 (int64); version 7.0 equals 7; n 2 (int64) equals 2.0.
  UpdateResult r = items().update_one(make_document("_id", 1, "version", 7.0, "n", int64_t{2}),
                                      make_document("$inc", make_document("version", 1)));
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(r.modified_count, 1);
  EXPECT_EQ(doc(1), R"({ "_id" : 1, "version" : 8, "n" : 2.0 })");
  // A guard on a field the document lacks.
  r = items().update_one(make_document("_id", 1, "absent", 0),
                         make_document("$set", make_document("n", 3)));
  EXPECT_EQ(r.matched_count, 0);
  // A guard of another type bracket.
  r = items().update_one(make_document("_id", 1, "version", "8"),
                         make_document("$set", make_document("n", 3)));
  EXPECT_EQ(r.matched_count, 0);
  // null also matches a missing field (the matcher's answer).
  r = items().update_one(make_document("_id", 1, "absent", bson::Null{}),
                         make_document("$set", make_document("n", 3)));
  EXPECT_EQ(r.matched_count, 1);
}

TEST_P(IdGuardUpdateContract, ManyGuardsAllCount) {
  bson::DocumentBuilder stored, guards;
  stored.append("_id", 1);
  guards.append("_id", 1);
  for (int i = 0; i < 12; ++i) {
    stored.append("f" + std::to_string(i), i);
    guards.append("f" + std::to_string(11 - i), 11 - i);  // another order than stored
  }
  items().insert_one(stored.finish());
  Document all = guards.finish();
  EXPECT_EQ(items().update_one(all, make_document("$set", make_document("n", 1))).modified_count,
            1);
  // The last of twelve guards differs.
  bson::DocumentBuilder miss;
  for (const bson::Element& e : all.view()) {
    if (e.key == "f0") {
      miss.append("f0", 5);
    } else {
      miss.append(e.key, e.value);
    }
  }
  EXPECT_EQ(
      items().update_one(miss.finish(), make_document("$set", make_document("n", 2))).matched_count,
      0);
}

TEST_P(IdGuardUpdateContract, ExistsTrueGuardsPresence) {
  items().insert_one(make_document("_id", 1, "version", 1, "next", bson::Null{}));
  items().insert_one(make_document("_id", 2, "version", 1));
  auto set_n = [&](int id, Document exists) {
    return items().update_one(make_document("_id", id, "version", 1, "next", std::move(exists)),
                              make_document("$set", make_document("n", id)));
  };
  // Present (even null) matches; absent does not.
  EXPECT_EQ(set_n(1, make_document("$exists", true)).modified_count, 1);
  EXPECT_EQ(set_n(2, make_document("$exists", true)).matched_count, 0);
  EXPECT_EQ(doc(2), R"({ "_id" : 2, "version" : 1 })");
  // {$exists: false} (the matcher's answer) the other way round.
  EXPECT_EQ(set_n(1, make_document("$exists", false)).matched_count, 0);
  EXPECT_EQ(set_n(2, make_document("$exists", false)).modified_count, 1);
}

TEST_P(IdGuardUpdateContract, AGuardedArrayMatchesAnElementForThePositionalOperator) {
  items().insert_one(make_document("_id", 1, "tags", make_array("a", "b", "c")));
  UpdateResult r = items().update_one(make_document("_id", 1, "tags", "b"),
                                      make_document("$set", make_document("tags.$", "B")));
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(doc(1), R"({ "_id" : 1, "tags" : [ "a", "B", "c" ] })");
  r = items().update_one(make_document("_id", 1, "tags", "z"),
                         make_document("$set", make_document("tags.$", "Z")));
  EXPECT_EQ(r.matched_count, 0);
}

TEST_P(IdGuardUpdateContract, UpdateErrorsAreUpdateOnesErrors) {
  items().insert_one(make_document("_id", 1, "version", 1, "s", "a"));
  EXPECT_EQ(code_of([&] {
              items().update_one(make_document("_id", 1, "version", 1),
                                 make_document("$set", make_document("_id", 2)));
            }),
            static_cast<int32_t>(ErrorCode::kImmutableField));
  EXPECT_EQ(code_of([&] {
              items().update_one(make_document("_id", 1, "version", 1),
                                 make_document("$inc", make_document("s", 1)));
            }),
            static_cast<int32_t>(ErrorCode::kTypeMismatch));
  EXPECT_EQ(code_of([&] {
              items().update_one(make_document("_id", 1, "version", 1),
                                 make_document("$bogus", make_document("s", 1)));
            }),
            static_cast<int32_t>(ErrorCode::kFailedToParse));
  // A failed update wrote nothing.
  EXPECT_EQ(doc(1), R"({ "_id" : 1, "version" : 1, "s" : "a" })");
}

TEST_P(IdGuardUpdateContract, ADroppedCollectionMatchesNothingAndIsNotCreated) {
  items().insert_one(make_document("_id", 1, "version", 1));
  items().drop();
  UpdateResult r = items().update_one(make_document("_id", 1, "version", 1),
                                      make_document("$set", make_document("version", 2)));
  EXPECT_EQ(r.matched_count, 0);
  for (const std::string& name : db().list_collection_names()) EXPECT_NE(name, "items");
  // An invalid update still fails on a missing collection, as updateOne does.
  EXPECT_EQ(code_of([&] {
              items().update_one(make_document("_id", 1, "version", 1),
                                 make_document("$bogus", make_document("s", 1)));
            }),
            static_cast<int32_t>(ErrorCode::kFailedToParse));
}

TEST_P(IdGuardUpdateContract, IndexesAndValidatorsAddedBetweenRunsApply) {
  items().insert_one(make_document("_id", 1, "version", 1, "k", "x"));
  items().insert_one(make_document("_id", 2, "version", 1, "k", "y"));
  auto bump = [&](int id, int version, const char* k) {
    return items().update_one(
        make_document("_id", id, "version", version),
        make_document("$set", make_document("k", k), "$inc", make_document("version", 1)));
  };
  EXPECT_EQ(bump(1, 1, "z").modified_count, 1);
  items().create_index(make_document("k", 1), make_document("unique", true));
  // The new unique index is kept by the guarded update, and found by a query on it.
  EXPECT_EQ(code_of([&] { bump(2, 1, "z"); }), static_cast<int32_t>(ErrorCode::kDuplicateKey));
  EXPECT_EQ(bump(2, 1, "w").modified_count, 1);
  auto by_k = items().find_one(make_document("k", "w"));
  ASSERT_TRUE(by_k.has_value());
  EXPECT_EQ(by_k->get("_id").as_int32(), 2);
  EXPECT_FALSE(items().find_one(make_document("k", "y")).has_value());
  items().drop_index(make_document("k", 1));
  EXPECT_EQ(bump(2, 2, "z").modified_count, 1);
}

TEST_P(IdGuardUpdateContract, AValidatorAppliesToTheGuardedUpdate) {
  CollectionOptions options;
  options.validator = make_document("version", make_document("$lt", 3));
  db().create_collection("items", options);
  items().insert_one(make_document("_id", 1, "version", 1));
  EXPECT_EQ(items()
                .update_one(make_document("_id", 1, "version", 1),
                            make_document("$inc", make_document("version", 1)))
                .modified_count,
            1);
  EXPECT_EQ(code_of([&] {
              items().update_one(make_document("_id", 1, "version", 2),
                                 make_document("$inc", make_document("version", 1)));
            }),
            static_cast<int32_t>(ErrorCode::kDocumentValidationFailure));
  EXPECT_EQ(doc(1), R"({ "_id" : 1, "version" : 2 })");
}

TEST_P(IdGuardUpdateContract, ADefaultCollationComparesTheGuardsStrings) {
  CollectionOptions options;
  options.collation = make_document("locale", "en", "strength", 2);
  db().create_collection("items", options);
  items().insert_one(make_document("_id", "a", "s", "x"));
  // Under the collection's case-insensitive default, "A" is "a" and "X" is "x".
  UpdateResult r = items().update_one(make_document("_id", "A", "s", "X"),
                                      make_document("$set", make_document("n", 1)));
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(r.modified_count, 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, IdGuardUpdateContract, testing::all_backends(),
                         testing::backend_test_name);

}  // namespace
}  // namespace mongostore::client
