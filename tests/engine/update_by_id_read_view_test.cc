// An update by `_id` (WriteCommands::update_by_id) reads the stored document as a view of the
// record cursor's value, without copying it, and update_document writes the record through
// that cursor only after its last use of the old version (WiredTiger keeps a returned value
// valid only until the cursor's next modifying operation). These pin that everything the old
// version feeds (the guard's filter, the update, the old index keys removed, the depth and
// `_id` checks, a multikey flag persisted in the same unit of work) still sees the old bytes,
// for small and large documents, read from memory and from pages written to disk.
#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/error.h"
#include "support/json.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using mongostore::testing::J;

EngineOptions durable_at(const std::string& path) {
  EngineOptions options;
  options.path = path;
  options.durability = Durability::kDurable;
  options.cache_size_mb = 64;
  options.disk_space_reserve_mb = 0;
  return options;
}

void create_indexes(Engine& e) {
  e.create_index("db", "c", J(R"({"k": 1})"), J("{}"));
  e.create_index("db", "c", J(R"({"arr.seq": 1})"), J("{}"));
  e.create_index("db", "c", J(R"({"u": 1})"), J(R"({"unique": true})"));
}

// {_id: id, k: "k<id>", u: id, arr: {seq: 0} (a document: not yet multikey), pad: <size>}.
void insert(Engine& e, int id, size_t size) {
  bson::DocumentBuilder b;
  b.append("_id", id).append("k", "k" + std::to_string(id)).append("u", id);
  b.open_document("arr").append("seq", int64_t(0)).close();
  b.append("pad", std::string(size, static_cast<char>('a' + id % 26)));
  e.insert_one("db", "c", b.finish());
}

size_t count(Engine& e, std::string_view filter, const char* hint) {
  FindOptions o;
  o.hint.name = hint;
  return e.find("db", "c", J(filter), o)->to_vector().size();
}

// Updates every document by _id: the guarded filter reads the old version, the indexed `k`
// and unique `u` change (old keys removed, new ones added), `arr` becomes an array (the index
// turns multikey within the update's unit of work), `pad` is kept.
void update_and_check(Engine& e, int n, const std::vector<size_t>& sizes) {
  for (int id = 0; id < n; ++id) {
    bson::DocumentBuilder f;
    f.append("_id", id).append("k", "k" + std::to_string(id));
    Document u = J(R"({"$set": {"k": "changed", "arr": [{"seq": 1}, {"seq": 2}]},
                       "$inc": {"u": 1000}})");
    UpdateResult r = e.update_one("db", "c", f.finish().view(), u.view());
    EXPECT_EQ(r.matched_count, 1) << id;
    EXPECT_EQ(r.modified_count, 1) << id;
  }
  // A guard that no longer matches the stored version: nothing written.
  UpdateResult none = e.update_one("db", "c", J(R"({"_id": 0, "k": "k0"})").view(),
                                   J(R"({"$set": {"k": "again"}})").view());
  EXPECT_EQ(none.matched_count, 0);
  for (int id = 0; id < n; ++id) {
    std::optional<Document> d = e.find_by_id("db", "c", bson::make_document("_id", id).get("_id"));
    ASSERT_TRUE(d.has_value()) << id;
    EXPECT_EQ(d->get("k").as_string(), "changed");
    EXPECT_EQ(d->get("u").number_as_double(), id + 1000);
    EXPECT_EQ(d->get("pad").as_string(), std::string(sizes[id], static_cast<char>('a' + id % 26)));
    EXPECT_EQ(d->get("arr").to_json(),
              J(R"({"arr": [{"seq": 1}, {"seq": 2}]})").get("arr").to_json());
  }
  ValidateResult v = e.validate_collection("db", "c");
  EXPECT_TRUE(v.valid()) << (v.errors.empty() ? "" : v.errors.front());
  EXPECT_EQ(count(e, R"({"k": "changed"})", "k_1"), static_cast<size_t>(n));
  EXPECT_EQ(count(e, R"({"k": "k1"})", "k_1"), 0u);
  EXPECT_EQ(count(e, R"({"arr.seq": 2})", "arr.seq_1"), static_cast<size_t>(n));
  EXPECT_EQ(count(e, R"({"arr.seq": 0})", "arr.seq_1"), 0u);
  EXPECT_EQ(count(e, R"({"u": 1})", "u_1"), 0u);
  EXPECT_EQ(count(e, R"({"u": 1001})", "u_1"), 1u);
}

const std::vector<size_t> kSizes = {10, 3000, 70000, 400000};

TEST(UpdateByIdReadView, TheOldVersionIsReadUntilTheRecordIsWrittenInMemory) {
  EngineOptions o;
  o.durability = Durability::kInMemory;
  auto e = Engine::open(o);
  create_indexes(*e);
  for (int id = 0; id < static_cast<int>(kSizes.size()); ++id) insert(*e, id, kSizes[id]);
  update_and_check(*e, static_cast<int>(kSizes.size()), kSizes);
}

TEST(UpdateByIdReadView, TheOldVersionIsReadUntilTheRecordIsWrittenFromDiskPages) {
  mongostore::testing::TempDir dir;
  {
    auto e = Engine::open(durable_at(dir.path()));
    create_indexes(*e);
    for (int id = 0; id < static_cast<int>(kSizes.size()); ++id) insert(*e, id, kSizes[id]);
  }
  // Reopened: the documents are read from the pages the close wrote (overflow items for the
  // large ones), not from in-memory updates.
  auto e = Engine::open(durable_at(dir.path()));
  update_and_check(*e, static_cast<int>(kSizes.size()), kSizes);
}

TEST(UpdateByIdReadView, AWriteRefusedAfterTheIndexesLeavesTheOldVersion) {
  EngineOptions o;
  o.durability = Durability::kInMemory;
  auto e = Engine::open(o);
  create_indexes(*e);
  insert(*e, 0, 3000);
  insert(*e, 1, 3000);
  // The unique index refuses u: 1 for _id 0; nothing of the update stays.
  EXPECT_THROW(e->update_one("db", "c", J(R"({"_id": 0})").view(),
                             J(R"({"$set": {"k": "changed", "u": 1}})").view()),
               Error);
  std::optional<Document> d = e->find_by_id("db", "c", bson::make_document("_id", 0).get("_id"));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->get("k").as_string(), "k0");
  EXPECT_EQ(count(*e, R"({"k": "changed"})", "k_1"), 0u);
  ValidateResult v = e->validate_collection("db", "c");
  EXPECT_TRUE(v.valid()) << (v.errors.empty() ? "" : v.errors.front());
}

}  // namespace
}  // namespace mongostore::engine
