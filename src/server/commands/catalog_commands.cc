// The catalog family: databases and collections (listDatabases, listCollections, create,
// collMod, drop, dropDatabase, renameCollection).
#include "server/commands/command_families.h"

#include <string>
#include <utility>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/collation.h"
#include "mongostore/engine/matcher.h"
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

// listDatabases: `filter` is a query over {name, sizeOnDisk, empty} (mongod's fields);
// totalSize adds up the databases the filter kept. Under --auth any user may run it: without
// the listDatabases privilege (root, the AnyDatabase roles) it lists only the databases the
// user holds privileges on, and refuses `authorizedDatabases: false` (13), as mongod does;
// `authorizedDatabases: true` narrows the list even for those who may see everything.
// Without --auth every database is the user's.
void list_databases(const CommandContext& ctx, DocumentBuilder& b) {
  bool name_only = ctx.cmd.get("nameOnly").truthy();
  Document filter = document_or_empty(ctx.cmd, "filter");
  engine::Matcher matcher = engine::Matcher::compile(filter.view());
  Value authorized = ctx.cmd.get("authorizedDatabases");
  if (!authorized.is_missing() && authorized.type() != bson::BsonType::kBool) {
    throw Error(ErrorCode::kTypeMismatch,
                "BSON field 'listDatabases.authorizedDatabases' is the "
                "wrong type, expected type 'bool'");
  }
  std::vector<auth::AuthenticatedUser> users;
  bool narrow = false;
  if (ctx.options.auth_required) {
    users = auth::users_of(ctx.connection.auth);
    bool all = auth::may_list_all_databases(users);
    if (!authorized.is_missing() && !authorized.truthy() && !all) {
      throw Error(ErrorCode::kUnauthorized,
                  "not authorized on admin to execute command listDatabases with "
                  "authorizedDatabases: false (it needs the listDatabases privilege)");
    }
    narrow = !all || authorized.truthy();
  }
  int64_t total = 0;
  b.open_array("databases");
  for (const std::string& db : ctx.engine.list_databases()) {
    if (narrow && !auth::has_privilege_on(users, db)) continue;
    int64_t size = 0;
    for (const std::string& coll : ctx.engine.list_collections(db)) {
      size += ctx.engine.collection_stats(db, coll).data_size;
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

void list_collections(const CommandContext& ctx, DocumentBuilder& b) {
  Document filter = document_or_empty(ctx.cmd, "filter");
  // The filter is a query over the full collection descriptions, as on mongod (drivers
  // send {name: ...} and {type: ...}; anything else a user writes works the same way).
  engine::Matcher matcher = engine::Matcher::compile(filter.view());
  bool name_only = ctx.cmd.get("nameOnly").truthy();
  int64_t batch_size = listing_batch_size(ctx.cmd);
  std::vector<Document> out;
  for (const std::string& coll : ctx.engine.list_collections(ctx.db)) {
    Document options;
    try {
      options = ctx.engine.collection_options(ctx.db, coll);
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
        .append("name", "_id_");
    // As mongod: the `_id` index has the collection's default collation.
    if (bson::Value c = options.get("collation"); c.is_document()) info.append("collation", c);
    info.close();
    Document described = info.finish();
    if (!matcher.matches(described.view())) continue;
    if (name_only) {
      out.push_back(bson::make_document("name", coll, "type", "collection"));
    } else {
      out.push_back(std::move(described));
    }
  }
  reply_with_list(ctx.cursors, b, std::move(out), ctx.db + ".$cmd.listCollections", batch_size,
                  ctx.owners());
}

// create makes a plain collection, with a validator when asked. The options MongoDB has for
// anything else (views, capped, time series, clustered, ...) fail NotImplemented before this
// runs (the command table), so nothing is made that is not what the client asked for. A
// `collation` is the collection's default one (kept in its catalog record).
void create(const CommandContext& ctx, DocumentBuilder&) {
  const std::string& coll = ctx.collection;
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
  // The default collation ({locale: "simple"} is the simple one, kept as no collation).
  if (!collation_of(ctx.cmd).empty()) options.append("collation", ctx.cmd.get("collation"));
  ctx.engine.create_collection(ctx.db, coll, options.finish());
}

// collMod: the validation options only (the command table refuses the others, 238).
void coll_mod(const CommandContext& ctx, DocumentBuilder&) {
  const std::string& coll = ctx.collection;
  DocumentBuilder options;
  for (const bson::Element& e : ctx.cmd) {
    if (e.key == "validator" || e.key == "validationLevel" || e.key == "validationAction") {
      options.append(e.key, e.value);
    }
  }
  ctx.engine.modify_collection(ctx.db, coll, options.finish());
}

void drop(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  if (!ctx.engine.collection_exists(ctx.db, coll)) return;  // mongod 7: a bare {ok: 1}
  size_t indexes = ctx.engine.list_indexes(ctx.db, coll).size();
  if (!ctx.engine.drop_collection(ctx.db, coll)) return;
  b.append("nIndexesWas", static_cast<int32_t>(indexes));
  b.append("ns", ctx.db + "." + coll);
}

void drop_database(const CommandContext& ctx, DocumentBuilder& b) {
  ctx.engine.drop_database(ctx.db);
  b.append("dropped", ctx.db);
}

// renameCollection: one atomic catalog change in the engine (documents and indexes stay
// where they are). Run on admin by anyone; under --auth the two namespaces are checked
// against the user's privileges (auth::may_rename_collection).
void rename_collection(const CommandContext& ctx, DocumentBuilder&) {
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
  bool drop_target = ctx.cmd.get("dropTarget").truthy();
  if (ctx.options.auth_required && !auth::may_rename_collection(auth::users_of(ctx.connection.auth),
                                                                from_db, to_db, drop_target)) {
    throw Error(ErrorCode::kUnauthorized,
                "not authorized to rename " + from_db + "." + from + " to " + to_db + "." + to);
  }
  ctx.engine.rename_collection(from_db, from, to_db, to, drop_target);
}

}  // namespace

void register_catalog_commands(CommandRegistry& registry) {
  registry.add({"listDatabases"}, &list_databases, kAdminOnly | kApiV1,
               {"filter", "nameOnly", "authorizedDatabases"});
  registry.add({"listCollections"}, &list_collections, kReads | kApiV1,
               {"filter", "nameOnly", "authorizedCollections", "cursor"});
  registry.add(
      {"create"}, &create, kWrites | kApiV1 | kCollection,
      {"capped", "autoIndexId", "validator", "validationLevel", "validationAction", "collation"},
      {"viewOn", "pipeline", "size", "max", "timeseries", "clusteredIndex",
       "changeStreamPreAndPostImages", "storageEngine", "indexOptionDefaults", "expireAfterSeconds",
       "idIndex", "encryptedFields"});
  registry.add(
      {"collMod"}, &coll_mod, kWrites | kApiV1 | kCollection,
      {"validator", "validationLevel", "validationAction"},
      {"index", "viewOn", "pipeline", "expireAfterSeconds", "recordPreImages",
       "changeStreamPreAndPostImages", "timeseries", "clusteredIndex", "dryRun", "cappedSize",
       "cappedMax", "collation", "usePowerOf2Sizes", "noPadding", "validatorCollation"});
  registry.add({"drop"}, &drop, kWrites | kApiV1 | kCollection);
  registry.add({"dropDatabase"}, &drop_database, kWrites | kApiV1);
  registry.add({"renameCollection"}, &rename_collection, kWrites | kAdminOnly,
               {"to", "dropTarget", "stayTemp"});
}

}  // namespace mongostore::server
