// `mongostore serve`: the MongoDB wire protocol in front of the embedded engine.
#include <fmt/core.h>
#include <pthread.h>

#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "commands.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/error.h"
#include "mongostore/server/server.h"

namespace mongostore::tool {

void register_serve_command(CLI::App& app, Action* action) {
  static std::string dbpath, bind = "127.0.0.1";
  static bool memory = false;
  static bool auth = false;
  static std::string tls_mode = "disabled", tls_cert_key_file, tls_ca_file;
  static uint16_t port = 27017;
  static size_t max_connections = 1000;
  static size_t workers = 0;
  static size_t disk_reserve_mb = engine::EngineOptions{}.disk_space_reserve_mb;
  static bool standalone = false, enable_test_commands = false;
  static std::string repl_set = "rs0", advertise;
  static int64_t session_timeout_ms = 30 * 60 * 1000;
  static int64_t transaction_lifetime_s = 60;

  auto* serve = app.add_subcommand("serve", "Serve the engine over the MongoDB wire protocol");
  serve->add_option("--dbpath", dbpath, "Data directory");
  serve->add_flag("--memory", memory, "Keep everything in memory (nothing is written to disk)");
  serve->add_option("--bind", bind, "Address to listen on")->capture_default_str();
  serve->add_option("--port", port, "TCP port (0: pick a free one and print it)")
      ->capture_default_str();
  serve->add_option("--max-connections", max_connections, "Connections served at once")
      ->capture_default_str();
  serve
      ->add_option("--workers", workers,
                   "Threads running commands (0: 8 per core, at least 16; commands wait on "
                   "fsync, and concurrent durable writes share one)")
      ->capture_default_str();
  serve
      ->add_option("--disk-reserve-mb", disk_reserve_mb,
                   "Refuse writes (OutOfDiskSpace) while the data directory's filesystem has "
                   "less free space than this, so recovery and checkpoints always have room; "
                   "0: no reserve")
      ->capture_default_str();
  serve->add_flag("--auth", auth,
                  "Require authentication (SCRAM): create the first user over loopback, then "
                  "every command needs a user");
  serve
      ->add_option("--tls-mode", tls_mode,
                   "TLS: disabled, allowTLS / preferTLS (TLS and plain connections), requireTLS")
      ->check(CLI::IsMember({"disabled", "allowTLS", "preferTLS", "requireTLS"}))
      ->capture_default_str();
  serve->add_option("--tls-cert-key-file", tls_cert_key_file,
                    "PEM file: the server's certificate chain and its private key");
  serve->add_option("--tls-ca-file", tls_ca_file,
                    "PEM file: CAs to verify the client certificates clients present");
  serve->add_flag("--standalone", standalone,
                  "Answer as a standalone mongod (default: the primary of a one-member replica "
                  "set, which drivers need for sessions, transactions and retryable writes)");
  serve->add_option("--replSet", repl_set, "The replica set's name")->capture_default_str();
  serve->add_option("--advertise", advertise,
                    "host:port the replica set's one member is reached at (default: the bound "
                    "address and port)");
  serve->add_flag("--enableTestCommands", enable_test_commands,
                  "Enable test commands (configureFailPoint), as mongod's "
                  "setParameter enableTestCommands=1; never in production");
  serve
      ->add_option("--session-timeout-ms", session_timeout_ms,
                   "Logical sessions unused this long end (logicalSessionTimeoutMinutes); "
                   "for tests")
      ->check(CLI::Range(int64_t{1}, int64_t{24} * 60 * 60 * 1000))
      ->capture_default_str();
  serve
      ->add_option("--transaction-lifetime-limit-seconds", transaction_lifetime_s,
                   "An open multi-document transaction older than this is aborted; its next "
                   "statement or commit fails NoSuchTransaction (mongod's "
                   "transactionLifetimeLimitSeconds)")
      ->check(CLI::Range(int64_t{1}, int64_t{24} * 60 * 60))
      ->capture_default_str();
  serve->callback([action] {
    *action = [] {
      if (memory == !dbpath.empty()) {
        throw Error(ErrorCode::kBadValue, "give exactly one of --dbpath DIR or --memory");
      }
      // Block the shutdown signals before any thread starts, so only sigwait sees them.
      sigset_t signals;
      sigemptyset(&signals);
      sigaddset(&signals, SIGINT);
      sigaddset(&signals, SIGTERM);
      pthread_sigmask(SIG_BLOCK, &signals, nullptr);

      engine::EngineOptions engine_options;
      engine_options.path = dbpath;
      engine_options.durability =
          memory ? engine::Durability::kInMemory : engine::Durability::kDurable;
      engine_options.disk_space_reserve_mb = disk_reserve_mb;
      // As mongod: a storage engine that panicked serves nothing, so the server stops (exit
      // status 14, mongod's for an unrecoverable error) instead of answering as if healthy.
      // Restarting recovers from the journal.
      engine_options.on_storage_panic = [](const std::string& message) {
        fmt::print(stderr,
                   "mongostore serve: fatal: the storage engine panicked ({}); stopping. "
                   "Restart to recover (nothing acknowledged is lost); if the disk is full, "
                   "free space first.\n",
                   message);
        std::fflush(stderr);
        std::_Exit(14);
      };
      auto engine = engine::Engine::open(engine_options);
      server::ServerOptions options;
      options.bind = bind;
      options.port = port;
      options.max_connections = max_connections;
      options.workers = workers;
      options.auth = auth;
      options.tls_mode = tls_mode == "requireTLS"  ? server::TlsMode::kRequireTLS
                         : tls_mode == "preferTLS" ? server::TlsMode::kPreferTLS
                         : tls_mode == "allowTLS"  ? server::TlsMode::kAllowTLS
                                                   : server::TlsMode::kDisabled;
      options.tls_cert_key_file = tls_cert_key_file;
      options.tls_ca_file = tls_ca_file;
      options.standalone = standalone;
      options.replica_set_name = repl_set;
      options.advertise = advertise;
      options.session_timeout = std::chrono::milliseconds(session_timeout_ms);
      options.enable_test_commands = enable_test_commands;
      options.transaction_lifetime_limit = std::chrono::seconds(transaction_lifetime_s);
      // Binding beyond loopback without --auth is warned about, not refused: as mongod does,
      // and because trusted private networks (a lab, a container network) are a real use.
      bool loopback = bind == "127.0.0.1" || bind == "localhost" || bind == "::1";
      if (!auth && !loopback) {
        fmt::print(stderr,
                   "mongostore serve: WARNING: listening on {} without --auth: anyone who can "
                   "reach this address can read and write every database\n",
                   bind);
      }
      // getCmdLineOpts: the effective command line (every option, defaults included) and
      // the same settings under mongod's configuration names.
      options.command_line = {"mongostore", "serve"};
      if (memory) {
        options.command_line.push_back("--memory");
      } else {
        options.command_line.insert(options.command_line.end(), {"--dbpath", dbpath});
      }
      options.command_line.insert(
          options.command_line.end(),
          {"--bind", bind, "--port", std::to_string(port), "--max-connections",
           std::to_string(max_connections), "--workers", std::to_string(workers),
           "--disk-reserve-mb", std::to_string(disk_reserve_mb)});
      if (auth) options.command_line.push_back("--auth");
      if (standalone) {
        options.command_line.push_back("--standalone");
      } else {
        options.command_line.insert(options.command_line.end(), {"--replSet", repl_set});
      }
      if (!advertise.empty()) {
        options.command_line.insert(options.command_line.end(), {"--advertise", advertise});
      }
      if (enable_test_commands) options.command_line.push_back("--enableTestCommands");
      options.command_line.insert(options.command_line.end(), {"--tls-mode", tls_mode});
      options.command_line.insert(
          options.command_line.end(),
          {"--transaction-lifetime-limit-seconds", std::to_string(transaction_lifetime_s)});
      bson::DocumentBuilder parsed;
      parsed.open_document("net")
          .append("bindIp", bind)
          .append("port", static_cast<int32_t>(port))
          .append("maxIncomingConnections", static_cast<int64_t>(max_connections))
          .open_document("tls")
          .append("mode", tls_mode)
          .close()
          .close();
      if (memory) {
        parsed.open_document("storage").append("engine", "inMemory").close();
      } else {
        parsed.open_document("storage").append("dbPath", dbpath).close();
      }
      parsed.open_document("security")
          .append("authorization", auth ? "enabled" : "disabled")
          .close();
      if (!standalone) parsed.open_document("replication").append("replSet", repl_set).close();
      parsed.open_document("setParameter");
      if (enable_test_commands) parsed.append("enableTestCommands", "1");
      parsed.append("transactionLifetimeLimitSeconds", std::to_string(transaction_lifetime_s));
      parsed.close();
      options.parsed_options = parsed.finish();
      {
        server::Server server(engine, options);
        server.start();
        // The log line went to stderr; scripts and test fixtures that redirect stdout read
        // the chosen port from this one (on a terminal it would only repeat the log).
        if (!isatty(STDOUT_FILENO)) {
          fmt::print("listening on {}:{}\n", bind, server.port());
          std::fflush(stdout);
        }
        int received = 0;
        sigwait(&signals, &received);
        fmt::print(stderr, "mongostore serve: signal {} received, shutting down\n", received);
        server.stop();
      }
      engine.reset();  // the engine's destructor flushes
      return 0;
    };
  });
}

}  // namespace mongostore::tool
