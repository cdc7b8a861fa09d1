#include "mongostore/server/command_dispatcher.h"

#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "server/auth/auth_session.h"
#include "server/auth/privileges.h"
#include "server/auth/user_store.h"
#include "server/commands/command_arguments.h"
#include "server/commands/command_context.h"
#include "server/commands/command_families.h"
#include "server/commands/command_registry.h"
#include "server/commands/reply_errors.h"
#include "server/cursor_registry.h"
#include "server/generic_arguments.h"
#include "server/op_counters.h"
#include "server/operation_registry.h"

namespace mongostore::server {

using bson::Document;
using bson::DocumentBuilder;
using bson::Value;
using Clock = std::chrono::steady_clock;

class CommandDispatcher::Impl {
 public:
  Impl(std::shared_ptr<engine::Engine> engine, DispatcherOptions options)
      : engine_(std::move(engine)),
        options_(std::move(options)),
        cursors_(options_.cursor_idle_timeout, options_.cursor_memory_limit, options_.log),
        users_(*engine_),
        started_(Clock::now()) {
    // Every command with the fields it honours besides its own name and the generic
    // arguments, and those MongoDB has that mongostore refuses (NotImplemented, 238). Any
    // other field fails as mongod's parser answers: Location40415 "BSON field 'find.x' is an
    // unknown field." (mongostore is stricter than mongod for the few commands mongod does
    // not parse strictly, such as ping: an option ignored there would be a silent no-op.)
    register_handshake_commands(commands_);
    register_diagnostic_commands(commands_);
    register_catalog_commands(commands_);
    register_write_commands(commands_);
    register_read_commands(commands_);
    register_index_commands(commands_);
    register_auth_commands(commands_);
    register_user_commands(commands_);
  }

  Document run(const Document& cmd, const ConnectionInfo& connection, std::string_view default_db) {
    auto first = cmd.begin();
    if (first == cmd.end()) {
      return error_reply(Error(ErrorCode::kFailedToParse, "empty command document"));
    }
    std::string name(first->key);
    try {
      Value db_value = cmd.get("$db");
      std::string db =
          db_value.is_string() ? std::string(db_value.as_string()) : std::string(default_db);
      if (cmd.has("autocommit") || cmd.has("startTransaction")) {
        throw Error(ErrorCode::kNotImplemented, "transactions are not supported");
      }
      const CommandSpec* found = commands_.find(name);
      if (found == nullptr) {
        throw Error(ErrorCode::kCommandNotFound, "no such command: '" + name + "'");
      }
      const CommandSpec& spec = *found;
      if ((spec.flags & kAdminOnly) && db != "admin") {
        throw Error(ErrorCode::kUnauthorized,
                    name + " may only be run against the admin database.");
      }
      if (options_.auth_required) check_authorized(spec, db, connection);
      CommandRegistry::check_fields(cmd.view(), spec);
      GenericArguments generic = check_generic_arguments(
          cmd.view(), {spec.name, (spec.flags & kWrites) != 0, (spec.flags & kReads) != 0,
                       (spec.flags & kApiV1) != 0});
      OperationRegistry::Operation running =
          operations_.enter(cmd.view(), db, name, connection.id, connection.peer);
      CommandContext ctx{.cmd = cmd.view(),
                         .db = db,
                         .name = name,
                         .collection = {},
                         .generic = generic,
                         .connection = connection,
                         .opid = running.opid(),
                         .engine = *engine_,
                         .cursors = cursors_,
                         .operations = operations_,
                         .commands = commands_,
                         .options = options_,
                         .opcounters = opcounters_,
                         .users = users_,
                         .started = started_};
      opcounters_.count(name);
      auto start = Clock::now();
      // Counted first: a command whose collection name is invalid still counts, as it did
      // when each handler read the name itself.
      if (spec.flags & kCollection) ctx.collection = collection_name(ctx.cmd, ctx.name);
      DocumentBuilder b;
      spec.handler(ctx, b);
      honour_write_concern(ctx, spec);
      b.append("ok", 1.0);
      report_if_slow(ctx, start);
      return b.finish();
    } catch (const Error& e) {
      return error_reply(e);
    } catch (const std::exception& e) {
      return error_reply(Error(ErrorCode::kInternalError, e.what()));
    }
  }

  size_t open_cursors() const { return cursors_.size(); }

 private:
  // Under --auth a command other than the handshake and authentication ones needs an
  // authenticated user whose roles grant what the command does (auth/privileges.h), except
  // createUser on admin over loopback while no user exists (mongod's localhost exception:
  // how the first user is made). A command missing from the privilege table is refused.
  void check_authorized(const CommandSpec& spec, const std::string& db,
                        const ConnectionInfo& connection) {
    std::optional<auth::Action> action = auth::required_action(spec.name);
    if (!action) {
      throw Error(ErrorCode::kUnauthorized,
                  "command " + spec.name + " declares no privilege and is refused under --auth");
    }
    if (*action == auth::Action::kNone) return;
    std::vector<auth::AuthenticatedUser> users;
    if (connection.auth) {
      std::lock_guard lock(connection.auth->mutex);
      users = connection.auth->users;
    }
    if (users.empty()) {
      if (spec.name == "createUser" && db == "admin" && connection.loopback && !users_.any()) {
        return;
      }
      throw Error(ErrorCode::kUnauthorized, "Command " + spec.name + " requires authentication");
    }
    if (!auth::allowed(users, *action, db)) {
      throw Error(ErrorCode::kUnauthorized,
                  "not authorized on " + db + " to execute command " + spec.name);
    }
  }

  // j: true, fsync: true (and w: "majority", journaled on mongod) wait for stable storage.
  // Only the journaled engine acknowledges before fsync, so only it needs the extra flush.
  // The rest of the write concern was checked before the command ran (generic_arguments.h).
  void honour_write_concern(const CommandContext& ctx, const CommandSpec& spec) {
    if (!(spec.flags & kWrites)) return;
    Value wc = ctx.generic.write_concern;
    if (!wc.is_document()) return;
    Value j = wc.as_document().get("j");
    Value w = wc.as_document().get("w");
    bool wants_journal = j.truthy() || wc.as_document().get("fsync").truthy() ||
                         (w.is_string() && w.as_string() == "majority");
    if (wants_journal && engine_->options().durability == engine::Durability::kJournaled) {
      engine_->flush();
    }
  }

  void report_if_slow(const CommandContext& ctx, Clock::time_point start) {
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    if (!options_.log || took < options_.slow_operation) return;
    Value target = ctx.cmd.get(ctx.name);
    std::string ns = target.is_string() ? ctx.db + "." + std::string(target.as_string()) : ctx.db;
    options_.log(fmt::format("slow operation: connection {} command {} on {} took {} ms",
                             ctx.connection.id, ctx.name, ns, took.count()));
  }

  std::shared_ptr<engine::Engine> engine_;
  DispatcherOptions options_;
  CommandRegistry commands_;
  OperationRegistry operations_;
  OpCounters opcounters_;
  CursorRegistry cursors_;
  auth::UserStore users_;
  Clock::time_point started_;
};

CommandDispatcher::CommandDispatcher(std::shared_ptr<engine::Engine> engine,
                                     DispatcherOptions options)
    : impl_(std::make_unique<Impl>(std::move(engine), std::move(options))) {}
CommandDispatcher::~CommandDispatcher() = default;

bson::Document CommandDispatcher::run(const bson::Document& command,
                                      const ConnectionInfo& connection,
                                      std::string_view default_db) {
  return impl_->run(command, connection, default_db);
}

size_t CommandDispatcher::open_cursors() const {
  return impl_->open_cursors();
}

}  // namespace mongostore::server
