// Indexes with a collation: keys stored as ICU sort keys, unique indexes colliding as the
// collation compares, and the planner using such an index only for a query under the same
// collation (or for bounds without strings). For every collation of a table, an index-backed
// query and a collection scan return the same documents in the same order.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/engine/engine.h"
#include "mongostore/error.h"
#include "support/memory_engine.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

// Latin with diacritics, German ß, Turkish dotted and dotless i, CJK, numbers as text.
const char* const kStrings[] = {"côte",    "cote",    "coté",    "côté",   "Cote", "COTE", "Straße",
                                "Strasse", "STRASSE", "strasse", "ı",      "i",    "I",    "İ",
                                "ıi",      "中文",    "日本",    "한국어", "漢字", "10",   "9",
                                "2",       "100",     "1",       "a",      "A",    "á",    "b"};

std::vector<Document> collations() {
  return {make_document("locale", "en", "strength", 1),
          make_document("locale", "en", "strength", 2),
          make_document("locale", "en_US"),
          make_document("locale", "en", "strength", 3, "caseFirst", "upper"),
          make_document("locale", "fr_CA", "strength", 2),
          make_document("locale", "de@collation=phonebook"),
          make_document("locale", "tr", "strength", 2),
          make_document("locale", "zh"),
          make_document("locale", "en", "numericOrdering", true),
          make_document("locale", "en", "alternate", "shifted", "strength", 4)};
}

class CollationIndex : public ::testing::Test {
 protected:
  void SetUp() override { e_ = testing::memory_engine(); }
  void fill(const std::string& coll) {
    int id = 1;
    for (const char* s : kStrings) {
      e_->insert_one("db", coll, make_document("_id", id, "s", s, "n", id % 3));
      ++id;
    }
    e_->insert_one("db", coll, make_document("_id", id++, "s", 5));  // a number among them
  }
  std::vector<int32_t> ids(const std::string& coll, const Document& filter, const FindOptions& o) {
    std::vector<int32_t> out;
    for (const auto& d : e_->find("db", coll, filter, o)->to_vector()) {
      out.push_back(d.get("_id").as_int32());
    }
    return out;
  }
  std::string plan(const std::string& coll, const Document& filter, const FindOptions& o) {
    return e_->explain_find("db", coll, filter, o).view().to_json();
  }
  static bool uses_index(const std::string& plan, const std::string& name) {
    return plan.find("\"IXSCAN\"") != std::string::npos &&
           plan.find("\"indexName\" : \"" + name + "\"") != std::string::npos;
  }
  std::shared_ptr<Engine> e_;
};

// The core property: under each collation of the table, with an index of that collation,
// equality, $in, ranges and sorts read through the index and give what a collection scan
// under the same collation gives, in the same order.
TEST_F(CollationIndex, IndexAndCollectionScanAgreeUnderEachCollation) {
  int n = 0;
  for (const Document& c : collations()) {
    SCOPED_TRACE(c.view().to_json());
    std::string coll = "t" + std::to_string(n++);
    fill(coll);
    e_->create_index("db", coll, make_document("s", 1), make_document("collation", c));
    FindOptions indexed;
    indexed.collation = c;
    FindOptions scanned = indexed;
    scanned.hint.keys = make_document("$natural", 1);

    // A sort on the index's field: the index gives the order (no blocking SORT stage).
    indexed.sort = scanned.sort = make_document("s", 1);
    std::string p = plan(coll, Document(), indexed);
    EXPECT_TRUE(uses_index(p, "s_1")) << p;
    EXPECT_EQ(p.find("\"SORT\""), std::string::npos) << p;
    EXPECT_EQ(ids(coll, Document(), indexed), ids(coll, Document(), scanned));
    indexed.sort = scanned.sort = make_document("s", -1);
    EXPECT_EQ(ids(coll, Document(), indexed).size(), std::size(kStrings) + 1);
    EXPECT_TRUE(uses_index(plan(coll, Document(), indexed), "s_1"));

    indexed.sort = scanned.sort = make_document("s", 1);
    for (const char* s : kStrings) {
      SCOPED_TRACE(s);
      for (const Document& filter :
           {make_document("s", s), make_document("s", make_document("$gte", s)),
            make_document("s", make_document("$lt", s)),
            make_document("s", make_document("$in", make_array(s, "b", 5))),
            make_document("s", make_document("$gt", s, "$lte", "z"))}) {
        std::string fp = plan(coll, filter, indexed);
        EXPECT_TRUE(uses_index(fp, "s_1")) << fp;
        EXPECT_EQ(ids(coll, filter, indexed), ids(coll, filter, scanned))
            << filter.view().to_json();
      }
    }
  }
}

TEST_F(CollationIndex, AnotherCollationOnlyBoundsWhatHoldsNoString) {
  fill("c");
  e_->create_index("db", "c", make_document("s", 1),
                   make_document("collation", make_document("locale", "en", "strength", 2)));
  FindOptions simple;
  simple.sort = make_document("_id", 1);
  // Strings under the simple collation: the collated index cannot bound them.
  std::string p = plan("c", make_document("s", "a"), simple);
  EXPECT_FALSE(uses_index(p, "s_1")) << p;  // the `_id` order instead
  EXPECT_EQ(ids("c", make_document("s", "a"), simple), (std::vector<int32_t>{25}));
  // Another non-simple collation: the same.
  FindOptions other = simple;
  other.collation = make_document("locale", "en", "strength", 1);
  p = plan("c", make_document("s", "a"), other);
  EXPECT_FALSE(uses_index(p, "s_1")) << p;
  EXPECT_EQ(ids("c", make_document("s", "a"), other), (std::vector<int32_t>{25, 26, 27}));
  // A number is compared alike under every collation: the index serves it.
  p = plan("c", make_document("s", 5), simple);
  EXPECT_TRUE(uses_index(p, "s_1")) << p;
  EXPECT_EQ(ids("c", make_document("s", 5), simple), (std::vector<int32_t>{29}));
  EXPECT_EQ(ids("c", make_document("s", make_document("$gt", 1)), other),
            (std::vector<int32_t>{29}));
  // The index order is not the simple one: a sort under it is blocking.
  FindOptions sorted;
  sorted.sort = make_document("s", 1);
  p = plan("c", make_document(), sorted);
  EXPECT_EQ(p.find("IXSCAN"), std::string::npos) << p;
  std::vector<int32_t> got = ids("c", make_document(), sorted);
  FindOptions scanned = sorted;
  scanned.hint.keys = make_document("$natural", 1);
  EXPECT_EQ(got, ids("c", make_document(), scanned));
  // Hinted under another collation: read whole, the matcher deciding.
  FindOptions hinted = simple;
  hinted.hint.name = "s_1";
  EXPECT_EQ(ids("c", make_document("s", "A"), hinted), (std::vector<int32_t>{26}));
  // A simple index does not serve a collated query's strings.
  e_->create_index("db", "c", make_document("s", -1));
  FindOptions ci;
  ci.collation = make_document("locale", "en", "strength", 2);
  ci.sort = make_document("_id", 1);
  p = plan("c", make_document("s", "A"), ci);
  EXPECT_TRUE(uses_index(p, "s_1")) << p;
  EXPECT_EQ(ids("c", make_document("s", "A"), ci), (std::vector<int32_t>{25, 26}));
}

TEST_F(CollationIndex, UniqueIndexCollidesAsTheCollationCompares) {
  e_->create_index(
      "db", "u", make_document("name", 1),
      make_document("unique", true, "collation", make_document("locale", "en", "strength", 2)));
  e_->insert_one("db", "u", make_document("_id", 1, "name", "Müller"));
  try {
    e_->insert_one("db", "u", make_document("_id", 2, "name", "MÜLLER"));
    ADD_FAILURE() << "MÜLLER and Müller are one key at strength 2";
  } catch (const DuplicateKeyError& e) {
    EXPECT_EQ(e.code(), 11000);
    EXPECT_NE(std::string(e.what()).find("collation: {"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dup key: { name: \"0x"), std::string::npos) << e.what();
    EXPECT_EQ(e.key_pattern().view(), make_document("name", 1).view());
    // keyValue: the sort key in lowercase hex, as mongod reports a collated key.
    bson::Value kv = e.key_value().get("name");
    ASSERT_TRUE(kv.is_string());
    std::string hex(kv.as_string());
    EXPECT_FALSE(hex.empty());
    EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos) << hex;
    // As mongod: the index's collation (full form) and which fields are hex encoded.
    EXPECT_EQ(e.collation().get("locale").as_string(), "en");
    EXPECT_EQ(e.collation().get("strength").number_as_double(), 2);
    EXPECT_EQ(e.hex_encoded(), (std::vector<bool>{true}));
  }
  // A simple unique index reports the plain value, no collation, nothing hex encoded.
  e_->create_index("db", "w", make_document("plain", 1), make_document("unique", true));
  e_->insert_one("db", "w", make_document("_id", 10, "plain", "x"));
  try {
    e_->insert_one("db", "w", make_document("_id", 11, "plain", "x"));
    ADD_FAILURE() << "x and x are one key";
  } catch (const DuplicateKeyError& e) {
    EXPECT_EQ(e.key_value().view(), make_document("plain", "x").view());
    EXPECT_TRUE(e.collation().empty());
    EXPECT_EQ(e.hex_encoded(), (std::vector<bool>{false}));
  }
  // Accents still differ at strength 2.
  e_->insert_one("db", "u", make_document("_id", 3, "name", "Muller"));
  // A unique index built over existing duplicates fails and leaves nothing behind.
  e_->insert_one("db", "v", make_document("_id", 1, "s", "a"));
  e_->insert_one("db", "v", make_document("_id", 2, "s", "A"));
  EXPECT_THROW(e_->create_index("db", "v", make_document("s", 1),
                                make_document("unique", true, "collation",
                                              make_document("locale", "en", "strength", 2))),
               DuplicateKeyError);
  EXPECT_EQ(e_->list_indexes("db", "v").size(), 1u);
  // At strength 3 they differ.
  e_->create_index("db", "v", make_document("s", 1),
                   make_document("unique", true, "collation", make_document("locale", "en")));
}

TEST_F(CollationIndex, ArraysAndEmbeddedDocumentsHoldSortKeys) {
  e_->insert_one(
      "db", "m",
      make_document("_id", 1, "tags", make_array("Äpfel", "x"), "d", make_document("n", "ABC")));
  e_->insert_one("db", "m",
                 make_document("_id", 2, "tags", make_array("apfel", "APFEL"), "d",
                               make_document("n", "abd")));
  Document c = make_document("locale", "de", "strength", 1);
  e_->create_index("db", "m", make_document("tags", 1), make_document("collation", c));
  e_->create_index("db", "m", make_document("d", 1), make_document("collation", c));
  FindOptions o;
  o.collation = c;
  o.sort = make_document("_id", 1);
  std::string p = plan("m", make_document("tags", "APFEL"), o);
  EXPECT_TRUE(uses_index(p, "tags_1")) << p;
  EXPECT_EQ(ids("m", make_document("tags", "APFEL"), o), (std::vector<int32_t>{1, 2}));
  p = plan("m", make_document("d", make_document("n", "abc")), o);
  EXPECT_TRUE(uses_index(p, "d_1")) << p;
  EXPECT_EQ(ids("m", make_document("d", make_document("n", "abc")), o), (std::vector<int32_t>{1}));
}

TEST_F(CollationIndex, ListIndexesAndExplainShowTheCollation) {
  fill("c");
  e_->create_index("db", "c", make_document("s", 1),
                   make_document("collation", make_document("locale", "fr_CA")));
  // The same key under another collation is another index (it needs its own name).
  e_->create_index(
      "db", "c", make_document("s", 1),
      make_document("name", "s_simple", "collation", make_document("locale", "simple")));
  EXPECT_THROW(e_->create_index("db", "c", make_document("s", 1),
                                make_document("collation", make_document("locale", "en"))),
               Error);
  auto indexes = e_->list_indexes("db", "c");
  ASSERT_EQ(indexes.size(), 3u);
  bson::Value spec = indexes[1].get("collation");
  ASSERT_TRUE(spec.is_document()) << indexes[1].view().to_json();
  bson::DocumentView s = spec.as_document();
  EXPECT_EQ(s.get("locale").as_string(), "fr_CA");
  EXPECT_EQ(s.get("strength").number_as_double(), 3);
  EXPECT_TRUE(s.get("backwards").truthy());  // fr_CA's default, filled in as mongod does
  EXPECT_EQ(s.get("version").as_string(), "57.1");
  EXPECT_TRUE(indexes[2].get("collation").is_missing()) << indexes[2].view().to_json();
  FindOptions o;
  o.collation = make_document("locale", "fr_CA");
  std::string p = plan("c", make_document("s", "cote"), o);
  EXPECT_TRUE(uses_index(p, "s_1")) << p;
  EXPECT_NE(p.find("\"collation\""), std::string::npos) << p;
  EXPECT_NE(p.find("CollationKey(0x"), std::string::npos) << p;
  FindOptions simple;
  p = plan("c", make_document("s", "cote"), simple);
  EXPECT_TRUE(uses_index(p, "s_simple")) << p;
  // Bad index collations fail as mongod's.
  auto code = [&](const Document& options) {
    try {
      e_->create_index("db", "c", make_document("z", 1), options);
    } catch (const Error& e) {
      return e.code();
    }
    return 0;
  };
  EXPECT_EQ(code(make_document("collation", make_document("locale", "xx_YY"))), 2);
  EXPECT_EQ(code(make_document("collation", make_document("strength", 2))), 40414);
  EXPECT_EQ(code(make_document("collation", "en")), 14);
  // {_id: 1} under a collation is an index of its own (the `_id` index is simple), and a
  // string `_id` under that collation reads it instead of one point of the record table.
  Document ci2 = make_document("locale", "en", "strength", 2);
  EXPECT_EQ(e_->create_index("db", "c", make_document("_id", 1), make_document("collation", ci2)),
            "_id_1");
  e_->insert_one("db", "c", make_document("_id", "Key"));
  FindOptions by_id;
  by_id.collation = ci2;
  p = plan("c", make_document("_id", "KEY"), by_id);
  EXPECT_TRUE(uses_index(p, "_id_1")) << p;
  EXPECT_EQ(e_->find("db", "c", make_document("_id", "KEY"), by_id)->to_vector().size(), 1u);
  EXPECT_EQ(e_->find("db", "c", make_document("_id", "KEY"))->to_vector().size(), 0u);
}

TEST_F(CollationIndex, AKeyPatternTwoIndexesShareNamesNeither) {
  fill("c");
  e_->create_index("db", "c", make_document("s", 1),
                   make_document("collation", make_document("locale", "fr_CA")));
  e_->create_index(
      "db", "c", make_document("s", 1),
      make_document("name", "s_simple", "collation", make_document("locale", "simple")));
  // A hint by the shared key pattern fails as mongod's planner (IndexNotFound); by name works.
  FindOptions hinted;
  hinted.hint.keys = make_document("s", 1);
  try {
    e_->find("db", "c", make_document("s", "A"), hinted)->to_vector();
    ADD_FAILURE() << "a hint by a key pattern two indexes share is ambiguous";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 27) << e.what();
    EXPECT_NE(std::string(e.what()).find("Hint matched multiple indexes"), std::string::npos);
  }
  hinted.hint.keys = Document();
  hinted.hint.name = "s_simple";
  EXPECT_EQ(ids("c", make_document("s", "A"), hinted), (std::vector<int32_t>{26}));
  // dropIndexes by the shared key pattern fails AmbiguousIndexKeyPattern and drops nothing.
  try {
    e_->drop_index("db", "c", make_document("s", 1).view());
    ADD_FAILURE() << "dropIndexes by a key pattern two indexes share is ambiguous";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 181) << e.what();
    EXPECT_EQ(e.code_name(), "AmbiguousIndexKeyPattern");
  }
  EXPECT_EQ(e_->list_indexes("db", "c").size(), 3u);
  // By name it drops one; then the key pattern names the other.
  e_->drop_index("db", "c", "s_simple");
  e_->drop_index("db", "c", make_document("s", 1).view());
  EXPECT_EQ(e_->list_indexes("db", "c").size(), 1u);
}

}  // namespace
}  // namespace mongostore::engine
