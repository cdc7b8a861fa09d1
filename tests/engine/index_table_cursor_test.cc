// IndexTable writes all of one document's keys (and an index build's batch) through one
// cursor. These write many keys per document through it, interleaving removes and inserts, and
// fail a unique key partway through a document, then check with validate_collection that every
// index holds exactly its documents' keys, and that hinted finds see them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/engine/engine.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using mongostore::testing::J;

Document doc_with_values(int id, int first, int count) {
  bson::DocumentBuilder b;
  b.append("_id", id);
  b.open_array("v");
  for (int i = 0; i < count; ++i) b.push(first + 2 * i);
  b.close();
  b.append("u", id);
  return b.finish();
}

class IndexTableCursor : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.durability = Durability::kInMemory;
    e_ = Engine::open(o);
  }
  void expect_valid(const std::string& when) {
    ValidateResult v = e_->validate_collection("db", "c");
    EXPECT_TRUE(v.valid()) << when << ": " << (v.errors.empty() ? "" : v.errors.front());
  }
  size_t hinted_count(std::string_view filter, const std::string& hint) {
    FindOptions o;
    o.hint.name = hint;
    return e_->find("db", "c", J(filter), o)->to_vector().size();
  }
  std::shared_ptr<Engine> e_;
};

TEST_F(IndexTableCursor, ManyKeysPerDocumentStayExact) {
  for (int id = 0; id < 30; ++id) e_->insert_one("db", "c", doc_with_values(id, id, 25));
  e_->create_index("db", "c", J(R"({"v": 1})"));  // built from the documents
  e_->create_index("db", "c", J(R"({"v": -1, "u": 1})"));
  e_->create_index("db", "c", J(R"({"u": 1})"), J(R"({"unique": true})"));
  expect_valid("build");
  EXPECT_EQ(hinted_count(R"({"v": 48})", "v_1"), 15u);  // ids 0, 2, ..., 28
  // Shifted by one: every key of the document removed or added, interleaved in key order.
  for (int id = 0; id < 30; ++id) {
    bson::DocumentBuilder u;
    u.open_document("$set");
    Document shifted = doc_with_values(id, id + 1, 30);
    u.append("v", shifted.view().get("v"));
    u.close();
    bson::DocumentBuilder f;
    f.append("_id", id);
    e_->update_one("db", "c", f.finish().view(), u.finish().view());
  }
  expect_valid("updates");
  EXPECT_EQ(hinted_count(R"({"v": 1})", "v_1"), 1u);
  EXPECT_EQ(hinted_count(R"({"v": 48})", "v_-1_u_1"), 15u);  // ids 1, 3, ..., 29
  for (int id = 0; id < 30; id += 3) {
    bson::DocumentBuilder f;
    f.append("_id", id);
    e_->delete_one("db", "c", f.finish().view());
  }
  expect_valid("deletes");
}

TEST_F(IndexTableCursor, AUniqueKeyFailingPartwayLeavesNoEntries) {
  e_->create_index("db", "c", J(R"({"v": 1})"));
  e_->create_index("db", "c", J(R"({"w": 1})"), J(R"({"unique": true})"));
  e_->insert_one("db", "c", J(R"({"_id": 1, "v": [1, 2, 3], "w": [10, 20]})"));
  // Its v keys go in first; then w: 15 and 20, which collides.
  EXPECT_THROW(e_->insert_one("db", "c", J(R"({"_id": 2, "v": [4, 5, 6], "w": [15, 20]})")),
               DuplicateKeyError);
  expect_valid("failed insert");
  EXPECT_EQ(hinted_count(R"({"v": 5})", "v_1"), 0u);
  EXPECT_EQ(hinted_count(R"({"w": 15})", "w_1"), 0u);
  // An update whose v keys are written (4, 5, 6 out; 7, 8 in) before w's collides.
  e_->insert_one("db", "c", J(R"({"_id": 3, "v": [4, 5, 6], "w": [30]})"));
  EXPECT_THROW(e_->update_one("db", "c", J(R"({"_id": 3})").view(),
                              J(R"({"$set": {"v": [7, 8]}, "$push": {"w": 20}})").view()),
               DuplicateKeyError);
  expect_valid("failed update");
  EXPECT_EQ(hinted_count(R"({"v": 7})", "v_1"), 0u);
  EXPECT_EQ(hinted_count(R"({"v": 5})", "v_1"), 1u);
}

}  // namespace
}  // namespace mongostore::engine
