// Server: the MongoDB wire protocol (OP_MSG, legacy OP_QUERY hello) in front of an Engine.
//
// The server accepts TCP connections on one address, runs one Asio coroutine per connection
// (each on its own strand) on a small thread pool, parses each request, hands the command to
// CommandDispatcher (which calls the engine) and writes the reply. A malformed message, one
// over kMaxMessageSize, a bad OP_MSG checksum, or a client that stops sending in the middle
// of a message (for `message_timeout`) closes only the connection that sent it, with a log
// line saying why. Log lines (listening address, connection open/close and why, refused
// connections, slow operations, cursor timeouts) go to stderr, one event per line.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mongostore/engine/engine.h"
#include "mongostore/server/command_dispatcher.h"

namespace mongostore::server {

/// MongoDB's limit on one wire message (hello's maxMessageSizeBytes).
inline constexpr int32_t kMaxMessageSize = 48000000;

/// What the server does with TLS (mongod's net.tls.mode): disabled; allowTLS and preferTLS
/// accept TLS and plain connections alike (they differ on mongod only for outgoing
/// connections, which mongostore has none of); requireTLS closes a connection that does not
/// begin with a TLS handshake.
enum class TlsMode { kDisabled, kAllowTLS, kPreferTLS, kRequireTLS };

struct ServerOptions {
  /// Address to listen on.
  std::string bind = "127.0.0.1";
  /// TCP port; 0 picks a free port (read it back with Server::port()).
  uint16_t port = 27017;
  /// Connections past this many are closed as soon as they are accepted.
  size_t max_connections = 1000;
  /// Network threads: they read and write messages and answer the handshake and `ping`.
  size_t threads = 2;
  /// Worker threads running every other command (the engine's work). Commands block on
  /// fsync and disk reads, so there are many more than cores, and durable writes from
  /// concurrent connections commit together (one log flush serves all that are waiting).
  /// 0: 8 per core, at least 16.
  size_t workers = 0;
  /// Write per-connection log lines to stderr.
  bool log = true;
  /// Once a message has started arriving, the rest must come within this long.
  std::chrono::milliseconds message_timeout = std::chrono::seconds(30);
  /// On stop(), connections in the middle of a command get this long to send their reply.
  std::chrono::milliseconds drain_timeout = std::chrono::seconds(10);
  /// Cursor expiry and slow-operation threshold (see CommandDispatcher).
  std::chrono::milliseconds cursor_idle_timeout = std::chrono::minutes(10);
  size_t cursor_memory_limit = DispatcherOptions{}.cursor_memory_limit;
  std::chrono::milliseconds slow_operation = std::chrono::milliseconds(100);
  /// What getCmdLineOpts reports: the command line (argv) and the options it set, shaped as
  /// mongod's configuration ({net: {bindIp, port}, storage: {dbPath}}).
  std::vector<std::string> command_line;
  bson::Document parsed_options;
  /// --auth: commands other than the handshake and authentication need an authenticated user
  /// (see CommandDispatcher).
  bool auth = false;
  /// TLS: the mode, the PEM file holding the server's certificate chain and its private key
  /// (required unless disabled), and optionally a CA file: client certificates are then
  /// verified against it when a client presents one (none is required; mongostore has no
  /// x.509 authentication). start() fails BadValue when a file cannot be loaded.
  TlsMode tls_mode = TlsMode::kDisabled;
  std::string tls_cert_key_file;
  std::string tls_ca_file;
  /// --standalone: answer as a standalone mongod. Otherwise (the default) the server is the
  /// primary of a one-member replica set named `replica_set_name` (--replSet), which hello
  /// advertises at `advertise` (--advertise host:port; empty: the bound address and port).
  /// An awaitable hello (the drivers' streaming monitor) is answered after its
  /// maxAwaitTimeMS (at most a minute) on a timer, or at once when the server stops; with
  /// exhaustAllowed the replies stream (moreToCome), one per maxAwaitTimeMS.
  bool standalone = false;
  std::string replica_set_name = "rs0";
  std::string advertise;
  /// Logical sessions unused this long end (logicalSessionTimeoutMinutes).
  std::chrono::milliseconds session_timeout = std::chrono::minutes(30);
  /// An open multi-document transaction older than this is aborted; its next statement or
  /// commit fails NoSuchTransaction (251), transient (transactionLifetimeLimitSeconds).
  std::chrono::milliseconds transaction_lifetime_limit =
      DispatcherOptions{}.transaction_lifetime_limit;
  /// --enableTestCommands: configureFailPoint (mongod's enableTestCommands=1).
  bool enable_test_commands = false;
};

class Server {
 public:
  Server(std::shared_ptr<engine::Engine> engine, ServerOptions options);
  /// Stops the server if it is still running.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Binds, listens and starts the thread pool. Throws Error(HostUnreachable) when the address
  /// cannot be bound.
  void start();
  /// The port actually listened on (after start()).
  uint16_t port() const;
  /// The number of logical sessions.
  size_t sessions() const;
  /// Stops accepting, lets each connection finish the command it is running and send its
  /// reply (up to drain_timeout), closes every connection and joins the threads. Idempotent.
  void stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mongostore::server
