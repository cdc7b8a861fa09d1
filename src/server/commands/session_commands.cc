// The sessions family: logical sessions (startSession, endSessions, refreshSessions,
// killSessions), the end of a multi-document transaction (commitTransaction,
// abortTransaction) and the replica set's status (replSetGetStatus).
//
// Which transaction commit / abort act on was decided before they run: the dispatcher took
// the statement into its session (server/sessions/session_statements.h) and put the
// transaction in CommandContext::transaction.
#include "server/commands/command_families.h"

#include <chrono>
#include <random>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "server/auth/auth_session.h"
#include "server/auth/privileges.h"
#include "server/commands/command_context.h"
#include "server/sessions/session_info.h"

namespace mongostore::server {
namespace {

using bson::DocumentBuilder;
using bson::Value;

// One command names at most this many sessions (drivers send endSessions in batches of
// 10,000, the limit the drivers' sessions specification sets).
constexpr size_t kMaxSessionsPerCommand = 10000;

// The session keys a command's array names (endSessions: [{id: UUID}, ...]).
std::vector<std::string> session_keys(const CommandContext& ctx, std::string_view field) {
  Value list = ctx.cmd.get(field);
  if (!list.is_array()) {
    throw Error(ErrorCode::kTypeMismatch,
                "BSON field '" + std::string(field) + "' is the wrong type '" +
                    std::string(bson::type_alias(list.type())) + "', expected type 'array'");
  }
  std::vector<std::string> keys;
  size_t i = 0;
  for (const bson::Element& e : list.as_array()) {
    if (keys.size() == kMaxSessionsPerCommand) {
      throw Error(ErrorCode::kBadValue, std::string(field) + " names more than " +
                                            std::to_string(kMaxSessionsPerCommand) + " sessions");
    }
    keys.push_back(parse_lsid(e.value, std::string(field) + "." + std::to_string(i++)));
  }
  return keys;
}

// Whose sessions the command names: the caller's (SessionCatalog).
std::string session_owner(const CommandContext& ctx) {
  return auth::session_owner(ctx.owners());
}

void start_session(const CommandContext& ctx, DocumentBuilder& b) {
  // A version 4 UUID, as drivers make them.
  static thread_local std::mt19937_64 random(std::random_device{}());
  std::string key(16, '\0');
  for (size_t i = 0; i < 16; i += 8) {
    uint64_t bits = random();
    for (size_t j = 0; j < 8; ++j) key[i + j] = static_cast<char>(bits >> (8 * j));
  }
  key[6] = static_cast<char>((key[6] & 0x0f) | 0x40);
  key[8] = static_cast<char>((key[8] & 0x3f) | 0x80);
  ctx.sessions.start(key, session_owner(ctx));
  b.append("id", lsid_document(key));
  auto minutes = std::chrono::duration_cast<std::chrono::minutes>(ctx.sessions.timeout());
  b.append("timeoutMinutes", static_cast<int32_t>(std::max<int64_t>(1, minutes.count())));
}

void end_sessions(const CommandContext& ctx, DocumentBuilder&) {
  std::string owner = session_owner(ctx);
  for (const std::string& key : session_keys(ctx, "endSessions")) ctx.sessions.end(key, owner);
}

// killSessions: with killAnySession (root; everyone without --auth) the named sessions of
// every user, or every session for an empty list; without it only the caller's own, as
// mongod matches the lsids with the caller's uid.
void kill_sessions(const CommandContext& ctx, DocumentBuilder&) {
  std::vector<std::string> keys = session_keys(ctx, "killSessions");
  bool any =
      !ctx.options.auth_required || auth::may_kill_any_session(auth::users_of(ctx.connection.auth));
  std::string owner = session_owner(ctx);
  if (keys.empty()) {
    if (any) {
      ctx.sessions.end_all();
    } else {
      ctx.sessions.end_all_of(owner);
    }
  }
  for (const std::string& key : keys) {
    if (any) {
      ctx.sessions.end_of_any_owner(key);
    } else {
      ctx.sessions.end(key, owner);
    }
  }
}

void refresh_sessions(const CommandContext& ctx, DocumentBuilder&) {
  std::string owner = session_owner(ctx);
  for (const std::string& key : session_keys(ctx, "refreshSessions")) {
    ctx.sessions.start(key, owner);  // a session refreshed before its first use is created
    ctx.sessions.refresh(key, owner);
  }
}

void commit_transaction(const CommandContext& ctx, DocumentBuilder&) {
  if (ctx.transaction == nullptr) {
    throw Error(ErrorCode::kInvalidOptions, "commitTransaction must be run within a transaction");
  }
  ctx.transaction->commit();
}

void abort_transaction(const CommandContext& ctx, DocumentBuilder&) {
  if (ctx.transaction == nullptr) {
    throw Error(ErrorCode::kInvalidOptions, "abortTransaction must be run within a transaction");
  }
  ctx.transaction->abort();
}

void repl_set_get_status(const CommandContext& ctx, DocumentBuilder& b) {
  if (!ctx.topology.replica_set()) {
    throw Error(int32_t{76} /* NoReplicationEnabled */, "not running with --replSet");
  }
  auto uptime = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() -
                                                                 ctx.started);
  ctx.topology.append_status(b, uptime.count());
}

}  // namespace

void register_session_commands(CommandRegistry& registry) {
  registry.add({"startSession"}, &start_session, kOwnSessions);
  registry.add({"endSessions"}, &end_sessions, kApiV1 | kNoAuth | kOwnSessions);
  registry.add({"refreshSessions"}, &refresh_sessions, kApiV1 | kOwnSessions);
  registry.add({"killSessions"}, &kill_sessions, kOwnSessions);
  registry.add({"commitTransaction"}, &commit_transaction, kApiV1 | kAdminOnly | kWrites);
  registry.add({"abortTransaction"}, &abort_transaction, kApiV1 | kAdminOnly | kWrites);
  registry.add({"replSetGetStatus"}, &repl_set_get_status, kAdminOnly, {"initialSync"});
}

}  // namespace mongostore::server
