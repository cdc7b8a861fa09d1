// The privilege matrix: every command the server registers × {unauthenticated, read,
// readWrite, dbAdmin, userAdmin, root}, allowed or not as MongoDB's built-in roles define
// (coarsened as src/server/auth/privileges.h says). A command registered without a privilege
// or without a row here fails, so none can be forgotten. The commands that check what they
// name (renameCollection, listDatabases, usersInfo) and the ownership of cursors and
// sessions have a test of their rules each below.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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
      // Any user runs them; what they name is checked (the rule tests below).
      {"usersInfo", "read readWrite dbAdmin userAdmin root"},
      {"listDatabases", "read readWrite dbAdmin userAdmin root"},
      {"renameCollection", "read readWrite dbAdmin userAdmin root"},
      {"serverStatus", "root"},
      {"currentOp", "root"},
      {"killOp", "root"},
      {"getCmdLineOpts", "root"},
      {"getParameter", "root"},
      {"hostInfo", "root"},
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
  EXPECT_TRUE(allowed({users}, Action::kListDatabases, "admin"));
  EXPECT_FALSE(allowed({users}, Action::kReadData, "shop"));
}

AuthenticatedUser with_roles(std::string user, std::string db, std::vector<RoleName> roles) {
  return AuthenticatedUser{std::move(user), std::move(db), std::move(roles)};
}

// renameCollection: within a database renameCollectionSameDB and find on it (readWrite,
// dbOwner; dbAdmin alone lacks find, read alone lacks renameCollectionSameDB); across
// databases read + write on the source and write on the target.
TEST(Privileges, RenameCollectionFollowsMongodsRules) {
  struct Row {
    std::vector<RoleName> roles;
    const char* from;
    const char* to;
    bool drop_target;
    bool allowed;
  };
  const std::vector<Row> rows = {
      {{{"readWrite", "shop"}}, "shop", "shop", false, true},
      {{{"readWrite", "shop"}}, "shop", "shop", true, true},
      {{{"dbOwner", "shop"}}, "shop", "shop", true, true},
      {{{"dbAdmin", "shop"}}, "shop", "shop", false, false},
      {{{"read", "shop"}}, "shop", "shop", false, false},
      {{{"dbAdmin", "shop"}, {"read", "shop"}}, "shop", "shop", false, true},
      {{{"userAdmin", "shop"}}, "shop", "shop", false, false},
      {{{"readWrite", "other"}}, "shop", "shop", false, false},
      {{{"readWriteAnyDatabase", "admin"}}, "shop", "shop", false, true},
      {{{"readAnyDatabase", "admin"}}, "shop", "shop", false, false},
      {{{"root", "admin"}}, "shop", "shop", true, true},
      // Across databases.
      {{{"readWrite", "shop"}}, "shop", "archive", false, false},
      {{{"readWrite", "shop"}, {"readWrite", "archive"}}, "shop", "archive", false, true},
      {{{"read", "shop"}, {"readWrite", "archive"}}, "shop", "archive", false, false},
      {{{"readWrite", "shop"}, {"read", "archive"}}, "shop", "archive", false, false},
      {{{"readWriteAnyDatabase", "admin"}}, "shop", "archive", true, true},
      {{{"root", "admin"}}, "shop", "archive", false, true},
      // The admin database's collections stay root's.
      {{{"readWrite", "admin"}}, "admin", "admin", false, false},
      {{{"readWriteAnyDatabase", "admin"}}, "admin", "shop", false, false},
      {{{"root", "admin"}}, "admin", "shop", false, true},
  };
  for (const Row& r : rows) {
    std::string db = r.roles.front().db;
    EXPECT_EQ(may_rename_collection({with_roles("u", db, r.roles)}, r.from, r.to, r.drop_target),
              r.allowed)
        << r.roles.front().role << "@" << db << " (" << r.roles.size() << " roles) " << r.from
        << " -> " << r.to;
  }
  EXPECT_FALSE(may_rename_collection({}, "shop", "shop", false));
}

// listDatabases: the listDatabases privilege lists every database; anyone else sees the
// databases on which a role grants anything.
TEST(Privileges, ListDatabasesListsAllOnlyWithTheListDatabasesPrivilege) {
  for (const char* role :
       {"root", "readAnyDatabase", "readWriteAnyDatabase", "dbAdminAnyDatabase"}) {
    EXPECT_TRUE(may_list_all_databases({with_roles("u", "admin", {{role, "admin"}})})) << role;
  }
  for (const char* role : {"read", "readWrite", "dbAdmin", "userAdmin", "dbOwner"}) {
    AuthenticatedUser u = with_roles("u", "shop", {{role, "shop"}});
    EXPECT_FALSE(may_list_all_databases({u})) << role;
    EXPECT_TRUE(has_privilege_on({u}, "shop")) << role;
    EXPECT_FALSE(has_privilege_on({u}, "other")) << role;
    EXPECT_FALSE(has_privilege_on({u}, "admin")) << role;
  }
  EXPECT_TRUE(
      may_list_all_databases({with_roles("u", "admin", {{"userAdminAnyDatabase", "admin"}})}));
  EXPECT_TRUE(has_privilege_on({with_roles("u", "admin", {{"userAdmin", "admin"}})}, "admin"));
  EXPECT_FALSE(has_privilege_on({}, "shop"));
}

// usersInfo: one's own user needs no role; another user needs userAdmin on its database.
TEST(Privileges, UsersInfoOnOneselfNeedsNoRole) {
  AuthenticatedUser reader = with_roles("ann", "shop", {{"read", "shop"}});
  EXPECT_TRUE(may_view_user({reader}, "ann", "shop"));
  EXPECT_FALSE(may_view_user({reader}, "bob", "shop"));
  EXPECT_FALSE(may_view_user({reader}, "ann", "other"));  // another database's "ann"
  AuthenticatedUser admin = with_roles("adm", "shop", {{"userAdmin", "shop"}});
  EXPECT_TRUE(may_view_user({admin}, "bob", "shop"));
  EXPECT_FALSE(may_view_user({admin}, "bob", "other"));
  EXPECT_FALSE(may_view_all_users({admin}));
  EXPECT_TRUE(may_view_all_users({with_roles("r", "admin", {{"root", "admin"}})}));
  EXPECT_TRUE(may_view_all_users({with_roles("r", "admin", {{"userAdminAnyDatabase", "admin"}})}));
}

// killAnySession / killAnyCursor: root only among the roles mongostore has.
TEST(Privileges, OnlyRootKillsOtherUsersSessionsAndCursors) {
  EXPECT_TRUE(may_kill_any_session({with_roles("r", "admin", {{"root", "admin"}})}));
  for (const char* role : {"readWriteAnyDatabase", "dbAdminAnyDatabase", "userAdminAnyDatabase"}) {
    EXPECT_FALSE(may_kill_any_session({with_roles("u", "admin", {{role, "admin"}})})) << role;
  }
  EXPECT_FALSE(may_kill_any_session({with_roles("u", "shop", {{"dbOwner", "shop"}})}));
}

TEST(Privileges, CursorsAreSharedOnlyBetweenCoauthorizedConnections) {
  EXPECT_TRUE(coauthorized({}, {}));
  EXPECT_TRUE(coauthorized({"a@shop"}, {"a@shop"}));
  EXPECT_TRUE(coauthorized({"a@shop", "b@admin"}, {"b@admin"}));
  EXPECT_FALSE(coauthorized({"a@shop"}, {"a@other"}));
  EXPECT_FALSE(coauthorized({"a@shop"}, {}));
  EXPECT_FALSE(coauthorized({}, {"a@shop"}));
}

}  // namespace
}  // namespace mongostore::server::auth
