// The commands drivers' test suites, shells and GUI tools send before anything else
// (issue 18): getCmdLineOpts, getParameter, listCommands, hostInfo, profile, currentOp,
// killOp, $listLocalSessions and usersInfo, answered as mongod answers them on a standalone
// without authentication.
#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/builder.h"
#include "server/server_command_test.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::DocumentView;
using bson::make_array;
using bson::make_document;

class FirstContactTest : public ServerCommandTest {};

TEST_F(FirstContactTest, GetCmdLineOptsReportsTheCommandLine) {
  Document reply = must_run("admin", make_document("getCmdLineOpts", 1));
  DocumentView argv = reply.get("argv").as_array();
  bool memory = false;
  for (const bson::Element& e : argv) memory |= e.value.as_string() == "--memory";
  EXPECT_TRUE(memory) << reply.to_json();
  EXPECT_EQ(reply.get_path("parsed.storage.engine").as_string(), "inMemory") << reply.to_json();
  EXPECT_TRUE(reply.get_path("parsed.net.port").is_number()) << reply.to_json();
  must_fail("db", make_document("getCmdLineOpts", 1), 13, "Unauthorized");
}

TEST_F(FirstContactTest, GetParameterAnswersTheParametersItHas) {
  Document fcv =
      must_run("admin", make_document("getParameter", 1, "featureCompatibilityVersion", 1));
  EXPECT_EQ(fcv.get_path("featureCompatibilityVersion.version").as_string(), "7.0");
  EXPECT_FALSE(fcv.has("logLevel")) << fcv.to_json();
  Document all = must_run("admin", make_document("getParameter", "*"));
  EXPECT_TRUE(all.has("featureCompatibilityVersion")) << all.to_json();
  EXPECT_TRUE(all.has("requireApiVersion")) << all.to_json();
  Document details = must_run(
      "admin", make_document("getParameter", make_document("showDetails", true), "logLevel", 1));
  EXPECT_EQ(int_at(details, "logLevel.value"), 0) << details.to_json();
  EXPECT_TRUE(details.get_path("logLevel.settableAtRuntime").is_missing() == false);
  must_fail("admin", make_document("getParameter", 1, "noSuchParameter", 1), 72, "InvalidOptions");
  must_fail("admin", make_document("getParameter", 1), 72, "InvalidOptions");
  must_fail("db", make_document("getParameter", "*"), 13, "Unauthorized");
}

TEST_F(FirstContactTest, ListCommandsListsWhatRuns) {
  Document reply = must_run("admin", make_document("listCommands", 1));
  DocumentView commands = reply.get("commands").as_document();
  for (const char* name : {"find", "insert", "listCommands", "getParameter", "validate"}) {
    EXPECT_TRUE(commands.has(name)) << name;
  }
  // Removed in MongoDB 5.1: not listed and not run.
  EXPECT_FALSE(commands.has("getLastError"));
  must_fail("admin", make_document("getLastError", 1), 59, "CommandNotFound");
  EXPECT_TRUE(commands.get_path("listDatabases.adminOnly").truthy());
  EXPECT_FALSE(commands.get_path("find.adminOnly").truthy());
}

TEST_F(FirstContactTest, HostInfoDescribesTheMachine) {
  Document reply = must_run("admin", make_document("hostInfo", 1));
  EXPECT_GT(int_at(reply, "system.numCores"), 0) << reply.to_json();
  EXPECT_GT(int_at(reply, "system.memSizeMB"), 0) << reply.to_json();
  EXPECT_TRUE(reply.get_path("system.hostname").is_string());
  EXPECT_TRUE(reply.get_path("os.type").is_string());
}

TEST_F(FirstContactTest, ProfileIsOffAndStaysOff) {
  Document read = must_run("prof", make_document("profile", -1));
  EXPECT_EQ(int_at(read, "was"), 0) << read.to_json();
  Document off = must_run("prof", make_document("profile", 0));
  EXPECT_EQ(int_at(off, "was"), 0);
  must_fail("prof", make_document("profile", 1), 238, "NotImplemented");
  must_fail("prof", make_document("profile", 2), 238, "NotImplemented");
  must_fail("prof", make_document("profile", 0, "slowms", 5), 238, "NotImplemented");
  must_fail("prof", make_document("profile", 7), 2, "BadValue");
}

TEST_F(FirstContactTest, CurrentOpListsRunningOperationsAndKillOpNeverLies) {
  Document reply = must_run("admin", make_document("currentOp", 1));
  DocumentView ops = reply.get("inprog").as_array();
  // At least this command itself, as on mongod.
  bool self = false;
  for (const bson::Element& e : ops) {
    DocumentView op = e.value.as_document();
    if (op.get_path("command.currentOp").is_missing()) continue;
    self = true;
    EXPECT_EQ(op.get("op").as_string(), "command");
    EXPECT_TRUE(op.get("active").truthy());
    EXPECT_TRUE(op.get("opid").is_number());
  }
  EXPECT_TRUE(self) << reply.to_json();
  Document filtered = must_run("admin", make_document("currentOp", 1, "ns", "no.such"));
  EXPECT_EQ(filtered.get("inprog").as_array().count(), 0u) << filtered.to_json();
  must_fail("admin", make_document("currentOp", 1, "$all", true), 238, "NotImplemented");
  must_fail("db", make_document("currentOp", 1), 13, "Unauthorized");

  Document killed = must_run("admin", make_document("killOp", 1, "op", 424242));
  EXPECT_EQ(killed.get("info").as_string(), "attempting to kill op");
  must_fail("admin", make_document("killOp", 1), 4, "NoSuchKey");
}

TEST_F(FirstContactTest, ListLocalSessionsIsEmpty) {
  Document reply = must_run(
      "admin", make_document("aggregate", 1, "pipeline",
                             make_array(make_document("$listLocalSessions", make_document())),
                             "cursor", make_document()));
  EXPECT_EQ(reply.get_path("cursor.firstBatch").as_array().count(), 0u) << reply.to_json();
  Document counted = must_run(
      "admin",
      make_document("aggregate", 1, "pipeline",
                    make_array(make_document("$listLocalSessions", make_document("allUsers", true)),
                               make_document("$count", "n")),
                    "cursor", make_document()));
  EXPECT_EQ(counted.get_path("cursor.firstBatch").as_array().count(), 0u) << counted.to_json();
  must_fail("admin",
            make_document("aggregate", 1, "pipeline",
                          make_array(make_document("$listLocalSessions", make_document("zz", 1))),
                          "cursor", make_document()),
            40415, "Location40415");
}

TEST_F(FirstContactTest, ValidateWalksTheCollectionAndItsIndexes) {
  must_run("val",
           make_document("insert", "c", "documents",
                         make_array(make_document("_id", 1, "a", make_array(1, 2, 3), "b", 1),
                                    make_document("_id", 2, "a", 4), make_document("_id", 3))));
  must_run("val",
           make_document("createIndexes", "c", "indexes",
                         make_array(make_document("key", make_document("a", 1), "name", "a_1"),
                                    make_document("key", make_document("b", 1), "name", "b_sparse",
                                                  "sparse", true))));
  Document reply = must_run("val", make_document("validate", "c", "full", true));
  EXPECT_TRUE(reply.get("valid").truthy()) << reply.to_json();
  EXPECT_EQ(int_at(reply, "nrecords"), 3);
  EXPECT_EQ(int_at(reply, "nIndexes"), 3);
  EXPECT_EQ(int_at(reply, "keysPerIndex._id_"), 3);
  // Multikey: one key per array element; a missing field is null, except in a sparse index.
  EXPECT_EQ(int_at(reply, "keysPerIndex.a_1"), 5) << reply.to_json();
  EXPECT_EQ(int_at(reply, "keysPerIndex.b_sparse"), 1) << reply.to_json();
  EXPECT_EQ(reply.get("errors").as_array().count(), 0u);
  must_fail("val", make_document("validate", "missing"), 26, "NamespaceNotFound");
  must_fail("val", make_document("validate", "c", "repair", true), 238, "NotImplemented");
}

TEST_F(FirstContactTest, UsersInfoHasNoUsers) {
  Document reply = must_run("admin", make_document("usersInfo", 1));
  EXPECT_EQ(reply.get("users").as_array().count(), 0u) << reply.to_json();
  Document named = must_run("db", make_document("usersInfo", "alice"));
  EXPECT_EQ(named.get("users").as_array().count(), 0u) << named.to_json();
  must_fail("db", make_document("usersInfo", "alice", "showPrivileges", true), 238,
            "NotImplemented");
}

}  // namespace
}  // namespace mongostore::testing
