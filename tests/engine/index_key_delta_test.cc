// IndexKeyDelta: an update regenerates no keys for an index whose fields did not change, and
// for an array that only grew, only the added elements' keys. The unit tests pin which case
// each pair of versions is; the engine tests run every case (and the ones just outside it)
// and check with validate_collection that every index holds exactly its documents' keys (a
// missing or a stale key fails), plus hinted finds for the keys just added.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/index_descriptor.h"
#include "engine/write/index_key_delta.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/json.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using Kind = IndexKeyDelta::Kind;

using mongostore::testing::J;

IndexDescriptor index(std::string_view keys, std::string_view options = "{}") {
  return IndexDescriptor::parse(J(keys).view(), J(options).view());
}

IndexKeyDelta delta(const IndexDescriptor& ix, std::string_view before, std::string_view after) {
  return index_key_delta(ix, J(before).view(), J(after).view());
}

Kind kind(std::string_view keys, std::string_view before, std::string_view after,
          std::string_view options = "{}") {
  return delta(index(keys, options), before, after).kind;
}

TEST(IndexKeyDelta, ByteIdenticalFieldsAreUnchanged) {
  EXPECT_EQ(kind(R"({"n": 1})", R"({"n": 5, "x": 1})", R"({"n": 5, "x": 2})"), Kind::kUnchanged);
  EXPECT_EQ(kind(R"({"a.b": 1, "c": -1})", R"({"a": {"b": [1]}, "c": 1})",
                 R"({"c": 1, "a": {"b": [1]}, "d": 0})"),
            Kind::kUnchanged);
  EXPECT_EQ(kind(R"({"m": 1})", R"({"x": 1})", R"({"x": 2})"), Kind::kUnchanged);  // missing
  // Same number, other type or bytes: keys may be equal, but that is not proven here.
  EXPECT_EQ(kind(R"({"n": 1})", R"({"n": 5})", R"({"n": 5.0})"), Kind::kFull);
  EXPECT_EQ(kind(R"({"n": 1})", R"({"n": 5})", R"({"x": 1})"), Kind::kFull);
  // A partial index's membership reads other fields: always diffed.
  EXPECT_EQ(kind(R"({"n": 1})", R"({"n": 5, "f": 1})", R"({"n": 5, "f": 2})",
                 R"({"partialFilterExpression": {"f": 1}})"),
            Kind::kFull);
}

TEST(IndexKeyDelta, AnArrayThatOnlyGrewYieldsTheAddedElements) {
  IndexKeyDelta d = delta(index(R"({"o.seq": 1})"), R"({"o": [{"seq": 1}, {"seq": 2}]})",
                          R"({"o": [{"seq": 1}, {"seq": 2}, {"seq": 3}, 7]})");
  ASSERT_EQ(d.kind, Kind::kAppended);
  EXPECT_EQ(d.appended->to_json(), J(R"({"o": [{"seq": 3}, 7]})").to_json());
  EXPECT_EQ(kind(R"({"t": -1})", R"({"t": [1]})", R"({"t": [1, 1]})"), Kind::kAppended);
}

// The added elements are written into {f: [...]} byte by byte: the same bytes a
// DocumentBuilder makes, renumbered from "0" (two-digit indexes, every payload size).
TEST(IndexKeyDelta, TheAddedElementsAreTheBuildersBytes) {
  bson::DocumentBuilder old_b, new_b, expected;
  old_b.open_array("outbox").push(1).push("one").close();
  new_b.open_array("outbox").push(1).push("one");
  expected.open_array("outbox");
  for (int i = 0; i < 12; ++i) {
    for (bson::DocumentBuilder* b : {&new_b, &expected}) {
      b->push(i).push(std::string(static_cast<size_t>(i), 'x')).push(1.5 * i);
      b->push_document().append("seq", static_cast<int64_t>(i)).close();
      b->push(bson::Null{});
    }
  }
  new_b.close();
  expected.close();
  Document before = old_b.finish(), after = new_b.finish(), want = expected.finish();
  IndexKeyDelta d = index_key_delta(index(R"({"outbox.seq": 1})"), before.view(), after.view());
  ASSERT_EQ(d.kind, Kind::kAppended);
  ASSERT_EQ(d.appended->view().size(), want.view().size());
  EXPECT_EQ(std::memcmp(d.appended->view().data(), want.view().data(), want.view().size()), 0);
}

TEST(IndexKeyDelta, OtherArrayChangesAreDiffedWhole) {
  const char* o = R"({"o.seq": 1})";
  EXPECT_EQ(kind(o, R"({"o": []})", R"({"o": [{"seq": 1}]})"), Kind::kFull);  // was empty
  EXPECT_EQ(kind(o, R"({"o": {"seq": 1}})", R"({"o": [{"seq": 1}]})"), Kind::kFull);
  EXPECT_EQ(kind(o, R"({"o": [{"seq": 1}]})", R"({"o": [{"seq": 0}, {"seq": 1}]})"),
            Kind::kFull);  // $position 0
  EXPECT_EQ(kind(o, R"({"o": [{"seq": 1}, {"seq": 2}]})", R"({"o": [{"seq": 2}, {"seq": 3}]})"),
            Kind::kFull);  // $slice
  EXPECT_EQ(kind(o, R"({"o": [{"seq": 1}, {"seq": 2}]})", R"({"o": [{"seq": 1}]})"),
            Kind::kFull);  // shrank
  EXPECT_EQ(kind(o, R"({"o": [{"seq": 1}]})", R"({"o": [{"seq": 1, "x": 1}, {"seq": 2}]})"),
            Kind::kFull);  // an element changed too
  // Unique, compound, positional paths: diffed.
  EXPECT_EQ(kind(R"({"t": 1})", R"({"t": [1]})", R"({"t": [1, 2]})", R"({"unique": true})"),
            Kind::kFull);
  EXPECT_EQ(kind(R"({"t": 1, "k": 1})", R"({"t": [1], "k": 1})", R"({"t": [1, 2], "k": 1})"),
            Kind::kFull);
  EXPECT_EQ(kind(R"({"o.1": 1})", R"({"o": [1]})", R"({"o": [1, 2]})"), Kind::kFull);
  EXPECT_EQ(kind(R"({"o.1.v": 1})", R"({"o": [{"v": 1}]})", R"({"o": [{"v": 1}, {"v": 2}]})"),
            Kind::kFull);
}

// --- through the engine ------------------------------------------------------------------

class IndexKeyDeltaEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.durability = Durability::kInMemory;
    e_ = Engine::open(o);
    for (const char* keys : {R"({"t": 1})", R"({"o.seq": 1})", R"({"o.seq": 1, "k": 1})",
                             R"({"m": 1})", R"({"o.n.v": -1})", R"({"o": 1})"}) {
      e_->create_index("db", "c", J(keys));
    }
    e_->create_index("db", "c", J(R"({"u": 1})"), J(R"({"unique": true})"));
  }
  void expect_valid(const std::string& when) {
    ValidateResult v = e_->validate_collection("db", "c");
    EXPECT_TRUE(v.valid()) << when << ": " << (v.errors.empty() ? "" : v.errors.front());
  }
  std::vector<std::string> ids(std::string_view filter, const std::string& hint) {
    FindOptions o;
    o.hint.name = hint;
    std::vector<std::string> out;
    for (const Document& d : e_->find("db", "c", J(filter), o)->to_vector()) {
      out.push_back(d.get("_id").to_json());
    }
    return out;
  }
  void update(int id, std::string_view u) {
    e_->update_one("db", "c", J(R"({"_id": )" + std::to_string(id) + "}").view(), J(u).view());
    expect_valid(std::string(u));
  }
  std::shared_ptr<Engine> e_;
};

TEST_F(IndexKeyDeltaEngine, PushesAddExactlyTheNewKeys) {
  e_->insert_one("db", "c",
                 J(R"({"_id": 1, "t": [1, 2], "o": [{"seq": 1}], "k": 0, "m": 5, "u": [10]})"));
  e_->insert_one("db", "c", J(R"({"_id": 2, "t": [], "o": [], "m": 5})"));
  expect_valid("insert");
  update(1, R"({"$push": {"o": {"seq": 2}}})");
  EXPECT_EQ(ids(R"({"o.seq": 2})", "o.seq_1"), std::vector<std::string>{"1"});
  EXPECT_EQ(ids(R"({"o": {"seq": 2}})", "o_1"), std::vector<std::string>{"1"});
  // Several at once, a non-document (its key under o.seq is null), nested arrays.
  update(1, R"({"$push": {"o": {"$each": [{"seq": 3, "n": [{"v": 1}, {"v": 2}]}, 4, [5]]}}})");
  EXPECT_EQ(ids(R"({"o.n.v": 2})", "o.n.v_-1"), std::vector<std::string>{"1"});
  // A value the array already holds: no duplicate-key error, and removing one copy keeps it.
  update(1, R"({"$push": {"t": 2}})");
  update(1, R"({"$pop": {"t": 1}})");
  EXPECT_EQ(ids(R"({"t": 2})", "t_1"), std::vector<std::string>{"1"});
  // $addToSet that adds, and one that adds nothing.
  update(1, R"({"$addToSet": {"t": {"$each": [2, 3]}}})");
  EXPECT_EQ(ids(R"({"t": 3})", "t_1"), std::vector<std::string>{"1"});
  // The cases just outside the fast path.
  update(2, R"({"$push": {"o": {"seq": 9}, "t": 9}})");  // from an empty array
  EXPECT_EQ(ids(R"({"o.seq": 9})", "o.seq_1"), std::vector<std::string>{"2"});
  update(1, R"({"$push": {"o": {"$each": [{"seq": 0}], "$position": 0}}})");
  update(1, R"({"$push": {"o": {"$each": [{"seq": 7}], "$slice": -3}}})");
  EXPECT_TRUE(ids(R"({"o.seq": 1})", "o.seq_1").empty());  // trimmed away: no stale key
  update(1, R"({"$push": {"u": 11}})");                    // unique
  update(1, R"({"$push": {"u": 10}})");                    // its own key again: no conflict
  EXPECT_EQ(ids(R"({"u": 11})", "u_1"), std::vector<std::string>{"1"});
  update(1, R"({"$set": {"o.2.seq": 100}, "$push": {"t": 50}})");  // element changed in place
  EXPECT_EQ(ids(R"({"o.seq": 100})", "o.seq_1"), std::vector<std::string>{"1"});
}

TEST_F(IndexKeyDeltaEngine, UnchangedFieldsKeepTheirKeys) {
  e_->insert_one("db", "c", J(R"({"_id": 1, "m": 5, "t": [1], "k": 2})"));
  update(1, R"({"$min": {"m": 9}})");  // keeps 5
  update(1, R"({"$set": {"m": 5, "t": [1]}})");
  EXPECT_EQ(ids(R"({"m": 5})", "m_1"), std::vector<std::string>{"1"});
  update(1, R"({"$min": {"m": 3}})");  // changes
  EXPECT_EQ(ids(R"({"m": 3})", "m_1"), std::vector<std::string>{"1"});
  EXPECT_TRUE(ids(R"({"m": 5})", "m_1").empty());
  update(1, R"({"$set": {"m": 3.0}})");  // equal number, other type: diffed, still one key
  EXPECT_EQ(ids(R"({"m": 3})", "m_1"), std::vector<std::string>{"1"});
}

TEST_F(IndexKeyDeltaEngine, TheFirstArrayStillMarksTheIndexMultikey) {
  e_->insert_one("db", "c", J(R"({"_id": 1, "t": 1})"));
  update(1, R"({"$set": {"t": [1, 2]}})");
  update(1, R"({"$push": {"t": 3}})");
  // A multikey index cannot answer {t: {$gt: 1, $lt: 3}} with one tight range: the planner
  // must see the flag, or a document would be returned twice or missed.
  EXPECT_EQ(ids(R"({"t": {"$gt": 1, "$lt": 3}})", "t_1"), std::vector<std::string>{"1"});
  EXPECT_EQ(ids(R"({"t": 3})", "t_1"), std::vector<std::string>{"1"});
}

}  // namespace
}  // namespace mongostore::engine
