// The reads family: find and its explain, aggregate, count, distinct, and the cursors they
// leave open (getMore, killCursors; the cursors themselves live in the CursorRegistry).
#include "server/commands/command_families.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "server/auth/auth_session.h"
#include "server/auth/privileges.h"
#include "server/commands/command_arguments.h"
#include "server/commands/command_context.h"
#include "server/commands/cursor_reply.h"

namespace mongostore::server {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;

size_t engine_batch_size(int64_t batch_size) {
  return batch_size <= 0 ? kDefaultBatchSize : static_cast<size_t>(batch_size);
}

// The engine's options of a find command (its filter is read apart); explain reads the
// same fields.
engine::FindOptions find_options(const DocumentView& cmd) {
  engine::FindOptions options;
  options.sort = document_or_empty(cmd, "sort");
  options.projection = document_or_empty(cmd, "projection");
  options.let = document_or_empty(cmd, "let");
  options.hint = hint_of(cmd);
  options.collation = collation_of(cmd);
  options.allow_disk_use = cmd.get("allowDiskUse").truthy();
  options.skip = integer_or(cmd, "skip", 0);
  if (options.skip < 0) throw Error(ErrorCode::kBadValue, "skip must be non-negative");
  return options;
}

void find(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
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
  OpenCursor open{ctx.engine.find(ctx.db, coll, filter, options), ctx.db + "." + coll, {}, {}};
  open.no_timeout = ctx.cmd.get("noCursorTimeout").truthy();
  open.owners = ctx.owners();
  reply_with_cursor(ctx.cursors, b, std::move(open), batch_size, single_batch, "firstBatch");
}

// explain of a find (the only explainable command here). Every verbosity answers with
// executionStats, which is what the engine measures (a superset of queryPlanner's).
void explain(const CommandContext& ctx, DocumentBuilder& b) {
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
  CommandRegistry::check_fields(find_cmd, *ctx.commands.find("find"));
  std::string coll = collection_name(find_cmd, "find");
  engine::FindOptions options = find_options(find_cmd);
  options.limit = std::abs(integer_or(find_cmd, "limit", 0));
  Document result =
      ctx.engine.explain_find(ctx.db, coll, document_or_empty(find_cmd, "filter"), options);
  b.append_elements(result);
  b.open_document("command").append_elements(find_cmd).append("$db", ctx.db).close();
  b.append("serverInfo", bson::make_document("host", "mongostore", "version", "7.0.0"));
}

void get_more(const CommandContext& ctx, DocumentBuilder& b) {
  int64_t id = as_integer(ctx.cmd.get("getMore"), "getMore");
  Value collection = ctx.cmd.get("collection");
  if (!collection.is_string()) {
    throw Error(ErrorCode::kTypeMismatch, "Field 'collection' must be of type string");
  }
  int64_t batch_size = integer_or(ctx.cmd, "batchSize", 0);
  if (batch_size < 0) throw Error(ErrorCode::kBadValue, "batchSize must be non-negative");
  // Under --auth only the users who opened the cursor continue it (mongod: Unauthorized).
  std::vector<std::string> owners = ctx.owners();
  OpenCursor open = ctx.cursors.check_out(id, ctx.db + "." + std::string(collection.as_string()),
                                          ctx.options.auth_required ? &owners : nullptr);
  // Without a batchSize, a getMore returns as much as fits (mongod: up to 16 MiB).
  reply_with_cursor(ctx.cursors, b, std::move(open),
                    batch_size == 0 ? kMaxWriteBatchSize : batch_size, false, "nextBatch", id);
}

void kill_cursors(const CommandContext& ctx, DocumentBuilder& b) {
  DocumentView ids = required_array(ctx.cmd, "cursors");
  // Under --auth a cursor of other users fails the whole command before any is killed
  // (mongod checks every id first): only root (killAnyCursor) kills anyone's.
  if (ctx.options.auth_required &&
      !auth::may_kill_any_session(auth::users_of(ctx.connection.auth))) {
    std::vector<std::string> owners = ctx.owners();
    for (const bson::Element& e : ids) {
      int64_t id = as_integer(e.value, "cursors");
      if (!ctx.cursors.may_kill(id, owners)) {
        throw Error(ErrorCode::kUnauthorized,
                    "not authorized to kill cursor " + std::to_string(id) + ": another user's");
      }
    }
  }
  DocumentBuilder killed, not_found;
  for (const bson::Element& e : ids) {
    int64_t id = as_integer(e.value, "cursors");
    if (ctx.cursors.kill(id)) {
      killed.push(id);
    } else {
      not_found.push(id);
    }
  }
  b.append_array("cursorsKilled", killed.finish_array().view());
  b.append_array("cursorsNotFound", not_found.finish_array().view());
  b.open_array("cursorsAlive").close();
  b.open_array("cursorsUnknown").close();
}

// $listLocalSessions: {} or {allUsers: bool} or {users: [{user, db}]}.
void check_list_local_sessions(const Value& spec) {
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
      throw Error(ErrorCode::kUnknownField, "BSON field '$listLocalSessions." + std::string(e.key) +
                                                "' is an unknown field.");
    }
  }
}

void aggregate(const CommandContext& ctx, DocumentBuilder& b) {
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
    throw Error(ErrorCode::kFailedToParse,
                "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  for (const bson::Element& e : cursor_spec.as_document()) {
    if (e.key != "batchSize") {
      throw Error(ErrorCode::kUnknownField,
                  "BSON field 'aggregate.cursor." + std::string(e.key) + "' is an unknown field.");
    }
  }
  int64_t batch_size = integer_or(cursor_spec.as_document(), "batchSize", kDefaultBatchSize);
  engine::AggregateOptions options;
  options.allow_disk_use = ctx.cmd.get("allowDiskUse").truthy();
  options.batch_size = engine_batch_size(batch_size);
  options.let = document_or_empty(ctx.cmd, "let");
  options.hint = hint_of(ctx.cmd);
  options.collation = collation_of(ctx.cmd);
  options.bypass_document_validation = ctx.cmd.get("bypassDocumentValidation").truthy();
  OpenCursor open{ctx.engine.aggregate(ctx.db, coll, pipeline, options),
                  ctx.db + "." + (coll.empty() ? std::string("$cmd.aggregate") : coll),
                  {},
                  {}};
  open.owners = ctx.owners();
  reply_with_cursor(ctx.cursors, b, std::move(open), batch_size, false, "firstBatch");
}

void count(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  Document query = document_or_empty(ctx.cmd, "query");
  int64_t skip = integer_or(ctx.cmd, "skip", 0);
  int64_t limit = integer_or(ctx.cmd, "limit", 0);
  engine::IndexHint hint = hint_of(ctx.cmd);
  bson::Document collation = collation_of(ctx.cmd);
  int64_t n = 0;
  if (hint.name.empty() && hint.keys.empty()) {
    engine::CountOptions options;
    options.collation = std::move(collation);
    n = ctx.engine.count_documents(ctx.db, coll, query, options);
  } else {
    // A hinted count reads through the hinted index (the engine refuses a hint naming no
    // index, BadValue), counting what the find returns.
    engine::FindOptions options;
    options.hint = hint;
    options.collation = std::move(collation);
    options.projection = bson::make_document("_id", 1);
    options.batch_size = 1000;
    auto cursor = ctx.engine.find(ctx.db, coll, query, options);
    while (!cursor->exhausted()) n += static_cast<int64_t>(cursor->next_batch().size());
  }
  n = std::max<int64_t>(0, n - skip);
  if (limit != 0) n = std::min(n, limit < 0 ? -limit : limit);
  b.append("n", static_cast<int32_t>(n));
}

void distinct(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  Value key = ctx.cmd.get("key");
  if (!key.is_string()) throw Error(ErrorCode::kFailedToParse, "'key' must be a string");
  Document query = document_or_empty(ctx.cmd, "query");
  engine::DistinctOptions options;
  options.collation = collation_of(ctx.cmd);
  auto values = ctx.engine.distinct(ctx.db, coll, key.as_string(), query, options);
  b.open_array("values");
  for (const bson::OwnedValue& v : values) b.push(v.view());
  b.close();
}

}  // namespace

void register_read_commands(CommandRegistry& registry) {
  registry.add({"find"}, &find, kReads | kApiV1 | kCollection,
               {"filter", "projection", "sort", "hint", "skip", "limit", "batchSize", "singleBatch",
                "allowDiskUse", "let", "noCursorTimeout", "allowPartialResults", "collation"},
               {"min", "max", "returnKey", "showRecordId", "tailable", "awaitData", "oplogReplay",
                "readOnce"});
  registry.add({"getMore"}, &get_more, kApiV1, {"collection", "batchSize"});
  registry.add({"killCursors"}, &kill_cursors, kApiV1, {"cursors"});
  registry.add({"explain"}, &explain, kReads, {"verbosity"});
  // aggregate writes with $out / $merge; its first field is a collection or 1 (a
  // database-level pipeline), so it reads it itself.
  registry.add({"aggregate"}, &aggregate, kWrites | kReads | kApiV1,
               {"pipeline", "cursor", "allowDiskUse", "let", "explain", "bypassDocumentValidation",
                "hint", "collation"});
  registry.add({"count"}, &count, kReads | kApiV1 | kCollection,
               {"query", "limit", "skip", "hint", "collation"});
  registry.add({"distinct"}, &distinct, kReads | kCollection, {"key", "query", "collation"});
}

}  // namespace mongostore::server
