// `mongostore optimade`: a RecordStore's entry families as an OPTIMADE v1 API over HTTP
// (optimade/optimade_service.h for the routes and errors, optimade/optimade_http_server.h for
// the HTTP side). Reads the store's own layout and schema documents, as `records` does.
#include <fmt/core.h>
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "commands.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "optimade/optimade_http_server.h"
#include "optimade/optimade_service.h"

namespace mongostore::tool {

void register_optimade_command(CLI::App& app, Action* action) {
  static std::string data = "mongostore-data", uri, database = "materials", bind = "127.0.0.1";
  static uint16_t port = 5000;
  static optimade::OptimadeConfig config;

  auto* cmd = app.add_subcommand(
      "optimade", "Serve a RecordStore's entry families as an OPTIMADE v1 API over HTTP");
  cmd->add_option("--data", data, "Embedded data directory")->capture_default_str();
  cmd->add_option("--uri", uri, "A MongoDB or `mongostore serve` URI instead of --data");
  cmd->add_option("--database", database, "Database of the RecordStore")->capture_default_str();
  cmd->add_option("--bind", bind, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", port, "TCP port (0: pick a free one and print it)")
      ->capture_default_str();
  cmd->add_option("--prefix", config.prefix,
                  "The database-specific prefix of property names, _name_ (the filter's)")
      ->capture_default_str()
      ->check([](const std::string& p) -> std::string {
        bool ok = p.size() >= 3 && p.front() == '_' && p.back() == '_';
        for (size_t i = 1; ok && i + 1 < p.size(); ++i) {
          ok = (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9');
        }
        return ok ? "" : "a prefix is _name_ with name in [a-z0-9]+, not '" + p + "'";
      });
  cmd->add_option("--page-limit", config.default_page_limit,
                  "Entries per page when the request gives no page_limit")
      ->check(CLI::Range(int64_t{1}, int64_t{10000}))
      ->capture_default_str();
  cmd->add_option("--max-page-limit", config.max_page_limit,
                  "The largest page_limit served (a larger one is 403 Forbidden)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000}))
      ->capture_default_str();
  cmd->add_option("--provider-name", config.provider_name, "meta.provider.name")
      ->capture_default_str();
  cmd->footer(
      "Routes under http://HOST:PORT/v1: /info, /info/<type>, /links, /<type>?filter=...&"
      "page_limit=...&page_cursor=...&response_fields=..., /<type>/<id>; /versions at the root. "
      "Entry types are the store's entry families; ids are <type>-<sid> (a filter may compare "
      "id with =, != and STARTS WITH, immutable_id and type as any string); properties are "
      "<prefix>custom_<field> and the record's <prefix>sid, <prefix>logical_id, "
      "<prefix>store_timestamp (see /v1/info/<type>). Errors are OPTIMADE error documents: 400 "
      "bad filter, parameter or page_cursor, 403 page_limit above --max-page-limit, 404 unknown "
      "type or id, 501 an untranslatable filter (docs/record-store.md). Prints `listening on "
      "HOST:PORT` on stdout once it listens; SIGINT or SIGTERM stops it. Exit status: 0 stopped, "
      "1 an error (no store, cannot listen), 2 a usage error.");
  cmd->callback([action] {
    *action = [] {
      if (config.default_page_limit > config.max_page_limit) {
        throw Error(ErrorCode::kBadValue,
                    fmt::format("--page-limit {} is above --max-page-limit {}",
                                config.default_page_limit, config.max_page_limit));
      }
      // Only sigwait sees the shutdown signals (blocked before any thread starts).
      sigset_t signals;
      sigemptyset(&signals);
      sigaddset(&signals, SIGINT);
      sigaddset(&signals, SIGTERM);
      pthread_sigmask(SIG_BLOCK, &signals, nullptr);
      std::shared_ptr<client::Client> client;
      if (uri.empty()) {
        if (!std::filesystem::is_directory(data)) {
          throw Error(ErrorCode::kDataDirectoryInvalid,
                      "no data directory at '" + data + "' (give --data DIR or --uri URI)");
        }
        client = client::connect("embedded:" + data);
      } else {
        client = client::connect(uri);
      }
      optimade::OptimadeService service(client, database, config);
      for (const std::string& s : service.skipped()) {
        fmt::print(stderr, "mongostore optimade: not served: {}\n", s);
      }
      optimade::OptimadeHttpServer server(service, bind, port);
      std::string types;
      for (const std::string& t : service.entry_types()) types += (types.empty() ? "" : ", ") + t;
      fmt::print(stderr, "mongostore optimade: serving {} at http://{}:{}/v1\n", types, bind,
                 server.port());
      fmt::print("listening on {}:{}\n", bind, server.port());
      std::fflush(stdout);
      std::thread listener([&server] { server.run(); });
      int received = 0;
      sigwait(&signals, &received);
      fmt::print(stderr, "mongostore optimade: signal {} received, shutting down\n", received);
      server.stop();
      listener.join();
      return 0;
    };
  });
}

}  // namespace mongostore::tool
