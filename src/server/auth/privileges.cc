#include "server/auth/privileges.h"

#include <map>
#include <string>

namespace mongostore::server::auth {
namespace {

const std::map<std::string_view, Action>& table() {
  static const std::map<std::string_view, Action> t = {
      // The handshake and authentication.
      {"hello", Action::kNone},
      {"isMaster", Action::kNone},
      {"ping", Action::kNone},
      {"buildInfo", Action::kNone},
      {"whatsmyuri", Action::kNone},
      {"connectionStatus", Action::kNone},
      {"endSessions", Action::kNone},
      {"saslStart", Action::kNone},
      {"saslContinue", Action::kNone},
      {"logout", Action::kNone},
      {"authenticate", Action::kNone},
      // Any user.
      {"listCommands", Action::kAuthenticated},
      {"killCursors", Action::kAuthenticated},
      // Sessions: each user's own (a statement of a transaction is checked as itself).
      {"startSession", Action::kAuthenticated},
      {"refreshSessions", Action::kAuthenticated},
      {"killSessions", Action::kAuthenticated},
      {"commitTransaction", Action::kAuthenticated},
      {"abortTransaction", Action::kAuthenticated},
      // Reads.
      {"find", Action::kReadData},
      {"aggregate", Action::kReadData},
      {"count", Action::kReadData},
      {"distinct", Action::kReadData},
      {"getMore", Action::kReadData},
      {"explain", Action::kReadData},
      {"listCollections", Action::kReadCatalog},
      {"listIndexes", Action::kReadCatalog},
      {"collStats", Action::kReadCatalog},
      {"dbStats", Action::kReadCatalog},
      // Writes.
      {"insert", Action::kWriteData},
      {"update", Action::kWriteData},
      {"delete", Action::kWriteData},
      {"findAndModify", Action::kWriteData},
      {"create", Action::kWriteData},
      {"drop", Action::kWriteData},
      {"createIndexes", Action::kWriteData},
      {"dropIndexes", Action::kWriteData},
      // Database administration.
      {"dropDatabase", Action::kDbAdmin},
      {"validate", Action::kDbAdmin},
      {"profile", Action::kDbAdmin},
      {"collMod", Action::kDbAdmin},
      // Users.
      {"createUser", Action::kUserAdmin},
      {"updateUser", Action::kUserAdmin},
      {"dropUser", Action::kUserAdmin},
      // Checked against what they name (privileges.h).
      {"usersInfo", Action::kChecksItself},
      {"listDatabases", Action::kChecksItself},
      {"renameCollection", Action::kChecksItself},
      // Server-wide.
      {"serverStatus", Action::kCluster},
      {"currentOp", Action::kCluster},
      {"killOp", Action::kCluster},
      {"getCmdLineOpts", Action::kCluster},
      {"getParameter", Action::kCluster},
      {"hostInfo", Action::kCluster},
      {"replSetGetStatus", Action::kCluster},
      {"configureFailPoint", Action::kCluster},
  };
  return t;
}

// What a per-database role grants on its own database.
bool database_role_allows(std::string_view role, Action a) {
  bool read = a == Action::kReadData || a == Action::kReadCatalog;
  if (role == "read") return read;
  if (role == "readWrite") return read || a == Action::kWriteData || a == Action::kRenameSameDb;
  if (role == "dbAdmin") {
    return a == Action::kReadCatalog || a == Action::kDbAdmin || a == Action::kRenameSameDb;
  }
  if (role == "userAdmin") return a == Action::kUserAdmin;
  if (role == "dbOwner") {
    return read || a == Action::kWriteData || a == Action::kDbAdmin || a == Action::kUserAdmin ||
           a == Action::kRenameSameDb;
  }
  return false;
}

}  // namespace

std::optional<Action> required_action(std::string_view canonical_name) {
  auto it = table().find(canonical_name);
  if (it == table().end()) return std::nullopt;
  return it->second;
}

bool role_allows(const RoleName& role, Action a, std::string_view db) {
  if (a == Action::kNone || a == Action::kAuthenticated || a == Action::kChecksItself) {
    return true;
  }
  if (role.role == "root" && role.db == "admin") return true;
  // The admin database holds the users (admin.system.users): reading its documents would
  // show their salted keys, writing them would make any role root. Only root touches its
  // collections; its users are managed through the user commands.
  if (db == "admin" &&
      (a == Action::kReadData || a == Action::kReadCatalog || a == Action::kWriteData ||
       a == Action::kDbAdmin || a == Action::kRenameSameDb)) {
    return false;
  }
  if (role.db == "admin") {
    static const std::map<std::string_view, std::string_view> kAnyDatabase = {
        {"readAnyDatabase", "read"},
        {"readWriteAnyDatabase", "readWrite"},
        {"dbAdminAnyDatabase", "dbAdmin"},
        {"userAdminAnyDatabase", "userAdmin"}};
    if (auto it = kAnyDatabase.find(role.role); it != kAnyDatabase.end()) {
      // Each of the four grants listDatabases on the cluster (mongod's built-in role
      // definitions; userAdminAnyDatabase too, with authSchemaUpgrade and invalidateUserCache).
      if (a == Action::kListDatabases) return true;
      return database_role_allows(it->second, a);
    }
  }
  return role.db == db && database_role_allows(role.role, a);
}

bool allowed(const std::vector<AuthenticatedUser>& users, Action a, std::string_view db) {
  if (a == Action::kNone) return true;
  for (const AuthenticatedUser& u : users) {
    if (a == Action::kAuthenticated || a == Action::kChecksItself) return true;
    for (const RoleName& r : u.roles) {
      if (role_allows(r, a, db)) return true;
    }
  }
  return false;
}

bool may_rename_collection(const std::vector<AuthenticatedUser>& users, std::string_view from_db,
                           std::string_view to_db, bool drop_target) {
  if (from_db == to_db) {
    // dropTarget's dropCollection is covered: every role with renameCollectionSameDB and
    // find on the database (readWrite, dbOwner and their AnyDatabase forms) also drops.
    (void)drop_target;
    return allowed(users, Action::kRenameSameDb, from_db) &&
           allowed(users, Action::kReadData, from_db);
  }
  return allowed(users, Action::kReadData, from_db) &&
         allowed(users, Action::kWriteData, from_db) && allowed(users, Action::kWriteData, to_db);
}

bool may_list_all_databases(const std::vector<AuthenticatedUser>& users) {
  return allowed(users, Action::kListDatabases, "admin");
}

bool has_privilege_on(const std::vector<AuthenticatedUser>& users, std::string_view db) {
  for (Action a : {Action::kReadData, Action::kReadCatalog, Action::kWriteData, Action::kDbAdmin,
                   Action::kUserAdmin}) {
    if (allowed(users, a, db)) return true;
  }
  return false;
}

bool may_view_user(const std::vector<AuthenticatedUser>& users, std::string_view user,
                   std::string_view db) {
  for (const AuthenticatedUser& u : users) {
    if (u.user == user && u.db == db) return true;
  }
  return allowed(users, Action::kUserAdmin, db);
}

bool may_view_all_users(const std::vector<AuthenticatedUser>& users) {
  for (const AuthenticatedUser& u : users) {
    for (const RoleName& r : u.roles) {
      if (r.db == "admin" && (r.role == "root" || r.role == "userAdminAnyDatabase")) return true;
    }
  }
  return false;
}

bool may_kill_any_session(const std::vector<AuthenticatedUser>& users) {
  return allowed(users, Action::kCluster, "admin");
}

}  // namespace mongostore::server::auth
