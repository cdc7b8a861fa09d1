// The replies of `mongostore serve`'s commands as a real driver (libmongoc) receives them,
// shaped as mongod shapes them: error replies carry ok 0, code and codeName; failed writes
// come back as writeErrors with their index; cursors page through firstBatch / nextBatch and
// end with id 0; and the catalog, index, diagnostic and session commands drivers and shells
// send answer with the fields mongod gives. Only what mongod would also return is asserted.
#include <gtest/gtest.h>
#include <mongoc/mongoc.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "server/reply_path.h"
#include "server/server_command_test.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::DocumentView;
using bson::make_array;
using bson::make_document;

std::set<int64_t> ids_of(DocumentView batch) {
  std::set<int64_t> ids;
  for (const bson::Element& e : batch) {
    int64_t id = 0;
    EXPECT_TRUE(e.value.as_document().get("_id").number_as_exact_int64(&id));
    ids.insert(id);
  }
  return ids;
}

bool contains_name(DocumentView array, std::string_view name) {
  for (const bson::Element& e : array) {
    if (e.value.is_document() && e.value.as_document().get("name").is_string() &&
        e.value.as_document().get("name").as_string() == name) {
      return true;
    }
  }
  return false;
}

// One server for the suite (each test uses its own database), so the suite stays fast.
class CommandRepliesTest : public ServerCommandTest {
 protected:
  // Inserts {_id: 1..n, v: i % 3} into db.coll through the insert command.
  void insert_numbered(const std::string& db, const std::string& coll, int n) {
    bson::DocumentBuilder docs;
    for (int i = 1; i <= n; ++i) docs.push(make_document("_id", i, "v", i % 3));
    bson::DocumentBuilder cmd;
    cmd.append("insert", coll).append("documents", docs.finish_array());
    CommandOutcome out = client_->run(db, cmd.finish());
    ASSERT_TRUE(out.succeeded) << out.error.message;
    ASSERT_EQ(int_at(out.reply, "n"), n) << out.reply.to_json();
  }

  // ServerCommandTest's check of the error reply, and the driver's error carries its code.
  Document must_fail(const std::string& db, const Document& command, int32_t code,
                     std::string_view code_name) {
    CommandOutcome out = client_->run(db, command);
    expect_error_reply(command, out, code, code_name);
    EXPECT_EQ(static_cast<int32_t>(out.error.code), code) << out.error.message;
    return out.reply;
  }
};

TEST_F(CommandRepliesTest, UnknownCommandIsCommandNotFound) {
  must_fail("db", make_document("frobnicate", 1), 59, "CommandNotFound");
}

TEST_F(CommandRepliesTest, DuplicateKeyInOrderedInsertStopsAtTheFailingIndex) {
  insert_numbered("dupdb", "coll", 1);
  Document cmd = make_document(
      "insert", "coll", "documents",
      make_array(make_document("_id", 10), make_document("_id", 1), make_document("_id", 11)));
  CommandOutcome out = client_->run("dupdb", cmd);
  // A write error is not a command error: ok is 1 and the failure is in writeErrors.
  EXPECT_EQ(ok_in(out.reply), 1.0) << out.reply.to_json();
  EXPECT_EQ(int_at(out.reply, "n"), 1);
  DocumentView errors = out.reply.get("writeErrors").as_array();
  ASSERT_EQ(errors.count(), 1u) << out.reply.to_json();
  DocumentView error = errors.begin()->value.as_document();
  EXPECT_EQ(int_at(error, "index"), 1);
  EXPECT_EQ(int_at(error, "code"), 11000);
  ASSERT_TRUE(error.get("errmsg").is_string());
  EXPECT_EQ(error.get("errmsg").as_string().substr(0, 6), "E11000");
  // Ordered: the document after the failure was not inserted.
  Document count = must_run("dupdb", make_document("count", "coll"));
  EXPECT_EQ(int_at(count, "n"), 2);
}

TEST_F(CommandRepliesTest, DuplicateKeyInUnorderedInsertContinues) {
  Document cmd = make_document("insert", "coll", "ordered", false, "documents",
                               make_array(make_document("_id", 1), make_document("_id", 1),
                                          make_document("_id", 2), make_document("_id", 2)));
  CommandOutcome out = client_->run("unordered", cmd);
  EXPECT_EQ(ok_in(out.reply), 1.0) << out.reply.to_json();
  EXPECT_EQ(int_at(out.reply, "n"), 2);
  DocumentView errors = out.reply.get("writeErrors").as_array();
  ASSERT_EQ(errors.count(), 2u) << out.reply.to_json();
  std::vector<int64_t> indexes;
  for (const bson::Element& e : errors) {
    indexes.push_back(int_at(e.value.as_document(), "index"));
    EXPECT_EQ(int_at(e.value.as_document(), "code"), 11000);
  }
  EXPECT_EQ(indexes, (std::vector<int64_t>{1, 3}));
}

// Update and delete statements fail alone too: each error is a writeErrors entry with its
// statement's index, an upsert is reported with its own index, and only an ordered batch stops.
TEST_F(CommandRepliesTest, UpdateAndDeleteWriteErrorsCarryTheirIndexAndStopOnlyAnOrderedBatch) {
  auto updates = [] {
    return make_array(
        make_document("q", make_document("_id", 1), "u",
                      make_document("$set", make_document("a", 1))),
        make_document("q", make_document("_id", 2), "u",
                      make_document("$set", make_document("_id", 20))),  // ImmutableField
        make_document("q", make_document("_id", 9), "u",
                      make_document("$set", make_document("a", 1)), "upsert", true));
  };
  auto write_error_indexes = [](const Document& reply) {
    std::vector<int64_t> out;
    if (!reply.get("writeErrors").is_array()) return out;
    for (const bson::Element& e : reply.get("writeErrors").as_array()) {
      out.push_back(int_at(e.value.as_document(), "index"));
    }
    return out;
  };
  for (bool ordered : {false, true}) {
    SCOPED_TRACE(ordered ? "ordered" : "unordered");
    const std::string db = ordered ? "upd_ordered" : "upd_unordered";
    insert_numbered(db, "coll", 3);
    CommandOutcome out =
        client_->run(db, make_document("update", "coll", "ordered", ordered, "updates", updates()));
    EXPECT_EQ(ok_in(out.reply), 1.0) << out.reply.to_json();
    EXPECT_EQ(write_error_indexes(out.reply), std::vector<int64_t>{1}) << out.reply.to_json();
    DocumentView error = out.reply.get("writeErrors").as_array().begin()->value.as_document();
    EXPECT_EQ(int_at(error, "code"), 66) << out.reply.to_json();
    EXPECT_EQ(int_at(out.reply, "nModified"), 1);
    if (ordered) {
      EXPECT_EQ(int_at(out.reply, "n"), 1);
      EXPECT_TRUE(out.reply.get("upserted").is_missing()) << out.reply.to_json();
    } else {
      EXPECT_EQ(int_at(out.reply, "n"), 2);
      ASSERT_TRUE(out.reply.get("upserted").is_array()) << out.reply.to_json();
      DocumentView upserted = out.reply.get("upserted").as_array().begin()->value.as_document();
      EXPECT_EQ(int_at(upserted, "index"), 2);
      EXPECT_EQ(int_at(upserted, "_id"), 9);
    }

    // A delete whose hint names no index fails alone in the same way.
    CommandOutcome del = client_->run(
        db,
        make_document("delete", "coll", "ordered", ordered, "deletes",
                      make_array(make_document("q", make_document("_id", 1), "limit", 1),
                                 make_document("q", make_document(), "limit", 0, "hint", "nope_1"),
                                 make_document("q", make_document("_id", 2), "limit", 1))));
    EXPECT_EQ(ok_in(del.reply), 1.0) << del.reply.to_json();
    EXPECT_EQ(write_error_indexes(del.reply), std::vector<int64_t>{1}) << del.reply.to_json();
    EXPECT_EQ(int_at(del.reply, "n"), ordered ? 1 : 2) << del.reply.to_json();
  }
}

TEST_F(CommandRepliesTest, DuplicateKeyThroughInsertOneIsError11000) {
  auto coll = client_->collection("insertone", "coll");
  Document doc = make_document("_id", "same");
  BsonRef ref(doc);
  bson_error_t error;
  ASSERT_TRUE(mongoc_collection_insert_one(coll.get(), ref.get(), nullptr, nullptr, &error))
      << error.message;
  bson_t reply;
  EXPECT_FALSE(mongoc_collection_insert_one(coll.get(), ref.get(), nullptr, &reply, &error));
  EXPECT_EQ(error.code, 11000u) << error.message;
  Document r = to_document(&reply);
  bson_destroy(&reply);
  EXPECT_TRUE(r.get("writeErrors").is_array()) << r.to_json();
}

TEST_F(CommandRepliesTest, FindPagesThroughFirstBatchAndGetMore) {
  insert_numbered("db", "coll", 5);
  Document first = must_run(
      "db", make_document("find", "coll", "sort", make_document("_id", 1), "batchSize", 2));
  DocumentView cursor = first.get("cursor").as_document();
  EXPECT_EQ(cursor.get("ns").as_string(), "db.coll");
  EXPECT_EQ(ids_of(cursor.get("firstBatch").as_array()), (std::set<int64_t>{1, 2}));
  int64_t id = int_at(cursor, "id");
  ASSERT_NE(id, 0);

  // Three documents remain: a getMore of 2 returns two and keeps the cursor open.
  Document more =
      must_run("db", make_document("getMore", id, "collection", "coll", "batchSize", 2));
  DocumentView next = more.get("cursor").as_document();
  EXPECT_EQ(next.get("ns").as_string(), "db.coll");
  EXPECT_EQ(ids_of(next.get("nextBatch").as_array()), (std::set<int64_t>{3, 4}));
  EXPECT_EQ(int_at(next, "id"), id);

  // The rest, then id 0 (mongod may need one more, empty, batch to see the end).
  std::set<int64_t> rest;
  int64_t current = id;
  for (int round = 0; round < 3 && current != 0; ++round) {
    Document page =
        must_run("db", make_document("getMore", id, "collection", "coll", "batchSize", 2));
    DocumentView c = page.get("cursor").as_document();
    for (int64_t i : ids_of(c.get("nextBatch").as_array())) rest.insert(i);
    current = int_at(c, "id");
  }
  EXPECT_EQ(current, 0);
  EXPECT_EQ(rest, (std::set<int64_t>{5}));

  // An exhausted cursor is gone.
  must_fail("db", make_document("getMore", id, "collection", "coll"), 43, "CursorNotFound");
}

TEST_F(CommandRepliesTest, FindThatFitsInOneBatchReturnsIdZero) {
  insert_numbered("onebatch", "coll", 3);
  Document reply = must_run("onebatch", make_document("find", "coll"));
  EXPECT_EQ(int_at(reply, "cursor.id"), 0);
  EXPECT_EQ(reply.get_path("cursor.firstBatch").as_array().count(), 3u);
  Document missing = must_run("onebatch", make_document("find", "nosuchcoll"));
  EXPECT_EQ(int_at(missing, "cursor.id"), 0);
  EXPECT_EQ(missing.get_path("cursor.firstBatch").as_array().count(), 0u);
}

TEST_F(CommandRepliesTest, MongocCursorReadsEveryDocumentAcrossGetMores) {
  insert_numbered("mongoccursor", "coll", 25);
  auto coll = client_->collection("mongoccursor", "coll");
  Document filter = make_document("v", make_document("$gte", 0));
  Document opts = make_document("batchSize", 4);
  BsonRef f(filter), o(opts);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll.get(), f.get(), o.get(), nullptr);
  const bson_t* doc = nullptr;
  std::set<int64_t> ids;
  while (mongoc_cursor_next(cursor, &doc)) {
    int64_t id = 0;
    ASSERT_TRUE(to_document(doc).get("_id").number_as_exact_int64(&id));
    ids.insert(id);
  }
  bson_error_t error;
  EXPECT_FALSE(mongoc_cursor_error(cursor, &error)) << error.message;
  mongoc_cursor_destroy(cursor);
  EXPECT_EQ(ids.size(), 25u);
}

TEST_F(CommandRepliesTest, KillCursorsClosesTheCursor) {
  insert_numbered("kill", "coll", 4);
  Document first = must_run("kill", make_document("find", "coll", "batchSize", 1));
  int64_t id = int_at(first, "cursor.id");
  ASSERT_NE(id, 0);
  int64_t bogus = id ^ 0x5555;
  Document killed =
      must_run("kill", make_document("killCursors", "coll", "cursors", make_array(id, bogus)));
  DocumentView cursors_killed = killed.get("cursorsKilled").as_array();
  ASSERT_EQ(cursors_killed.count(), 1u) << killed.to_json();
  EXPECT_EQ(int_at(cursors_killed, "0"), id);
  DocumentView not_found = killed.get("cursorsNotFound").as_array();
  ASSERT_EQ(not_found.count(), 1u) << killed.to_json();
  EXPECT_EQ(int_at(not_found, "0"), bogus);
  EXPECT_TRUE(killed.get("cursorsAlive").is_array());
  EXPECT_TRUE(killed.get("cursorsUnknown").is_array());
  must_fail("kill", make_document("getMore", id, "collection", "coll"), 43, "CursorNotFound");
}

TEST_F(CommandRepliesTest, CreateListAndDropIndexes) {
  insert_numbered("idx", "coll", 3);
  Document created = must_run(
      "idx", make_document("createIndexes", "coll", "indexes",
                           make_array(make_document("key", make_document("v", 1), "name", "v_1"))));
  EXPECT_EQ(int_at(created, "numIndexesBefore"), 1);
  EXPECT_EQ(int_at(created, "numIndexesAfter"), 2);
  EXPECT_FALSE(created.get("createdCollectionAutomatically").as_bool());

  Document listed = must_run("idx", make_document("listIndexes", "coll"));
  EXPECT_EQ(int_at(listed, "cursor.id"), 0);
  EXPECT_EQ(listed.get_path("cursor.ns").as_string(), "idx.coll");
  DocumentView indexes = listed.get_path("cursor.firstBatch").as_array();
  EXPECT_EQ(indexes.count(), 2u) << listed.to_json();
  EXPECT_TRUE(contains_name(indexes, "_id_"));
  EXPECT_TRUE(contains_name(indexes, "v_1"));
  for (const bson::Element& e : indexes) {
    DocumentView spec = e.value.as_document();
    EXPECT_TRUE(spec.get("key").is_document()) << spec.to_json();
    EXPECT_TRUE(spec.has("v")) << spec.to_json();
  }

  // libmongoc's own index listing reads the same cursor.
  auto coll = client_->collection("idx", "coll");
  mongoc_cursor_t* cursor = mongoc_collection_find_indexes_with_opts(coll.get(), nullptr);
  const bson_t* spec = nullptr;
  int seen = 0;
  while (mongoc_cursor_next(cursor, &spec)) ++seen;
  mongoc_cursor_destroy(cursor);
  EXPECT_EQ(seen, 2);

  Document dropped = must_run("idx", make_document("dropIndexes", "coll", "index", "v_1"));
  EXPECT_EQ(int_at(dropped, "nIndexesWas"), 2);
  Document after = must_run("idx", make_document("listIndexes", "coll"));
  DocumentView remaining = after.get_path("cursor.firstBatch").as_array();
  EXPECT_EQ(remaining.count(), 1u);
  EXPECT_TRUE(contains_name(remaining, "_id_"));

  must_fail("idx", make_document("dropIndexes", "coll", "index", "v_1"), 27, "IndexNotFound");
  must_fail("idx", make_document("listIndexes", "nosuchcoll"), 26, "NamespaceNotFound");
}

TEST_F(CommandRepliesTest, UniqueIndexViolationReportsKeyPatternAndValue) {
  must_run("uniq", make_document("createIndexes", "coll", "indexes",
                                 make_array(make_document("key", make_document("email", 1), "name",
                                                          "email_1", "unique", true))));
  must_run("uniq", make_document("insert", "coll", "documents",
                                 make_array(make_document("_id", 1, "email", "a@x"))));
  CommandOutcome out =
      client_->run("uniq", make_document("insert", "coll", "documents",
                                         make_array(make_document("_id", 2, "email", "a@x"))));
  DocumentView errors = out.reply.get("writeErrors").as_array();
  ASSERT_EQ(errors.count(), 1u) << out.reply.to_json();
  DocumentView error = errors.begin()->value.as_document();
  EXPECT_EQ(int_at(error, "code"), 11000);
  EXPECT_EQ(error.get("keyPattern").as_document(), make_document("email", 1).view());
  EXPECT_EQ(error.get("keyValue").as_document(), make_document("email", "a@x").view());
}

TEST_F(CommandRepliesTest, ReadsAndDeletesOnAMissingCollectionAreEmptyNotErrors) {
  Document found =
      must_run("missing", make_document("find", "nosuch", "filter", make_document("a", 1)));
  EXPECT_EQ(found.get_path("cursor.firstBatch").as_array().count(), 0u);
  EXPECT_EQ(int_at(must_run("missing", make_document("count", "nosuch")), "n"), 0);
  Document distinct = must_run("missing", make_document("distinct", "nosuch", "key", "a"));
  EXPECT_EQ(distinct.get("values").as_array().count(), 0u) << distinct.to_json();
  Document aggregated = must_run("missing", make_document("aggregate", "nosuch", "pipeline",
                                                          bson::Array(), "cursor", Document()));
  EXPECT_EQ(aggregated.get_path("cursor.firstBatch").as_array().count(), 0u);
  Document deleted =
      must_run("missing", make_document("delete", "nosuch", "deletes",
                                        make_array(make_document("q", Document(), "limit", 0))));
  EXPECT_EQ(int_at(deleted, "n"), 0);
  must_run("missing", make_document("drop", "nosuch"));
  must_fail("missing", make_document("dropIndexes", "nosuch", "index", "*"), 26,
            "NamespaceNotFound");
}

TEST_F(CommandRepliesTest, CountAndDistinct) {
  insert_numbered("agg", "coll", 7);  // v: 1 2 0 1 2 0 1
  EXPECT_EQ(int_at(must_run("agg", make_document("count", "coll")), "n"), 7);
  EXPECT_EQ(
      int_at(must_run("agg", make_document("count", "coll", "query", make_document("v", 1))), "n"),
      3);
  EXPECT_EQ(int_at(must_run("agg", make_document("count", "coll", "skip", 2, "limit", 3)), "n"), 3);
  EXPECT_EQ(int_at(must_run("agg", make_document("count", "nosuchcoll")), "n"), 0);

  Document distinct = must_run("agg", make_document("distinct", "coll", "key", "v"));
  std::set<int64_t> values;
  for (const bson::Element& e : distinct.get("values").as_array()) {
    int64_t v = 0;
    ASSERT_TRUE(e.value.number_as_exact_int64(&v));
    values.insert(v);
  }
  EXPECT_EQ(values, (std::set<int64_t>{0, 1, 2}));
  EXPECT_EQ(distinct.get("values").as_array().count(), 3u);

  // libmongoc's helpers over the same commands.
  auto coll = client_->collection("agg", "coll");
  bson_error_t error;
  EXPECT_EQ(
      mongoc_collection_estimated_document_count(coll.get(), nullptr, nullptr, nullptr, &error), 7)
      << error.message;
  Document filter = make_document("v", 2);
  BsonRef f(filter);
  EXPECT_EQ(
      mongoc_collection_count_documents(coll.get(), f.get(), nullptr, nullptr, nullptr, &error), 2)
      << error.message;
}

TEST_F(CommandRepliesTest, CollStatsAndDbStats) {
  insert_numbered("stats", "coll", 4);
  insert_numbered("stats", "other", 2);
  Document coll = must_run("stats", make_document("collStats", "coll"));
  EXPECT_EQ(coll.get("ns").as_string(), "stats.coll");
  EXPECT_EQ(int_at(coll, "count"), 4);
  EXPECT_GT(int_at(coll, "size"), 0);
  EXPECT_EQ(int_at(coll, "nindexes"), 1);
  EXPECT_TRUE(coll.get("indexSizes").as_document().has("_id_")) << coll.to_json();
  must_fail("stats", make_document("collStats", "nosuchcoll"), 26, "NamespaceNotFound");

  Document db = must_run("stats", make_document("dbStats", 1));
  EXPECT_EQ(db.get("db").as_string(), "stats");
  EXPECT_EQ(int_at(db, "collections"), 2);
  EXPECT_EQ(int_at(db, "objects"), 6);
  EXPECT_EQ(int_at(db, "indexes"), 2);
  EXPECT_GT(db.get("dataSize").number_as_double(), 0.0);
}

TEST_F(CommandRepliesTest, ListDatabasesAndDropDatabase) {
  insert_numbered("listed_a", "coll", 1);
  insert_numbered("listed_b", "coll", 1);
  Document listed = must_run("admin", make_document("listDatabases", 1));
  DocumentView databases = listed.get("databases").as_array();
  EXPECT_TRUE(contains_name(databases, "listed_a")) << listed.to_json();
  EXPECT_TRUE(contains_name(databases, "listed_b")) << listed.to_json();
  for (const bson::Element& e : databases) {
    EXPECT_TRUE(e.value.as_document().has("sizeOnDisk")) << e.value.to_json();
    EXPECT_TRUE(e.value.as_document().has("empty")) << e.value.to_json();
  }
  EXPECT_TRUE(listed.get("totalSize").is_number());
  Document names = must_run("admin", make_document("listDatabases", 1, "nameOnly", true));
  EXPECT_TRUE(contains_name(names.get("databases").as_array(), "listed_a"));

  must_run("listed_a", make_document("dropDatabase", 1));
  Document after = must_run("admin", make_document("listDatabases", 1));
  EXPECT_FALSE(contains_name(after.get("databases").as_array(), "listed_a")) << after.to_json();
  EXPECT_TRUE(contains_name(after.get("databases").as_array(), "listed_b"));

  // The same through libmongoc's helper.
  bson_error_t error;
  char** db_names = mongoc_client_get_database_names_with_opts(client_->get(), nullptr, &error);
  ASSERT_NE(db_names, nullptr) << error.message;
  std::set<std::string> seen;
  for (char** p = db_names; *p != nullptr; ++p) seen.insert(*p);
  bson_strfreev(db_names);
  EXPECT_EQ(seen.count("listed_b"), 1u);
  EXPECT_EQ(seen.count("listed_a"), 0u);
}

TEST_F(CommandRepliesTest, ListCollectionsFiltersOverTheDescriptions) {
  insert_numbered("lc", "alpha", 1);
  insert_numbered("lc", "beta", 1);
  insert_numbered("lc", "gamma", 1);
  auto names = [&](const Document& filter) {
    Document reply = must_run("lc", make_document("listCollections", 1, "filter", filter));
    std::set<std::string> out;
    for (const auto& e : reply.get_path("cursor.firstBatch").as_array()) {
      out.emplace(e.value.as_document().get("name").as_string());
    }
    return out;
  };
  EXPECT_EQ(names(make_document("name", "beta")), (std::set<std::string>{"beta"}));
  EXPECT_EQ(names(make_document("name", make_document("$in", make_array("alpha", "gamma")))),
            (std::set<std::string>{"alpha", "gamma"}));
  EXPECT_EQ(names(make_document("type", "collection")).size(), 3u);
  EXPECT_TRUE(names(make_document("type", "view")).empty());
  EXPECT_TRUE(names(make_document("info.readOnly", true)).empty());
}

TEST_F(CommandRepliesTest, RenameCollectionMovesDocumentsAndIndexes) {
  insert_numbered("ren", "before", 3);
  must_run("ren",
           make_document("createIndexes", "before", "indexes",
                         make_array(make_document("key", make_document("v", 1), "name", "v_1"))));
  must_run("admin", make_document("renameCollection", "ren.before", "to", "ren.after"));
  Document found = must_run("ren", make_document("find", "after"));
  EXPECT_EQ(ids_of(found.get_path("cursor.firstBatch").as_array()), (std::set<int64_t>{1, 2, 3}));
  Document collections = must_run("ren", make_document("listCollections", 1));
  DocumentView batch = collections.get_path("cursor.firstBatch").as_array();
  EXPECT_TRUE(contains_name(batch, "after")) << collections.to_json();
  EXPECT_FALSE(contains_name(batch, "before")) << collections.to_json();
  Document indexes = must_run("ren", make_document("listIndexes", "after"));
  EXPECT_TRUE(contains_name(indexes.get_path("cursor.firstBatch").as_array(), "v_1"));

  // As on mongod, only against the admin database.
  must_fail("ren", make_document("renameCollection", "ren.after", "to", "ren.elsewhere"), 13,
            "Unauthorized");
  must_fail("admin", make_document("renameCollection", "ren.nosuch", "to", "ren.x"), 26,
            "NamespaceNotFound");
  insert_numbered("ren", "third", 1);
  must_fail("admin", make_document("renameCollection", "ren.third", "to", "ren.after"), 48,
            "NamespaceExists");

  // libmongoc's helper sends the same command.
  auto coll = client_->collection("ren", "third");
  bson_error_t error;
  EXPECT_TRUE(mongoc_collection_rename(coll.get(), "ren", "fourth", false, &error))
      << error.message;
  Document moved = must_run("ren", make_document("count", "fourth"));
  EXPECT_EQ(int_at(moved, "n"), 1);
}

TEST_F(CommandRepliesTest, BuildInfoHasAVersionString) {
  Document info = must_run("admin", make_document("buildInfo", 1));
  ASSERT_TRUE(info.get("version").is_string()) << info.to_json();
  std::string_view version = info.get("version").as_string();
  EXPECT_FALSE(version.empty());
  DocumentView parts = info.get("versionArray").as_array();
  ASSERT_GE(parts.count(), 3u);
  // "7.0.0" and versionArray [7, 0, 0, 0] tell the same version.
  EXPECT_EQ(std::to_string(int_at(parts, "0")) + "." + std::to_string(int_at(parts, "1")) + "." +
                std::to_string(int_at(parts, "2")),
            std::string(version).substr(0, version.find_first_not_of("0123456789.")));
  EXPECT_TRUE(info.get("maxBsonObjectSize").is_number());
}

TEST_F(CommandRepliesTest, ServerStatusDescribesThisServer) {
  insert_numbered("status", "coll", 2);
  Document status = must_run("admin", make_document("serverStatus", 1));
  EXPECT_TRUE(status.get("host").is_string());
  EXPECT_TRUE(status.get("version").is_string());
  EXPECT_EQ(int_at(status, "pid"), server_->pid());
  EXPECT_TRUE(status.get("uptime").is_number());
  EXPECT_TRUE(status.get("localTime").type() == bson::BsonType::kDateTime);
  // This very connection is open.
  EXPECT_GE(int_at(status, "connections.current"), 1) << status.to_json();
  EXPECT_GE(int_at(status, "connections.totalCreated"), int_at(status, "connections.current"));
  EXPECT_GT(int_at(status, "connections.available"), 0) << status.to_json();
  EXPECT_GE(int_at(status, "opcounters.insert"), 1);
  EXPECT_GE(int_at(status, "opcounters.command"), 1);
}

TEST_F(CommandRepliesTest, ConnectionStatusWhatsmyuriAndPing) {
  Document status = must_run("admin", make_document("connectionStatus", 1));
  EXPECT_TRUE(status.get_path("authInfo.authenticatedUsers").is_array()) << status.to_json();
  EXPECT_TRUE(status.get_path("authInfo.authenticatedUserRoles").is_array());
  Document uri = must_run("admin", make_document("whatsmyuri", 1));
  ASSERT_TRUE(uri.get("you").is_string()) << uri.to_json();
  EXPECT_EQ(uri.get("you").as_string().substr(0, 10), "127.0.0.1:");
  must_run("admin", make_document("ping", 1));
}

TEST_F(CommandRepliesTest, EndSessionsIsAccepted) {
  uint8_t uuid[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef,
                      0x80, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07};
  bson::DocumentBuilder b;
  b.open_array("endSessions");
  b.push_document().append("id", bson::BinaryView{4, std::span<const uint8_t>(uuid, 16)}).close();
  b.close();
  must_run("admin", b.finish());
}

TEST_F(CommandRepliesTest, SessionReadPreferenceReadConcernAndWriteConcernAreAccepted) {
  bson_error_t error;
  mongoc_client_session_t* session = mongoc_client_start_session(client_->get(), nullptr, &error);
  ASSERT_NE(session, nullptr) << error.message;
  auto coll = client_->collection("sessions", "coll");

  // insert with lsid and writeConcern {w: 1, j: true}.
  bson_t opts = BSON_INITIALIZER;
  ASSERT_TRUE(mongoc_client_session_append(session, &opts, &error)) << error.message;
  mongoc_write_concern_t* wc = mongoc_write_concern_new();
  mongoc_write_concern_set_w(wc, 1);
  mongoc_write_concern_set_journal(wc, true);
  ASSERT_TRUE(mongoc_write_concern_append(wc, &opts));
  mongoc_write_concern_destroy(wc);
  Document doc = make_document("_id", 1, "v", "x");
  BsonRef d(doc);
  bson_t reply;
  EXPECT_TRUE(mongoc_collection_insert_one(coll.get(), d.get(), &opts, &reply, &error))
      << error.message;
  bson_destroy(&reply);
  bson_destroy(&opts);

  // find with lsid, readConcern and a non-primary read preference ($readPreference).
  bson_t find_opts = BSON_INITIALIZER;
  ASSERT_TRUE(mongoc_client_session_append(session, &find_opts, &error)) << error.message;
  mongoc_read_concern_t* rc = mongoc_read_concern_new();
  mongoc_read_concern_set_level(rc, MONGOC_READ_CONCERN_LEVEL_LOCAL);
  ASSERT_TRUE(mongoc_read_concern_append(rc, &find_opts));
  mongoc_read_concern_destroy(rc);
  mongoc_read_prefs_t* prefs = mongoc_read_prefs_new(MONGOC_READ_SECONDARY_PREFERRED);
  Document filter = make_document("_id", 1);
  BsonRef f(filter);
  mongoc_cursor_t* cursor =
      mongoc_collection_find_with_opts(coll.get(), f.get(), &find_opts, prefs);
  const bson_t* found = nullptr;
  EXPECT_TRUE(mongoc_cursor_next(cursor, &found));
  EXPECT_FALSE(mongoc_cursor_error(cursor, &error)) << error.message;
  mongoc_cursor_destroy(cursor);
  bson_destroy(&find_opts);

  // A generic command with every session field in the body, as drivers send them (a read
  // takes no writeConcern: mongod refuses it, InvalidOptions, as command_options_test checks).
  Document cmd =
      make_document("count", "coll", "readConcern", make_document("level", "local"),
                    "$readPreference", make_document("mode", "secondaryPreferred"), "$clusterTime",
                    make_document("clusterTime", bson::Timestamp{1, 1}, "signature",
                                  make_document("keyId", int64_t{0})));
  bson_t session_opts = BSON_INITIALIZER;
  ASSERT_TRUE(mongoc_client_session_append(session, &session_opts, &error));
  bson_t count_reply;
  BsonRef c(cmd);
  EXPECT_TRUE(mongoc_client_command_with_opts(client_->get(), "sessions", c.get(), nullptr,
                                              &session_opts, &count_reply, &error))
      << error.message;
  Document counted = to_document(&count_reply);
  bson_destroy(&count_reply);
  bson_destroy(&session_opts);
  EXPECT_EQ(int_at(counted, "n"), 1) << counted.to_json();

  mongoc_read_prefs_destroy(prefs);
  mongoc_client_session_destroy(session);  // pooled; endSessions goes out with the client
}

// Options the engine does not honour are refused before anything runs, never ignored:
// ignoring an update's `c` constants or `sort` would touch other documents than the client
// meant. Collations are honoured (tests/server/collation_commands_test.cc).
TEST_F(CommandRepliesTest, OptionsTheEngineDoesNotHonourFailInsteadOfBeingIgnored) {
  insert_numbered("opts", "coll", 3);
  Document collation = make_document("locale", "fr");
  // A statement field MongoDB does not know is refused as mongod's parser refuses it.
  Document bogus_update = make_document(
      "update", "coll", "updates",
      make_array(make_document("q", make_document(), "u",
                               make_document("$set", make_document("x", 1)), "bogus", 1)));
  Document reply = must_fail("opts", bogus_update, 40415, "Location40415");
  EXPECT_NE(reply.get("errmsg").as_string().find("update.updates.bogus"), std::string::npos)
      << reply.to_json();
  // Every statement is checked before the first runs: the valid first one wrote nothing.
  Document second_bad =
      make_document("update", "coll", "updates",
                    make_array(make_document("q", make_document("_id", 1), "u",
                                             make_document("$set", make_document("x", 1))),
                               make_document("q", make_document("_id", 2), "u",
                                             make_document("$set", make_document("x", 1)), "c",
                                             make_document("k", 1))));
  must_fail("opts", second_bad, 238, "NotImplemented");
  EXPECT_EQ(int_at(must_run("opts", make_document("count", "coll", "collation", collation)), "n"),
            3);
  EXPECT_EQ(int_at(must_run("opts", make_document("count", "coll")), "n"), 3);
  EXPECT_EQ(
      int_at(must_run("opts", make_document("count", "coll", "query", make_document("x", 1))), "n"),
      0);
  // `let` is honoured (see the client contract); a bad variable name fails as mongod's does.
  must_fail("opts",
            make_document("find", "coll", "filter",
                          Document::from_json(R"({"$expr": {"$eq": ["$_id", "$$V"]}})"), "let",
                          make_document("V", 1)),
            16870, "Location16870");
  EXPECT_EQ(
      int_at(must_run("opts",
                      make_document(
                          "delete", "coll", "deletes",
                          make_array(make_document(
                              "q", Document::from_json(R"({"$expr": {"$eq": ["$_id", "$$v"]}})"),
                              "limit", 0)),
                          "let", make_document("v", 1))),
             "n"),
      1);
}

}  // namespace
}  // namespace mongostore::testing
