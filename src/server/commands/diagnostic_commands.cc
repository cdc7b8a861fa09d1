// The diagnostics family: the server's and a collection's state (serverStatus, collStats,
// dbStats, validate), the running operations (currentOp, killOp) and the profiler's level.
#include "server/commands/command_families.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/error.h"
#include "server/commands/command_context.h"
#include "server/generic_arguments.h"

namespace mongostore::server {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;
using Clock = std::chrono::steady_clock;

// serverStatus: {serverStatus: 1, <section>: 0 | 1}, as on mongod. A section it reports
// can be left out; asking for a section mongostore does not have fails NotImplemented
// naming it (an empty answer would read as "nothing to report").
void server_status(const CommandContext& ctx, DocumentBuilder& b) {
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
  auto uptime = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - ctx.started);
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
        .append("awaitingTopologyChanges", c.awaiting_topology_changes)
        .close();
  }
  if (wants("opcounters")) {
    b.open_document("opcounters")
        .append("insert", ctx.opcounters.insert.load())
        .append("query", ctx.opcounters.query.load())
        .append("update", ctx.opcounters.update.load())
        .append("delete", ctx.opcounters.remove.load())
        .append("getmore", ctx.opcounters.getmore.load())
        .append("command", ctx.opcounters.command.load())
        .close();
  }
  if (wants("metrics")) {
    b.open_document("metrics")
        .open_document("cursor")
        .open_document("open")
        .append("total", static_cast<int64_t>(ctx.cursors.size()))
        .close()
        .close()
        .close();
  }
  if (!wants("storageEngine")) return;
  b.append("storageEngine",
           bson::make_document("name", "wiredTiger", "persistent",
                               ctx.engine.options().durability != engine::Durability::kInMemory));
}

// `scale` of collStats and dbStats: sizes are divided by it (a positive integer; mongod
// answers a non-positive one with BadValue).
int64_t scale_of(const DocumentView& cmd) {
  Value v = cmd.get("scale");
  if (v.is_missing()) return 1;
  if (!v.is_number()) throw Error(ErrorCode::kTypeMismatch, "scale has to be a number");
  int64_t scale = static_cast<int64_t>(v.number_as_double());
  if (scale < 1) throw Error(ErrorCode::kBadValue, "Scale must be a value >= 1");
  return scale;
}

void coll_stats(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  if (!ctx.engine.collection_exists(ctx.db, coll)) {
    throw Error(ErrorCode::kNamespaceNotFound,
                "Collection [" + ctx.db + "." + coll + "] not found.");
  }
  int64_t scale = scale_of(ctx.cmd);
  engine::CollectionStats stats = ctx.engine.collection_stats(ctx.db, coll);
  auto indexes = ctx.engine.list_indexes(ctx.db, coll);
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

void db_stats(const CommandContext& ctx, DocumentBuilder& b) {
  if (ctx.cmd.get("freeStorage").truthy()) {
    throw Error(ErrorCode::kNotImplemented,
                "the 'freeStorage' option of dbStats is not supported by mongostore");
  }
  int64_t scale = scale_of(ctx.cmd);
  int64_t objects = 0, size = 0, indexes = 0;
  auto collections = ctx.engine.list_collections(ctx.db);
  for (const std::string& coll : collections) {
    engine::CollectionStats stats = ctx.engine.collection_stats(ctx.db, coll);
    objects += stats.document_count;
    size += stats.data_size;
    indexes += static_cast<int64_t>(ctx.engine.list_indexes(ctx.db, coll).size());
  }
  b.append("db", ctx.db);
  b.append("collections", static_cast<int64_t>(collections.size()));
  b.append("views", int64_t{0});
  b.append("objects", objects);
  b.append("avgObjSize", objects ? static_cast<double>(size) / static_cast<double>(objects) : 0.0);
  b.append("dataSize", static_cast<double>(size / scale));
  b.append("storageSize", static_cast<double>(size / scale));
  b.append("indexes", indexes);
  b.append("indexSize", 0.0);
}

// validate: the engine walks the collection and its indexes in one snapshot (always the
// whole walk, so `full` and `background` are what it does anyway).
void validate(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  engine::ValidateResult result = ctx.engine.validate_collection(ctx.db, coll);
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

// profile: mongostore has no profiler, so level 0 (off) is the only level: reading it
// (-1) or setting 0 answers was: 0; levels 1 and 2 fail NotImplemented.
void profile(const CommandContext& ctx, DocumentBuilder& b) {
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
  b.append("slowms", static_cast<int32_t>(ctx.options.slow_operation.count()));
  b.append("sampleRate", 1.0);
}

// currentOp: the commands running on this server now (this one included, as on mongod),
// narrowed by the command's other fields, which are a filter over the operations. Idle
// connections are not tracked, so $all: true (which asks for them) is refused.
void current_op(const CommandContext& ctx, DocumentBuilder& b) {
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
  std::vector<Document> ops = ctx.operations.describe();
  b.open_array("inprog");
  for (const Document& op : ops) {
    if (matcher.matches(op.view())) b.push(op.view());
  }
  b.close();
}

// killOp: operations here cannot be interrupted, so killing one that is running fails
// NotImplemented rather than claiming it was killed. An opid that is not running answers
// ok, as mongod answers it ("attempting to kill op": there is nothing left to kill).
void kill_op(const CommandContext& ctx, DocumentBuilder& b) {
  Value op = ctx.cmd.get("op");
  if (op.is_missing()) throw Error(ErrorCode::kNoSuchKey, "Missing expected field \"op\"");
  int64_t opid = 0;
  if (!op.is_number() || !op.number_as_exact_int64(&opid)) {
    throw Error(ErrorCode::kTypeMismatch, "Expected field \"op\" to have an integral value");
  }
  if (opid != ctx.opid && ctx.operations.running(opid)) {
    throw Error(ErrorCode::kNotImplemented,
                "killOp of a running operation is not supported by mongostore (operations "
                "cannot be interrupted)");
  }
  b.append("info", "attempting to kill op");
}

}  // namespace

void register_diagnostic_commands(CommandRegistry& registry) {
  registry.add({"serverStatus"}, &server_status, kOpenFields);
  registry.add({"collStats"}, &coll_stats, kCollection, {"scale"});
  registry.add({"dbStats"}, &db_stats, 0, {"scale", "freeStorage"});
  registry.add({"validate"}, &validate, kCollection, {"full", "background"},
               {"repair", "metadata", "checkBSONConformance"});
  registry.add({"profile"}, &profile, 0, {}, {"slowms", "sampleRate", "filter"});
  registry.add({"currentOp"}, &current_op, kAdminOnly | kOpenFields);
  registry.add({"killOp"}, &kill_op, kAdminOnly, {"op"});
}

}  // namespace mongostore::server
