// UpdateIndexData: an update skips the indexes it cannot affect, and never one it can.
// The unit tests pin which indexes count as affected; the engine tests run every kind of
// update that reaches an indexed path (through a parent, a child, positional, $rename,
// $unset, a replacement, an upsert, findAndModify) and check with validate_collection that
// every index holds exactly its documents' keys, and that each index's scan returns what the
// collection scan does.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/index_descriptor.h"
#include "engine/write/update_index_data.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/update.h"
#include "support/json.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;

using mongostore::testing::J;

IndexDescriptor index(std::string_view keys, std::string_view options = "{}") {
  return IndexDescriptor::parse(J(keys).view(), J(options).view());
}

bool affects(std::string_view update, const IndexDescriptor& ix) {
  return UpdateIndexData(Update::compile(J(update).view())).affects(ix);
}

TEST(UpdateIndexData, PathsRelateByWholeComponentPrefix) {
  const char* set_ab = R"({"$set": {"a.b": 1}})";
  EXPECT_TRUE(affects(set_ab, index(R"({"a": 1})")));      // a parent of the index path
  EXPECT_TRUE(affects(set_ab, index(R"({"a.b": 1})")));    // the path itself
  EXPECT_TRUE(affects(set_ab, index(R"({"a.b.c": 1})")));  // a child
  EXPECT_FALSE(affects(set_ab, index(R"({"a.bc": 1})")));  // a sibling sharing characters
  EXPECT_FALSE(affects(set_ab, index(R"({"ab": 1})")));
  EXPECT_FALSE(affects(set_ab, index(R"({"x": 1})")));
  EXPECT_TRUE(affects(set_ab, index(R"({"x": 1, "a.b.c": -1})")));  // any field of a compound
  EXPECT_FALSE(affects(set_ab, index(R"({"_id": 1})")));
  // Several paths, most not sharing the index path's first byte: the one that relates counts.
  const char* set_many = R"({"$set": {"x": 1, "b.c": 2, "ab": 3}, "$inc": {"a.b": 1}})";
  EXPECT_TRUE(affects(set_many, index(R"({"a": 1})")));
  EXPECT_TRUE(affects(set_many, index(R"({"b": 1})")));
  EXPECT_FALSE(affects(set_many, index(R"({"a.c": 1})")));
  EXPECT_FALSE(affects(set_many, index(R"({"q": 1})")));
}

TEST(UpdateIndexData, EveryOperatorCountsItsPaths) {
  EXPECT_TRUE(affects(R"({"$unset": {"a": ""}})", index(R"({"a.b": 1})")));
  EXPECT_TRUE(affects(R"({"$inc": {"n": 1}})", index(R"({"n": 1})")));
  EXPECT_TRUE(affects(R"({"$push": {"t": 1}})", index(R"({"t": 1})")));
  EXPECT_TRUE(affects(R"({"$pull": {"t": 1}})", index(R"({"t": 1})")));
  EXPECT_TRUE(affects(R"({"$currentDate": {"d": true}})", index(R"({"d": 1})")));
  // $rename changes both its source and its target.
  EXPECT_TRUE(affects(R"({"$rename": {"x": "y"}})", index(R"({"x": 1})")));
  EXPECT_TRUE(affects(R"({"$rename": {"x": "y"}})", index(R"({"y.z": 1})")));
  EXPECT_FALSE(affects(R"({"$rename": {"x": "y"}})", index(R"({"z": 1})")));
  EXPECT_FALSE(affects(R"({"$inc": {"n": 1}, "$set": {"m": 2}})", index(R"({"nm": 1})")));
}

TEST(UpdateIndexData, PositionalAndNumericComponentsCountTheArrayAsModified) {
  // "arr.0.v" may be what an index on "arr.v" (or "arr.w" via another element) reads.
  EXPECT_TRUE(affects(R"({"$set": {"arr.0.v": 1}})", index(R"({"arr.v": 1})")));
  EXPECT_TRUE(affects(R"({"$set": {"arr.0.v": 1}})", index(R"({"arr.w": 1})")));
  EXPECT_TRUE(affects(R"({"$set": {"arr.$[].v": 1}})", index(R"({"arr.w": 1})")));
  EXPECT_FALSE(affects(R"({"$set": {"arr.$[].v": 1}})", index(R"({"other": 1})")));
  Update positional = Update::compile(J(R"({"$set": {"arr.$.v": 1}})").view());
  EXPECT_EQ(positional.modified_paths(), std::optional<std::vector<std::string>>({"arr"}));
  Document filters = J(R"({"e.v": 1})");
  std::vector<bson::DocumentView> array_filters{filters.view()};
  Update filtered = Update::compile(J(R"({"$set": {"a.b.$[e].v": 2}})").view(), array_filters);
  EXPECT_EQ(filtered.modified_paths(), std::optional<std::vector<std::string>>({"a.b"}));
  EXPECT_TRUE(UpdateIndexData(filtered).affects(index(R"({"a.b.w": 1})")));
  EXPECT_FALSE(UpdateIndexData(filtered).affects(index(R"({"a.c": 1})")));
}

TEST(UpdateIndexData, SharedPathsAreTheUpdatesPathsAndOutliveIt) {
  std::shared_ptr<const std::vector<std::string>> shared;
  std::optional<std::vector<std::string>> copied;
  {
    Update u = Update::compile(J(R"({"$set": {"a.b": 1, "arr.0.v": 2}, "$inc": {"n": 1}})").view());
    shared = u.shared_modified_paths();
    copied = u.modified_paths();
  }
  ASSERT_NE(shared, nullptr);
  ASSERT_TRUE(copied.has_value());
  EXPECT_EQ(*shared, *copied);
  EXPECT_EQ(*shared, (std::vector<std::string>{"a.b", "arr", "n"}));
  EXPECT_EQ(Update::compile(J(R"({"q": 1})").view()).shared_modified_paths(), nullptr);
  // The data built from a temporary update keeps its paths.
  UpdateIndexData data(Update::compile(J(R"({"$set": {"x.y": 1}})").view()));
  EXPECT_TRUE(data.affects(index(R"({"x": 1})")));
  EXPECT_FALSE(data.affects(index(R"({"y": 1})")));
  EXPECT_FALSE(UpdateIndexData(std::vector<std::string>{"k"}).affects(index(R"({"z": 1})")));
  EXPECT_TRUE(UpdateIndexData(std::nullopt).affects(index(R"({"z": 1})")));
}

TEST(UpdateIndexData, ReplacementsPipelinesAndUnknownFiltersAffectEverything) {
  Update replacement = Update::compile(J(R"({"q": 1})").view());
  EXPECT_FALSE(replacement.modified_paths().has_value());
  EXPECT_TRUE(UpdateIndexData(replacement).affects(index(R"({"z": 1})")));
  EXPECT_TRUE(UpdateIndexData().affects(index(R"({"z": 1})")));
  // A partial index: a document enters or leaves it when its filter's paths change.
  IndexDescriptor partial = index(R"({"z": 1})", R"({"partialFilterExpression": {"flag": true}})");
  EXPECT_TRUE(affects(R"({"$set": {"flag": false}})", partial));
  EXPECT_FALSE(affects(R"({"$set": {"other": false}})", partial));
  IndexDescriptor nested = index(
      R"({"z": 1})",
      R"({"partialFilterExpression": {"$and": [{"p.q": {"$gt": 1}}, {"r": {"$exists": true}}]}})");
  EXPECT_TRUE(affects(R"({"$unset": {"r": ""}})", nested));
  EXPECT_TRUE(affects(R"({"$set": {"p": 5}})", nested));
  EXPECT_FALSE(affects(R"({"$set": {"p.s": 5}})", nested));
}

// --- through the engine ------------------------------------------------------------------

class UpdateIndexDataEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    e_ = testing::memory_engine();
    for (const char* keys : {R"({"a": 1})", R"({"a.b": 1})", R"({"a.bc": 1})", R"({"a.b.c": 1})",
                             R"({"x": 1})", R"({"y": 1})", R"({"arr.v": 1})", R"({"t": 1})",
                             R"({"n": 1, "a.b.c": -1})", R"({"other": 1})"}) {
      e_->create_index("db", "c", J(keys));
    }
    e_->create_index("db", "c", J(R"({"z": 1})"),
                     J(R"({"name": "z_partial", "partialFilterExpression": {"flag": true}})"));
  }

  // Every index holds exactly its documents' keys, and a scan of each (hinted, whole index
  // when the filter cannot bound it) returns the documents the collection scan returns.
  void expect_consistent(const std::string& when) {
    ValidateResult v = e_->validate_collection("db", "c");
    EXPECT_TRUE(v.valid()) << when << ": " << (v.errors.empty() ? "" : v.errors.front());
    for (const Document& spec : e_->list_indexes("db", "c")) {
      std::string name(spec.get("name").as_string());
      for (const bson::Element& k : spec.get("key").as_document()) {
        // The documents where the field is set, via the index and via the collection.
        bson::DocumentBuilder f;
        f.append(k.key, bson::make_document("$exists", true));
        if (name == "z_partial") f.append("flag", true);
        Document filter = f.finish();
        FindOptions scan;
        scan.hint.name = "_id_";
        FindOptions via;
        via.hint.name = name;
        EXPECT_EQ(ids(filter, via), ids(filter, scan)) << when << ", index " << name;
      }
    }
  }

  std::vector<std::string> ids(const Document& filter, const FindOptions& o) {
    std::vector<std::string> out;
    for (const Document& d : e_->find("db", "c", filter, o)->to_vector()) {
      out.push_back(d.get("_id").to_json());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void update(std::string_view filter, std::string_view u, bool upsert = false) {
    UpdateOptions o;
    o.upsert = upsert;
    e_->update_many("db", "c", J(filter).view(), J(u).view(), o);
    expect_consistent(std::string(u));
  }

  std::shared_ptr<Engine> e_;
};

TEST_F(UpdateIndexDataEngine, UpdatesReachingIndexedPathsKeepEveryIndexExact) {
  for (int i = 0; i < 20; ++i) {
    e_->insert_one("db", "c",
                   J(R"({"_id": )" + std::to_string(i) +
                     R"(, "a": {"b": {"c": 1}, "bc": 2}, "x": 1, "n": 0, "t": [1, 2],)"
                     R"( "arr": [{"v": 1}, {"v": 2}], "z": 3, "flag": true, "other": 0})"));
  }
  expect_consistent("insert");
  update(R"({"_id": 1})", R"({"$set": {"a": {"b": 7}}})");  // a parent of a.b, a.b.c, a.bc
  update(R"({"_id": 2})", R"({"$set": {"a.b.c": 9}})");     // a child of a, a.b
  update(R"({"_id": 3})", R"({"$set": {"a.b": [{"c": 1}, {"c": 2}]}})");  // multikey via a.b
  update(R"({"_id": 4, "arr.v": 2})", R"({"$set": {"arr.$.v": 5}})");     // positional
  update(R"({"_id": 5})", R"({"$inc": {"arr.$[].v": 10}})");              // all positional
  update(R"({"_id": 6})", R"({"$set": {"arr.1.v": 42}})");                // numeric component
  update(R"({"_id": 7})", R"({"$rename": {"x": "y"}})");                  // source and target
  update(R"({"_id": 8})", R"({"$unset": {"a.b": ""}})");
  update(R"({"_id": 9})", R"({"$set": {"flag": false}})");  // leaves the partial index
  update(R"({"_id": 9})", R"({"$set": {"flag": true}})");   // and enters it again
  update(R"({"_id": 10})", R"({"$push": {"t": 3}, "$inc": {"n": 1}})");
  update(R"({"_id": 11})", R"({"$pull": {"t": 1}, "$set": {"other": 1}})");
  update(R"({"_id": {"$gte": 12}})", R"({"$inc": {"n": 2}, "$set": {"unindexed": true}})");
  e_->replace_one("db", "c", J(R"({"_id": 13})").view(), J(R"({"x": 5, "z": 1})").view());
  expect_consistent("replace_one");
  update(R"({"_id": 100, "a.b.c": 4})", R"({"$set": {"x": 9}})", /*upsert=*/true);
  e_->find_one_and_update("db", "c", J(R"({"_id": 14})").view(),
                          J(R"({"$set": {"a.bc": 8, "arr": []}})").view());
  expect_consistent("find_one_and_update");
  e_->find_one_and_replace("db", "c", J(R"({"_id": 15})").view(),
                           J(R"({"a": {"b": {"c": 3}}})").view());
  expect_consistent("find_one_and_replace");
  // Many updates of unindexed fields leave every index as it was.
  for (int round = 0; round < 50; ++round) {
    e_->update_many(
        "db", "c", J("{}").view(),
        J(R"({"$inc": {"unindexed2": 1}, "$set": {"w": )" + std::to_string(round) + "}}").view());
  }
  expect_consistent("unindexed updates");
  FindOptions via;
  via.hint.name = "a.b.c_1";
  EXPECT_EQ(ids(J(R"({"a.b.c": 9})"), via), std::vector<std::string>{"2"});
  via.hint.name = "y_1";
  EXPECT_EQ(ids(J(R"({"y": 1})"), via), std::vector<std::string>{"7"});
  via.hint.name = "z_partial";
  EXPECT_EQ(ids(J(R"({"z": 3, "flag": true})"), via).size(), 18u);  // 13 and 15 replaced
}

}  // namespace
}  // namespace mongostore::engine
