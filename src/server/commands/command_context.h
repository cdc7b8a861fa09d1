// CommandContext: what a command's handler is handed besides its reply builder: the request
// (the command document, its database, the name it was sent under, its generic arguments,
// the connection it came on, its currentOp id) and the server it runs on (the engine, the
// cursor registry, the running operations, the command registry, the dispatcher's options
// and counters). What a later feature needs per request (a session, a transaction number) is
// a field added here, not a parameter added to every handler.
//
// The dispatcher builds one per command and it lives for that command's run only: the views
// in it point into the command document, and the references to the dispatcher's members.
// Handlers may call the engine and the registries from any thread (they are thread-safe);
// the context itself is not shared between threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/engine.h"
#include "mongostore/server/command_dispatcher.h"
#include "server/auth/auth_session.h"
#include "server/auth/user_store.h"
#include "server/commands/command_registry.h"
#include "server/cursor_registry.h"
#include "server/fail_command.h"
#include "server/generic_arguments.h"
#include "server/op_counters.h"
#include "server/operation_registry.h"
#include "server/sessions/session_catalog.h"
#include "server/topology.h"

namespace mongostore::server {

struct CommandContext {
  // --- the request ---------------------------------------------------------------------
  /// The whole command document (its first field names the command), generic arguments
  /// included.
  bson::DocumentView cmd;
  /// The database it runs against ($db, else the connection's default).
  std::string db;
  /// The name it was sent under (an alias stays the alias: ismaster, findandmodify).
  std::string name;
  /// The collection its first field names, for a command declared kCollection (checked
  /// before the handler runs: InvalidNamespace, 73, when not a non-empty string); else empty.
  std::string collection;
  /// The generic arguments it carries, already checked against its declaration.
  GenericArguments generic;
  const ConnectionInfo& connection;
  /// Its id among the running operations (currentOp's opid).
  int64_t opid = 0;
  /// Its session, checked out for the command's run (null: no lsid, or a command that
  /// manages sessions itself, such as endSessions).
  Session* session = nullptr;
  /// The transaction it is a statement of (null outside a transaction); `engine` is then
  /// the transaction's engine.
  engine::Transaction* transaction = nullptr;

  // --- the server ----------------------------------------------------------------------
  /// The engine the command works on: the server's, or its transaction's.
  engine::Engine& engine;
  CursorRegistry& cursors;
  OperationRegistry& operations;
  const CommandRegistry& commands;
  const DispatcherOptions& options;
  const OpCounters& opcounters;
  /// The users (admin.system.users).
  auth::UserStore& users;
  /// When the dispatcher started (serverStatus.uptime).
  std::chrono::steady_clock::time_point started;
  /// What the server says it is (hello, replSetGetStatus) and its cluster time.
  Topology& topology;
  SessionCatalog& sessions;
  /// The failCommand fail point (configureFailPoint, --enableTestCommands).
  FailCommand& fail_command;

  /// Who owns the cursors and sessions this command opens: under --auth the connection's
  /// authenticated users ("user@db", sorted); without it nobody (everything is shared, as
  /// on a mongod without authorization).
  std::vector<std::string> owners() const {
    if (!options.auth_required) return {};
    return auth::user_names(auth::users_of(connection.auth));
  }
};

}  // namespace mongostore::server
