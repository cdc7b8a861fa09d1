#include "mongostore/server/command_dispatcher.h"

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <thread>
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
#include "server/fail_command.h"
#include "server/generic_arguments.h"
#include "server/op_counters.h"
#include "server/operation_registry.h"
#include "server/sessions/session_catalog.h"
#include "server/sessions/session_info.h"
#include "server/sessions/session_statements.h"
#include "server/topology.h"

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
        started_(Clock::now()),
        topology_(options_.standalone, options_.replica_set_name, options_.advertise),
        sessions_(options_.session_timeout, options_.max_sessions,
                  [this](Session& session) { end_session(session); }) {
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
    register_session_commands(commands_);
    // mongod's enableTestCommands: without it configureFailPoint does not exist.
    if (options_.enable_test_commands) register_test_commands(commands_);
  }

  // Runs the command, then (replica-set mode) adds the cluster time to its reply: a write
  // moves the clock, and its reply's operationTime is the write's time.
  Document run(const Document& cmd, const ConnectionInfo& connection, std::string_view default_db) {
    bool wrote = false;
    std::optional<FailCommandAction> failing;
    if (fail_command_.active() && cmd.begin() != cmd.end()) {
      failing = fail_command_.evaluate(cmd.begin()->key, connection.app_name);
    }
    if (failing && failing->block.count() > 0) std::this_thread::sleep_for(failing->block);
    if (failing && failing->close_connection) {
      throw Error(ErrorCode::kHostUnreachable,
                  "connection closed by the failCommand fail point (closeConnection)");
    }
    Document reply =
        run_command(cmd, connection, default_db, &wrote, failing ? &*failing : nullptr);
    if (!topology_.replica_set()) return reply;
    bson::Timestamp time = wrote ? topology_.clock().tick() : topology_.clock().now();
    DocumentBuilder b;
    for (const bson::Element& e : reply) b.append(e.key, e.value);
    topology_.append_cluster_time(b, time);
    return b.finish();
  }

  Document run_command(const Document& cmd, const ConnectionInfo& connection,
                       std::string_view default_db, bool* wrote, const FailCommandAction* failing) {
    auto first = cmd.begin();
    if (first == cmd.end()) {
      return error_reply(Error(ErrorCode::kFailedToParse, "empty command document"));
    }
    std::string name(first->key);
    // Declared outside the try: the session stays checked out until the reply is made, and
    // the error path labels errors by what the command was.
    SessionInfo session_info;
    std::optional<SessionCatalog::Checkout> session;
    std::string canonical = name;
    bool labels_given = false;  // a fail point's errorLabels replace mongod's own
    try {
      Value db_value = cmd.get("$db");
      std::string db =
          db_value.is_string() ? std::string(db_value.as_string()) : std::string(default_db);
      const CommandSpec* found = commands_.find(name);
      if (found == nullptr) {
        throw Error(ErrorCode::kCommandNotFound, "no such command: '" + name + "'");
      }
      const CommandSpec& spec = *found;
      canonical = spec.name;
      if ((spec.flags & kAdminOnly) && db != "admin") {
        throw Error(ErrorCode::kUnauthorized,
                    name + " may only be run against the admin database.");
      }
      if (options_.auth_required) check_authorized(spec, db, connection);
      CommandRegistry::check_fields(cmd.view(), spec);
      session_info = parse_session_info(cmd.view());
      if (session_info.txn_number && !topology_.replica_set()) {
        throw Error(ErrorCode::kIllegalOperation,
                    "Transaction numbers are only allowed on a replica set member or mongos");
      }
      GenericArguments generic = check_generic_arguments(
          // The first statement of a transaction carries the transaction's readConcern,
          // whatever the command (drivers put it on an insert as well as on a find).
          cmd.view(),
          {spec.name, (spec.flags & kWrites) != 0,
           (spec.flags & kReads) != 0 || session_info.start_transaction, (spec.flags & kApiV1) != 0,
           topology_.replica_set(), session_info.in_transaction, topology_.clock().now()});
      if (failing && failing->error_code) {
        Error failed(*failing->error_code, "Failing command via 'failCommand' failpoint");
        if (failing->error_labels) {
          labels_given = true;
          for (const std::string& l : *failing->error_labels) failed.add_label(l);
        }
        throw failed;
      }
      if (!session_info.lsid.empty() && !(spec.flags & kOwnSessions)) {
        // Under --auth the lsid names the caller's own session (mongod's lsid uid).
        std::string owner;
        if (options_.auth_required) {
          owner = auth::session_owner(auth::user_names(auth::users_of(connection.auth)));
        }
        session.emplace(sessions_.check_out(session_info.lsid, owner));
      }
      std::shared_ptr<engine::Transaction> transaction;
      if (session_info.in_transaction) {
        engine::TransactionOptions txn_options;
        txn_options.lifetime_limit = options_.transaction_lifetime_limit;
        transaction = enter_transaction(**session, session_info, spec.name, cmd.view(), *engine_,
                                        txn_options);
      } else if (session_info.txn_number) {
        if (const Document* first_reply =
                enter_retryable_write(**session, *session_info.txn_number, spec.name)) {
          return *first_reply;  // a retry: answered without writing again
        }
      }
      OperationRegistry::Operation running =
          operations_.enter(cmd.view(), db, name, connection.id, connection.peer);
      CommandContext ctx{.cmd = cmd.view(),
                         .db = db,
                         .name = name,
                         .collection = {},
                         .generic = generic,
                         .connection = connection,
                         .opid = running.opid(),
                         .session = session ? &**session : nullptr,
                         .transaction = transaction.get(),
                         .engine = transaction ? transaction->engine() : *engine_,
                         .cursors = cursors_,
                         .operations = operations_,
                         .commands = commands_,
                         .options = options_,
                         .opcounters = opcounters_,
                         .users = users_,
                         .started = started_,
                         .topology = topology_,
                         .sessions = sessions_,
                         .fail_command = fail_command_};
      opcounters_.count(name);
      auto start = Clock::now();
      // Counted first: a command whose collection name is invalid still counts, as it did
      // when each handler read the name itself.
      if (spec.flags & kCollection) ctx.collection = collection_name(ctx.cmd, ctx.name);
      DocumentBuilder b;
      // Set before it runs: a write that fails half-way may have written.
      *wrote = ((spec.flags & kWrites) && !transaction) || spec.name == "commitTransaction";
      spec.handler(ctx, b);
      honour_write_concern(ctx, spec);
      if (failing && failing->write_concern_error) {
        b.append("writeConcernError", *failing->write_concern_error);
        // A write concern error a retry may overcome is labelled as mongod labels it (or
        // exactly as the fail point says).
        Value code = failing->write_concern_error->get("code");
        Error as_error(code.is_number() ? static_cast<int32_t>(code.number_as_double()) : 8, "");
        if (failing->error_labels) {
          for (const std::string& l : *failing->error_labels) as_error.add_label(l);
        } else {
          label(as_error, session_info, spec.name);
        }
        if (!as_error.labels().empty()) {
          b.open_array("errorLabels");
          for (const std::string& l : as_error.labels()) b.push(l);
          b.close();
        }
      } else if (generic.write_concern_error) {
        b.open_document("writeConcernError");
        append_error_fields(b, *generic.write_concern_error);
        b.close();
      }
      b.append("ok", 1.0);
      report_if_slow(ctx, start);
      Document reply = b.finish();
      if (transaction) fail_whole_statement_on_transient_error(reply);
      if (session) {
        track_cursors(**session, spec.name, cmd.view(), reply);
        if (session_info.txn_number && !session_info.in_transaction) {
          record_retryable_write(**session, reply);
        }
      }
      return reply;
    } catch (Error& e) {
      if (!labels_given) label(e, session_info, canonical);
      return error_reply(e);
    } catch (const std::exception& e) {
      Error internal(ErrorCode::kInternalError, e.what());
      label(internal, session_info, canonical);
      return error_reply(internal);
    }
  }

  size_t sessions() const { return sessions_.size(); }
  bool fail_points_active() const { return fail_command_.active(); }

  void set_advertised_address(std::string host_port) {
    topology_.set_advertised(std::move(host_port));
  }

  size_t open_cursors() const { return cursors_.size(); }

 private:
  // mongod's errorLabels: TransientTransactionError on a transaction statement's error that
  // a retry of the whole transaction may overcome; RetryableWriteError on the errors of a
  // retryable write (or of a commit / abort) that a driver may retry.
  static void label(Error& e, const SessionInfo& info, std::string_view command) {
    if (info.in_transaction) label_transaction_error(e, command);
    if ((info.txn_number && !info.in_transaction) || command == "commitTransaction" ||
        command == "abortTransaction") {
      label_retryable_write_error(e);
    }
  }

  // In a transaction, a write error that retrying the whole transaction may overcome
  // (WriteConflict, ...) fails the whole command, so the reply carries it with
  // TransientTransactionError where drivers look (mongod's handleError does the same); any
  // other write error stays in writeErrors (the transaction is aborted either way).
  static void fail_whole_statement_on_transient_error(const Document& reply) {
    Value errors = reply.get("writeErrors");
    if (!errors.is_array()) return;
    Value first = errors.as_array().get("0");
    if (!first.is_document()) return;
    int64_t code = 0;
    if (!first.as_document().get("code").number_as_exact_int64(&code)) return;
    if (code != static_cast<int32_t>(ErrorCode::kWriteConflict) &&
        code != static_cast<int32_t>(ErrorCode::kNoSuchTransaction) && code != 24) {
      return;
    }
    Value message = first.as_document().get("errmsg");
    throw Error(static_cast<int32_t>(code),
                message.is_string() ? std::string(message.as_string()) : "write conflict");
  }

  // The session remembers the cursors its commands left open, so ending it kills them.
  static void track_cursors(Session& session, std::string_view command,
                            const bson::DocumentView& cmd, const Document& reply) {
    int64_t id = 0;
    Value returned = reply.view().get_path("cursor.id");
    if (!returned.number_as_exact_int64(&id)) return;
    if (id != 0) {
      // Bounded: past this many, the oldest are only forgotten (they still expire as idle).
      if (session.cursors.size() >= 10000) session.cursors.erase(session.cursors.begin());
      session.cursors.insert(id);
    } else if (command == "getMore") {
      int64_t asked = 0;
      if (cmd.get("getMore").number_as_exact_int64(&asked)) session.cursors.erase(asked);
    }
  }

  // An ended session (endSessions, killSessions, expiry): its open transaction is aborted
  // and its cursors are killed.
  void end_session(Session& session) {
    abort_open_transaction(session);
    for (int64_t id : session.cursors) cursors_.kill(id);
  }

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
  Topology topology_;
  FailCommand fail_command_;
  // Last: destroyed first, while the cursors it kills and the engine still exist.
  SessionCatalog sessions_;
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

void CommandDispatcher::set_advertised_address(std::string host_port) {
  impl_->set_advertised_address(std::move(host_port));
}

size_t CommandDispatcher::sessions() const {
  return impl_->sessions();
}

bool CommandDispatcher::fail_points_active() const {
  return impl_->fail_points_active();
}

}  // namespace mongostore::server
