// CommandDispatcher: runs one MongoDB command document against the engine and returns the
// reply document, shaped as mongod shapes it ({..., ok: 1.0} or {ok: 0.0, errmsg, code,
// codeName}). It never throws for a command's failure: errors become error replies, and a
// failing write inside insert / update / delete becomes a `writeErrors` entry with its index.
//
// It reads the command's envelope ($db, the generic arguments), looks the command up in its
// command registry (src/server/commands/: one file per command family, each command declared
// once with its name, aliases, flags, fields and handler), runs the handler and shapes the
// reply. An unknown command fails CommandNotFound (59); a field the command neither honours
// nor refuses by name fails Location40415 before the command runs, so no option is ever
// ignored; one MongoDB has and mongostore does not fails NotImplemented (238). listCommands
// answers from that registry.
//
// It owns the server-side cursors of find, aggregate and the listing commands (id -> engine
// cursor, src/server/cursor_registry.h), which are shared by every connection (as mongod's
// are) and expire after `cursor_idle_timeout` without use (ten minutes, mongod's
// cursorTimeoutMillis default); together they hold at most `cursor_memory_limit` of results,
// the least recently used closed first past it.
//
// Write and read concerns are checked as mongod checks them, as the primary of a one-member
// replica set or, with `standalone`, as a standalone (server/generic_arguments.h).
// `j: true`, `fsync: true` (or w: "majority", which implies the journal on mongod) make the
// acknowledgement wait until the write is on stable storage. With the durable engine every
// commit is already fsynced; with the journaled engine the dispatcher forces a checkpoint
// before replying; the in-memory engine has nothing to make durable and accepts it (as a
// mongod without journaling answers `j` with `w: 1` semantics). `$readPreference` and
// `$clusterTime` are accepted: a single server has nothing to route or wait for.
//
// Sessions (replica-set mode, server/sessions/): a command with an `lsid` runs checked out of
// its session; with a `txnNumber` it is a retryable write (run once per txnNumber) or, with
// `autocommit: false`, a statement of a multi-document transaction, which runs on the
// transaction's engine (server/sessions/session_statements.h). Replies carry
// `operationTime` and `$clusterTime`; errors carry mongod's `errorLabels`.
//
// Thread safety: run() and open_cursors() may be called from any thread at once (one call per
// connection thread); the engine and the registries it shares between them are thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/engine.h"

namespace mongostore::server {

namespace auth {
class AuthSession;
}

/// What the dispatcher knows about the connection a command came from.
struct ConnectionInfo {
  int64_t id = 0;
  std::string peer;  // "host:port"
  /// Connections open on the server (serverStatus.connections.current).
  size_t open_connections = 0;
  /// Connections accepted since start (serverStatus.connections.totalCreated).
  int64_t total_connections = 0;
  /// The server's connection bound (serverStatus.connections.available is what is left).
  size_t max_connections = 0;
  /// Connections whose awaitable hello is being held for a topology change or its
  /// maxAwaitTimeMS (serverStatus.connections.awaitingTopologyChanges).
  int64_t awaiting_topology_changes = 0;
  /// Who the connection authenticated as (saslStart / saslContinue), shared by its commands.
  /// Null: the connection cannot authenticate (authentication commands fail).
  std::shared_ptr<auth::AuthSession> auth;
  /// True when the peer is on the loopback interface (the localhost exception).
  bool loopback = false;
  /// The application name its handshake gave (hello's client.application.name).
  std::string app_name;
};

struct DispatcherOptions {
  /// Cursors unused this long are closed; a later getMore fails CursorNotFound (43).
  std::chrono::milliseconds cursor_idle_timeout = std::chrono::minutes(10);
  /// Results all open cursors together may hold in memory for later getMores (documents
  /// fetched but not yet returned, a sort's whole result). Keeping a cursor past it closes the
  /// cursors least recently used (a later getMore on them fails CursorNotFound, 43) until the
  /// total fits again; the cursor just kept always stays.
  size_t cursor_memory_limit = size_t{512} * 1024 * 1024;
  /// Commands taking longer are reported through `log` (mongod's slowms).
  std::chrono::milliseconds slow_operation = std::chrono::milliseconds(100);
  /// Receives one line per slow operation; empty: nothing is logged.
  std::function<void(const std::string&)> log;
  /// getCmdLineOpts: the server's command line and its options as mongod's config names
  /// them ({net: {bindIp, port}, storage: {...}}).
  std::vector<std::string> command_line;
  bson::Document parsed_options;
  /// serve --auth: every command but the handshake and authentication ones needs an
  /// authenticated user whose roles allow it; otherwise Unauthorized (13).
  bool auth_required = false;
  /// Receives one line per failed authentication (with the client's address); empty: none.
  std::function<void(const std::string&)> security_log;
  /// serve --standalone: answer as a standalone mongod (no replica set, no cluster time, no
  /// transactions or retryable writes). Otherwise the server is the primary of a one-member
  /// replica set named `replica_set_name`, reached at `advertise` ("host:port").
  bool standalone = false;
  std::string replica_set_name = "rs0";
  std::string advertise;
  /// Sessions unused this long end (logicalSessionTimeoutMinutes: 30 minutes).
  std::chrono::milliseconds session_timeout = std::chrono::minutes(30);
  /// At most this many sessions exist at once (mongod's maxSessions).
  size_t max_sessions = 1000000;
  /// An open transaction older than this is aborted (transactionLifetimeLimitSeconds).
  std::chrono::milliseconds transaction_lifetime_limit = std::chrono::seconds(60);
  /// serve --enableTestCommands: configureFailPoint is available.
  bool enable_test_commands = false;
};

class CommandDispatcher {
 public:
  explicit CommandDispatcher(std::shared_ptr<engine::Engine> engine,
                             DispatcherOptions options = {});
  ~CommandDispatcher();

  /// Runs `command` (the merged OP_MSG body and document sequences) and returns the reply.
  /// `default_db` is used when the command has no `$db`. Throws (mongostore::Error) only
  /// when the connection must be closed without a reply (a failCommand fail point with
  /// closeConnection).
  bson::Document run(const bson::Document& command, const ConnectionInfo& connection,
                     std::string_view default_db = "admin");

  /// The number of open server-side cursors.
  size_t open_cursors() const;

  /// Sets the address hello advertises ("host:port"), once the port is known. Call before
  /// the first command runs.
  void set_advertised_address(std::string host_port);

  /// The number of logical sessions.
  size_t sessions() const;

  /// True while a test fail point is on (the server then runs every command on its
  /// workers, so a blocked hello never holds a network thread).
  bool fail_points_active() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mongostore::server
