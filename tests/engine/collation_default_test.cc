// A collection's default collation (create's `collation`): kept in the durable catalog
// record (and still there after a restart), shown by collection_options and list_indexes,
// taken by operations and indexes that give none, overridden by an explicit
// {locale: "simple"}.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
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

Document ci() {
  return make_document("locale", "en", "strength", 2);
}

std::vector<int32_t> ids(Engine& e, const Document& filter, FindOptions o = {}) {
  if (o.sort.empty()) o.sort = make_document("_id", 1);
  std::vector<int32_t> out;
  for (const auto& d : e.find("db", "c", filter, o)->to_vector()) {
    out.push_back(d.get("_id").as_int32());
  }
  return out;
}

void fill(Engine& e) {
  e.create_collection("db", "c", make_document("collation", ci()));
  const char* names[] = {"Müller", "MÜLLER", "muller", "adam", "Adam"};
  int id = 1;
  for (const char* n : names) e.insert_one("db", "c", make_document("_id", id++, "name", n));
}

TEST(CollationDefault, OperationsAndIndexesInheritItAndSimpleOverridesIt) {
  auto e = testing::memory_engine();
  fill(*e);
  // collection_options: the full form, as listCollections shows it.
  Document options = e->collection_options("db", "c");
  bson::DocumentView c = options.get("collation").as_document();
  EXPECT_EQ(c.get("locale").as_string(), "en");
  EXPECT_EQ(c.get("strength").number_as_double(), 2);
  EXPECT_FALSE(c.get("caseLevel").truthy());
  EXPECT_EQ(c.get("alternate").as_string(), "non-ignorable");
  // Reads and writes without a collation take the default.
  EXPECT_EQ(ids(*e, make_document("name", "müller")), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(e->count_documents("db", "c", make_document("name", "ADAM")), 2);
  EXPECT_EQ(e->distinct("db", "c", "name", make_document()).size(), 3u);
  FindOptions sorted;
  sorted.sort = make_document("name", 1, "_id", 1);
  EXPECT_EQ(ids(*e, make_document(), sorted), (std::vector<int32_t>{4, 5, 3, 1, 2}));
  EXPECT_EQ(e->update_many("db", "c", make_document("name", "MULLER"),
                           make_document("$set", make_document("seen", true)))
                .matched_count,
            1);
  auto rows = e->aggregate("db", "c",
                           {make_document("$match", make_document("name", "adam")),
                            make_document("$count", "n")})
                  ->to_vector();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].get("n").number_as_double(), 2);
  // An explicit simple collation overrides it.
  FindOptions simple;
  simple.collation = make_document("locale", "simple");
  EXPECT_EQ(ids(*e, make_document("name", "MÜLLER"), simple), (std::vector<int32_t>{2}));
  CountOptions simple_count;
  simple_count.collation = make_document("locale", "simple");
  EXPECT_EQ(e->count_documents("db", "c", make_document("name", "ADAM"), simple_count), 0);
  // An index without a collation takes the default; {locale: "simple"} asks for bytes.
  // (A unique one over Müller and MÜLLER fails: they are one key.)
  EXPECT_THROW(e->create_index("db", "c", make_document("name", 1), make_document("unique", true)),
               DuplicateKeyError);
  e->create_index("db", "c", make_document("name", 1));
  auto indexes = e->list_indexes("db", "c");
  ASSERT_EQ(indexes.size(), 2u);
  EXPECT_EQ(indexes[1].get("collation").as_document(), c) << indexes[1].view().to_json();
  e->create_index("db", "c", make_document("name", -1),
                  make_document("collation", make_document("locale", "simple")));
  indexes = e->list_indexes("db", "c");
  ASSERT_EQ(indexes.size(), 3u);
  EXPECT_TRUE(indexes[2].get("collation").is_missing()) << indexes[2].view().to_json();
  // The inherited query uses the inherited index.
  Document plan = e->explain_find("db", "c", make_document("name", "ADAM"));
  EXPECT_EQ(plan.get_path("queryPlanner.winningPlan.inputStage.indexName").as_string(), "name_1")
      << plan.view().to_json();
  plan = e->explain_find("db", "c", make_document("name", "ADAM"), simple);
  EXPECT_EQ(plan.get_path("queryPlanner.winningPlan.inputStage.indexName").as_string(), "name_-1")
      << plan.view().to_json();
  // A rename keeps it.
  e->rename_collection("db", "c", "db", "r", false);
  EXPECT_FALSE(e->collection_options("db", "r").get("collation").is_missing());
  // Bad default collations fail as mongod's; the simple one is no default.
  EXPECT_THROW(e->create_collection("db", "bad",
                                    make_document("collation", make_document("locale", "xx_YY"))),
               Error);
  e->create_collection("db", "s", make_document("collation", make_document("locale", "simple")));
  EXPECT_TRUE(e->collection_options("db", "s").get("collation").is_missing());
}

TEST(CollationDefault, SurvivesARestart) {
  auto dir = std::filesystem::temp_directory_path() /
             ("mongostore-collation-" + std::to_string(std::random_device{}()));
  EngineOptions o;
  o.path = dir.string();
  {
    auto e = Engine::open(o);
    fill(*e);
    e->create_index("db", "c", make_document("u", 1),
                    make_document("unique", true, "sparse", true));
    e->insert_one("db", "c", make_document("_id", 8, "u", "x"));
    e->create_collection("db", "plain");
  }
  {
    auto e = Engine::open(o);
    Document options = e->collection_options("db", "c");
    bson::Value c = options.get("collation");
    ASSERT_TRUE(c.is_document());
    EXPECT_EQ(c.as_document().get("strength").number_as_double(), 2);
    EXPECT_TRUE(e->collection_options("db", "plain").get("collation").is_missing());
    EXPECT_EQ(ids(*e, make_document("name", "müller")), (std::vector<int32_t>{1, 2}));
    EXPECT_FALSE(e->list_indexes("db", "c")[1].get("collation").is_missing());
    EXPECT_THROW(e->insert_one("db", "c", make_document("_id", 9, "u", "X")), DuplicateKeyError);
    // An index made after the restart still inherits it.
    e->create_index("db", "c", make_document("other", 1));
    EXPECT_FALSE(e->list_indexes("db", "c")[2].get("collation").is_missing());
  }
  std::filesystem::remove_all(dir);
}

// As mongod, the `_id` index has the collection's default collation: `_id` values it finds
// equal collide, and a query on `_id` under it reads that index; after a restart too.
TEST(CollationDefault, TheIdIndexHasIt) {
  auto dir = std::filesystem::temp_directory_path() /
             ("mongostore-collation-id-" + std::to_string(std::random_device{}()));
  EngineOptions o;
  o.path = dir.string();
  auto check = [](Engine& e) {
    try {
      e.insert_one("db", "k", make_document("_id", "A", "n", 2));
      ADD_FAILURE() << "_id \"a\" and \"A\" are one key at strength 2";
    } catch (const DuplicateKeyError& err) {
      EXPECT_EQ(err.code(), 11000);
      EXPECT_NE(std::string(err.what()).find("index: _id_ collation: {"), std::string::npos)
          << err.what();
      EXPECT_EQ(err.key_pattern().view(), make_document("_id", 1).view());
    }
    // A find by `_id` under the default collation matches case-insensitively, from the index.
    auto found = e.find("db", "k", make_document("_id", "A"))->to_vector();
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].get("_id").as_string(), "a");
    Document plan = e.explain_find("db", "k", make_document("_id", "A"));
    EXPECT_EQ(plan.get_path("queryPlanner.winningPlan.inputStage.indexName").as_string(), "_id_")
        << plan.view().to_json();
    FindOptions simple;
    simple.collation = make_document("locale", "simple");
    EXPECT_EQ(e.find("db", "k", make_document("_id", "A"), simple)->to_vector().size(), 0u);
    // listIndexes shows one `_id_`, with the collation; dropIndexes("*") keeps it.
    auto indexes = e.list_indexes("db", "k");
    ASSERT_EQ(indexes.size(), 2u);
    EXPECT_EQ(indexes[0].get("name").as_string(), "_id_");
    EXPECT_EQ(indexes[0].get("collation").as_document().get("strength").number_as_double(), 2)
        << indexes[0].view().to_json();
    EXPECT_TRUE(indexes[0].get("unique").is_missing());
    EXPECT_THROW(e.drop_index("db", "k", "_id_"), Error);
  };
  {
    auto e = Engine::open(o);
    e->create_collection("db", "k", make_document("collation", ci()));
    e->create_collection("db", "plain");
    e->insert_one("db", "k", make_document("_id", "a", "n", 1));
    e->insert_one("db", "k", make_document("_id", 1, "n", 1));
    e->create_index("db", "k", make_document("n", 1));
    check(*e);
    // Without a default collation `_id` stays simple: "a" and "A" are two documents.
    e->insert_one("db", "plain", make_document("_id", "a"));
    e->insert_one("db", "plain", make_document("_id", "A"));
    EXPECT_EQ(e->list_indexes("db", "plain").size(), 1u);
    // There a query on a string `_id` under a collation is no point lookup of the plain key.
    FindOptions under;
    under.collation = ci();
    EXPECT_EQ(e->find("db", "plain", make_document("_id", "A"), under)->to_vector().size(), 2u);
    EXPECT_EQ(e->count_documents("db", "plain", make_document("_id", "a")), 1);
  }
  {
    auto e = Engine::open(o);
    check(*e);
    e->drop_index("db", "k", "*");
    EXPECT_EQ(e->list_indexes("db", "k").size(), 1u);
    EXPECT_THROW(e->insert_one("db", "k", make_document("_id", "A")), DuplicateKeyError);
    e->delete_one("db", "k", make_document("_id", "A"));
    e->insert_one("db", "k", make_document("_id", "A"));  // the key went with the document
    EXPECT_EQ(e->count_documents("db", "plain", make_document()), 2);
  }
  std::filesystem::remove_all(dir);
}

// As mongod, a validator is compiled with the collection's default collation: its string
// comparisons (and its $expr's) go by it; $jsonSchema's enum stays exact, as mongod's. After
// a collMod and a restart too.
TEST(CollationDefault, TheValidatorComparesUnderIt) {
  auto dir = std::filesystem::temp_directory_path() /
             ("mongostore-collation-validator-" + std::to_string(std::random_device{}()));
  EngineOptions o;
  o.path = dir.string();
  auto code = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    return 0;
  };
  auto check = [&](Engine& e, int id) {
    EXPECT_EQ(code([&] { e.insert_one("db", "v", make_document("_id", id, "kind", "BOOK")); }), 0);
    EXPECT_EQ(code([&] { e.insert_one("db", "v", make_document("_id", id + 1, "kind", "pen")); }),
              121);
    EXPECT_EQ(
        code([&] { e.insert_one("db", "x", make_document("_id", id, "kind", "Book", "n", 1)); }),
        0);
    // $jsonSchema's enum compares exactly (mongod's does not take the collation).
    EXPECT_EQ(code([&] { e.insert_one("db", "j", make_document("_id", id, "kind", "BOOK")); }),
              121);
    EXPECT_EQ(code([&] { e.insert_one("db", "j", make_document("_id", id, "kind", "book")); }), 0);
  };
  {
    auto e = Engine::open(o);
    e->create_collection(
        "db", "v",
        make_document("collation", ci(), "validator",
                      make_document("kind", make_document("$in", make_array("book", "cd")))));
    e->create_collection(
        "db", "x",
        make_document("collation", ci(), "validator",
                      make_document("$expr", make_document("$eq", make_array("$kind", "book")))));
    e->create_collection(
        "db", "j",
        make_document(
            "collation", ci(), "validator",
            make_document(
                "$jsonSchema",
                make_document("properties",
                              make_document("kind", make_document("enum", make_array("book")))))));
    check(*e, 1);
    // A validator collMod sets is compiled with the collation too.
    e->modify_collection("db", "v", make_document("validator", make_document("kind", "book")));
    EXPECT_EQ(code([&] { e->insert_one("db", "v", make_document("_id", 10, "kind", "Book")); }), 0);
    e->modify_collection(
        "db", "v",
        make_document("validator",
                      make_document("kind", make_document("$in", make_array("book", "cd")))));
  }
  {
    auto e = Engine::open(o);  // the catalog's validators are compiled with it after a restart
    check(*e, 20);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mongostore::engine
