// Privileges: what each command needs, and which built-in roles grant it.
//
// Every command the server registers is named in one table here with the kind of action it
// performs; a command missing from the table is refused under --auth (fail closed) and fails
// the privilege test (tests/server/privileges_test.cc), so no command can be forgotten. The
// table lives here rather than in each family's declarations so that the security decision
// is read in one place.
//
// The actions are coarser than MongoDB's privilege actions but follow its built-in roles:
//   read          find, aggregate, count, distinct, getMore, explain + the catalog reads
//   readWrite     read + insert, update, delete, findAndModify, create, drop, create/drop index
//   dbAdmin       the catalog reads + dropDatabase, validate, profile,
//                 collMod
//   userAdmin     createUser, updateUser, dropUser, usersInfo
//   dbOwner       readWrite + dbAdmin + userAdmin
//   <role>AnyDatabase   the role on every database (read/readWrite/dbAdmin ones also list
//                 the databases)
//   root          everything, including the server-wide commands (serverStatus, currentOp,
//                 killOp, getCmdLineOpts, getParameter, hostInfo, renameCollection)
// The collections of the admin database (admin.system.users among them) are root's alone:
// no other role reads or writes them there, so no role can read the stored keys or write
// itself a user document.
// Where mongostore is stricter than mongod (listDatabases needs an AnyDatabase role instead
// of listing the databases a user may read; renameCollection needs root) it says so in
// docs/security.md.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "server/auth/auth_session.h"
#include "server/auth/roles.h"

namespace mongostore::server::auth {

enum class Action {
  kNone,           // runs unauthenticated: the handshake and authentication itself
  kAuthenticated,  // any authenticated user (listCommands, killCursors)
  kReadData,       // reads documents of the command's database
  kReadCatalog,    // reads its collections' names, indexes and statistics
  kWriteData,      // writes documents, creates and drops collections and indexes
  kDbAdmin,        // administers the database (dropDatabase, validate, profile)
  kUserAdmin,      // manages the database's users
  kListDatabases,  // lists every database
  kCluster,        // server-wide (root only)
};

/// What the command named `canonical_name` needs; nullopt for a command not in the table.
std::optional<Action> required_action(std::string_view canonical_name);

/// True when `role` grants `action` on database `db`.
bool role_allows(const RoleName& role, Action action, std::string_view db);

/// True when any role of any of `users` grants `action` on `db` (kNone: always;
/// kAuthenticated: when there is a user).
bool allowed(const std::vector<AuthenticatedUser>& users, Action action, std::string_view db);

}  // namespace mongostore::server::auth
