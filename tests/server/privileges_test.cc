// The privilege matrix: every command the server registers × {unauthenticated, read,
// readWrite, dbAdmin, userAdmin, root}, allowed or not as MongoDB's built-in roles define
// (coarsened as src/server/auth/privileges.h says). A command registered without a privilege
// or without a row here fails, so none can be forgotten.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "server/auth/privileges.h"
#include "server/commands/command_families.h"
#include "server/commands/command_registry.h"

namespace mongostore::server::auth {
namespace {

CommandRegistry all_commands() {
  CommandRegistry r;
  register_handshake_commands(r);
  register_diagnostic_commands(r);
  register_catalog_commands(r);
  register_write_commands(r);
  register_read_commands(r);
  register_index_commands(r);
  register_auth_commands(r);
  register_user_commands(r);
  return r;
}

// Who may run each command on its database ("-" is the unauthenticated connection).
const std::map<std::string, std::string>& expected() {
  static const std::map<std::string, std::string> m = {
      {"hello", "- read readWrite dbAdmin userAdmin root"},
      {"isMaster", "- read readWrite dbAdmin userAdmin root"},
      {"ping", "- read readWrite dbAdmin userAdmin root"},
      {"buildInfo", "- read readWrite dbAdmin userAdmin root"},
      {"whatsmyuri", "- read readWrite dbAdmin userAdmin root"},
      {"connectionStatus", "- read readWrite dbAdmin userAdmin root"},
      {"endSessions", "- read readWrite dbAdmin userAdmin root"},
      {"saslStart", "- read readWrite dbAdmin userAdmin root"},
      {"saslContinue", "- read readWrite dbAdmin userAdmin root"},
      {"logout", "- read readWrite dbAdmin userAdmin root"},
      {"authenticate", "- read readWrite dbAdmin userAdmin root"},
      {"listCommands", "read readWrite dbAdmin userAdmin root"},
      {"killCursors", "read readWrite dbAdmin userAdmin root"},
      {"startSession", "read readWrite dbAdmin userAdmin root"},
      {"refreshSessions", "read readWrite dbAdmin userAdmin root"},
      {"killSessions", "read readWrite dbAdmin userAdmin root"},
      {"commitTransaction", "read readWrite dbAdmin userAdmin root"},
      {"abortTransaction", "read readWrite dbAdmin userAdmin root"},
      {"find", "read readWrite root"},
      {"aggregate", "read readWrite root"},
      {"count", "read readWrite root"},
      {"distinct", "read readWrite root"},
      {"getMore", "read readWrite root"},
      {"explain", "read readWrite root"},
      {"listCollections", "read readWrite dbAdmin root"},
      {"listIndexes", "read readWrite dbAdmin root"},
      {"collStats", "read readWrite dbAdmin root"},
      {"dbStats", "read readWrite dbAdmin root"},
      {"insert", "readWrite root"},
      {"update", "readWrite root"},
      {"delete", "readWrite root"},
      {"findAndModify", "readWrite root"},
      {"create", "readWrite root"},
      {"drop", "readWrite root"},
      {"createIndexes", "readWrite root"},
      {"dropIndexes", "readWrite root"},
      {"dropDatabase", "dbAdmin root"},
      {"validate", "dbAdmin root"},
      {"profile", "dbAdmin root"},
      {"collMod", "dbAdmin root"},
      {"createUser", "userAdmin root"},
      {"updateUser", "userAdmin root"},
      {"dropUser", "userAdmin root"},
      {"usersInfo", "userAdmin root"},
      {"listDatabases", "root"},
      {"serverStatus", "root"},
      {"currentOp", "root"},
      {"killOp", "root"},
      {"getCmdLineOpts", "root"},
      {"getParameter", "root"},
      {"hostInfo", "root"},
      {"renameCollection", "root"},
      {"replSetGetStatus", "root"},
      {"configureFailPoint", "root"},
  };
  return m;
}

TEST(Privileges, EveryCommandDeclaresOneAndTheHandshakeFlagAgrees) {
  CommandRegistry registry = all_commands();
  for (const auto& [name, spec] : registry.all()) {
    std::optional<Action> action = required_action(spec.name);
    EXPECT_TRUE(action.has_value()) << spec.name << " has no privilege in auth/privileges.cc";
    if (!action) continue;
    EXPECT_EQ(*action == Action::kNone, (spec.flags & kNoAuth) != 0) << spec.name;
    EXPECT_TRUE(expected().count(spec.name)) << spec.name << " has no row in the matrix";
  }
}

TEST(Privileges, MatrixOfCommandsAndBuiltInRoles) {
  CommandRegistry registry = all_commands();
  for (const auto& [name, spec] : registry.all()) {
    auto row = expected().find(spec.name);
    if (row == expected().end()) continue;  // reported above
    std::set<std::string> who;
    std::istringstream words(row->second);
    for (std::string w; words >> w;) who.insert(w);
    std::string db = (spec.flags & kAdminOnly) ? "admin" : "shop";
    Action action = *required_action(spec.name);
    EXPECT_EQ(allowed({}, action, db), who.count("-") == 1) << spec.name << " unauthenticated";
    for (const char* role : {"read", "readWrite", "dbAdmin", "userAdmin"}) {
      AuthenticatedUser u{"u", db, {{role, db}}};
      EXPECT_EQ(allowed({u}, action, db), who.count(role) == 1) << spec.name << " " << role;
      // The same role on another database grants nothing here beyond what any user has.
      AuthenticatedUser elsewhere{"u", "other", {{role, "other"}}};
      bool any_user = who.count("read") && who.count("userAdmin") && who.count("dbAdmin");
      EXPECT_EQ(allowed({elsewhere}, action, db), any_user) << spec.name << " " << role;
    }
    AuthenticatedUser root{"r", "admin", {{"root", "admin"}}};
    EXPECT_EQ(allowed({root}, action, db), who.count("root") == 1) << spec.name << " root";
  }
}

TEST(Privileges, OnlyRootTouchesTheAdminDatabasesCollections) {
  // admin.system.users lives there: a readWrite of admin would otherwise write itself a
  // root user document, and a read of admin would see every user's salted keys.
  for (const char* role : {"read", "readWrite", "dbAdmin", "dbOwner", "readWriteAnyDatabase",
                           "dbAdminAnyDatabase", "readAnyDatabase"}) {
    AuthenticatedUser u{"u", "admin", {{role, "admin"}}};
    for (Action a :
         {Action::kReadData, Action::kReadCatalog, Action::kWriteData, Action::kDbAdmin}) {
      EXPECT_FALSE(allowed({u}, a, "admin")) << role;
    }
  }
  AuthenticatedUser root{"r", "admin", {{"root", "admin"}}};
  EXPECT_TRUE(allowed({root}, Action::kWriteData, "admin"));
}

TEST(Privileges, AnyDatabaseRolesApplyEverywhereFromAdminOnly) {
  AuthenticatedUser any{"a", "admin", {{"readWriteAnyDatabase", "admin"}}};
  EXPECT_TRUE(allowed({any}, Action::kWriteData, "shop"));
  EXPECT_TRUE(allowed({any}, Action::kListDatabases, "admin"));
  EXPECT_FALSE(allowed({any}, Action::kUserAdmin, "shop"));
  AuthenticatedUser misplaced{"a", "shop", {{"readWriteAnyDatabase", "shop"}}};
  EXPECT_FALSE(allowed({misplaced}, Action::kWriteData, "shop"));
  AuthenticatedUser owner{"o", "shop", {{"dbOwner", "shop"}}};
  EXPECT_TRUE(allowed({owner}, Action::kUserAdmin, "shop"));
  EXPECT_TRUE(allowed({owner}, Action::kDbAdmin, "shop"));
  EXPECT_FALSE(allowed({owner}, Action::kDbAdmin, "other"));
  AuthenticatedUser users{"u", "admin", {{"userAdminAnyDatabase", "admin"}}};
  EXPECT_TRUE(allowed({users}, Action::kUserAdmin, "shop"));
  EXPECT_FALSE(allowed({users}, Action::kReadData, "shop"));
}

}  // namespace
}  // namespace mongostore::server::auth
