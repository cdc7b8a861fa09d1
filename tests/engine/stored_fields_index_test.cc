// Indexes with stored fields (createIndexes' storedFields, a mongostore option): the option's
// checks and persistence, the entries kept true by every write path and the index build, and
// covered reads (no document fetched) that answer exactly what reading the documents answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "engine/index_descriptor.h"
#include "engine/storage/index_entry_value.h"
#include "engine/write/top_level_diff.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/error_code.h"
#include "support/explain.h"
#include "support/memory_engine.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;
using testing::code_of;

Document stored(std::initializer_list<const char*> names) {
  bson::DocumentBuilder b;
  b.open_array("storedFields");
  for (const char* n : names) b.push(std::string_view(n));
  b.close();
  return b.finish();
}

FindOptions projecting(const Document& projection) {
  FindOptions o;
  o.projection = projection;
  return o;
}

// The same find read from the documents: a collection scan, whatever the indexes.
FindOptions from_documents(FindOptions o) {
  o.hint.keys = make_document("$natural", 1);
  return o;
}

std::string json_of(const std::vector<Document>& docs) {
  std::string out;
  for (const Document& d : docs) out += d.to_json() + "\n";
  return out;
}

class StoredFieldsIndex : public ::testing::Test {
 protected:
  void SetUp() override { e_ = testing::memory_engine(); }

  std::vector<Document> find(const Document& filter, const FindOptions& o) {
    return e_->find("db", "c", filter, o)->to_vector();
  }
  // The find through the index (covered, as explain says) and through the documents give the
  // same documents, byte for byte, in the same order (both sorted by `sort`).
  void expect_covered_same(const Document& filter, const Document& projection,
                           const Document& sort = Document()) {
    FindOptions o = projecting(projection);
    o.sort = sort;
    Document ex = e_->explain_find("db", "c", filter, o);
    const char* covered_at = testing::plan_stage(ex) == "SORT"
                                 ? "queryPlanner.winningPlan.inputStage.stage"
                                 : "queryPlanner.winningPlan.stage";
    EXPECT_EQ(ex.get_path(covered_at).to_json(), "\"PROJECTION_COVERED\"") << ex.to_json();
    EXPECT_EQ(testing::plan_stat(ex, "totalDocsExamined"), 0);
    FindOptions scan = from_documents(o);
    if (sort.empty()) scan.sort = make_document("a", 1, "_id", 1);
    FindOptions indexed = o;
    if (sort.empty()) indexed.sort = make_document("a", 1, "_id", 1);
    EXPECT_EQ(json_of(find(filter, indexed)), json_of(find(filter, scan)))
        << "filter " << filter.to_json() << " projection " << projection.to_json();
    // The cursor's batches (the index read) as well as explain's read.
    std::vector<Document> batched;
    FindOptions small = o;
    small.batch_size = 2;
    auto cursor = e_->find("db", "c", filter, small);
    while (!cursor->exhausted()) {
      for (Document& d : cursor->next_batch()) batched.push_back(std::move(d));
    }
    if (sort.empty()) {
      // Index order: a, then the record id; the scan sorted by a, then _id, agrees when every
      // `a` is distinct, and the tests that read this way keep them distinct.
      EXPECT_EQ(json_of(batched), json_of(find(filter, scan)));
    }
  }
  void expect_valid() {
    ValidateResult r = e_->validate_collection("db", "c");
    EXPECT_TRUE(r.valid()) << (r.errors.empty() ? "" : r.errors.front());
  }
  std::shared_ptr<Engine> e_;
};

TEST_F(StoredFieldsIndex, TheOptionIsCheckedAndListed) {
  EXPECT_EQ(e_->create_index("db", "c", make_document("a", 1), stored({"b", "_id", "a"})), "a_1");
  auto indexes = e_->list_indexes("db", "c");
  ASSERT_EQ(indexes.size(), 2u);
  EXPECT_EQ(Document::copy_of(indexes[1].get("storedFields").as_array()),
            Document::copy_of(make_array("b", "_id", "a").view()));
  // The same again is a no-op; other stored fields on the same key conflict, as other options.
  EXPECT_EQ(e_->create_index("db", "c", make_document("a", 1), stored({"b", "_id", "a"})), "a_1");
  EXPECT_EQ(code_of([&] { e_->create_index("db", "c", make_document("a", 1), stored({"b"})); }),
            static_cast<int32_t>(ErrorCode::kIndexOptionsConflict));
  EXPECT_EQ(code_of([&] { e_->create_index("db", "c", make_document("a", 1)); }),
            static_cast<int32_t>(ErrorCode::kIndexOptionsConflict));

  auto code = [&](const Document& options) {
    return code_of([&] { e_->create_index("db", "d", make_document("x", 1), options); });
  };
  EXPECT_EQ(code(make_document("storedFields", "b")), 14);
  EXPECT_EQ(code(make_document("storedFields", make_array("b", 1))), 14);
  EXPECT_EQ(code(make_document("storedFields", make_array())), 67);
  EXPECT_EQ(code(make_document("storedFields", make_array("b.c"))), 67);
  EXPECT_EQ(code(make_document("storedFields", make_array("$b"))), 67);
  EXPECT_EQ(code(make_document("storedFields", make_array(""))), 67);
  EXPECT_EQ(code(make_document("storedFields", make_array("b", "b"))), 67);
  bson::DocumentBuilder many;
  many.open_array("storedFields");
  for (int i = 0; i <= 32; ++i) many.push("f" + std::to_string(i));
  many.close();
  EXPECT_EQ(code(many.finish()), 67);
  EXPECT_FALSE(e_->collection_exists("db", "d"));  // nothing was made
  try {
    e_->create_index("db", "d", make_document("x", 1), make_document("storedFields", "b"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("storedFields"), std::string::npos) << e.what();
  }
}

TEST_F(StoredFieldsIndex, ACoveredFindReadsNoDocumentAndAnswersTheSame) {
  e_->create_index("db", "c", make_document("a", 1), stored({"_id", "a", "b"}));
  for (int i = 0; i < 40; ++i) {
    e_->insert_one("db", "c",
                   make_document("_id", i, "z", "first", "b", make_document("x", i, "y", "s"), "a",
                                 i * 1.5, "c", std::string(200, 'c')));
  }
  expect_covered_same(make_document("a", make_document("$gte", 12)), make_document("a", 1, "b", 1));
  expect_covered_same(make_document("a", make_document("$lt", 9)), make_document("b", 1));
  expect_covered_same(make_document("a", make_document("$gte", 3), "b.x", make_document("$lt", 20)),
                      make_document("b", 1, "_id", 0));
  expect_covered_same(
      make_document(
          "$or", make_array(make_document("a", 3), make_document("a", make_document("$gt", 50)))),
      make_document("a", 1));
  // A blocking sort on a stored field reads the entries too.
  expect_covered_same(make_document("a", make_document("$gte", 0)), make_document("a", 1, "b", 1),
                      make_document("b.x", -1));

  // Whatever reads a field the entries lack reads the documents.
  auto stage = [&](const Document& filter, const Document& projection,
                   const Document& sort = Document()) {
    FindOptions o = projecting(projection);
    o.sort = sort;
    return testing::plan_stage(e_->explain_find("db", "c", filter, o));
  };
  const Document in_range = make_document("a", make_document("$gte", 12));
  EXPECT_EQ(stage(in_range, make_document("a", 1, "c", 1)), "FETCH");
  EXPECT_EQ(stage(in_range, Document()), "FETCH");               // the whole document
  EXPECT_EQ(stage(in_range, make_document("c", 0)), "FETCH");    // an exclusion
  EXPECT_EQ(stage(in_range, make_document("b.x", 1)), "FETCH");  // not a whole field
  EXPECT_EQ(stage(make_document("a", 3, "c", "x"), make_document("a", 1)), "FETCH");
  EXPECT_EQ(stage(make_document("a", 3, "$comment", "x"), make_document("a", 1)), "FETCH");
  EXPECT_EQ(stage(make_document("a", 3, "$expr", make_document("$eq", make_array("$c", "x"))),
                  make_document("a", 1)),
            "FETCH");
  EXPECT_EQ(stage(in_range, make_document("a", 1), make_document("c", 1)), "SORT");
  // The documents' answers there are the ones a fetch gives.
  EXPECT_EQ(find(in_range, projecting(make_document("a", 1, "c", 1))).size(), 32u);
}

TEST_F(StoredFieldsIndex, ResultsMayHoldMoreFieldsHandsOutTheStoredFields) {
  e_->create_index("db", "c", make_document("a", 1), stored({"_id", "a", "b"}));
  e_->insert_one("db", "c", make_document("_id", 1, "b", 7, "a", 2, "c", 3));
  FindOptions o = projecting(make_document("a", 1));
  o.results_may_hold_more_fields = true;
  auto docs = find(make_document("a", 2), o);
  ASSERT_EQ(docs.size(), 1u);
  // The entry's fields in the document's order: more than the projection keeps, each as kept.
  EXPECT_EQ(docs[0], make_document("_id", 1, "b", 7, "a", 2));
  // Read from the documents (no covering index), the stored document itself.
  o.hint.keys = make_document("$natural", 1);
  docs = find(make_document("a", 2), o);
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0].get("c").as_int32(), 3);
  // Only for a projection that keeps or drops plain fields.
  FindOptions bad = projecting(make_document("b", make_document("$slice", 1)));
  bad.results_may_hold_more_fields = true;
  EXPECT_EQ(code_of([&] { find(make_document("a", 2), bad); }), 2);
}

// Every write path keeps the entries' stored fields what the documents hold: after each of a
// seeded mix of writes, the covered read of every document answers as the documents do, and
// validate finds the entries exactly as the documents give them.
TEST_F(StoredFieldsIndex, EveryWriteKeepsTheEntriesTrue) {
  e_->create_index("db", "c", make_document("a", 1), stored({"_id", "a", "b", "t"}));
  // A multikey index: a document's first entry carries its fields, its other entries do not.
  e_->create_index("db", "c", make_document("t", 1), stored({"t", "n", "_id"}));
  std::mt19937 rng(29);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto all = make_document("a", make_document("$gte", -1000000));
  for (int step = 0; step < 300; ++step) {
    const int id = pick(12);
    const Document by_id = make_document("_id", id);
    switch (pick(10)) {
      case 0:
        e_->replace_one("db", "c", by_id,
                        make_document("a", id * 10 + pick(3), "b", pick(5), "n", pick(4)),
                        /*upsert=*/true);
        break;
      case 1:
        e_->update_one("db", "c", by_id, make_document("$set", make_document("b", pick(100))));
        break;
      case 2:  // the key changes, the stored fields with it
        e_->update_one("db", "c", by_id, make_document("$inc", make_document("a", 1000)));
        break;
      case 3:  // the first of t's keys may move either way
        e_->update_one("db", "c", by_id,
                       make_document(pick(3) == 0 ? "$pull" : "$push",
                                     make_document("t", "t" + std::to_string(pick(6)))));
        break;
      case 4:  // a field the entries of t_1 carry, not its key
        e_->update_one("db", "c", by_id, make_document("$set", make_document("n", pick(9))));
        break;
      case 5:
        e_->update_one("db", "c", by_id, make_document("$unset", make_document("b", "")));
        break;
      case 6:
        e_->delete_one("db", "c", by_id);
        break;
      case 7: {
        FindAndModifyOptions o;
        o.upsert = true;
        e_->find_one_and_update(
            "db", "c", by_id,
            make_document("$set", make_document("b", make_document("k", pick(3)), "a", id * 10)),
            o);
        break;
      }
      case 8: {
        UpdateOptions o;
        o.update_is_pipeline = true;
        e_->update_one("db", "c", by_id,
                       make_array(make_document("$set", make_document("b", "$n"))).view(), o);
        break;
      }
      default:  // a field no entry carries
        e_->update_many("db", "c", Document(),
                        make_document("$set", make_document("other", pick(50))));
        break;
    }
    // Two documents may share `a` here: sort by a, then _id on both sides.
    FindOptions covered = projecting(make_document("a", 1, "b", 1, "t", 1));
    covered.sort = make_document("a", 1, "_id", 1);
    ASSERT_EQ(json_of(find(all, covered)), json_of(find(all, from_documents(covered))))
        << "after step " << step;
    FindOptions tags = projecting(make_document("t", 1, "n", 1));
    tags.sort = make_document("_id", 1);
    auto tagged = make_document("t", make_document("$gte", ""));
    ASSERT_EQ(json_of(find(tagged, tags)), json_of(find(tagged, from_documents(tags))))
        << "after step " << step;
    // Entries read from the middle of a document's keys on.
    auto later = make_document("t", make_document("$gte", "t3"));
    ASSERT_EQ(json_of(find(later, tags)), json_of(find(later, from_documents(tags))))
        << "after step " << step;
    ValidateResult r = e_->validate_collection("db", "c");
    ASSERT_TRUE(r.valid()) << "after step " << step << ": " << r.errors.front();
  }
  FindOptions covered = projecting(make_document("a", 1, "b", 1));
  EXPECT_EQ(testing::plan_stage(e_->explain_find("db", "c", all, covered)), "PROJECTION_COVERED");
  expect_valid();
}

// A multikey document's stored fields are in its first entry (smallest key bytes) alone: a
// forward scan from its first key reads no document, a scan that meets it at a later entry
// reads it once, and the answers are the documents' either way.
TEST_F(StoredFieldsIndex, AMultikeyDocumentStoresItsFieldsInItsFirstEntryAlone) {
  e_->create_index("db", "c", make_document("t", 1), stored({"_id", "t", "n"}));
  e_->insert_one("db", "c", make_document("_id", 1, "t", make_array("c", "a", "b"), "n", 1));
  e_->insert_one("db", "c", make_document("_id", 2, "t", make_array("d"), "n", 2));
  expect_valid();
  const FindOptions o = projecting(make_document("t", 1, "n", 1));
  auto examined = [&](const Document& filter, const FindOptions& with) {
    return testing::plan_stat(e_->explain_find("db", "c", filter, with), "totalDocsExamined");
  };
  auto same = [&](const Document& filter, FindOptions with) {
    with.sort = make_document("_id", 1);
    EXPECT_EQ(json_of(find(filter, with)), json_of(find(filter, from_documents(with))))
        << filter.to_json();
  };
  const Document all = make_document("t", make_document("$gte", ""));
  EXPECT_EQ(examined(all, o), 0);
  same(all, o);
  // From "b" on, document 1 is met at its second entry: it is read, once.
  const Document from_b = make_document("t", make_document("$gte", "b"));
  EXPECT_EQ(examined(from_b, o), 1);
  same(from_b, o);
  // A sort on the multikey field is a blocking sort over a forward scan (an index on an array
  // cannot give the order of its documents): still no document read.
  FindOptions sorted = o;
  sorted.sort = make_document("t", -1);
  EXPECT_EQ(examined(all, sorted), 0);
  EXPECT_EQ(json_of(find(all, sorted)),
            json_of({make_document("_id", 2, "t", make_array("d"), "n", 2),
                     make_document("_id", 1, "t", make_array("c", "a", "b"), "n", 1)}));

  // A new first key takes the fields, the old first gives them up; a removed first hands them
  // on; a stored field's change rewrites the first entry alone.
  e_->update_one("db", "c", make_document("_id", 1),
                 make_document("$push", make_document("t", "0")));
  expect_valid();
  same(from_b, o);
  EXPECT_EQ(examined(all, o), 0);
  e_->update_one(
      "db", "c", make_document("_id", 1),
      make_document("$pull", make_document("t", make_document("$in", make_array("0", "a")))));
  expect_valid();
  EXPECT_EQ(examined(all, o), 0);
  same(all, o);
  e_->update_one("db", "c", make_document("_id", 1), make_document("$set", make_document("n", 9)));
  expect_valid();
  same(all, o);
  EXPECT_EQ(find(make_document("t", "c"), o).front(),
            make_document("_id", 1, "t", make_array("c", "b"), "n", 9));
}

// An update finds a document's first entry (the one carrying its fields) by comparing the
// values a key path reaches, then encodes that value's key alone: the smallest value for an
// ascending field, the largest for a descending one, with values of every kind that compare
// equal (1, 1.0, 1 as int64; 0 and -0.0) or sit at the order's ends (NaN, infinities, null,
// MinKey). Both paths an update takes are exercised: elements appended ($push, the old first
// entry found in the old version) and a stored field changed with the same keys (the first
// entry found in the new version), on a top-level array and on a dotted path into an array of
// documents (as the execution store's outbox.seq). validate checks each entry's value against
// the document's keys in byte order.
TEST_F(StoredFieldsIndex, TheFirstEntryIsTheSmallestKeyOfMixedValuesInEitherDirection) {
  e_->create_index("db", "c", make_document("t", 1), stored({"t", "n"}));
  e_->create_index("db", "c", make_document("t", -1), stored({"n", "_id"}));
  e_->create_index("db", "c", make_document("o.s", 1), stored({"o", "n"}));
  e_->create_index("db", "c", make_document("o.s", -1), stored({"n"}));
  const std::vector<bson::Document> holders = {
      make_document("v", 1),
      make_document("v", 1.0),
      make_document("v", int64_t{1}),
      make_document("v", 0),
      make_document("v", -0.0),
      make_document("v", -7),
      make_document("v", 2.5),
      make_document("v", int64_t{9007199254740993}),
      make_document("v", 9007199254740992.0),
      make_document("v", std::nan("")),
      make_document("v", std::numeric_limits<double>::infinity()),
      make_document("v", -std::numeric_limits<double>::infinity()),
      make_document("v", "s"),
      make_document("v", ""),
      make_document("v", bson::Null{}),
      make_document("v", bson::MinKey{}),
      make_document("v", bson::MaxKey{}),
      make_document("v", make_document("k", 1)),
      make_document("v", true)};
  std::mt19937 rng(31);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto value = [&] { return holders[pick(holders.size())].get("v"); };
  for (int id = 0; id < 6; ++id) {
    e_->insert_one("db", "c",
                   make_document("_id", id, "n", 0, "t", make_array(), "o", make_array()));
  }
  for (int step = 0; step < 400; ++step) {
    const Document by_id = make_document("_id", static_cast<int>(pick(6)));
    bson::DocumentBuilder u;
    switch (pick(5)) {
      case 0:
      case 1:  // appended elements: one or two, on either array
        u.open_document("$push");
        if (pick(2) == 0) {
          u.open_document("t").open_array("$each");
          for (size_t i = 0, k = 1 + pick(2); i < k; ++i) u.push(value());
          u.close().close();
        } else {
          u.open_document("o").open_array("$each");
          for (size_t i = 0, k = 1 + pick(2); i < k; ++i) {
            u.push_document().append("s", value()).close();
          }
          u.close().close();
        }
        u.close();
        break;
      case 2:  // the same keys, a stored field changed
        u.open_document("$set").append("n", static_cast<int>(step)).close();
        break;
      case 3:  // elements removed from the front: the first entry may move on
        u.open_document("$pop").append(pick(2) == 0 ? "t" : "o", -1).close();
        break;
      default:  // an element replaced in place
        u.open_document("$set").append("t.0", value()).close();
        break;
    }
    e_->update_one("db", "c", by_id, u.finish());
    ValidateResult r = e_->validate_collection("db", "c");
    ASSERT_TRUE(r.valid()) << "after step " << step << ": " << r.errors.front();
  }
  // Reads through either index of `t` answer what the documents answer.
  const Document any_t = make_document("t", make_document("$gte", bson::MinKey{}));
  for (const Document& index : {make_document("t", 1), make_document("t", -1)}) {
    FindOptions through = projecting(make_document("t", 1, "n", 1));
    through.sort = make_document("_id", 1);
    through.hint.keys = index;
    const std::vector<Document> read = find(any_t, through);
    EXPECT_EQ(read.size(), 6u) << index.to_json();  // every document has a t
    EXPECT_EQ(json_of(read), json_of(find(any_t, from_documents(through)))) << index.to_json();
  }
}

TEST_F(StoredFieldsIndex, ABuildOverExistingDocumentsStoresTheirFields) {
  for (int i = 0; i < 12; ++i) {
    e_->insert_one("db", "c", make_document("_id", i, "a", i, "b", make_array(i, "x")));
  }
  e_->create_index("db", "c", make_document("a", 1), stored({"a", "b", "_id"}));
  expect_covered_same(make_document("a", make_document("$gt", 4)), make_document("b", 1));
  expect_valid();
}

TEST_F(StoredFieldsIndex, ATransactionReadsItsOwnWritesCovered) {
  e_->create_index("db", "c", make_document("a", 1), stored({"a", "b"}));
  e_->insert_one("db", "c", make_document("_id", 1, "a", 1, "b", "before"));
  auto txn = e_->begin_transaction();
  txn->engine().update_one("db", "c", make_document("_id", 1),
                           make_document("$set", make_document("b", "inside")));
  auto read = [&](Engine& on) {
    FindOptions o = projecting(make_document("b", 1, "_id", 0));
    auto docs = on.find("db", "c", make_document("a", 1), o)->to_vector();
    return docs.empty() ? std::string() : std::string(docs[0].get("b").as_string());
  };
  EXPECT_EQ(read(txn->engine()), "inside");
  EXPECT_EQ(read(*e_), "before");  // not committed
  txn->commit();
  EXPECT_EQ(read(*e_), "inside");
}

TEST(StoredFieldsIndexDurable, TheOptionAndTheEntriesSurviveReopen) {
  testing::TempDir dir;
  EngineOptions o;
  o.path = dir.path();
  {
    auto e = Engine::open(o);
    e->create_index("db", "c", make_document("a", 1), stored({"a", "b"}));
    e->insert_one("db", "c", make_document("_id", 1, "a", 5, "b", "kept"));
  }
  auto e = Engine::open(o);
  EXPECT_EQ(Document::copy_of(e->list_indexes("db", "c")[1].get("storedFields").as_array()),
            Document::copy_of(make_array("a", "b").view()));
  FindOptions f = projecting(make_document("b", 1, "_id", 0));
  Document ex = e->explain_find("db", "c", make_document("a", 5), f);
  EXPECT_EQ(testing::plan_stage(ex), "PROJECTION_COVERED");
  auto docs = e->find("db", "c", make_document("a", 5), f)->to_vector();
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_EQ(docs[0], make_document("b", "kept"));
  // The write path still knows the option after the reopen.
  e->update_one("db", "c", make_document("_id", 1),
                make_document("$set", make_document("b", "new")));
  docs = e->find("db", "c", make_document("a", 5), f)->to_vector();
  EXPECT_EQ(docs[0], make_document("b", "new"));
  EXPECT_TRUE(e->validate_collection("db", "c").valid());
}

}  // namespace
}  // namespace mongostore::engine

namespace mongostore::engine {
namespace {

// An update builds an entry's stored fields from the fields its diff has read; an insert, the
// index build and validate look them up in the document. Both must give the same bytes (the
// document's first field of each name, in the document's order), or validate reports every
// updated entry.
TEST(IndexEntryValueBytes, FromTheDiffAsFromTheDocument) {
  IndexDescriptor d =
      IndexDescriptor::parse(make_document("a", 1).view(), stored({"z", "a", "n", "gone"}).view());
  std::vector<Document> docs = {
      make_document("_id", 1, "a", 2, "n", bson::Null{}, "z", make_document("k", "v")),
      make_document("z", "first", "a", make_array(1, 2), "z", "second", "n", 3.5),
      make_document("other", 1),
      Document(),
  };
  bson::DocumentBuilder wide;  // more fields than TopLevelDiff remembers: the rest by get
  for (int i = 0; i < 40; ++i) wide.append("f" + std::to_string(i), i);
  wide.append("n", "late");
  wide.append("a", "later");
  docs.push_back(wide.finish());
  for (const Document& doc : docs) {
    TopLevelDiff diff(doc.view(), doc.view());
    const std::string from_diff =
        IndexEntryValue::stored_fields_from(d, [&](std::string_view f) { return diff.after(f); });
    EXPECT_EQ(from_diff, IndexEntryValue::stored_fields_of(d, doc.view())) << doc.to_json();
    // And it is the document's stored fields as BSON, in its order.
    bson::DocumentView stored_view(reinterpret_cast<const uint8_t*>(from_diff.data()),
                                   from_diff.size());
    bson::DocumentBuilder expected;
    std::vector<std::string> seen;
    for (const bson::Element& e : doc.view()) {
      const std::string key(e.key);
      if ((key == "z" || key == "a" || key == "n") &&
          std::find(seen.begin(), seen.end(), key) == seen.end()) {
        expected.append(key, e.value);
        seen.push_back(key);
      }
    }
    EXPECT_EQ(Document::copy_of(stored_view), expected.finish()) << doc.to_json();
  }
}

}  // namespace
}  // namespace mongostore::engine
