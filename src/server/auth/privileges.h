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
//   readWrite     read + insert, update, delete, findAndModify, create, drop, create/drop
//                 index, renameCollectionSameDB
//   dbAdmin       the catalog reads + dropDatabase, validate, profile, collMod,
//                 renameCollectionSameDB
//   userAdmin     createUser, updateUser, dropUser, usersInfo
//   dbOwner       readWrite + dbAdmin + userAdmin
//   <role>AnyDatabase   the role on every database (read/readWrite/dbAdmin ones also list
//                 the databases)
//   root          everything, including the server-wide commands (serverStatus, currentOp,
//                 killOp, getCmdLineOpts, getParameter, hostInfo), killAnySession and
//                 killAnyCursor
// The collections of the admin database (admin.system.users among them) are root's alone:
// no other role reads or writes them there, so no role can read the stored keys or write
// itself a user document.
//
// A few commands need no role of their own but check what they name against the user's
// privileges, as mongod does (Action::kChecksItself, with the rule for each below):
// renameCollection (its two namespaces), listDatabases (lists only the databases the user has
// privileges on) and usersInfo (a user may always read its own user). The cursor commands
// (getMore, killCursors) and killSessions also act only on what the calling user opened.
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
  kCluster,        // server-wide (root only): also killAnySession, killAnyCursor
  kRenameSameDb,   // renameCollectionSameDB (not a table entry: may_rename_collection)
  kChecksItself,   // any authenticated user; the command checks what it names (below)
};

/// What the command named `canonical_name` needs; nullopt for a command not in the table.
std::optional<Action> required_action(std::string_view canonical_name);

/// True when `role` grants `action` on database `db`.
bool role_allows(const RoleName& role, Action action, std::string_view db);

/// True when any role of any of `users` grants `action` on `db` (kNone: always;
/// kAuthenticated: when there is a user).
bool allowed(const std::vector<AuthenticatedUser>& users, Action action, std::string_view db);

/// renameCollection of `from_db`.x to `to_db`.y, by mongod's rules. Within one database:
/// renameCollectionSameDB on it and find on the source (readWrite, dbOwner; dbAdmin alone
/// lacks find), plus dropCollection there with dropTarget. Across databases: find and
/// dropCollection on the source (read and write there), insert, createCollection,
/// createIndex (and dropCollection with dropTarget) on the target (write there).
bool may_rename_collection(const std::vector<AuthenticatedUser>& users, std::string_view from_db,
                           std::string_view to_db, bool drop_target);

/// True when `users` may list every database (the listDatabases action: root and the
/// read/readWrite/dbAdmin AnyDatabase roles); the others see only the databases they hold
/// some privilege on (has_privilege_on), and `authorizedDatabases: false` fails 13.
bool may_list_all_databases(const std::vector<AuthenticatedUser>& users);

/// True when `users` hold any privilege on database `db` (listDatabases' authorizedDatabases).
bool has_privilege_on(const std::vector<AuthenticatedUser>& users, std::string_view db);

/// usersInfo of `user`@`db`: a user may always view itself (mongod's implicit viewUser on
/// one's own user); any other needs userAdmin on `db`.
bool may_view_user(const std::vector<AuthenticatedUser>& users, std::string_view user,
                   std::string_view db);

/// usersInfo forAllDBs: the users of every database (userAdminAnyDatabase, root).
bool may_view_all_users(const std::vector<AuthenticatedUser>& users);

/// killAnySession (and killAnyCursor): end sessions or cursors of other users (root).
bool may_kill_any_session(const std::vector<AuthenticatedUser>& users);

}  // namespace mongostore::server::auth
