// The authentication family: saslStart / saslContinue (SCRAM-SHA-1 and SCRAM-SHA-256, the
// mechanisms mongostore offers), logout, and authenticate (refused: it carries MONGODB-X509
// and the removed MONGODB-CR, neither offered). The conversation lives in the connection's
// AuthSession; a user authenticated on it stays so until logout or the connection closes.
#include "server/commands/auth_commands.h"

#include <fmt/core.h>

#include <mutex>
#include <string>

#include "mongostore/error.h"
#include "server/auth/auth_session.h"
#include "server/auth/scram.h"
#include "server/commands/command_context.h"
#include "server/commands/command_families.h"

namespace mongostore::server {
namespace {

using auth::AuthSession;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;

constexpr int32_t kConversationId = 1;

auth::AuthSession& session_of(const CommandContext& ctx) {
  if (!ctx.connection.auth) {
    throw Error(ErrorCode::kIllegalOperation, "this connection cannot authenticate");
  }
  return *ctx.connection.auth;
}

std::string payload_of(DocumentView cmd) {
  Value p = cmd.get("payload");
  if (p.is_string()) return std::string(p.as_string());
  if (p.type() == bson::BsonType::kBinary) {
    bson::BinaryView bin = p.as_binary();
    return std::string(reinterpret_cast<const char*>(bin.bytes.data()), bin.bytes.size());
  }
  throw Error(ErrorCode::kTypeMismatch, "saslStart / saslContinue need a 'payload' (BinData)");
}

void append_payload(DocumentBuilder& b, std::string_view payload) {
  b.append("payload",
           bson::BinaryView{0, {reinterpret_cast<const uint8_t*>(payload.data()), payload.size()}});
}

void log_failure(const CommandContext& ctx, const std::string& user, const std::string& db,
                 const Error& e) {
  if (!ctx.options.security_log) return;
  ctx.options.security_log(
      fmt::format("authentication failed: connection {} from {} as \"{}@{}\": {}",
                  ctx.connection.id, ctx.connection.peer, user, db, e.what()));
}

// Fails the conversation: counted, logged, state dropped, the error rethrown.
[[noreturn]] void fail(const CommandContext& ctx, AuthSession& s, const Error& e) {
  ++s.failures;
  std::string user = s.conversation ? s.conversation->user() : std::string();
  log_failure(ctx, user, s.conversation_db, e);
  s.conversation.reset();
  s.awaiting_empty_exchange = false;
  throw e;
}

// saslStart's body, for the command and for speculativeAuthenticate.
void start(const CommandContext& ctx, DocumentView cmd, const std::string& db, DocumentBuilder& b) {
  AuthSession& s = session_of(ctx);
  std::lock_guard lock(s.mutex);
  if (s.failures >= AuthSession::kMaxFailures) {
    throw Error(ErrorCode::kAuthenticationFailed,
                "too many failed authentications on this connection; reconnect to try again");
  }
  Value mechanism = cmd.get("mechanism");
  std::string name = mechanism.is_string() ? std::string(mechanism.as_string()) : "";
  std::optional<auth::ScramMechanism> m = auth::mechanism_named(name);
  if (!m) {
    throw Error(ErrorCode::kMechanismUnavailable,
                "Received authentication for mechanism " + name +
                    " which is not enabled (mongostore offers SCRAM-SHA-1 and SCRAM-SHA-256)");
  }
  std::string payload = payload_of(cmd);
  s.conversation = std::make_unique<auth::ScramConversation>(*m);
  s.conversation_db = db;
  s.conversation_id = kConversationId;
  s.awaiting_empty_exchange = false;
  Value options = cmd.get("options");
  s.skip_empty_exchange =
      options.is_document() && options.as_document().get("skipEmptyExchange").truthy();
  try {
    std::string reply = s.conversation->first(payload, [&](const std::string& user) {
      std::optional<auth::StoredUser> u = ctx.users.find(db, user);
      if (!u) return std::optional<auth::ScramCredentials>();
      return *m == auth::ScramMechanism::kSha1 ? u->sha1 : u->sha256;
    });
    b.append("conversationId", kConversationId);
    b.append("done", false);
    append_payload(b, reply);
  } catch (const Error& e) {
    if (e.code() == static_cast<int32_t>(ErrorCode::kProtocolError) ||
        e.code() == static_cast<int32_t>(ErrorCode::kAuthenticationFailed)) {
      fail(ctx, s, e);
    }
    throw;
  }
}

void sasl_start(const CommandContext& ctx, DocumentBuilder& b) {
  start(ctx, ctx.cmd, ctx.db, b);
}

// With options.skipEmptyExchange the client takes the server's signature as the end;
// without, it sends one more, empty, saslContinue.
void sasl_continue(const CommandContext& ctx, DocumentBuilder& b) {
  AuthSession& s = session_of(ctx);
  std::lock_guard lock(s.mutex);
  int64_t id = 0;
  if (!ctx.cmd.get("conversationId").number_as_exact_int64(&id) || id != s.conversation_id ||
      (!s.conversation && !s.awaiting_empty_exchange)) {
    throw Error(ErrorCode::kProtocolError, "No SASL session state found");
  }
  std::string payload = payload_of(ctx.cmd);
  if (s.awaiting_empty_exchange) {
    s.awaiting_empty_exchange = false;
    s.conversation.reset();
    b.append("conversationId", kConversationId);
    b.append("done", true);
    append_payload(b, "");
    return;
  }
  if (ctx.db != s.conversation_db) {
    fail(ctx, s,
         Error(ErrorCode::kProtocolError,
               "saslContinue must run against the database saslStart ran against"));
  }
  std::string reply;
  try {
    reply = s.conversation->final(payload);
  } catch (const Error& e) {
    fail(ctx, s, e);
  }
  std::optional<auth::StoredUser> u = ctx.users.find(s.conversation_db, s.conversation->user());
  if (!u) fail(ctx, s, Error(ErrorCode::kAuthenticationFailed, "Authentication failed."));
  s.add({u->user, u->db, u->roles});
  s.failures = 0;
  b.append("conversationId", kConversationId);
  s.awaiting_empty_exchange = !s.skip_empty_exchange;
  if (s.skip_empty_exchange) s.conversation.reset();
  b.append("done", s.skip_empty_exchange);
  append_payload(b, reply);
}

void logout(const CommandContext& ctx, DocumentBuilder&) {
  AuthSession& s = session_of(ctx);
  std::lock_guard lock(s.mutex);
  std::erase_if(s.users, [&](const auth::AuthenticatedUser& u) { return u.db == ctx.db; });
}

void authenticate(const CommandContext& ctx, DocumentBuilder&) {
  Value mechanism = ctx.cmd.get("mechanism");
  std::string name = mechanism.is_string() ? std::string(mechanism.as_string()) : "";
  throw Error(ErrorCode::kMechanismUnavailable,
              "Received authentication for mechanism " + name +
                  " which is not enabled (mongostore offers SCRAM-SHA-1 and SCRAM-SHA-256 "
                  "through saslStart)");
}

}  // namespace

void speculative_authenticate(const CommandContext& ctx, DocumentView request, DocumentBuilder& b) {
  Value db = request.get("db");
  if (!request.has("saslStart") || !db.is_string()) return;
  DocumentBuilder reply;
  try {
    start(ctx, request, std::string(db.as_string()), reply);
  } catch (const Error&) {
    return;
  }
  b.append("speculativeAuthenticate", reply.finish());
}

void supported_mechanisms(const CommandContext& ctx, std::string_view db_user, DocumentBuilder& b) {
  size_t dot = db_user.find('.');
  if (dot == std::string_view::npos) return;
  std::optional<auth::StoredUser> u =
      ctx.users.find(std::string(db_user.substr(0, dot)), std::string(db_user.substr(dot + 1)));
  if (!u) return;
  b.open_array("saslSupportedMechs");
  if (u->sha1) b.push("SCRAM-SHA-1");
  if (u->sha256) b.push("SCRAM-SHA-256");
  b.close();
}

void register_auth_commands(CommandRegistry& registry) {
  registry.add({"saslStart"}, &sasl_start, kApiV1 | kNoAuth,
               {"mechanism", "payload", "autoAuthorize", "options"});
  registry.add({"saslContinue"}, &sasl_continue, kApiV1 | kNoAuth, {"conversationId", "payload"});
  registry.add({"logout"}, &logout, kNoAuth);
  registry.add({"authenticate"}, &authenticate, kApiV1 | kNoAuth, {"mechanism", "user"});
}

}  // namespace mongostore::server
