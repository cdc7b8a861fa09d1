// The indexes family: createIndexes, listIndexes, dropIndexes (and its older name
// deleteIndexes).
#include "server/commands/command_families.h"

#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "server/commands/command_arguments.h"
#include "server/commands/command_context.h"
#include "server/commands/cursor_reply.h"

namespace mongostore::server {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;

void create_indexes(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  // Index builds wait for a quorum of replica set members; a standalone has none to ask
  // (mongod's own answer). The one member of a set is every quorum up to one.
  if (Value quorum = ctx.cmd.get("commitQuorum"); !quorum.is_missing()) {
    if (!ctx.topology.replica_set()) {
      throw Error(ErrorCode::kBadValue, "Standalones can't specify commitQuorum");
    }
    int64_t n = 0;
    if (quorum.is_string()) {
      if (quorum.as_string() != "votingMembers" && quorum.as_string() != "majority") {
        throw Error(ErrorCode::kUnknownReplWriteConcern,
                    "No write concern mode named '" + std::string(quorum.as_string()) +
                        "' found in replica set configuration");
      }
    } else if (!quorum.is_number() || !quorum.number_as_exact_int64(&n) || n < 0) {
      throw Error(
          ErrorCode::kFailedToParse,
          "commitQuorum must be a non-negative number or a string; found " + quorum.to_json());
    } else if (n > 1) {
      throw Error(ErrorCode::kUnsatisfiableCommitQuorum,
                  "Commit quorum cannot be satisfied with the current replica set configuration");
    }
  }
  bool existed = ctx.engine.collection_exists(ctx.db, coll);
  size_t before = existed ? ctx.engine.list_indexes(ctx.db, coll).size() : 1;
  for (const bson::Element& e : required_array(ctx.cmd, "indexes")) {
    if (!e.value.is_document()) throw Error(ErrorCode::kTypeMismatch, "index spec must be object");
    DocumentView spec = e.value.as_document();
    Value key = spec.get("key");
    if (!key.is_document()) throw Error(ErrorCode::kFailedToParse, "index spec needs 'key'");
    DocumentBuilder options;
    for (const bson::Element& f : spec) {
      if (f.key != "key" && f.key != "v") options.append(f.key, f.value);
    }
    ctx.engine.create_index(ctx.db, coll, key.as_document(), options.finish());
  }
  size_t after = ctx.engine.list_indexes(ctx.db, coll).size();
  b.append("numIndexesBefore", static_cast<int32_t>(before));
  b.append("numIndexesAfter", static_cast<int32_t>(after));
  b.append("createdCollectionAutomatically", !existed);
}

void list_indexes(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  int64_t batch_size = listing_batch_size(ctx.cmd);
  reply_with_list(ctx.cursors, b, ctx.engine.list_indexes(ctx.db, coll), ctx.db + "." + coll,
                  batch_size, ctx.owners());
}

void drop_indexes(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  size_t before = ctx.engine.list_indexes(ctx.db, coll).size();
  Value index = ctx.cmd.get("index");
  if (index.is_string()) {
    ctx.engine.drop_index(ctx.db, coll, index.as_string());
  } else if (index.is_document()) {
    ctx.engine.drop_index(ctx.db, coll, index.as_document());
  } else if (index.is_array()) {
    for (const bson::Element& e : index.as_array()) {
      if (!e.value.is_string())
        throw Error(ErrorCode::kTypeMismatch, "index names must be strings");
      ctx.engine.drop_index(ctx.db, coll, e.value.as_string());
    }
  } else {
    throw Error(ErrorCode::kFailedToParse, "'index' must be a name, a key pattern or \"*\"");
  }
  b.append("nIndexesWas", static_cast<int32_t>(before));
}

}  // namespace

void register_index_commands(CommandRegistry& registry) {
  registry.add({"createIndexes"}, &create_indexes, kWrites | kApiV1 | kCollection,
               {"indexes", "commitQuorum"}, {"ignoreUnknownIndexOptions"});
  registry.add({"listIndexes"}, &list_indexes, kReads | kApiV1 | kCollection, {"cursor"},
               {"includeBuildUUIDs", "includeIndexBuildInfo"});
  registry.add({"dropIndexes", "deleteIndexes"}, &drop_indexes, kWrites | kApiV1 | kCollection,
               {"index"});
}

}  // namespace mongostore::server
