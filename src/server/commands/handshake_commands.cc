// The handshake family: what drivers, shells and tools ask first (hello / isMaster, ping,
// buildInfo, whatsmyuri, connectionStatus, endSessions, getCmdLineOpts, getParameter,
// listCommands, hostInfo). None of them touches the data; hello may begin an
// authentication (speculativeAuthenticate).
#include "server/commands/command_families.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sys/utsname.h>
#include <unistd.h>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/server/server.h"
#include "server/auth/auth_session.h"
#include "server/commands/auth_commands.h"
#include "server/commands/command_context.h"
#include "server/generic_arguments.h"
#include "server/message_compression.h"

namespace mongostore::server {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;

// `backpressure`: newer drivers (the Node.js driver under mongosh 2.x) announce that they
// handle the server's overload errors; accepted and ignored, as the server never sends them.
const std::vector<std::string_view> kHelloFields = {
    "helloOk",      "backpressure",       "client",
    "compression",  "saslSupportedMechs", "speculativeAuthenticate",
    "loadBalanced", "topologyVersion",    "maxAwaitTimeMS"};

void hello(const CommandContext& ctx, DocumentBuilder& b) {
  if (ctx.cmd.get("helloOk").truthy()) b.append("helloOk", true);
  b.append("ismaster", true);
  b.append("isWritablePrimary", true);
  ctx.topology.append_hello(b);
  b.append("maxBsonObjectSize", static_cast<int32_t>(engine::kMaxDocumentSize));
  b.append("maxMessageSizeBytes", kMaxMessageSize);
  b.append("maxWriteBatchSize", static_cast<int32_t>(100000));
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  b.append("localTime", bson::DateTime{now.count()});
  // Whole minutes, as mongod reports it (a test server's shorter timeout reports 1).
  auto minutes = std::chrono::duration_cast<std::chrono::minutes>(ctx.sessions.timeout());
  b.append("logicalSessionTimeoutMinutes",
           static_cast<int32_t>(std::max<int64_t>(1, minutes.count())));
  b.append("connectionId", ctx.connection.id);
  b.append("minWireVersion", static_cast<int32_t>(0));
  b.append("maxWireVersion", static_cast<int32_t>(21));
  b.append("readOnly", false);
  if (Value who = ctx.cmd.get("saslSupportedMechs"); who.is_string()) {
    supported_mechanisms(ctx, who.as_string(), b);
  }
  if (Value spec = ctx.cmd.get("speculativeAuthenticate"); spec.is_document()) {
    speculative_authenticate(ctx, spec.as_document(), b);
  }
  // Compression: the client's list, in its order of preference, less what is not offered.
  if (Value requested = ctx.cmd.get("compression"); requested.is_array()) {
    b.open_array("compression");
    for (const bson::Element& name : requested.as_array()) {
      if (name.value.is_string() && compressor_named(name.value.as_string())) {
        b.push(name.value.as_string());
      }
    }
    b.close();
  }
}

void ping(const CommandContext&, DocumentBuilder&) {}

void build_info(const CommandContext&, DocumentBuilder& b) {
  b.append("version", "7.0.0");
  b.append("gitVersion", "mongostore");
  b.append_array("versionArray", bson::make_array(7, 0, 0, 0).view());
  b.append("bits", static_cast<int32_t>(64));
  b.append("maxBsonObjectSize", static_cast<int32_t>(engine::kMaxDocumentSize));
  b.append("storageEngines", bson::make_array("wiredTiger"));
}

void whatsmyuri(const CommandContext& ctx, DocumentBuilder& b) {
  b.append("you", ctx.connection.peer);
}

void connection_status(const CommandContext& ctx, DocumentBuilder& b) {
  if (ctx.cmd.get("showPrivileges").truthy()) {
    throw Error(ErrorCode::kNotImplemented,
                "connectionStatus showPrivileges is not supported by mongostore");
  }
  std::vector<auth::AuthenticatedUser> users;
  if (ctx.connection.auth) {
    std::lock_guard lock(ctx.connection.auth->mutex);
    users = ctx.connection.auth->users;
  }
  b.open_document("authInfo");
  b.open_array("authenticatedUsers");
  for (const auth::AuthenticatedUser& u : users) {
    b.push_document().append("user", u.user).append("db", u.db).close();
  }
  b.close();
  b.open_array("authenticatedUserRoles");
  for (const auth::AuthenticatedUser& u : users) {
    for (const auth::RoleName& r : u.roles) {
      b.push_document().append("role", r.role).append("db", r.db).close();
    }
  }
  b.close();
  b.close();
}

void get_cmd_line_opts(const CommandContext& ctx, DocumentBuilder& b) {
  b.open_array("argv");
  for (const std::string& arg : ctx.options.command_line) b.push(arg);
  b.close();
  b.append("parsed", ctx.options.parsed_options);
}

// The server parameters mongostore has, with their (fixed) values. Reporting a parameter
// means behaving as it says: no table scan is refused (notablescan false), no test
// commands exist (enableTestCommands false), the SCRAM mechanisms are offered.
Document parameters(const DispatcherOptions& options) {
  DocumentBuilder p;
  p.append("authenticationMechanisms", bson::make_array("SCRAM-SHA-1", "SCRAM-SHA-256"));
  p.append("cursorTimeoutMillis", static_cast<int64_t>(options.cursor_idle_timeout.count()));
  p.append("enableTestCommands", false);
  p.append("featureCompatibilityVersion", bson::make_document("version", "7.0"));
  p.append("logLevel", static_cast<int32_t>(0));
  p.append("notablescan", false);
  p.append("requireApiVersion", false);
  p.append("transactionLifetimeLimitSeconds",
           static_cast<int32_t>(
               std::chrono::duration_cast<std::chrono::seconds>(options.transaction_lifetime_limit)
                   .count()));
  return p.finish();
}

// getParameter: {getParameter: 1, <name>: 1, ...}, {getParameter: "*"} for all, or
// {getParameter: {showDetails: true, allParameters: true}}. A name mongostore does not
// have fails InvalidOptions (72), mongod's "no option found to get".
void get_parameter(const CommandContext& ctx, DocumentBuilder& b) {
  Value how = ctx.cmd.get("getParameter");
  bool all = how.is_string() && how.as_string() == "*";
  bool details = false;
  if (how.is_document()) {
    for (const bson::Element& e : how.as_document()) {
      if (e.key == "showDetails") {
        details = e.value.truthy();
      } else if (e.key == "allParameters") {
        all = e.value.truthy();
      } else {
        throw Error(ErrorCode::kUnknownField,
                    "BSON field 'getParameter." + std::string(e.key) + "' is an unknown field.");
      }
    }
  }
  Document known = parameters(ctx.options);
  std::vector<std::string_view> wanted;
  bool first = true;
  for (const bson::Element& e : ctx.cmd) {
    if (std::exchange(first, false) || is_generic_argument(e.key)) continue;
    if (!known.has(e.key)) {
      throw Error(ErrorCode::kInvalidOptions,
                  "no option found to get: '" + std::string(e.key) + "' is not a parameter");
    }
    wanted.push_back(e.key);
  }
  if (!all && wanted.empty()) throw Error(ErrorCode::kInvalidOptions, "no option found to get");
  for (const bson::Element& e : known) {
    if (!all && std::find(wanted.begin(), wanted.end(), e.key) == wanted.end()) continue;
    if (details) {
      b.open_document(e.key)
          .append("value", e.value)
          .append("settableAtRuntime", false)
          .append("settableAtStartup", false)
          .close();
    } else {
      b.append(e.key, e.value);
    }
  }
}

// listCommands: the command table itself, so it lists exactly what runs.
void list_commands(const CommandContext& ctx, DocumentBuilder& b) {
  b.open_document("commands");
  for (const auto& [name, spec] : ctx.commands.all()) {
    b.open_document(name);
    b.append("help", "");
    b.append("requiresAuth", (spec.flags & kNoAuth) == 0);
    b.append("secondaryOk", true);
    b.append("adminOnly", (spec.flags & kAdminOnly) != 0);
    b.open_array("apiVersions");
    if (spec.flags & kApiV1) b.push("1");
    b.close();
    b.open_array("deprecatedApiVersions").close();
    b.close();
  }
  b.close();
}

void host_info(const CommandContext&, DocumentBuilder& b) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  utsname names{};
  uname(&names);
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  int64_t mem_mb = pages > 0 && page_size > 0
                       ? static_cast<int64_t>(pages) * page_size / (1024 * 1024)
                       : int64_t{0};
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  b.open_document("system")
      .append("currentTime", bson::DateTime{now.count()})
      .append("hostname", std::string_view(host))
      .append("cpuAddrSize", static_cast<int32_t>(sizeof(void*) * 8))
      .append("memSizeMB", mem_mb)
      .append("memLimitMB", mem_mb)
      .append("numCores", static_cast<int32_t>(std::thread::hardware_concurrency()))
      .append("cpuArch", std::string_view(names.machine))
      .append("numaEnabled", false)
      .close();
  b.open_document("os")
      .append("type", std::string_view(names.sysname))
      .append("name", std::string_view(names.sysname))
      .append("version", std::string_view(names.release))
      .close();
  b.open_document("extra").append("versionString", std::string_view(names.version)).close();
}

}  // namespace

void register_handshake_commands(CommandRegistry& registry) {
  // isMaster is hello's older name, outside the Stable API.
  registry.add({"hello"}, &hello, kApiV1 | kNoAuth, kHelloFields);
  registry.add({"isMaster", "ismaster"}, &hello, kNoAuth, kHelloFields);
  registry.add({"ping"}, &ping, kApiV1 | kNoAuth);
  registry.add({"buildInfo", "buildinfo"}, &build_info, kNoAuth);
  registry.add({"whatsmyuri"}, &whatsmyuri, kNoAuth);
  registry.add({"connectionStatus"}, &connection_status, kNoAuth, {"showPrivileges"});
  registry.add({"getCmdLineOpts"}, &get_cmd_line_opts, kAdminOnly);
  registry.add({"getParameter"}, &get_parameter, kAdminOnly | kOpenFields);
  registry.add({"listCommands"}, &list_commands);
  registry.add({"hostInfo"}, &host_info);
}

}  // namespace mongostore::server
