// Walks every command `mongostore serve` registers (its listCommands, which is the dispatcher's
// own command table) and checks that an option it does not know is refused, never ignored:
// each command runs once as given here (it must succeed) and once with each probe option
// added (it must fail). A command added to the server without an entry here fails the test,
// so every new command is checked the day it appears.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
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

class EveryCommandTest : public ServerCommandTest {
 protected:
  static bool cannot_succeed_alone(const std::string& name) {
    return name == "saslContinue" || name == "authenticate" || name == "commitTransaction" ||
           name == "abortTransaction";
  }

  // A cursor with documents left, for getMore.
  int64_t open_cursor() {
    Document reply = must_run("walker", make_document("find", "walk", "batchSize", 1));
    return int_at(reply, "cursor.id");
  }

  // How to run each command successfully. The lambda may prepare what the command needs.
  std::map<std::string, std::function<Document()>> valid_invocations() {
    auto fixed = [](Document d) { return [d] { return d; }; };
    std::map<std::string, std::function<Document()>> m;
    m["aggregate"] = fixed(
        make_document("aggregate", "walk", "pipeline", make_array(), "cursor", make_document()));
    m["buildInfo"] = fixed(make_document("buildInfo", 1));
    m["buildinfo"] = fixed(make_document("buildinfo", 1));
    m["collStats"] = fixed(make_document("collStats", "walk"));
    m["collMod"] = fixed(make_document("collMod", "walk", "validationLevel", "strict"));
    m["connectionStatus"] = fixed(make_document("connectionStatus", 1));
    m["count"] = fixed(make_document("count", "walk"));
    // A new name each time: create honours `collation`, so the probe creates one too.
    m["create"] = [n = std::make_shared<int>(0)] {
      return make_document("create", "walk_created_" + std::to_string((*n)++));
    };
    m["createIndexes"] = fixed(
        make_document("createIndexes", "walk", "indexes",
                      make_array(make_document("key", make_document("x", 1), "name", "x_1"))));
    m["currentOp"] = fixed(make_document("currentOp", 1));
    m["dbStats"] = fixed(make_document("dbStats", 1));
    m["delete"] =
        fixed(make_document("delete", "walk", "deletes",
                            make_array(make_document("q", make_document("none", 1), "limit", 0))));
    m["deleteIndexes"] = fixed(make_document("deleteIndexes", "walk", "index", "*"));
    m["distinct"] = fixed(make_document("distinct", "walk", "key", "a"));
    m["drop"] = fixed(make_document("drop", "walk_dropped"));
    m["dropDatabase"] = fixed(make_document("dropDatabase", 1));
    m["dropIndexes"] = fixed(make_document("dropIndexes", "walk", "index", "*"));
    m["endSessions"] = fixed(make_document("endSessions", make_array()));
    m["explain"] = fixed(make_document("explain", make_document("find", "walk")));
    m["find"] = fixed(make_document("find", "walk"));
    for (const char* name : {"findAndModify", "findandmodify"}) {
      m[name] =
          fixed(make_document(name, "walk", "query", make_document("none", 1), "remove", true));
    }
    m["getCmdLineOpts"] = fixed(make_document("getCmdLineOpts", 1));
    m["getMore"] = [this] { return make_document("getMore", open_cursor(), "collection", "walk"); };
    m["getParameter"] = fixed(make_document("getParameter", 1, "featureCompatibilityVersion", 1));
    for (const char* name : {"hello", "isMaster", "ismaster"})
      m[name] = fixed(make_document(name, 1));
    m["hostInfo"] = fixed(make_document("hostInfo", 1));
    m["insert"] = fixed(make_document("insert", "walk", "documents", make_array(make_document())));
    m["killCursors"] =
        fixed(make_document("killCursors", "walk", "cursors", make_array(int64_t{123456789})));
    m["killOp"] = fixed(make_document("killOp", 1, "op", 987654321));
    m["listCollections"] = fixed(make_document("listCollections", 1));
    m["listCommands"] = fixed(make_document("listCommands", 1));
    m["listDatabases"] = fixed(make_document("listDatabases", 1));
    m["listIndexes"] = fixed(make_document("listIndexes", "walk"));
    m["ping"] = fixed(make_document("ping", 1));
    m["profile"] = fixed(make_document("profile", -1));
    m["renameCollection"] = [this] {
      must_run("walker",
               make_document("insert", "walk_from", "documents", make_array(make_document())));
      return make_document("renameCollection", "walker.walk_from", "to", "walker.walk_to",
                           "dropTarget", true);
    };
    m["serverStatus"] = fixed(make_document("serverStatus", 1));
    m["update"] = fixed(
        make_document("update", "walk", "updates",
                      make_array(make_document("q", make_document("none", 1), "u",
                                               make_document("$set", make_document("a", 1))))));
    m["usersInfo"] = fixed(make_document("usersInfo", 1));
    m["validate"] = fixed(make_document("validate", "walk"));
    // The user commands and SASL: a user of walker to act on (made again when a command
    // before dropped it; the outcome of making it is not what is tested).
    auto ensure_user = [this] {
      client_->run("walker", make_document("createUser", "walker_u", "pwd", "pw", "roles",
                                           make_array("read")));
    };
    m["createUser"] = [this] {
      client_->run("walker", make_document("dropUser", "walker_u"));
      return make_document("createUser", "walker_u", "pwd", "pw", "roles", make_array("read"));
    };
    m["updateUser"] = [ensure_user] {
      ensure_user();
      return make_document("updateUser", "walker_u", "roles", make_array("read"));
    };
    m["dropUser"] = [ensure_user] {
      ensure_user();
      return make_document("dropUser", "walker_u");
    };
    m["saslStart"] = [ensure_user] {
      ensure_user();
      static const std::string first = "n,,n=walker_u,r=fyko+d2lbbFgONRv9qkxdawL";
      return make_document(
          "saslStart", 1, "mechanism", "SCRAM-SHA-256", "payload",
          bson::BinaryView{0, {reinterpret_cast<const uint8_t*>(first.data()), first.size()}});
    };
    m["logout"] = fixed(make_document("logout", 1));
    // These cannot succeed alone (a conversation's second step; a mechanism not offered):
    // only the refusal of the probes is checked.
    m["saslContinue"] = fixed(
        make_document("saslContinue", 1, "conversationId", 1, "payload", bson::BinaryView{0, {}}));
    m["authenticate"] = fixed(make_document("authenticate", 1, "mechanism", "MONGODB-X509"));
    m["whatsmyuri"] = fixed(make_document("whatsmyuri", 1));
    m["startSession"] = fixed(make_document("startSession", 1));
    m["refreshSessions"] = fixed(make_document("refreshSessions", make_array()));
    m["killSessions"] = [] {
      uint8_t uuid[16] = {9, 9, 9, 9, 9, 9, 0x49, 9, 0x89, 9, 9, 9, 9, 9, 9, 9};
      return make_document(
          "killSessions",
          make_array(make_document("id", bson::BinaryView{4, std::span<const uint8_t>(uuid)})));
    };
    m["replSetGetStatus"] = fixed(make_document("replSetGetStatus", 1));
    // Outside a transaction these fail: only the refusal of the probes is checked.
    m["commitTransaction"] = fixed(make_document("commitTransaction", 1));
    m["abortTransaction"] = fixed(make_document("abortTransaction", 1));
    return m;
  }
};

TEST_F(EveryCommandTest, EveryRegisteredCommandRefusesOptionsItDoesNotKnow) {
  must_run("walker", make_document("insert", "walk", "documents",
                                   make_array(make_document("a", 1), make_document("a", 2),
                                              make_document("a", 3))));
  Document listed = must_run("admin", make_document("listCommands", 1));
  DocumentView commands = listed.get("commands").as_document();
  ASSERT_GT(commands.count(), 30u) << listed.to_json();
  auto invocations = valid_invocations();
  // Options refused: one no MongoDB command knows, and collation, except by the commands
  // that honour it (create keeps it as the collection's default collation).
  const std::vector<Document> probes = {make_document("zzUnknownOption", 1),
                                        make_document("collation", make_document("locale", "fr"))};
  const std::set<std::string> honour_collation = {
      "find", "aggregate", "count", "distinct", "findAndModify", "findandmodify", "create"};
  for (const bson::Element& command : commands) {
    std::string name(command.key);
    SCOPED_TRACE(name);
    auto it = invocations.find(name);
    ASSERT_NE(it, invocations.end())
        << "the server registers '" << name << "', which this test does not know: add a valid "
        << "invocation of it to valid_invocations()";
    bool admin_only = command.value.as_document().get("adminOnly").truthy();
    // dropDatabase drops a database of its own, so the others keep theirs.
    std::string db = admin_only ? "admin" : name == "dropDatabase" ? "walker_dropped" : "walker";
    for (const Document& probe : probes) {
      bson::DocumentBuilder with;
      with.append_elements(it->second());
      with.append_elements(probe);
      Document cmd = with.finish();
      CommandOutcome out = client_->run(db, cmd);
      if (name == "currentOp") {
        // currentOp's other fields are a filter over the operations (as on mongod): the
        // option is honoured by matching no operation.
        EXPECT_EQ(ok_in(out.reply), 1.0) << out.reply.to_json();
        EXPECT_EQ(out.reply.get("inprog").as_array().count(), 0u) << out.reply.to_json();
        continue;
      }
      if (probe.view().has("collation") && honour_collation.count(name) != 0) {
        EXPECT_EQ(ok_in(out.reply), 1.0) << cmd.to_json() << ": " << out.reply.to_json();
        continue;
      }
      EXPECT_EQ(ok_in(out.reply), 0.0) << cmd.to_json() << " was accepted: " << out.reply.to_json();
      EXPECT_TRUE(out.reply.get("errmsg").is_string()) << out.reply.to_json();
      if (cannot_succeed_alone(name)) {
        int64_t code = int_at(out.reply, "code");
        EXPECT_TRUE(code == 40415 || code == 238) << out.reply.to_json();
      }
    }
    if (cannot_succeed_alone(name)) continue;
    // Without the probe the same command succeeds, so the refusal was the option's.
    must_run(db, it->second());
  }
}

}  // namespace
}  // namespace mongostore::testing
