// The spec runner's Target for a `mongostore serve`: client entities as monitored remote
// clients with their uriOptions, admin commands (configureFailPoint) on a libmongoc
// connection whose commands no test observes.
#pragma once

#include <mongoc/mongoc.h>

#include <memory>
#include <string>

#include "client/remote_client.h"
#include "mongostore/bson/document.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "spec/runner.h"
#include "support/server_process.h"

namespace mongostore::spec {

/// A client entity's URI: the server's, with the entity's uriOptions as query options.
inline std::string entity_uri(testing::ServerProcess& server, bson::DocumentView uri_options) {
  // libmongoc marks the server Unknown after a "node is recovering" / "not primary" error
  // (which fail points raise) and selects it again only after its monitor's next check:
  // check often, so such a test waits half a second rather than ten.
  std::string options = uri_options.has("heartbeatFrequencyMS") ? "" : "heartbeatFrequencyMS=500";
  for (const auto& el : uri_options) {
    std::string value =
        el.value.is_string() ? std::string(el.value.as_string()) : el.value.to_json();
    options += (options.empty() ? "" : "&") + std::string(el.key) + "=" + value;
  }
  return server.uri(options);
}

/// configureFailPoint and other admin commands, through a libmongoc client of its own (the
/// spec's runner sends fail points on a client whose commands the test does not observe).
/// One thread at a time.
class AdminConnection {
 public:
  explicit AdminConnection(const std::string& uri) {
    static bool initialised = [] {
      mongoc_init();
      return true;
    }();
    (void)initialised;
    client_ = mongoc_client_new(uri.c_str());
    if (client_ == nullptr) throw Error(ErrorCode::kBadValue, "admin client: bad URI " + uri);
    mongoc_client_set_error_api(client_, MONGOC_ERROR_API_VERSION_2);
  }
  ~AdminConnection() { mongoc_client_destroy(client_); }
  AdminConnection(const AdminConnection&) = delete;
  AdminConnection& operator=(const AdminConnection&) = delete;

  void run(bson::DocumentView command) {
    bson_t cmd;
    bson_init_static(&cmd, command.data(), command.size());
    bson_t reply;
    bson_error_t error;
    bool ok = mongoc_client_command_simple(client_, "admin", &cmd, nullptr, &reply, &error);
    bson_destroy(&reply);
    if (!ok) {
      throw Error(static_cast<int32_t>(error.code), std::string("admin command: ") + error.message);
    }
  }

 private:
  mongoc_client_t* client_ = nullptr;
};

/// The Target of the transactions files: `server` (started with --enableTestCommands) as a
/// replica set, each client entity a monitored remote client, fail points through an admin
/// connection. The Target refers to `server`, which must outlive it.
inline Target serve_target(testing::ServerProcess& server) {
  auto admin = std::make_shared<AdminConnection>(server.uri("directConnection=true"));
  Target target;
  target.topology = "replicaset";
  // Each client entity is a pool of its own, as the format requires: libmongoc reuses a
  // pool's server sessions (and their txnNumbers), which the events of the next test would
  // show.
  target.entity_client = [&server](bson::DocumentView uri_options,
                                   client::CommandObserver observer) {
    return client::connect_remote(entity_uri(server, uri_options), std::move(observer));
  };
  // One setup client for every test; every database dropped first, so each test starts as
  // empty as a fresh embedded client.
  target.fresh_client = [setup = client::connect(server.uri())] {
    for (const std::string& db : setup->list_database_names()) setup->drop_database(db);
    return setup;
  };
  target.admin_command = [admin](bson::DocumentView command) { admin->run(command); };
  return target;
}

}  // namespace mongostore::spec
