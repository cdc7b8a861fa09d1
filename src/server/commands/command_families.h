// The command families: each declares its commands (name, aliases, flags, fields, handler)
// in the CommandRegistry. The dispatcher calls every one of them once, when it is made.
//
//   handshake:   what drivers, shells and tools ask first (hello, buildInfo, getParameter,
//                listCommands, ...)
//   diagnostics: the server's and a collection's state (serverStatus, collStats, dbStats,
//                validate, currentOp, killOp, profile)
//   catalog:     databases and collections (listDatabases, listCollections, create, collMod,
//                drop, dropDatabase, renameCollection)
//   writes:      insert, update, delete, findAndModify
//   reads:       find, getMore, killCursors, aggregate, count, distinct, explain
//   indexes:     createIndexes, listIndexes, dropIndexes
//   sessions:    startSession, endSessions, refreshSessions, killSessions,
//                commitTransaction, abortTransaction, replSetGetStatus
#pragma once

#include "server/commands/command_registry.h"

namespace mongostore::server {

void register_handshake_commands(CommandRegistry& registry);
void register_diagnostic_commands(CommandRegistry& registry);
void register_catalog_commands(CommandRegistry& registry);
void register_write_commands(CommandRegistry& registry);
void register_read_commands(CommandRegistry& registry);
void register_index_commands(CommandRegistry& registry);
void register_auth_commands(CommandRegistry& registry);
void register_user_commands(CommandRegistry& registry);
void register_session_commands(CommandRegistry& registry);
/// configureFailPoint: registered only under --enableTestCommands.
void register_test_commands(CommandRegistry& registry);

}  // namespace mongostore::server
