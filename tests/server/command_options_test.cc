// Options the server's commands honour or refuse, never ignore (issue 18): a projection of
// `_id` alone, create's options, find's hint / min / max, listDatabases' filter and nameOnly,
// write and read concerns as a standalone mongod checks them, the MongoDB version reported
// against the options accepted, and $changeStream on a standalone.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "mongostore/bson/builder.h"
#include "server/server_command_test.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::DocumentView;
using bson::make_array;
using bson::make_document;

class CommandOptionsTest : public ServerCommandTest {
 protected:
  void insert(const std::string& db, const std::string& coll, const Document& doc) {
    Document reply = must_run(db, make_document("insert", coll, "documents", make_array(doc)));
    EXPECT_EQ(int_at(reply, "n"), 1) << reply.to_json();
  }

  DocumentView first_batch(const Document& reply) {
    return reply.get("cursor").as_document().get("firstBatch").as_array();
  }
};

TEST_F(CommandOptionsTest, ProjectionOfIdAloneReturnsOnlyId) {
  insert("proj", "c", make_document("_id", 1, "a", 2, "b", 3));
  Document reply =
      must_run("proj", make_document("find", "c", "projection", make_document("_id", 1)));
  DocumentView batch = first_batch(reply);
  ASSERT_EQ(batch.count(), 1u) << reply.to_json();
  EXPECT_EQ(Document::copy_of(batch.begin()->value.as_document()), make_document("_id", 1));
}

TEST_F(CommandOptionsTest, CreateRefusesTheOptionsItDoesNotImplement) {
  // Each refused with NotImplemented naming the option, and no collection made. (validator,
  // validationLevel and validationAction are honoured: collection_validator_command_test.)
  std::vector<std::pair<std::string, Document>> cases = {
      {"viewOn", make_document("viewOn", "base", "pipeline", make_array())},
      {"pipeline", make_document("pipeline", make_array())},
      {"capped", make_document("capped", true)},
      {"size", make_document("size", 4096)},
      {"max", make_document("max", 10)},
      {"timeseries", make_document("timeseries", make_document("timeField", "t"))},
      {"clusteredIndex",
       make_document("clusteredIndex",
                     make_document("key", make_document("_id", 1), "unique", true))},
      {"changeStreamPreAndPostImages",
       make_document("changeStreamPreAndPostImages", make_document("enabled", true))},
      {"storageEngine", make_document("storageEngine", make_document())},
      {"indexOptionDefaults", make_document("indexOptionDefaults", make_document())},
      {"expireAfterSeconds", make_document("expireAfterSeconds", 10)},
      {"idIndex", make_document("idIndex", make_document())},
  };
  for (const auto& [option, fields] : cases) {
    bson::DocumentBuilder cmd;
    cmd.append("create", "made_" + option);
    cmd.append_elements(fields);
    Document reply = must_fail("createopts", cmd.finish(), 238, "NotImplemented");
    EXPECT_NE(reply.get("errmsg").as_string().find(option), std::string_view::npos)
        << option << ": " << reply.to_json();
  }
  Document listed = must_run("createopts", make_document("listCollections", 1));
  EXPECT_EQ(first_batch(listed).count(), 0u) << listed.to_json();
  // What it honours: a plain collection, capped: false, generic fields.
  must_run("createopts", make_document("create", "plain", "capped", false, "comment", "x",
                                       "writeConcern", make_document("w", 1)));
  must_fail("createopts", make_document("create", "other", "zzUnknownOption", 1), 40415,
            "Location40415");
}

TEST_F(CommandOptionsTest, FindHintNamingNoIndexFailsAndMinMaxAreRefused) {
  insert("hint", "c", make_document("_id", 1, "a", 1));
  must_run("hint",
           make_document("createIndexes", "c", "indexes",
                         make_array(make_document("key", make_document("a", 1), "name", "a_1"))));
  must_fail("hint", make_document("find", "c", "hint", "nope_1"), 2, "BadValue");
  must_fail("hint", make_document("find", "c", "hint", make_document("zz", 1)), 2, "BadValue");
  must_fail("hint", make_document("count", "c", "hint", "nope_1"), 2, "BadValue");
  must_fail("hint",
            make_document("aggregate", "c", "pipeline", make_array(), "cursor", make_document(),
                          "hint", "nope_1"),
            2, "BadValue");
  // An existing index is used.
  Document hinted = must_run("hint", make_document("find", "c", "hint", "a_1"));
  EXPECT_EQ(first_batch(hinted).count(), 1u);
  Document counted = must_run("hint", make_document("count", "c", "hint", make_document("a", 1)));
  EXPECT_EQ(int_at(counted, "n"), 1);
  must_fail("hint",
            make_document("find", "c", "hint", "a_1", "min", make_document("a", 0), "max",
                          make_document("a", 5)),
            238, "NotImplemented");
  must_fail("hint", make_document("find", "c", "hint", "a_1", "max", make_document("a", 5)), 238,
            "NotImplemented");
  // A flag mongostore lacks, sent with its default (false), asks for nothing it lacks.
  must_run("hint", make_document("find", "c", "returnKey", false, "showRecordId", false, "tailable",
                                 false, "awaitData", false));
  must_fail("hint", make_document("find", "c", "returnKey", true), 238, "NotImplemented");
  must_fail("hint", make_document("find", "c", "tailable", true), 238, "NotImplemented");
}

TEST_F(CommandOptionsTest, ListDatabasesHonoursFilterAndNameOnly) {
  insert("lsdb_one", "c", make_document("_id", 1));
  insert("lsdb_two", "c", make_document("_id", 1));
  Document reply =
      must_run("admin", make_document("listDatabases", 1, "filter",
                                      make_document("name", make_document("$regex", "^lsdb_o"))));
  DocumentView dbs = reply.get("databases").as_array();
  ASSERT_EQ(dbs.count(), 1u) << reply.to_json();
  DocumentView only = dbs.begin()->value.as_document();
  EXPECT_EQ(only.get("name").as_string(), "lsdb_one");
  EXPECT_TRUE(only.has("sizeOnDisk"));
  EXPECT_EQ(int_at(reply, "totalSize"), int_at(only, "sizeOnDisk"));

  Document names =
      must_run("admin", make_document("listDatabases", 1, "nameOnly", true, "authorizedDatabases",
                                      true, "filter", make_document("name", "lsdb_two")));
  DocumentView named = names.get("databases").as_array();
  ASSERT_EQ(named.count(), 1u) << names.to_json();
  EXPECT_EQ(Document::copy_of(named.begin()->value.as_document()),
            make_document("name", "lsdb_two"));
  EXPECT_FALSE(names.has("totalSize")) << names.to_json();

  Document none =
      must_run("admin", make_document("listDatabases", 1, "filter", make_document("empty", true)));
  EXPECT_EQ(none.get("databases").as_array().count(), 0u) << none.to_json();
  // Admin only, as on mongod.
  must_fail("lsdb_one", make_document("listDatabases", 1), 13, "Unauthorized");
}

// `serve --standalone`: the concerns are checked as a standalone mongod checks them (the
// replica-set answers are in replica_set_topology_test.cc).
class StandaloneCommandOptionsTest : public ServerCommandTest {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess({"--memory", "--standalone"}); }
};

TEST_F(StandaloneCommandOptionsTest, WriteConcernIsCheckedAsAStandaloneChecksIt) {
  auto insert_with = [](const Document& wc) {
    return make_document("insert", "c", "documents", make_array(make_document()), "writeConcern",
                         wc);
  };
  // More members than a standalone has: BadValue, and nothing is written.
  Document reply = must_fail("wc", insert_with(make_document("w", 50)), 2, "BadValue");
  EXPECT_NE(reply.get("errmsg").as_string().find("'w' > 1"), std::string_view::npos);
  must_fail("wc", insert_with(make_document("w", 2)), 2, "BadValue");
  must_fail("wc", insert_with(make_document("w", 51)), 9, "FailedToParse");
  must_fail("wc", insert_with(make_document("w", -1)), 9, "FailedToParse");
  must_fail("wc", insert_with(make_document("w", "dc_east")), 2, "BadValue");
  must_fail("wc", insert_with(make_document("w", make_document("dc", 1))), 2, "BadValue");
  must_fail("wc", insert_with(make_document("w", 1, "j", "yes")), 9, "FailedToParse");
  must_fail("wc", insert_with(make_document("w", 1, "wtimeout", "soon")), 9, "FailedToParse");
  must_fail("wc", insert_with(make_document("w", 1, "j", true, "fsync", true)), 9, "FailedToParse");
  must_fail("wc", insert_with(make_document("w", 1, "zz", 1)), 9, "FailedToParse");
  Document count = must_run("wc", make_document("count", "c"));
  EXPECT_EQ(int_at(count, "n"), 0) << count.to_json();
  // What a standalone satisfies.
  must_run("wc", insert_with(make_document("w", "majority", "wtimeout", 1000)));
  must_run("wc", insert_with(make_document("w", 1, "j", true)));
  must_run("wc", insert_with(make_document("w", 0)));
  must_run("wc", insert_with(make_document("fsync", true)));
  // A command that does not write takes no write concern.
  must_fail("wc", make_document("count", "c", "writeConcern", make_document("w", 1)), 72,
            "InvalidOptions");
}

TEST_F(StandaloneCommandOptionsTest, ReadConcernAndApiVersionAreChecked) {
  must_run("rc", make_document("find", "c", "readConcern", make_document("level", "majority")));
  must_run("rc", make_document("find", "c", "readConcern", make_document("level", "local")));
  must_fail("rc", make_document("find", "c", "readConcern", make_document("level", "snapshot")),
            123, "NotAReplicaSet");
  must_fail("rc", make_document("find", "c", "readConcern", make_document("level", "linearizable")),
            123, "NotAReplicaSet");
  must_fail("rc", make_document("find", "c", "readConcern", make_document("level", "bogus")), 2,
            "BadValue");
  must_fail("rc",
            make_document("insert", "c", "documents", make_array(make_document()), "readConcern",
                          make_document("level", "local")),
            72, "InvalidOptions");
  must_run("rc", make_document("find", "c", "apiVersion", "1", "apiStrict", true));
  must_fail("rc", make_document("find", "c", "apiVersion", "2"), 322, "APIVersionError");
  must_fail("rc", make_document("find", "c", "apiStrict", true), 322, "APIVersionError");
  must_fail("admin", make_document("buildInfo", 1, "apiVersion", "1", "apiStrict", true), 323,
            "APIStrictError");
  must_run("admin", make_document("hello", 1, "apiVersion", "1", "apiStrict", true));
  must_fail("admin", make_document("isMaster", 1, "apiVersion", "1", "apiStrict", true), 323,
            "APIStrictError");
  must_fail("rc", make_document("find", "c", "maxTimeMS", -1), 2, "BadValue");
}

// mongostore implements MongoDB 7.0 and says so everywhere: buildInfo, serverStatus and
// hello's wire version (21); an 8.0-only option (the `sort` of an update statement) fails as
// 7.0 answers it.
TEST_F(CommandOptionsTest, TheReportedVersionIsTheOneImplemented) {
  Document info = must_run("admin", make_document("buildInfo", 1));
  EXPECT_EQ(info.get("version").as_string(), "7.0.0");
  DocumentView array = info.get("versionArray").as_array();
  std::vector<int64_t> parts;
  for (const bson::Element& e : array) parts.push_back(e.value.as_int32());
  EXPECT_EQ(parts, (std::vector<int64_t>{7, 0, 0, 0}));
  Document hello = must_run("admin", make_document("hello", 1));
  EXPECT_EQ(int_at(hello, "maxWireVersion"), 21);
  Document status = must_run("admin", make_document("serverStatus", 1));
  EXPECT_EQ(status.get("version").as_string(), "7.0.0");
  Document fcv =
      must_run("admin", make_document("getParameter", 1, "featureCompatibilityVersion", 1));
  EXPECT_EQ(fcv.get_path("featureCompatibilityVersion.version").as_string(), "7.0");

  insert("ver", "c", make_document("_id", 1, "a", 1));
  Document sorted =
      must_fail("ver",
                make_document("update", "c", "updates",
                              make_array(make_document("q", make_document(), "u",
                                                       make_document("$set", make_document("b", 1)),
                                                       "sort", make_document("a", 1)))),
                40415, "Location40415");
  EXPECT_NE(sorted.get("errmsg").as_string().find("update.updates.sort"), std::string_view::npos)
      << sorted.to_json();
}

TEST_F(CommandOptionsTest, ChangeStreamOnAStandaloneFails40573) {
  insert("cs", "c", make_document("_id", 1));
  must_fail("cs",
            make_document("aggregate", "c", "pipeline",
                          make_array(make_document("$changeStream", make_document())), "cursor",
                          make_document()),
            40573, "Location40573");
  must_fail("admin",
            make_document("aggregate", 1, "pipeline",
                          make_array(make_document("$changeStream",
                                                   make_document("allChangesForCluster", true))),
                          "cursor", make_document()),
            40573, "Location40573");
}

TEST_F(CommandOptionsTest, ListingCommandsPageWithCursorBatchSize) {
  for (const char* name : {"a", "b", "c"}) {
    must_run("paging", make_document("create", name));
  }
  Document first = must_run("paging", make_document("listCollections", 1, "nameOnly", true,
                                                    "cursor", make_document("batchSize", 2)));
  DocumentView cursor = first.get("cursor").as_document();
  EXPECT_EQ(cursor.get("firstBatch").as_array().count(), 2u) << first.to_json();
  int64_t id = int_at(cursor, "id");
  ASSERT_NE(id, 0);
  Document more =
      must_run("paging", make_document("getMore", id, "collection", "$cmd.listCollections"));
  EXPECT_EQ(more.get_path("cursor.nextBatch").as_array().count(), 1u) << more.to_json();
  must_fail("paging",
            make_document("listIndexes", "a", "cursor", make_document("batchSize", 1, "zz", 1)),
            40415, "Location40415");
  must_fail("paging",
            make_document("aggregate", "a", "pipeline", make_array(), "cursor",
                          make_document("batchSize", 1, "zz", 1)),
            40415, "Location40415");
}

}  // namespace
}  // namespace mongostore::testing
