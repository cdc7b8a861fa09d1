// `collation` through the server: find, count, distinct, aggregate, update and delete
// statements and findAndModify honour it; bad ones fail with mongod's codes; create keeps a
// default collation that listCollections, listIndexes and operations see.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "server/server_command_test.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::DocumentView;
using bson::make_array;
using bson::make_document;

class CollationCommandsTest : public ServerCommandTest {
 protected:
  void SetUp() override {
    ServerCommandTest::SetUp();
    must_run("coll", make_document("insert", "c", "documents",
                                   make_array(make_document("_id", 1, "x", "ping"),
                                              make_document("_id", 2, "x", "PING"),
                                              make_document("_id", 3, "x", "pong"),
                                              make_document("_id", 4, "x", "10"),
                                              make_document("_id", 5, "x", "9"))));
  }
  static Document ci() { return make_document("locale", "en_US", "strength", 2); }
  std::vector<int64_t> ids(const Document& reply) {
    std::vector<int64_t> out;
    for (const auto& e : reply.get("cursor").as_document().get("firstBatch").as_array()) {
      out.push_back(int_at(e.value.as_document(), "_id"));
    }
    return out;
  }
};

TEST_F(CollationCommandsTest, FindCountDistinctAggregate) {
  EXPECT_EQ(
      ids(must_run("coll", make_document("find", "c", "filter", make_document("x", "ping"), "sort",
                                         make_document("_id", 1), "collation", ci()))),
      (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(
      ids(must_run("coll", make_document("find", "c", "filter",
                                         make_document("_id", make_document("$gt", 3)), "sort",
                                         make_document("x", 1), "collation",
                                         make_document("locale", "en", "numericOrdering", true)))),
      (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(int_at(must_run("coll", make_document("count", "c", "query", make_document("x", "PiNg"),
                                                  "collation", ci())),
                   "n"),
            2);
  Document d = must_run("coll", make_document("distinct", "c", "key", "x", "collation", ci()));
  EXPECT_EQ(d.get("values").as_array().count(), 4u) << d.to_json();
  Document agg =
      must_run("coll", make_document("aggregate", "c", "pipeline",
                                     make_array(make_document("$match", make_document("x", "PING")),
                                                make_document("$sort", make_document("_id", 1))),
                                     "cursor", make_document(), "collation", ci()));
  EXPECT_EQ(ids(agg), (std::vector<int64_t>{1, 2}));
  // The simple collation is bytes.
  EXPECT_EQ(ids(must_run("coll", make_document("find", "c", "filter", make_document("x", "PING"),
                                               "collation", make_document("locale", "simple")))),
            (std::vector<int64_t>{2}));
}

TEST_F(CollationCommandsTest, Writes) {
  Document upd = must_run(
      "coll", make_document("update", "c", "updates",
                            make_array(make_document("q", make_document("x", "PING"), "u",
                                                     make_document("$set", make_document("y", 1)),
                                                     "multi", true, "collation", ci()))));
  EXPECT_EQ(int_at(upd, "n"), 2) << upd.to_json();
  Document fam =
      must_run("coll", make_document("findAndModify", "c", "query", make_document("x", "PONG"),
                                     "remove", true, "collation", ci()));
  EXPECT_EQ(int_at(fam.get("value").as_document(), "_id"), 3) << fam.to_json();
  Document del =
      must_run("coll", make_document("delete", "c", "deletes",
                                     make_array(make_document("q", make_document("x", "PING"),
                                                              "limit", 0, "collation", ci()))));
  EXPECT_EQ(int_at(del, "n"), 2) << del.to_json();
}

TEST_F(CollationCommandsTest, BadCollationsAndCreate) {
  must_fail("coll", make_document("find", "c", "collation", make_document("locale", "xx_YY")), 2,
            "BadValue");
  must_fail("coll", make_document("find", "c", "collation", make_document("strength", 2)), 40414,
            "Location40414");
  must_fail("coll", make_document("count", "c", "collation", make_document("locale", "en", "x", 1)),
            40415, "Location40415");
  must_fail("coll", make_document("find", "c", "collation", "en"), 14, "TypeMismatch");
  must_fail(
      "coll",
      make_document("find", "c", "collation", make_document("locale", "simple", "strength", 1)), 9,
      "FailedToParse");
  must_fail("coll", make_document("create", "made", "collation", make_document("locale", "xx")), 2,
            "BadValue");
  must_run("coll",
           make_document("create", "made_simple", "collation", make_document("locale", "simple")));
}

TEST_F(CollationCommandsTest, CollectionDefaultCollation) {
  must_run("coll", make_document("create", "d", "collation", ci()));
  must_run("coll", make_document("insert", "d", "documents",
                                 make_array(make_document("_id", 1, "x", "ping"),
                                            make_document("_id", 2, "x", "PING"))));
  must_run("coll",
           make_document("createIndexes", "d", "indexes",
                         make_array(make_document("key", make_document("x", 1), "name", "x_1"))));
  Document lc =
      must_run("coll", make_document("listCollections", 1, "filter", make_document("name", "d")));
  DocumentView info =
      lc.get("cursor").as_document().get("firstBatch").as_array().begin()->value.as_document();
  DocumentView collation = info.get("options").as_document().get("collation").as_document();
  EXPECT_EQ(collation.get("locale").as_string(), "en_US") << info.to_json();
  EXPECT_EQ(int_at(collation, "strength"), 2);
  EXPECT_EQ(collation.get("caseFirst").as_string(), "off");
  EXPECT_EQ(collation.get("version").as_string(), "57.1");
  // The `_id` index has it too (as mongod): `_id` "k" and "K" collide.
  EXPECT_EQ(info.get("idIndex").as_document().get("collation").as_document(), collation)
      << info.to_json();
  must_run("coll",
           make_document("insert", "d", "documents", make_array(make_document("_id", "k"))));
  Document dup = must_run(
      "coll", make_document("insert", "d", "documents", make_array(make_document("_id", "K"))));
  ASSERT_TRUE(dup.get("writeErrors").is_array()) << dup.to_json();
  DocumentView write_error = dup.get("writeErrors").as_array().begin()->value.as_document();
  EXPECT_EQ(int_at(write_error, "code"), 11000) << dup.to_json();
  // As mongod: the key value is the sort key in hex, said by hexEncoded, with the collation.
  EXPECT_EQ(write_error.get("hexEncoded").as_array(), make_array(true).view()) << dup.to_json();
  EXPECT_EQ(write_error.get("collation").as_document(), collation) << dup.to_json();
  must_run("coll",
           make_document("delete", "d", "deletes",
                         make_array(make_document("q", make_document("_id", "K"), "limit", 1))));
  Document li = must_run("coll", make_document("listIndexes", "d"));
  bool found = false;
  for (const auto& e : li.get("cursor").as_document().get("firstBatch").as_array()) {
    DocumentView ix = e.value.as_document();
    if (ix.get("name").as_string() != "x_1") continue;
    found = true;
    EXPECT_EQ(ix.get("collation").as_document(), collation) << ix.to_json();
  }
  EXPECT_TRUE(found) << li.to_json();
  // Inherited by find and count; {locale: "simple"} overrides it.
  EXPECT_EQ(ids(must_run("coll", make_document("find", "d", "filter", make_document("x", "Ping"),
                                               "sort", make_document("_id", 1)))),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(
      int_at(must_run("coll", make_document("count", "d", "query", make_document("x", "PING"))),
             "n"),
      2);
  EXPECT_EQ(ids(must_run("coll", make_document("find", "d", "filter", make_document("x", "PING"),
                                               "collation", make_document("locale", "simple")))),
            (std::vector<int64_t>{2}));
}

}  // namespace
}  // namespace mongostore::testing
