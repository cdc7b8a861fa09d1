// The privileges finer than a role per command, over the wire against `mongostore serve
// --auth` (libmongoc as the client): listDatabases lists only the databases a user holds
// privileges on, renameCollection checks its two namespaces, usersInfo on oneself needs no
// role, cursors can be continued and killed only by the users who opened them, and
// killSessions without killAnySession ends only the caller's sessions. The rules themselves
// are tested one by one in privileges_test.cc.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "mongostore/bson/builder.h"
#include "server/auth_server_test.h"
#include "server/reply_path.h"
#include "server/server_command_test.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

Document lsid(uint8_t seed) {
  uint8_t uuid[16] = {seed, 9, 2, 3, 4, 5, 0x46, 7, 0x88, 9, 10, 11, 12, 13, 14, seed};
  return make_document("id", bson::BinaryView{4, std::span<const uint8_t>(uuid, 16)});
}

class FinePrivilegesWireTest : public AuthServerTest {
 protected:
  static std::unique_ptr<MongocClient> as(const std::string& user, const std::string& db) {
    return std::make_unique<MongocClient>(uri_as(user, "pw", "authSource=" + db));
  }
  // Creates `user` (password "pw") on `db` with `roles` ([{role, db}]).
  static void make_user(const std::string& user, const std::string& db, const bson::Array& roles) {
    CommandOutcome made =
        root()->run(db, make_document("createUser", user, "pwd", "pw", "roles", roles));
    ASSERT_TRUE(made.succeeded) << made.reply.to_json();
  }
  static void insert(const std::string& db, const std::string& coll, int n) {
    bson::DocumentBuilder docs;
    for (int i = 0; i < n; ++i) docs.push(make_document("i", i));
    ASSERT_TRUE(
        root()->run(db, make_document("insert", coll, "documents", docs.finish_array())).succeeded);
  }
  static int64_t code(const CommandOutcome& out) {
    return out.succeeded ? 0 : int_at(out.reply.view(), "code");
  }
  static std::set<std::string> names(const CommandOutcome& out) {
    std::set<std::string> found;
    bson::Value dbs = out.reply.view().get("databases");
    if (!dbs.is_array()) return found;
    for (const bson::Element& e : dbs.as_array()) {
      found.insert(std::string(e.value.as_document().get("name").as_string()));
    }
    return found;
  }
};

TEST_F(FinePrivilegesWireTest, ListDatabasesListsOnlyTheUsersDatabasesWithoutThePrivilege) {
  insert("ledger", "entries", 1);
  insert("secrets", "keys", 1);
  make_user("clerk", "ledger", make_array(make_document("role", "read", "db", "ledger")));
  auto clerk = as("clerk", "ledger");
  CommandOutcome listed = clerk->run("admin", make_document("listDatabases", 1));
  ASSERT_TRUE(listed.succeeded) << listed.reply.to_json();
  EXPECT_EQ(names(listed), std::set<std::string>{"ledger"});
  CommandOutcome names_only =
      clerk->run("admin", make_document("listDatabases", 1, "nameOnly", true));
  ASSERT_TRUE(names_only.succeeded);
  EXPECT_EQ(names(names_only), std::set<std::string>{"ledger"});
  EXPECT_FALSE(names_only.reply.view().has("totalSize"));
  EXPECT_TRUE(clerk->run("admin", make_document("listDatabases", 1, "authorizedDatabases", true))
                  .succeeded);
  EXPECT_EQ(
      code(clerk->run("admin", make_document("listDatabases", 1, "authorizedDatabases", false))),
      13);
  // root holds the listDatabases privilege: every database, authorizedDatabases: false too.
  std::set<std::string> all = names(root()->run("admin", make_document("listDatabases", 1)));
  EXPECT_TRUE(all.count("ledger") && all.count("secrets"));
  EXPECT_TRUE(root()
                  ->run("admin", make_document("listDatabases", 1, "authorizedDatabases", false))
                  .succeeded);
}

TEST_F(FinePrivilegesWireTest, RenameCollectionNeedsThePrivilegesOnBothNamespaces) {
  insert("moves", "a", 1);
  make_user("mover", "moves", make_array(make_document("role", "readWrite", "db", "moves")));
  make_user("tuner", "moves", make_array(make_document("role", "dbAdmin", "db", "moves")));
  auto tuner = as("tuner", "moves");
  EXPECT_EQ(
      code(tuner->run("admin", make_document("renameCollection", "moves.a", "to", "moves.b"))), 13);
  auto mover = as("mover", "moves");
  CommandOutcome same_db =
      mover->run("admin", make_document("renameCollection", "moves.a", "to", "moves.b"));
  EXPECT_TRUE(same_db.succeeded) << same_db.reply.to_json();
  // Across databases the target needs write privileges the user lacks: nothing moves.
  EXPECT_EQ(
      code(mover->run("admin", make_document("renameCollection", "moves.b", "to", "elsewhere.c"))),
      13);
  CommandOutcome count = root()->run("moves", make_document("count", "b"));
  EXPECT_EQ(int_at(count.reply.view(), "n"), 1);
  EXPECT_TRUE(root()
                  ->run("admin", make_document("renameCollection", "moves.b", "to", "elsewhere.c"))
                  .succeeded);
}

TEST_F(FinePrivilegesWireTest, UsersInfoOnOneselfNeedsNoRole) {
  make_user("patient", "clinic", make_array(make_document("role", "read", "db", "clinic")));
  make_user("doctor", "clinic", make_array(make_document("role", "readWrite", "db", "clinic")));
  auto patient = as("patient", "clinic");
  CommandOutcome self = patient->run("clinic", make_document("usersInfo", "patient"));
  ASSERT_TRUE(self.succeeded) << self.reply.to_json();
  EXPECT_EQ(path_at(self.reply.view(), "users.0.user").as_string(), "patient");
  EXPECT_TRUE(patient
                  ->run("admin", make_document("usersInfo",
                                               make_document("user", "patient", "db", "clinic")))
                  .succeeded);
  EXPECT_EQ(code(patient->run("clinic", make_document("usersInfo", "doctor"))), 13);
  EXPECT_EQ(code(patient->run("clinic", make_document("usersInfo", 1))), 13);
  EXPECT_EQ(
      code(patient->run("clinic", make_document("usersInfo", make_array("patient", "doctor")))),
      13);
  EXPECT_TRUE(patient->run("clinic", make_document("connectionStatus", 1)).succeeded);
}

TEST_F(FinePrivilegesWireTest, OnlyTheUserWhoOpenedACursorContinuesOrKillsIt) {
  insert("stacks", "books", 5);
  make_user("ann", "stacks", make_array(make_document("role", "read", "db", "stacks")));
  make_user("bob", "stacks", make_array(make_document("role", "read", "db", "stacks")));
  auto ann = as("ann", "stacks");
  auto bob = as("bob", "stacks");
  CommandOutcome found = ann->run("stacks", make_document("find", "books", "batchSize", 1));
  ASSERT_TRUE(found.succeeded) << found.reply.to_json();
  int64_t id = int_at(found.reply.view(), "cursor.id");
  ASSERT_NE(id, 0);
  EXPECT_EQ(
      code(bob->run("stacks", make_document("getMore", id, "collection", "books", "batchSize", 1))),
      13);
  EXPECT_EQ(
      code(bob->run("stacks", make_document("killCursors", "books", "cursors", make_array(id)))),
      13);
  // Still Ann's, and still open.
  CommandOutcome more =
      ann->run("stacks", make_document("getMore", id, "collection", "books", "batchSize", 1));
  ASSERT_TRUE(more.succeeded) << more.reply.to_json();
  EXPECT_EQ(int_at(more.reply.view(), "cursor.id"), id);
  // root holds killAnyCursor.
  CommandOutcome killed =
      root()->run("stacks", make_document("killCursors", "books", "cursors", make_array(id)));
  ASSERT_TRUE(killed.succeeded) << killed.reply.to_json();
  EXPECT_EQ(int_at(killed.reply.view(), "cursorsKilled.0"), id);
}

TEST_F(FinePrivilegesWireTest, KillSessionsEndsOnlyTheCallersSessionsWithoutKillAnySession) {
  make_user("teller", "bank", make_array(make_document("role", "readWrite", "db", "bank")));
  make_user("auditor", "bank", make_array(make_document("role", "readWrite", "db", "bank")));
  auto teller = as("teller", "bank");
  auto auditor = as("auditor", "bank");
  Document session = lsid(1);
  auto in_txn = [&](int64_t txn, bool first, const char* name) {
    bson::DocumentBuilder b;
    b.append("insert", "vault").append("documents", make_array(make_document("who", name)));
    b.append("lsid", session).append("txnNumber", txn).append("autocommit", false);
    if (first) b.append("startTransaction", true);
    return b.finish();
  };
  auto commit = [&](int64_t txn) {
    return make_document("commitTransaction", 1, "lsid", session, "txnNumber", txn, "autocommit",
                         false);
  };
  ASSERT_TRUE(teller->run("bank", in_txn(1, true, "teller")).succeeded);
  // The auditor names the same lsid and kills everything it may: its own sessions only.
  ASSERT_TRUE(auditor->run("admin", make_document("killSessions", make_array(session))).succeeded);
  ASSERT_TRUE(auditor->run("admin", make_document("killSessions", make_array())).succeeded);
  CommandOutcome committed = teller->run("admin", commit(1));
  EXPECT_TRUE(committed.succeeded) << committed.reply.to_json();
  // root holds killAnySession: `killSessions: []` ends the teller's open transaction.
  ASSERT_TRUE(teller->run("bank", in_txn(2, true, "teller")).succeeded);
  ASSERT_TRUE(root()->run("admin", make_document("killSessions", make_array())).succeeded);
  EXPECT_EQ(code(teller->run("admin", commit(2))), 251);
  CommandOutcome count = root()->run("bank", make_document("count", "vault"));
  EXPECT_EQ(int_at(count.reply.view(), "n"), 1);
}

}  // namespace
}  // namespace mongostore::testing
