#include "mongostore/server/command_dispatcher.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <unordered_map>
#include <utility>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/utf8.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/error.h"
#include "mongostore/server/server.h"
#include "server/generic_arguments.h"
#include "server/message_compression.h"
#include "server/operation_registry.h"

#include <fmt/core.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <thread>

namespace mongostore::server {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;
using Clock = std::chrono::steady_clock;

// A reply batch stops growing past this many bytes (mongod's 16 MiB), so a reply always fits
// in maxMessageSizeBytes however large the documents are.
constexpr size_t kMaxBatchBytes = 16 * 1024 * 1024;
constexpr int64_t kMaxWriteBatchSize = 100000;
constexpr int64_t kDefaultBatchSize = 101;

void check_write_batch_size(const DocumentView& batch) {
  size_t n = batch.count();
  if (n == 0 || n > static_cast<size_t>(kMaxWriteBatchSize)) {
    throw Error(ErrorCode::kInvalidLength, "Write batch sizes must be between 1 and " +
                                               std::to_string(kMaxWriteBatchSize) + ". Got " +
                                               std::to_string(n) + " operations.");
  }
}

int64_t as_integer(const Value& v, std::string_view field) {
  int64_t out = 0;
  if (v.is_number() && v.number_as_exact_int64(&out)) return out;
  if (v.is_number()) return static_cast<int64_t>(v.number_as_double());
  throw Error(ErrorCode::kTypeMismatch, "field '" + std::string(field) + "' must be a number");
}

int64_t integer_or(const DocumentView& doc, std::string_view field, int64_t fallback) {
  Value v = doc.get(field);
  if (v.is_missing() || v.is_null()) return fallback;
  return as_integer(v, field);
}

Document document_or_empty(const DocumentView& doc, std::string_view field) {
  Value v = doc.get(field);
  if (v.is_missing() || v.is_null()) return Document();
  if (!v.is_document()) {
    throw Error(ErrorCode::kTypeMismatch, "field '" + std::string(field) + "' must be a document");
  }
  return Document::copy_of(v.as_document());
}

// `hint` of a write or findAndModify: an index name or a key pattern.
engine::IndexHint hint_of(const DocumentView& spec) {
  engine::IndexHint hint;
  Value v = spec.get("hint");
  if (v.is_missing()) return hint;
  if (v.is_string()) {
    hint.name = std::string(v.as_string());
  } else if (v.is_document()) {
    hint.keys = Document::copy_of(v.as_document());
  } else {
    throw Error(ErrorCode::kFailedToParse, "hint must be a string or an object");
  }
  return hint;
}

// Checks every statement of an update or delete before any runs (mongod parses the whole
// command first): a field the engine honours passes, one MongoDB has but mongostore does not
// support fails NotImplemented, and any other fails as mongod's parser answers, Location40415
// "BSON field 'update.updates.bogus' is an unknown field".
void check_statements(const DocumentView& statements, std::string_view command,
                      std::string_view array, std::initializer_list<std::string_view> honoured,
                      std::initializer_list<std::string_view> unsupported) {
  for (const bson::Element& statement : statements) {
    if (!statement.value.is_document()) continue;  // reported per statement when it runs
    for (const bson::Element& field : statement.value.as_document()) {
      auto among = [&](std::initializer_list<std::string_view> names) {
        return std::find(names.begin(), names.end(), field.key) != names.end();
      };
      if (among(honoured)) continue;
      std::string path =
          std::string(command) + "." + std::string(array) + "." + std::string(field.key);
      if (among(unsupported)) {
        throw Error(ErrorCode::kNotImplemented,
                    "BSON field '" + path + "' is not supported by mongostore");
      }
      throw Error(ErrorCode::kUnknownField, "BSON field '" + path + "' is an unknown field.");
    }
  }
}

DocumentView required_array(const DocumentView& doc, std::string_view field) {
  Value v = doc.get(field);
  if (!v.is_array()) {
    throw Error(ErrorCode::kFailedToParse, "field '" + std::string(field) + "' must be an array");
  }
  return v.as_array();
}

std::string collection_name(const DocumentView& cmd, std::string_view command) {
  Value v = cmd.get(command);
  if (!v.is_string() || v.as_string().empty()) {
    throw Error(ErrorCode::kInvalidNamespace,
                "collection name for '" + std::string(command) + "' must be a non-empty string");
  }
  return std::string(v.as_string());
}

bool is_operator_update(const DocumentView& update) {
  auto it = update.begin();
  return it != update.end() && !it->key.empty() && it->key[0] == '$';
}

// {code, codeName, errmsg}, and for a DuplicateKey the index's keyPattern and keyValue (in a
// writeErrors entry and in a command's own error reply alike, as mongod sends them).
void append_error_fields(DocumentBuilder& b, const Error& e) {
  b.append("code", e.code());
  b.append("codeName", e.code_name());
  // Messages echo user input; a reply that is not UTF-8 is one a driver cannot decode.
  b.append("errmsg", bson::to_valid_utf8(e.what()));
  if (const auto* dup = dynamic_cast<const engine::DuplicateKeyError*>(&e)) {
    b.append("keyPattern", dup->key_pattern());
    b.append("keyValue", dup->key_value());
  }
  if (const auto* invalid = dynamic_cast<const DocumentValidationError*>(&e)) {
    b.append("errInfo", invalid->err_info());
  }
}

// A writeErrors entry: {index, code, codeName, errmsg, keyPattern, keyValue}.
void push_write_error(DocumentBuilder& errors, int64_t index, const Error& e) {
  errors.push_document();
  errors.append("index", static_cast<int32_t>(index));
  append_error_fields(errors, e);
  errors.close();
}

}  // namespace

class CommandDispatcher::Impl {
 public:
  Impl(std::shared_ptr<engine::Engine> engine, DispatcherOptions options)
      : engine_(std::move(engine)),
        options_(std::move(options)),
        random_(std::random_device{}()),
        started_(Clock::now()) {
    // Every command with the fields it honours besides its own name and the generic
    // arguments, and those MongoDB has that mongostore refuses (NotImplemented, 238). Any
    // other field fails as mongod's parser answers: Location40415 "BSON field 'find.x' is an
    // unknown field." (mongostore is stricter than mongod for the few commands mongod does
    // not parse strictly, such as ping: an option ignored there would be a silent no-op.)
    // isMaster is hello's older name, outside the Stable API.
    add({"hello"}, &Impl::hello, kApiV1, kHelloFields);
    add({"isMaster", "ismaster"}, &Impl::hello, 0, kHelloFields);
    add({"ping"}, &Impl::ping, kApiV1);
    add({"buildInfo", "buildinfo"}, &Impl::build_info);
    add({"whatsmyuri"}, &Impl::whatsmyuri);
    add({"connectionStatus"}, &Impl::connection_status, 0, {"showPrivileges"});
    add({"endSessions"}, &Impl::ping, kApiV1);
    add({"serverStatus"}, &Impl::server_status, kOpenFields);
    add({"collStats"}, &Impl::coll_stats, 0, {"scale"});
    add({"dbStats"}, &Impl::db_stats, 0, {"scale", "freeStorage"});
    add({"renameCollection"}, &Impl::rename_collection, kWrites | kAdminOnly,
        {"to", "dropTarget", "stayTemp"});
    add({"explain"}, &Impl::explain, kReads, {"verbosity"});
    add({"listDatabases"}, &Impl::list_databases, kAdminOnly | kApiV1,
        {"filter", "nameOnly", "authorizedDatabases"});
    add({"listCollections"}, &Impl::list_collections, kReads | kApiV1,
        {"filter", "nameOnly", "authorizedCollections", "cursor"});
    add({"create"}, &Impl::create, kWrites | kApiV1,
        {"capped", "autoIndexId", "validator", "validationLevel", "validationAction"},
        {"viewOn", "pipeline", "size", "max", "timeseries", "clusteredIndex",
         "changeStreamPreAndPostImages", "storageEngine", "indexOptionDefaults",
         "expireAfterSeconds", "collation", "idIndex", "encryptedFields"});
    add({"collMod"}, &Impl::coll_mod, kWrites | kApiV1,
        {"validator", "validationLevel", "validationAction"},
        {"index", "viewOn", "pipeline", "expireAfterSeconds", "recordPreImages",
         "changeStreamPreAndPostImages", "timeseries", "clusteredIndex", "dryRun", "cappedSize",
         "cappedMax", "collation", "usePowerOf2Sizes", "noPadding", "validatorCollation"});
    add({"drop"}, &Impl::drop, kWrites | kApiV1);
    add({"dropDatabase"}, &Impl::drop_database, kWrites | kApiV1);
    add({"insert"}, &Impl::insert, kWrites | kApiV1,
        {"documents", "ordered", "bypassDocumentValidation"});
    add({"find"}, &Impl::find, kReads | kApiV1,
        {"filter", "projection", "sort", "hint", "skip", "limit", "batchSize", "singleBatch",
         "allowDiskUse", "let", "noCursorTimeout", "allowPartialResults"},
        {"min", "max", "returnKey", "showRecordId", "tailable", "awaitData", "oplogReplay",
         "collation", "readOnce"});
    add({"getMore"}, &Impl::get_more, kApiV1, {"collection", "batchSize"});
    add({"killCursors"}, &Impl::kill_cursors, kApiV1, {"cursors"});
    add({"update"}, &Impl::update, kWrites | kApiV1,
        {"updates", "ordered", "bypassDocumentValidation", "let"});
    add({"delete"}, &Impl::remove, kWrites | kApiV1, {"deletes", "ordered", "let"});
    add({"findAndModify", "findandmodify"}, &Impl::find_and_modify, kWrites | kApiV1,
        {"query", "fields", "sort", "update", "remove", "new", "upsert", "bypassDocumentValidation",
         "arrayFilters", "hint", "let"},
        {"collation"});
    add({"aggregate"}, &Impl::aggregate, kWrites | kReads | kApiV1,
        {"pipeline", "cursor", "allowDiskUse", "let", "explain", "bypassDocumentValidation",
         "hint"},
        {"collation"});
    add({"count"}, &Impl::count, kReads | kApiV1, {"query", "limit", "skip", "hint"},
        {"collation"});
    add({"distinct"}, &Impl::distinct, kReads, {"key", "query"}, {"collation"});
    add({"createIndexes"}, &Impl::create_indexes, kWrites | kApiV1, {"indexes", "commitQuorum"},
        {"ignoreUnknownIndexOptions"});
    add({"listIndexes"}, &Impl::list_indexes, kReads | kApiV1, {"cursor"},
        {"includeBuildUUIDs", "includeIndexBuildInfo"});
    add({"dropIndexes", "deleteIndexes"}, &Impl::drop_indexes, kWrites | kApiV1, {"index"});
    add({"getCmdLineOpts"}, &Impl::get_cmd_line_opts, kAdminOnly);
    add({"getParameter"}, &Impl::get_parameter, kAdminOnly | kOpenFields);
    add({"listCommands"}, &Impl::list_commands);
    add({"hostInfo"}, &Impl::host_info);
    add({"profile"}, &Impl::profile, 0, {}, {"slowms", "sampleRate", "filter"});
    add({"validate"}, &Impl::validate, 0, {"full", "background"},
        {"repair", "metadata", "checkBSONConformance"});
    add({"currentOp"}, &Impl::current_op, kAdminOnly | kOpenFields);
    add({"killOp"}, &Impl::kill_op, kAdminOnly, {"op"});
    add({"usersInfo"}, &Impl::users_info, 0,
        {"showCredentials", "showCustomData", "showPrivileges", "showAuthenticationRestrictions",
         "filter"});
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
      auto it = commands_.find(name);
      if (it == commands_.end()) {
        throw Error(ErrorCode::kCommandNotFound, "no such command: '" + name + "'");
      }
      const CommandSpec& spec = it->second;
      if ((spec.flags & kAdminOnly) && db != "admin") {
        throw Error(ErrorCode::kUnauthorized,
                    name + " may only be run against the admin database.");
      }
      check_fields(cmd.view(), spec);
      check_generic_arguments(cmd.view(), {spec.name, (spec.flags & kWrites) != 0,
                                           (spec.flags & kReads) != 0, (spec.flags & kApiV1) != 0});
      OperationRegistry::Operation running =
          operations_.enter(cmd.view(), db, name, connection.id, connection.peer);
      Context ctx{cmd.view(), db, name, connection, running.opid()};
      count_operation(name);
      auto start = Clock::now();
      DocumentBuilder b;
      (this->*(spec.handler))(ctx, b);
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

  size_t open_cursors() const {
    std::lock_guard lock(mutex_);
    return cursors_.size();
  }

 private:
  struct Context {
    DocumentView cmd;
    std::string db;
    std::string name;
    const ConnectionInfo& connection;
    int64_t opid;
  };
  using Handler = void (Impl::*)(const Context&, DocumentBuilder&);

  enum Flags : unsigned {
    kWrites = 1,      // takes writeConcern
    kReads = 2,       // takes readConcern
    kAdminOnly = 4,   // runs against the admin database only
    kApiV1 = 8,       // in the Stable API version 1
    kOpenFields = 16  // the handler reads every other field itself (a filter, names)
  };

  struct CommandSpec {
    std::string name;  // the canonical name, as mongod names the command in its errors
    Handler handler = nullptr;
    unsigned flags = 0;
    std::vector<std::string_view> fields;
    std::vector<std::string_view> unsupported;
  };

  static inline const std::vector<std::string_view> kHelloFields = {"helloOk",
                                                                    "client",
                                                                    "compression",
                                                                    "saslSupportedMechs",
                                                                    "speculativeAuthenticate",
                                                                    "loadBalanced",
                                                                    "topologyVersion",
                                                                    "maxAwaitTimeMS"};

  void add(std::initializer_list<std::string> names, Handler handler, unsigned flags = 0,
           std::vector<std::string_view> fields = {},
           std::vector<std::string_view> unsupported = {}) {
    CommandSpec spec{*names.begin(), handler, flags, std::move(fields), std::move(unsupported)};
    for (const std::string& name : names) commands_.emplace(name, spec);
  }

  // A field the command honours passes; one MongoDB has and mongostore does not fails
  // NotImplemented naming it; anything else fails as mongod's parser answers.
  static void check_fields(const DocumentView& cmd, const CommandSpec& spec) {
    bool first = true;
    for (const bson::Element& e : cmd) {
      if (std::exchange(first, false)) continue;
      if (is_generic_argument(e.key) || (spec.flags & kOpenFields)) continue;
      auto among = [&](const std::vector<std::string_view>& names) {
        return std::find(names.begin(), names.end(), e.key) != names.end();
      };
      if (among(spec.fields)) continue;
      if (among(spec.unsupported)) {
        // `false` asks for what mongostore does anyway (returnKey: false, tailable: false,
        // repair: false, ...): honoured, as drivers send some flags with their default.
        if (e.value.type() == bson::BsonType::kBool && !e.value.as_bool()) continue;
        throw Error(ErrorCode::kNotImplemented, "the '" + std::string(e.key) + "' option of " +
                                                    spec.name + " is not supported by mongostore");
      }
      throw Error(ErrorCode::kUnknownField,
                  "BSON field '" + spec.name + "." + std::string(e.key) + "' is an unknown field.");
    }
  }

  // A server-side cursor: the engine cursor plus the documents it has produced and no reply
  // has carried yet (the engine hands out fixed-size batches; getMore asks for any size).
  struct OpenCursor {
    std::unique_ptr<engine::Cursor> cursor;
    std::string ns;
    Clock::time_point last_used;
    std::deque<Document> pending;
    bool no_timeout = false;  // noCursorTimeout: kept until exhausted or killed
    bool exhausted() const { return pending.empty() && cursor->exhausted(); }
    size_t memory() const {
      size_t bytes = cursor->memory_bytes();
      for (const Document& d : pending) bytes += d.size();
      return bytes;
    }
  };

  // j: true, fsync: true (and w: "majority", journaled on mongod) wait for stable storage.
  // Only the journaled engine acknowledges before fsync, so only it needs the extra flush.
  // The rest of the write concern was checked before the command ran (generic_arguments.h).
  void honour_write_concern(const Context& ctx, const CommandSpec& spec) {
    if (!(spec.flags & kWrites)) return;
    Value wc = ctx.cmd.get("writeConcern");
    if (!wc.is_document()) return;
    Value j = wc.as_document().get("j");
    Value w = wc.as_document().get("w");
    bool wants_journal = j.truthy() || wc.as_document().get("fsync").truthy() ||
                         (w.is_string() && w.as_string() == "majority");
    if (wants_journal && engine_->options().durability == engine::Durability::kJournaled) {
      engine_->flush();
    }
  }

  void count_operation(std::string_view name) {
    if (name == "insert") {
      ++opcounters_.insert;
    } else if (name == "find") {
      ++opcounters_.query;
    } else if (name == "update" || name == "findAndModify" || name == "findandmodify") {
      ++opcounters_.update;
    } else if (name == "delete") {
      ++opcounters_.remove;
    } else if (name == "getMore") {
      ++opcounters_.getmore;
    } else {
      ++opcounters_.command;
    }
  }

  void report_if_slow(const Context& ctx, Clock::time_point start) {
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    if (!options_.log || took < options_.slow_operation) return;
    Value target = ctx.cmd.get(ctx.name);
    std::string ns = target.is_string() ? ctx.db + "." + std::string(target.as_string()) : ctx.db;
    options_.log(fmt::format("slow operation: connection {} command {} on {} took {} ms",
                             ctx.connection.id, ctx.name, ns, took.count()));
  }

  static Document error_reply(const Error& e) {
    DocumentBuilder b;
    b.append("ok", 0.0);
    append_error_fields(b, e);
    return b.finish();
  }

  // --- handshake and diagnostics --------------------------------------------------------
  void hello(const Context& ctx, DocumentBuilder& b) {
    if (ctx.cmd.get("helloOk").truthy()) b.append("helloOk", true);
    b.append("ismaster", true);
    b.append("isWritablePrimary", true);
    b.append("maxBsonObjectSize", static_cast<int32_t>(engine::kMaxDocumentSize));
    b.append("maxMessageSizeBytes", kMaxMessageSize);
    b.append("maxWriteBatchSize", static_cast<int32_t>(100000));
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    b.append("localTime", bson::DateTime{now.count()});
    b.append("logicalSessionTimeoutMinutes", static_cast<int32_t>(30));
    b.append("connectionId", ctx.connection.id);
    b.append("minWireVersion", static_cast<int32_t>(0));
    b.append("maxWireVersion", static_cast<int32_t>(21));
    b.append("readOnly", false);
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

  void ping(const Context&, DocumentBuilder&) {}

  void build_info(const Context&, DocumentBuilder& b) {
    b.append("version", "7.0.0");
    b.append("gitVersion", "mongostore");
    b.append_array("versionArray", bson::make_array(7, 0, 0, 0).view());
    b.append("bits", static_cast<int32_t>(64));
    b.append("maxBsonObjectSize", static_cast<int32_t>(engine::kMaxDocumentSize));
    b.append("storageEngines", bson::make_array("wiredTiger"));
  }

  void whatsmyuri(const Context& ctx, DocumentBuilder& b) { b.append("you", ctx.connection.peer); }

  void connection_status(const Context& ctx, DocumentBuilder& b) {
    b.open_document("authInfo");
    b.open_array("authenticatedUsers").close();
    b.open_array("authenticatedUserRoles").close();
    // No authentication: no user, so no privileges.
    if (ctx.cmd.get("showPrivileges").truthy()) b.open_array("authenticatedUserPrivileges").close();
    b.close();
  }

  // serverStatus: {serverStatus: 1, <section>: 0 | 1}, as on mongod. A section it reports
  // can be left out; asking for a section mongostore does not have fails NotImplemented
  // naming it (an empty answer would read as "nothing to report").
  void server_status(const Context& ctx, DocumentBuilder& b) {
    static constexpr std::array<std::string_view, 4> kSections = {"connections", "opcounters",
                                                                  "metrics", "storageEngine"};
    bool first = true;
    for (const bson::Element& e : ctx.cmd) {
      if (std::exchange(first, false) || is_generic_argument(e.key)) continue;
      bool known = std::find(kSections.begin(), kSections.end(), e.key) != kSections.end();
      if (!known && e.value.truthy()) {
        throw Error(ErrorCode::kNotImplemented, "serverStatus section '" + std::string(e.key) +
                                                    "' is not supported by mongostore");
      }
    }
    auto wants = [&](std::string_view section) {
      Value v = ctx.cmd.get(section);
      return v.is_missing() || v.truthy();
    };
    auto uptime = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_);
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    b.append("host", "mongostore");
    b.append("version", "7.0.0");
    b.append("process", "mongostore");
    b.append("pid", static_cast<int64_t>(getpid()));
    b.append("uptime", static_cast<double>(uptime.count()) / 1000.0);
    b.append("uptimeMillis", static_cast<int64_t>(uptime.count()));
    b.append("localTime", bson::DateTime{now.count()});
    const ConnectionInfo& c = ctx.connection;
    if (wants("connections")) {
      b.open_document("connections")
          .append("current", static_cast<int32_t>(c.open_connections))
          .append("available", static_cast<int32_t>(c.max_connections > c.open_connections
                                                        ? c.max_connections - c.open_connections
                                                        : 0))
          .append("totalCreated", c.total_connections)
          .close();
    }
    if (wants("opcounters")) {
      b.open_document("opcounters")
          .append("insert", opcounters_.insert.load())
          .append("query", opcounters_.query.load())
          .append("update", opcounters_.update.load())
          .append("delete", opcounters_.remove.load())
          .append("getmore", opcounters_.getmore.load())
          .append("command", opcounters_.command.load())
          .close();
    }
    if (wants("metrics")) {
      b.open_document("metrics")
          .open_document("cursor")
          .open_document("open")
          .append("total", static_cast<int64_t>(open_cursors()))
          .close()
          .close()
          .close();
    }
    if (!wants("storageEngine")) return;
    b.append("storageEngine",
             bson::make_document("name", "wiredTiger", "persistent",
                                 engine_->options().durability != engine::Durability::kInMemory));
  }

  void coll_stats(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    if (!engine_->collection_exists(ctx.db, coll)) {
      throw Error(ErrorCode::kNamespaceNotFound,
                  "Collection [" + ctx.db + "." + coll + "] not found.");
    }
    int64_t scale = scale_of(ctx.cmd);
    engine::CollectionStats stats = engine_->collection_stats(ctx.db, coll);
    auto indexes = engine_->list_indexes(ctx.db, coll);
    b.append("ns", ctx.db + "." + coll);
    b.append("count", stats.document_count);
    b.append("size", stats.data_size / scale);
    b.append("avgObjSize", stats.document_count ? stats.data_size / stats.document_count : 0);
    b.append("storageSize", stats.data_size / scale);
    b.append("nindexes", static_cast<int32_t>(indexes.size()));
    b.open_document("indexSizes");
    for (const Document& index : indexes) b.append(index.get("name").as_string(), int64_t{0});
    b.close();
    b.append("totalIndexSize", int64_t{0});
  }

  // `scale` of collStats and dbStats: sizes are divided by it (a positive integer; mongod
  // answers a non-positive one with BadValue).
  static int64_t scale_of(const DocumentView& cmd) {
    Value v = cmd.get("scale");
    if (v.is_missing()) return 1;
    if (!v.is_number()) throw Error(ErrorCode::kTypeMismatch, "scale has to be a number");
    int64_t scale = static_cast<int64_t>(v.number_as_double());
    if (scale < 1) throw Error(ErrorCode::kBadValue, "Scale must be a value >= 1");
    return scale;
  }

  void db_stats(const Context& ctx, DocumentBuilder& b) {
    if (ctx.cmd.get("freeStorage").truthy()) {
      throw Error(ErrorCode::kNotImplemented,
                  "the 'freeStorage' option of dbStats is not supported by mongostore");
    }
    int64_t scale = scale_of(ctx.cmd);
    int64_t objects = 0, size = 0, indexes = 0;
    auto collections = engine_->list_collections(ctx.db);
    for (const std::string& coll : collections) {
      engine::CollectionStats stats = engine_->collection_stats(ctx.db, coll);
      objects += stats.document_count;
      size += stats.data_size;
      indexes += static_cast<int64_t>(engine_->list_indexes(ctx.db, coll).size());
    }
    b.append("db", ctx.db);
    b.append("collections", static_cast<int64_t>(collections.size()));
    b.append("views", int64_t{0});
    b.append("objects", objects);
    b.append("avgObjSize",
             objects ? static_cast<double>(size) / static_cast<double>(objects) : 0.0);
    b.append("dataSize", static_cast<double>(size / scale));
    b.append("storageSize", static_cast<double>(size / scale));
    b.append("indexes", indexes);
    b.append("indexSize", 0.0);
  }

  // renameCollection: one atomic catalog change in the engine (documents and indexes stay
  // where they are).
  void rename_collection(const Context& ctx, DocumentBuilder&) {
    if (ctx.db != "admin") {
      throw Error(ErrorCode::kUnauthorized,
                  "renameCollection may only be run against the admin database.");
    }
    auto split = [](Value v, const char* field) {
      if (!v.is_string()) {
        throw Error(ErrorCode::kTypeMismatch, std::string("'") + field + "' must be a string");
      }
      std::string_view ns = v.as_string();
      size_t dot = ns.find('.');
      if (dot == std::string_view::npos || dot == 0 || dot + 1 == ns.size()) {
        throw Error(ErrorCode::kInvalidNamespace,
                    "Invalid namespace specified '" + std::string(ns) + "'");
      }
      return std::pair<std::string, std::string>(ns.substr(0, dot), ns.substr(dot + 1));
    };
    auto [from_db, from] = split(ctx.cmd.get("renameCollection"), "renameCollection");
    auto [to_db, to] = split(ctx.cmd.get("to"), "to");
    engine_->rename_collection(from_db, from, to_db, to, ctx.cmd.get("dropTarget").truthy());
  }

  // explain of a find (the only explainable command here). Every verbosity answers with
  // executionStats, which is what the engine measures (a superset of queryPlanner's).
  void explain(const Context& ctx, DocumentBuilder& b) {
    Value inner = ctx.cmd.get("explain");
    if (!inner.is_document()) {
      throw Error(ErrorCode::kFailedToParse, "explain command requires a nested object");
    }
    DocumentView find_cmd = inner.as_document();
    auto first = find_cmd.begin();
    if (first == find_cmd.end() || first->key != "find") {
      throw Error(ErrorCode::kNotImplemented, "explain is supported for find only");
    }
    if (Value verbosity = ctx.cmd.get("verbosity"); !verbosity.is_missing()) {
      if (!verbosity.is_string() ||
          (verbosity.as_string() != "queryPlanner" && verbosity.as_string() != "executionStats" &&
           verbosity.as_string() != "allPlansExecution")) {
        throw Error(ErrorCode::kBadValue,
                    "verbosity must be queryPlanner, executionStats or allPlansExecution");
      }
    }
    // The explained find's fields are checked as the find command's own.
    check_fields(find_cmd, commands_.at("find"));
    std::string coll = collection_name(find_cmd, "find");
    engine::FindOptions options = find_options(find_cmd);
    options.limit = std::abs(integer_or(find_cmd, "limit", 0));
    Document result =
        engine_->explain_find(ctx.db, coll, document_or_empty(find_cmd, "filter"), options);
    b.append_elements(result);
    b.open_document("command").append_elements(find_cmd).append("$db", ctx.db).close();
    b.append("serverInfo", bson::make_document("host", "mongostore", "version", "7.0.0"));
  }

  // --- what drivers, shells and tools ask first ------------------------------------------
  void get_cmd_line_opts(const Context&, DocumentBuilder& b) {
    b.open_array("argv");
    for (const std::string& arg : options_.command_line) b.push(arg);
    b.close();
    b.append("parsed", options_.parsed_options);
  }

  // The server parameters mongostore has, with their (fixed) values. Reporting a parameter
  // means behaving as it says: no table scan is refused (notablescan false), no test
  // commands exist (enableTestCommands false), no authentication mechanism is offered.
  Document parameters() const {
    DocumentBuilder p;
    p.append("authenticationMechanisms", bson::make_array());
    p.append("cursorTimeoutMillis", static_cast<int64_t>(options_.cursor_idle_timeout.count()));
    p.append("enableTestCommands", false);
    p.append("featureCompatibilityVersion", bson::make_document("version", "7.0"));
    p.append("logLevel", static_cast<int32_t>(0));
    p.append("notablescan", false);
    p.append("requireApiVersion", false);
    return p.finish();
  }

  // getParameter: {getParameter: 1, <name>: 1, ...}, {getParameter: "*"} for all, or
  // {getParameter: {showDetails: true, allParameters: true}}. A name mongostore does not
  // have fails InvalidOptions (72), mongod's "no option found to get".
  void get_parameter(const Context& ctx, DocumentBuilder& b) {
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
    Document known = parameters();
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
  void list_commands(const Context&, DocumentBuilder& b) {
    b.open_document("commands");
    for (const auto& [name, spec] : commands_) {
      b.open_document(name);
      b.append("help", "");
      b.append("requiresAuth", false);
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

  void host_info(const Context&, DocumentBuilder& b) {
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

  // profile: mongostore has no profiler, so level 0 (off) is the only level: reading it
  // (-1) or setting 0 answers was: 0; levels 1 and 2 fail NotImplemented.
  void profile(const Context& ctx, DocumentBuilder& b) {
    Value level = ctx.cmd.get("profile");
    int64_t n = 0;
    if (!level.is_number() || !level.number_as_exact_int64(&n) || n < -1 || n > 2) {
      throw Error(ErrorCode::kBadValue, "profile level must be -1, 0, 1 or 2");
    }
    if (n > 0) {
      throw Error(ErrorCode::kNotImplemented,
                  "profiling (level " + std::to_string(n) + ") is not supported by mongostore");
    }
    b.append("was", static_cast<int32_t>(0));
    b.append("slowms", static_cast<int32_t>(options_.slow_operation.count()));
    b.append("sampleRate", 1.0);
  }

  // currentOp: the commands running on this server now (this one included, as on mongod),
  // narrowed by the command's other fields, which are a filter over the operations. Idle
  // connections are not tracked, so $all: true (which asks for them) is refused.
  void current_op(const Context& ctx, DocumentBuilder& b) {
    DocumentBuilder filter;
    bool first = true;
    for (const bson::Element& e : ctx.cmd) {
      if (std::exchange(first, false) || is_generic_argument(e.key)) continue;
      if (e.key == "$ownOps") continue;  // no authentication: every operation is one's own
      if (e.key == "$all") {
        if (e.value.truthy()) {
          throw Error(ErrorCode::kNotImplemented,
                      "currentOp $all (idle connections) is not supported by mongostore");
        }
        continue;
      }
      filter.append(e.key, e.value);
    }
    Document filter_doc = filter.finish();
    engine::Matcher matcher = engine::Matcher::compile(filter_doc.view());
    std::vector<Document> ops = operations_.describe();
    b.open_array("inprog");
    for (const Document& op : ops) {
      if (matcher.matches(op.view())) b.push(op.view());
    }
    b.close();
  }

  // killOp: operations here cannot be interrupted, so killing one that is running fails
  // NotImplemented rather than claiming it was killed. An opid that is not running answers
  // ok, as mongod answers it ("attempting to kill op": there is nothing left to kill).
  void kill_op(const Context& ctx, DocumentBuilder& b) {
    Value op = ctx.cmd.get("op");
    if (op.is_missing()) throw Error(ErrorCode::kNoSuchKey, "Missing expected field \"op\"");
    int64_t opid = 0;
    if (!op.is_number() || !op.number_as_exact_int64(&opid)) {
      throw Error(ErrorCode::kTypeMismatch, "Expected field \"op\" to have an integral value");
    }
    if (opid != ctx.opid && operations_.running(opid)) {
      throw Error(ErrorCode::kNotImplemented,
                  "killOp of a running operation is not supported by mongostore (operations "
                  "cannot be interrupted)");
    }
    b.append("info", "attempting to kill op");
  }

  // validate: the engine walks the collection and its indexes in one snapshot (always the
  // whole walk, so `full` and `background` are what it does anyway).
  void validate(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    engine::ValidateResult result = engine_->validate_collection(ctx.db, coll);
    b.append("ns", ctx.db + "." + coll);
    b.append("nInvalidDocuments", int64_t{0});
    b.append("nNonCompliantDocuments", int64_t{0});
    b.append("nrecords", result.records);
    b.append("nIndexes", static_cast<int32_t>(result.keys_per_index.size()));
    b.open_document("keysPerIndex");
    for (const auto& [name, keys] : result.keys_per_index) b.append(name, keys);
    b.close();
    b.open_document("indexDetails");
    for (const auto& [name, keys] : result.keys_per_index) {
      bool index_valid = true;
      for (const std::string& error : result.errors) {
        if (error.find("'" + name + "'") != std::string::npos) index_valid = false;
      }
      b.open_document(name).append("valid", index_valid).close();
    }
    b.close();
    b.append("valid", result.valid());
    b.append("repaired", false);
    b.open_array("warnings").close();
    b.open_array("errors");
    for (const std::string& error : result.errors) b.push(error);
    b.close();
    b.open_array("extraIndexEntries").close();
    b.open_array("missingIndexEntries").close();
    b.open_array("corruptRecords").close();
  }

  // usersInfo: there is no authentication, so there are no users.
  void users_info(const Context& ctx, DocumentBuilder& b) {
    Value which = ctx.cmd.get("usersInfo");
    if (!(which.is_number() || which.is_string() || which.is_document() || which.is_array())) {
      throw Error(ErrorCode::kBadValue,
                  "User and role names must be either strings or objects, or 1");
    }
    b.open_array("users").close();
  }

  // --- catalog ---------------------------------------------------------------------------
  // listDatabases: `filter` is a query over {name, sizeOnDisk, empty} (mongod's fields);
  // totalSize adds up the databases the filter kept. authorizedDatabases has nothing to
  // narrow without authentication: every database is the user's.
  void list_databases(const Context& ctx, DocumentBuilder& b) {
    bool name_only = ctx.cmd.get("nameOnly").truthy();
    Document filter = document_or_empty(ctx.cmd, "filter");
    engine::Matcher matcher = engine::Matcher::compile(filter.view());
    if (Value a = ctx.cmd.get("authorizedDatabases");
        !a.is_missing() && a.type() != bson::BsonType::kBool) {
      throw Error(ErrorCode::kTypeMismatch,
                  "BSON field 'listDatabases.authorizedDatabases' is the "
                  "wrong type, expected type 'bool'");
    }
    int64_t total = 0;
    b.open_array("databases");
    for (const std::string& db : engine_->list_databases()) {
      int64_t size = 0;
      for (const std::string& coll : engine_->list_collections(db)) {
        size += engine_->collection_stats(db, coll).data_size;
      }
      Document described = bson::make_document("name", db, "sizeOnDisk", size, "empty", false);
      if (!matcher.matches(described.view())) continue;
      total += size;
      if (name_only) {
        b.push_document().append("name", db).close();
      } else {
        b.push(described.view());
      }
    }
    b.close();
    if (!name_only) b.append("totalSize", total);
  }

  // A cursor over documents already in hand (the listing commands), so they page with
  // cursor.batchSize and getMore as mongod's do.
  class ListCursor : public engine::Cursor {
   public:
    explicit ListCursor(std::vector<Document> docs) : docs_(std::move(docs)) {}
    std::vector<Document> next_batch() override {
      done_ = true;
      return std::move(docs_);
    }
    bool exhausted() const override { return done_; }

   private:
    std::vector<Document> docs_;
    bool done_ = false;
  };

  // cursor: {batchSize: n} of a listing command; 0 (the default) is everything at once.
  static int64_t listing_batch_size(const DocumentView& cmd) {
    Value cursor = cmd.get("cursor");
    if (cursor.is_missing()) return 0;
    if (!cursor.is_document()) {
      throw Error(ErrorCode::kTypeMismatch, "BSON field 'cursor' must be an object");
    }
    for (const bson::Element& e : cursor.as_document()) {
      if (e.key != "batchSize") {
        throw Error(ErrorCode::kUnknownField,
                    "BSON field 'cursor." + std::string(e.key) + "' is an unknown field.");
      }
    }
    int64_t n = integer_or(cursor.as_document(), "batchSize", 0);
    if (n < 0) throw Error(ErrorCode::kBadValue, "batchSize must be non-negative");
    return n;
  }

  void reply_with_list(DocumentBuilder& b, std::vector<Document> docs, std::string ns,
                       int64_t batch_size) {
    OpenCursor open{std::make_unique<ListCursor>(std::move(docs)), std::move(ns), {}, {}};
    // batchSize 0 of a listing command is everything in the first batch (mongod's default);
    // take_batch reads that as "one engine batch", which is all of it.
    reply_with_cursor(b, std::move(open), batch_size == 0 ? -1 : batch_size, false, "firstBatch");
  }

  void list_collections(const Context& ctx, DocumentBuilder& b) {
    Document filter = document_or_empty(ctx.cmd, "filter");
    // The filter is a query over the full collection descriptions, as on mongod (drivers
    // send {name: ...} and {type: ...}; anything else a user writes works the same way).
    engine::Matcher matcher = engine::Matcher::compile(filter.view());
    bool name_only = ctx.cmd.get("nameOnly").truthy();
    int64_t batch_size = listing_batch_size(ctx.cmd);
    std::vector<Document> out;
    for (const std::string& coll : engine_->list_collections(ctx.db)) {
      Document options;
      try {
        options = engine_->collection_options(ctx.db, coll);
      } catch (const Error& e) {
        if (e.error_code() == ErrorCode::kNamespaceNotFound) continue;  // dropped meanwhile
        throw;
      }
      DocumentBuilder info;
      info.append("name", coll).append("type", "collection");
      info.append("options", options);
      info.open_document("info").append("readOnly", false).close();
      info.open_document("idIndex")
          .append("v", 2)
          .append("key", bson::make_document("_id", 1))
          .append("name", "_id_")
          .close();
      Document described = info.finish();
      if (!matcher.matches(described.view())) continue;
      if (name_only) {
        out.push_back(bson::make_document("name", coll, "type", "collection"));
      } else {
        out.push_back(std::move(described));
      }
    }
    reply_with_list(b, std::move(out), ctx.db + ".$cmd.listCollections", batch_size);
  }

  // create makes a plain collection, with a validator when asked. The options MongoDB has for
  // anything else (views, capped, time series, clustered, collation, ...) fail NotImplemented
  // before this runs (the command table), so nothing is made that is not what the client
  // asked for.
  void create(const Context& ctx, DocumentBuilder&) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    if (Value capped = ctx.cmd.get("capped"); !capped.is_missing()) {
      if (capped.type() != bson::BsonType::kBool && !capped.is_number()) {
        throw Error(ErrorCode::kTypeMismatch,
                    "BSON field 'create.capped' is the wrong type, expected type 'bool'");
      }
      if (capped.truthy()) {
        throw Error(ErrorCode::kNotImplemented,
                    "the 'capped' option of create is not supported by mongostore");
      }
    }
    if (Value auto_id = ctx.cmd.get("autoIndexId"); !auto_id.is_missing() && !auto_id.truthy()) {
      throw Error(ErrorCode::kNotImplemented,
                  "the 'autoIndexId' option of create is not supported by mongostore (every "
                  "collection has its _id index)");
    }
    DocumentBuilder options;
    for (const bson::Element& e : ctx.cmd) {
      if (e.key == "validator" || e.key == "validationLevel" || e.key == "validationAction") {
        options.append(e.key, e.value);
      }
    }
    engine_->create_collection(ctx.db, coll, options.finish());
  }

  // collMod: the validation options only (the command table refuses the others, 238).
  void coll_mod(const Context& ctx, DocumentBuilder&) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    DocumentBuilder options;
    for (const bson::Element& e : ctx.cmd) {
      if (e.key == "validator" || e.key == "validationLevel" || e.key == "validationAction") {
        options.append(e.key, e.value);
      }
    }
    engine_->modify_collection(ctx.db, coll, options.finish());
  }

  void drop(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    if (!engine_->collection_exists(ctx.db, coll)) return;  // mongod 7: a bare {ok: 1}
    size_t indexes = engine_->list_indexes(ctx.db, coll).size();
    if (!engine_->drop_collection(ctx.db, coll)) return;
    b.append("nIndexesWas", static_cast<int32_t>(indexes));
    b.append("ns", ctx.db + "." + coll);
  }

  void drop_database(const Context& ctx, DocumentBuilder& b) {
    engine_->drop_database(ctx.db);
    b.append("dropped", ctx.db);
  }

  // --- writes ----------------------------------------------------------------------------
  void insert(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    DocumentView docs = required_array(ctx.cmd, "documents");
    check_write_batch_size(docs);
    bool ordered = ctx.cmd.get("ordered").is_missing() || ctx.cmd.get("ordered").truthy();
    engine::InsertOptions insert_options;
    insert_options.bypass_document_validation = ctx.cmd.get("bypassDocumentValidation").truthy();
    int64_t n = 0, index = 0;
    DocumentBuilder errors;
    bool any_error = false;
    for (const bson::Element& e : docs) {
      try {
        if (!e.value.is_document()) {
          throw Error(ErrorCode::kTypeMismatch, "documents to insert must be objects");
        }
        engine_->insert_one(ctx.db, coll, e.value.as_document(), insert_options);
        ++n;
      } catch (const Error& err) {
        push_write_error(errors, index, err);
        any_error = true;
        if (ordered) break;
      }
      ++index;
    }
    b.append("n", static_cast<int32_t>(n));
    if (any_error) b.append_array("writeErrors", errors.finish_array().view());
  }

  void update(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    DocumentView updates = required_array(ctx.cmd, "updates");
    check_write_batch_size(updates);
    const Document let = document_or_empty(ctx.cmd, "let");
    check_statements(updates, "update", "updates",
                     {"q", "u", "upsert", "multi", "arrayFilters", "hint"}, {"collation", "c"});
    bool ordered = ctx.cmd.get("ordered").is_missing() || ctx.cmd.get("ordered").truthy();
    int64_t n = 0, modified = 0, index = 0;
    DocumentBuilder errors, upserted;
    bool any_error = false, any_upsert = false;
    for (const bson::Element& e : updates) {
      try {
        if (!e.value.is_document()) throw Error(ErrorCode::kTypeMismatch, "update must be object");
        DocumentView spec = e.value.as_document();
        Document q = document_or_empty(spec, "q");
        Value u = spec.get("u");
        engine::UpdateOptions options;
        options.upsert = spec.get("upsert").truthy();
        options.bypass_document_validation = ctx.cmd.get("bypassDocumentValidation").truthy();
        bool multi = spec.get("multi").truthy();
        Value filters = spec.get("arrayFilters");
        if (filters.is_array()) {
          for (const bson::Element& f : filters.as_array()) {
            if (f.value.is_document()) {
              options.array_filters.push_back(Document::copy_of(f.value.as_document()));
            }
          }
        }
        options.hint = hint_of(spec);
        options.let = let;
        engine::UpdateResult result;
        if (u.is_array()) {
          // An update pipeline: the engine takes the stages' array bytes.
          options.update_is_pipeline = true;
          result = multi ? engine_->update_many(ctx.db, coll, q, u.as_array(), options)
                         : engine_->update_one(ctx.db, coll, q, u.as_array(), options);
        } else if (!u.is_document()) {
          throw Error(ErrorCode::kFailedToParse, "'u' must be an update document");
        } else if (is_operator_update(u.as_document())) {
          result = multi ? engine_->update_many(ctx.db, coll, q, u.as_document(), options)
                         : engine_->update_one(ctx.db, coll, q, u.as_document(), options);
        } else {
          if (multi) {
            throw Error(ErrorCode::kFailedToParse, "multi update is not supported for replacement");
          }
          engine::ReplaceOptions replace_options;
          replace_options.upsert = options.upsert;
          replace_options.bypass_document_validation = options.bypass_document_validation;
          replace_options.hint = options.hint;
          replace_options.let = let;
          result = engine_->replace_one(ctx.db, coll, q, u.as_document(), replace_options);
        }
        n += result.matched_count;
        modified += result.modified_count;
        if (result.upserted_id) {
          ++n;
          any_upsert = true;
          upserted.push_document()
              .append("index", static_cast<int32_t>(index))
              .append("_id", result.upserted_id->view())
              .close();
        }
      } catch (const Error& err) {
        push_write_error(errors, index, err);
        any_error = true;
        if (ordered) break;
      }
      ++index;
    }
    b.append("n", static_cast<int32_t>(n));
    b.append("nModified", static_cast<int32_t>(modified));
    if (any_upsert) b.append_array("upserted", upserted.finish_array().view());
    if (any_error) b.append_array("writeErrors", errors.finish_array().view());
  }

  void remove(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    DocumentView deletes = required_array(ctx.cmd, "deletes");
    check_write_batch_size(deletes);
    const Document let = document_or_empty(ctx.cmd, "let");
    check_statements(deletes, "delete", "deletes", {"q", "limit", "hint"}, {"collation"});
    bool ordered = ctx.cmd.get("ordered").is_missing() || ctx.cmd.get("ordered").truthy();
    int64_t n = 0, index = 0;
    DocumentBuilder errors;
    bool any_error = false;
    for (const bson::Element& e : deletes) {
      try {
        if (!e.value.is_document()) throw Error(ErrorCode::kTypeMismatch, "delete must be object");
        DocumentView spec = e.value.as_document();
        Document q = document_or_empty(spec, "q");
        int64_t limit = integer_or(spec, "limit", 0);
        engine::DeleteOptions delete_options;
        delete_options.hint = hint_of(spec);
        delete_options.let = let;
        n += limit == 1 ? engine_->delete_one(ctx.db, coll, q, delete_options)
                        : engine_->delete_many(ctx.db, coll, q, delete_options);
      } catch (const Error& err) {
        push_write_error(errors, index, err);
        any_error = true;
        if (ordered) break;
      }
      ++index;
    }
    b.append("n", static_cast<int32_t>(n));
    if (any_error) b.append_array("writeErrors", errors.finish_array().view());
  }

  void find_and_modify(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    Document query = document_or_empty(ctx.cmd, "query");
    engine::FindAndModifyOptions options;
    options.sort = document_or_empty(ctx.cmd, "sort");
    options.projection = document_or_empty(ctx.cmd, "fields");
    options.hint = hint_of(ctx.cmd);
    options.let = document_or_empty(ctx.cmd, "let");
    // writeConcern {j: false} on a durable engine: acknowledged from the log buffer (the
    // next journaled write flushes it; see FindAndModifyOptions::journal).
    if (Value wc = ctx.cmd.get("writeConcern"); wc.is_document()) {
      Value j = wc.as_document().get("j");
      if (j.type() == bson::BsonType::kBool && !j.as_bool()) options.journal = false;
    }
    options.upsert = ctx.cmd.get("upsert").truthy();
    options.bypass_document_validation = ctx.cmd.get("bypassDocumentValidation").truthy();
    options.return_document = ctx.cmd.get("new").truthy() ? engine::ReturnDocument::kAfter
                                                          : engine::ReturnDocument::kBefore;
    bool remove = ctx.cmd.get("remove").truthy();
    Value update = ctx.cmd.get("update");
    std::optional<Document> value;
    if (remove) {
      if (!update.is_missing()) {
        throw Error(ErrorCode::kFailedToParse, "Cannot specify both an update and remove=true");
      }
      value = engine_->find_one_and_delete(ctx.db, coll, query, options);
      b.open_document("lastErrorObject").append("n", value ? 1 : 0).close();
    } else {
      options.update_is_pipeline = update.is_array();
      if (!update.is_document() && !update.is_array()) {
        throw Error(ErrorCode::kFailedToParse, "Either an update or remove=true must be specified");
      }
      Value filters = ctx.cmd.get("arrayFilters");
      if (filters.is_array()) {
        for (const bson::Element& f : filters.as_array()) {
          if (f.value.is_document()) {
            options.array_filters.push_back(Document::copy_of(f.value.as_document()));
          }
        }
      }
      UpsertOutcome outcome = find_and_modify_update(
          ctx.db, coll, query, update.is_array() ? update.as_array() : update.as_document(),
          options);
      value = std::move(outcome.value);
      b.open_document("lastErrorObject");
      b.append("n", (outcome.updated_existing || outcome.upserted_id) ? 1 : 0);
      b.append("updatedExisting", outcome.updated_existing);
      if (outcome.upserted_id) b.append("upserted", outcome.upserted_id->view());
      b.close();
    }
    if (value) {
      b.append("value", *value);
    } else {
      b.append("value", bson::Null{});
    }
  }

  struct UpsertOutcome {
    std::optional<Document> value;
    bool updated_existing = false;
    std::optional<bson::OwnedValue> upserted_id;
  };

  std::optional<Document> modify(const std::string& db, const std::string& coll,
                                 const Document& query, DocumentView update,
                                 const engine::FindAndModifyOptions& options) {
    return options.update_is_pipeline || is_operator_update(update)
               ? engine_->find_one_and_update(db, coll, query, update, options)
               : engine_->find_one_and_replace(db, coll, query, update, options);
  }

  // lastErrorObject.updatedExisting and .upserted come from the engine's own account of the
  // operation (FindAndModifyOutcome, filled inside its transaction), never from a read before
  // or after it: a read-back of the after image let two concurrent `$inc` upserts of one
  // counter return the same value.
  UpsertOutcome find_and_modify_update(const std::string& db, const std::string& coll,
                                       const Document& query, DocumentView update,
                                       engine::FindAndModifyOptions options) {
    UpsertOutcome out;
    engine::FindAndModifyOutcome outcome;
    options.outcome = &outcome;
    out.value = modify(db, coll, query, update, options);
    out.updated_existing = outcome.matched;
    out.upserted_id = std::move(outcome.upserted_id);
    return out;
  }

  // --- reads and cursors -----------------------------------------------------------------
  // Moves up to `batch_size` documents (0: whatever the engine's next batch holds) and at most
  // kMaxBatchBytes from the cursor into `batch`.
  static std::vector<Document> take_batch(OpenCursor& open, int64_t batch_size) {
    std::vector<Document> batch;
    size_t bytes = 0;
    auto room = [&] {
      return (batch_size <= 0 || static_cast<int64_t>(batch.size()) < batch_size) &&
             bytes < kMaxBatchBytes;
    };
    for (;;) {
      while (!open.pending.empty() && room()) {
        bytes += open.pending.front().size();
        batch.push_back(std::move(open.pending.front()));
        open.pending.pop_front();
      }
      if (!room() || open.cursor->exhausted()) break;
      if (batch_size <= 0 && !batch.empty()) break;  // one engine batch is a default batch
      auto more = open.cursor->next_batch();
      if (more.empty()) break;
      for (Document& d : more) open.pending.push_back(std::move(d));
    }
    return batch;
  }

  // Appends {cursor: {firstBatch|nextBatch, id, ns}} and keeps the cursor (under `id`, new
  // when 0) while it may have more.
  void reply_with_cursor(DocumentBuilder& b, OpenCursor open, int64_t batch_size, bool single_batch,
                         const char* batch_field, int64_t id = 0) {
    std::vector<Document> batch;
    if (batch_size != 0 || single_batch) batch = take_batch(open, batch_size);
    std::string ns = open.ns;
    if (single_batch || open.exhausted()) {
      id = 0;
    } else {
      id = keep_cursor(std::move(open), id);
    }
    b.open_document("cursor");
    b.open_array(batch_field);
    for (const Document& d : batch) b.push(d.view());
    b.close();
    b.append("id", id);
    b.append("ns", ns);
    b.close();
  }

  int64_t keep_cursor(OpenCursor open, int64_t id) {
    std::lock_guard lock(mutex_);
    bool fresh = id == 0;
    expire_idle_locked();
    while (id == 0 || (fresh && cursors_.count(id) != 0)) {
      id = static_cast<int64_t>(random_() & 0x7FFFFFFFFFFFFFFFull);
    }
    open.last_used = Clock::now();
    cursors_[id] = std::move(open);
    limit_cursor_memory_locked(id);
    return id;
  }

  // Abandoned cursors must not pile up results without bound: past the limit, the least
  // recently used ones (never `keep`, the one just stored) are closed.
  void limit_cursor_memory_locked(int64_t keep) {
    size_t total = 0;
    for (const auto& [id, open] : cursors_) total += open.memory();
    while (total > options_.cursor_memory_limit) {
      auto oldest = cursors_.end();
      for (auto it = cursors_.begin(); it != cursors_.end(); ++it) {
        if (it->first != keep &&
            (oldest == cursors_.end() || it->second.last_used < oldest->second.last_used)) {
          oldest = it;
        }
      }
      if (oldest == cursors_.end()) return;
      if (options_.log) {
        options_.log(fmt::format("cursor {} on {} closed: open cursors hold more than {} bytes",
                                 oldest->first, oldest->second.ns, options_.cursor_memory_limit));
      }
      total -= oldest->second.memory();
      cursors_.erase(oldest);
    }
  }

  void expire_idle_locked() {
    auto now = Clock::now();
    for (auto it = cursors_.begin(); it != cursors_.end();) {
      if (!it->second.no_timeout && now - it->second.last_used > options_.cursor_idle_timeout) {
        if (options_.log) {
          options_.log(fmt::format("cursor {} on {} timed out after {} ms idle", it->first,
                                   it->second.ns, options_.cursor_idle_timeout.count()));
        }
        it = cursors_.erase(it);
      } else {
        ++it;
      }
    }
  }

  static size_t engine_batch_size(int64_t batch_size) {
    return batch_size <= 0 ? kDefaultBatchSize : static_cast<size_t>(batch_size);
  }

  // The engine's options of a find command (its filter is read apart); explain reads the
  // same fields.
  static engine::FindOptions find_options(const DocumentView& cmd) {
    engine::FindOptions options;
    options.sort = document_or_empty(cmd, "sort");
    options.projection = document_or_empty(cmd, "projection");
    options.let = document_or_empty(cmd, "let");
    options.hint = hint_of(cmd);
    options.allow_disk_use = cmd.get("allowDiskUse").truthy();
    options.skip = integer_or(cmd, "skip", 0);
    if (options.skip < 0) throw Error(ErrorCode::kBadValue, "skip must be non-negative");
    return options;
  }

  void find(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    Document filter = document_or_empty(ctx.cmd, "filter");
    engine::FindOptions options = find_options(ctx.cmd);
    int64_t limit = integer_or(ctx.cmd, "limit", 0);
    bool single_batch = ctx.cmd.get("singleBatch").truthy();
    if (limit < 0) {  // legacy negative limit: one batch of |limit|
      limit = -limit;
      single_batch = true;
    }
    options.limit = limit;
    int64_t batch_size = integer_or(ctx.cmd, "batchSize", kDefaultBatchSize);
    if (batch_size < 0) throw Error(ErrorCode::kBadValue, "batchSize must be non-negative");
    if (single_batch && batch_size == 0) batch_size = kDefaultBatchSize;
    if (single_batch && limit > 0) batch_size = limit;
    options.batch_size = static_cast<size_t>(batch_size > 0 ? batch_size : kDefaultBatchSize);
    if (limit > 0 && static_cast<int64_t>(options.batch_size) > limit) {
      options.batch_size = static_cast<size_t>(limit);
    }
    OpenCursor open{engine_->find(ctx.db, coll, filter, options), ctx.db + "." + coll, {}, {}};
    open.no_timeout = ctx.cmd.get("noCursorTimeout").truthy();
    reply_with_cursor(b, std::move(open), batch_size, single_batch, "firstBatch");
  }

  void get_more(const Context& ctx, DocumentBuilder& b) {
    int64_t id = as_integer(ctx.cmd.get("getMore"), "getMore");
    Value collection = ctx.cmd.get("collection");
    if (!collection.is_string()) {
      throw Error(ErrorCode::kTypeMismatch, "Field 'collection' must be of type string");
    }
    int64_t batch_size = integer_or(ctx.cmd, "batchSize", 0);
    if (batch_size < 0) throw Error(ErrorCode::kBadValue, "batchSize must be non-negative");
    OpenCursor open;
    {
      std::lock_guard lock(mutex_);
      expire_idle_locked();
      auto it = cursors_.find(id);
      if (it == cursors_.end()) {
        throw Error(ErrorCode::kCursorNotFound, "cursor id " + std::to_string(id) + " not found");
      }
      if (it->second.ns != ctx.db + "." + std::string(collection.as_string())) {
        throw Error(13 /* Unauthorized */, "Requested getMore on namespace '" + ctx.db + "." +
                                               std::string(collection.as_string()) +
                                               "', but cursor belongs to '" + it->second.ns + "'");
      }
      open = std::move(it->second);
      cursors_.erase(it);  // in use: a concurrent getMore on the same id finds nothing
    }
    // Without a batchSize, a getMore returns as much as fits (mongod: up to 16 MiB).
    reply_with_cursor(b, std::move(open), batch_size == 0 ? kMaxWriteBatchSize : batch_size, false,
                      "nextBatch", id);
  }

  void kill_cursors(const Context& ctx, DocumentBuilder& b) {
    DocumentView ids = required_array(ctx.cmd, "cursors");
    DocumentBuilder killed, not_found;
    {
      std::lock_guard lock(mutex_);
      for (const bson::Element& e : ids) {
        int64_t id = as_integer(e.value, "cursors");
        if (cursors_.erase(id) != 0) {
          killed.push(id);
        } else {
          not_found.push(id);
        }
      }
    }
    b.append_array("cursorsKilled", killed.finish_array().view());
    b.append_array("cursorsNotFound", not_found.finish_array().view());
    b.open_array("cursorsAlive").close();
    b.open_array("cursorsUnknown").close();
  }

  void aggregate(const Context& ctx, DocumentBuilder& b) {
    Value target = ctx.cmd.get("aggregate");
    std::string coll;  // empty: database-level ({aggregate: 1})
    if (target.is_string()) {
      coll = std::string(target.as_string());
      if (coll.empty()) throw Error(ErrorCode::kInvalidNamespace, "Invalid namespace specified");
    } else if (!(target.is_number() && target.number_as_double() == 1)) {
      throw Error(ErrorCode::kFailedToParse,
                  "Invalid command format: the 'aggregate' field must specify a collection name "
                  "or 1");
    }
    if (ctx.cmd.get("explain").truthy()) {
      throw Error(ErrorCode::kNotImplemented, "aggregate explain is not supported");
    }
    std::vector<Document> pipeline;
    for (const bson::Element& e : required_array(ctx.cmd, "pipeline")) {
      if (!e.value.is_document()) {
        throw Error(ErrorCode::kTypeMismatch, "each pipeline stage must be an object");
      }
      DocumentView stage = e.value.as_document();
      std::string_view stage_name = stage.empty() ? std::string_view() : stage.begin()->key;
      // A change stream reads the oplog, which only a replica set has: mongod's answer on a
      // standalone, whatever the rest of the pipeline.
      if (stage_name == "$changeStream") {
        throw Error(40573, "The $changeStream stage is only supported on replica sets");
      }
      if (stage_name == "$listLocalSessions") {
        if (!pipeline.empty() || !coll.empty()) {
          throw Error(ErrorCode::kInvalidNamespace,
                      "$listLocalSessions must be the first stage of a database-level "
                      "aggregate ({aggregate: 1})");
        }
        check_list_local_sessions(stage.begin()->value);
        // mongostore keeps no session cache (sessions need no server state here), so there
        // are no sessions to list: the rest of the pipeline runs over no documents.
        pipeline.push_back(bson::make_document("$documents", bson::make_array()));
        continue;
      }
      pipeline.push_back(Document::copy_of(stage));
    }
    Value cursor_spec = ctx.cmd.get("cursor");
    if (!cursor_spec.is_document()) {
      throw Error(
          ErrorCode::kFailedToParse,
          "The 'cursor' option is required, except for aggregate with the explain argument");
    }
    for (const bson::Element& e : cursor_spec.as_document()) {
      if (e.key != "batchSize") {
        throw Error(ErrorCode::kUnknownField, "BSON field 'aggregate.cursor." + std::string(e.key) +
                                                  "' is an unknown field.");
      }
    }
    int64_t batch_size = integer_or(cursor_spec.as_document(), "batchSize", kDefaultBatchSize);
    engine::AggregateOptions options;
    options.allow_disk_use = ctx.cmd.get("allowDiskUse").truthy();
    options.batch_size = engine_batch_size(batch_size);
    options.let = document_or_empty(ctx.cmd, "let");
    options.hint = hint_of(ctx.cmd);
    options.bypass_document_validation = ctx.cmd.get("bypassDocumentValidation").truthy();
    OpenCursor open{engine_->aggregate(ctx.db, coll, pipeline, options),
                    ctx.db + "." + (coll.empty() ? std::string("$cmd.aggregate") : coll),
                    {},
                    {}};
    reply_with_cursor(b, std::move(open), batch_size, false, "firstBatch");
  }

  // $listLocalSessions: {} or {allUsers: bool} or {users: [{user, db}]}.
  static void check_list_local_sessions(const Value& spec) {
    if (!spec.is_document()) {
      throw Error(ErrorCode::kTypeMismatch, "$listLocalSessions must take an object");
    }
    for (const bson::Element& e : spec.as_document()) {
      if (e.key == "allUsers") {
        if (e.value.type() != bson::BsonType::kBool) {
          throw Error(ErrorCode::kTypeMismatch, "$listLocalSessions.allUsers must be a boolean");
        }
      } else if (e.key == "users") {
        if (!e.value.is_array()) {
          throw Error(ErrorCode::kTypeMismatch, "$listLocalSessions.users must be an array");
        }
      } else {
        throw Error(ErrorCode::kUnknownField, "BSON field '$listLocalSessions." +
                                                  std::string(e.key) + "' is an unknown field.");
      }
    }
  }

  void count(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    Document query = document_or_empty(ctx.cmd, "query");
    int64_t skip = integer_or(ctx.cmd, "skip", 0);
    int64_t limit = integer_or(ctx.cmd, "limit", 0);
    engine::IndexHint hint = hint_of(ctx.cmd);
    int64_t n = 0;
    if (hint.name.empty() && hint.keys.empty()) {
      n = engine_->count_documents(ctx.db, coll, query);
    } else {
      // A hinted count reads through the hinted index (the engine refuses a hint naming no
      // index, BadValue), counting what the find returns.
      engine::FindOptions options;
      options.hint = hint;
      options.projection = bson::make_document("_id", 1);
      options.batch_size = 1000;
      auto cursor = engine_->find(ctx.db, coll, query, options);
      while (!cursor->exhausted()) n += static_cast<int64_t>(cursor->next_batch().size());
    }
    n = std::max<int64_t>(0, n - skip);
    if (limit != 0) n = std::min(n, limit < 0 ? -limit : limit);
    b.append("n", static_cast<int32_t>(n));
  }

  void distinct(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    Value key = ctx.cmd.get("key");
    if (!key.is_string()) throw Error(ErrorCode::kFailedToParse, "'key' must be a string");
    Document query = document_or_empty(ctx.cmd, "query");
    auto values = engine_->distinct(ctx.db, coll, key.as_string(), query);
    b.open_array("values");
    for (const bson::OwnedValue& v : values) b.push(v.view());
    b.close();
  }

  // --- indexes ---------------------------------------------------------------------------
  void create_indexes(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    // Index builds wait for a quorum of replica set members; a standalone has none to ask
    // (mongod's own answer).
    if (ctx.cmd.has("commitQuorum")) {
      throw Error(ErrorCode::kBadValue, "Standalones can't specify commitQuorum");
    }
    bool existed = engine_->collection_exists(ctx.db, coll);
    size_t before = existed ? engine_->list_indexes(ctx.db, coll).size() : 1;
    for (const bson::Element& e : required_array(ctx.cmd, "indexes")) {
      if (!e.value.is_document())
        throw Error(ErrorCode::kTypeMismatch, "index spec must be object");
      DocumentView spec = e.value.as_document();
      Value key = spec.get("key");
      if (!key.is_document()) throw Error(ErrorCode::kFailedToParse, "index spec needs 'key'");
      DocumentBuilder options;
      for (const bson::Element& f : spec) {
        if (f.key != "key" && f.key != "v") options.append(f.key, f.value);
      }
      engine_->create_index(ctx.db, coll, key.as_document(), options.finish());
    }
    size_t after = engine_->list_indexes(ctx.db, coll).size();
    b.append("numIndexesBefore", static_cast<int32_t>(before));
    b.append("numIndexesAfter", static_cast<int32_t>(after));
    b.append("createdCollectionAutomatically", !existed);
  }

  void list_indexes(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    int64_t batch_size = listing_batch_size(ctx.cmd);
    reply_with_list(b, engine_->list_indexes(ctx.db, coll), ctx.db + "." + coll, batch_size);
  }

  void drop_indexes(const Context& ctx, DocumentBuilder& b) {
    std::string coll = collection_name(ctx.cmd, ctx.name);
    size_t before = engine_->list_indexes(ctx.db, coll).size();
    Value index = ctx.cmd.get("index");
    if (index.is_string()) {
      engine_->drop_index(ctx.db, coll, index.as_string());
    } else if (index.is_document()) {
      engine_->drop_index(ctx.db, coll, index.as_document());
    } else if (index.is_array()) {
      for (const bson::Element& e : index.as_array()) {
        if (!e.value.is_string())
          throw Error(ErrorCode::kTypeMismatch, "index names must be strings");
        engine_->drop_index(ctx.db, coll, e.value.as_string());
      }
    } else {
      throw Error(ErrorCode::kFailedToParse, "'index' must be a name, a key pattern or \"*\"");
    }
    b.append("nIndexesWas", static_cast<int32_t>(before));
  }

  struct OpCounters {
    std::atomic<int64_t> insert{0}, query{0}, update{0}, remove{0}, getmore{0}, command{0};
  };

  std::shared_ptr<engine::Engine> engine_;
  DispatcherOptions options_;
  std::map<std::string, CommandSpec, std::less<>> commands_;
  OperationRegistry operations_;
  OpCounters opcounters_;
  mutable std::mutex mutex_;
  std::unordered_map<int64_t, OpenCursor> cursors_;
  std::mt19937_64 random_;
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
