// The writes family: insert, update, delete and findAndModify. A failing statement of an
// insert / update / delete is a `writeErrors` entry with its index (the command itself
// succeeds); an ordered batch stops at the first, an unordered one goes on.
#include "server/commands/command_families.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "server/commands/command_arguments.h"
#include "server/commands/command_context.h"
#include "server/commands/reply_errors.h"

namespace mongostore::server {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::Value;

void check_write_batch_size(const DocumentView& batch) {
  size_t n = batch.count();
  if (n == 0 || n > static_cast<size_t>(kMaxWriteBatchSize)) {
    throw Error(ErrorCode::kInvalidLength, "Write batch sizes must be between 1 and " +
                                               std::to_string(kMaxWriteBatchSize) + ". Got " +
                                               std::to_string(n) + " operations.");
  }
}

// Runs `statement(element, index)` on each statement of a write command's `batch`, in order:
// a statement's Error becomes a writeErrors entry with its index, and an ordered batch (the
// command's `ordered`, true by default) stops at the first. Returns the writeErrors array, or
// nullopt when every statement ran.
template <class Statement>
std::optional<bson::Array> run_statements(DocumentView cmd, DocumentView batch,
                                       Statement&& statement) {
  const bool ordered = cmd.get("ordered").is_missing() || cmd.get("ordered").truthy();
  int64_t index = 0;
  DocumentBuilder errors;
  bool any_error = false;
  for (const bson::Element& e : batch) {
    try {
      statement(e, index);
    } catch (const Error& err) {
      push_write_error(errors, index, err);
      any_error = true;
      if (ordered) break;
    }
    ++index;
  }
  if (!any_error) return std::nullopt;
  return errors.finish_array();
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

// Whether the write must reach stable storage before it is acknowledged: not with
// writeConcern {j: false} (acknowledged from the log buffer; the next journaled write makes it
// durable too, the log being ordered) nor with {w: 0} (no acknowledgement is awaited at all).
bool journaled(const CommandContext& ctx) {
  Value wc = ctx.generic.write_concern;
  if (!wc.is_document()) return true;
  Value j = wc.as_document().get("j");
  if (!j.is_missing() && !j.truthy()) return false;
  Value w = wc.as_document().get("w");
  int64_t n = -1;
  return !(w.is_number() && w.number_as_exact_int64(&n) && n == 0);
}

struct UpsertOutcome {
  std::optional<Document> value;
  bool updated_existing = false;
  std::optional<bson::OwnedValue> upserted_id;
};

std::optional<Document> modify(engine::Engine& engine, const std::string& db,
                               const std::string& coll, const Document& query, DocumentView update,
                               const engine::FindAndModifyOptions& options) {
  return options.update_is_pipeline || is_operator_update(update)
             ? engine.find_one_and_update(db, coll, query, update, options)
             : engine.find_one_and_replace(db, coll, query, update, options);
}

// lastErrorObject.updatedExisting and .upserted come from the engine's own account of the
// operation (FindAndModifyOutcome, filled inside its transaction), never from a read before
// or after it: a read-back of the after image let two concurrent `$inc` upserts of one
// counter return the same value.
UpsertOutcome find_and_modify_update(engine::Engine& engine, const std::string& db,
                                     const std::string& coll, const Document& query,
                                     DocumentView update, engine::FindAndModifyOptions options) {
  UpsertOutcome out;
  engine::FindAndModifyOutcome outcome;
  options.outcome = &outcome;
  out.value = modify(engine, db, coll, query, update, options);
  out.updated_existing = outcome.matched;
  out.upserted_id = std::move(outcome.upserted_id);
  return out;
}

void insert(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  DocumentView docs = required_array(ctx.cmd, "documents");
  check_write_batch_size(docs);
  engine::InsertOptions insert_options;
  insert_options.bypass_document_validation = ctx.cmd.get("bypassDocumentValidation").truthy();
  insert_options.journal = journaled(ctx);
  int64_t n = 0;
  std::optional<bson::Array> errors =
      run_statements(ctx.cmd, docs, [&](const bson::Element& e, int64_t) {
        if (!e.value.is_document()) {
          throw Error(ErrorCode::kTypeMismatch, "documents to insert must be objects");
        }
        ctx.engine.insert_one(ctx.db, coll, e.value.as_document(), insert_options);
        ++n;
      });
  b.append("n", static_cast<int32_t>(n));
  if (errors) b.append_array("writeErrors", errors->view());
}

void update(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  DocumentView updates = required_array(ctx.cmd, "updates");
  check_write_batch_size(updates);
  const Document let = document_or_empty(ctx.cmd, "let");
  check_statements(updates, "update", "updates",
                   {"q", "u", "upsert", "multi", "arrayFilters", "hint", "collation"}, {"c"});
  int64_t n = 0, modified = 0;
  DocumentBuilder upserted;
  bool any_upsert = false;
  std::optional<bson::Array> errors =
      run_statements(ctx.cmd, updates, [&](const bson::Element& e, int64_t index) {
        if (!e.value.is_document()) throw Error(ErrorCode::kTypeMismatch, "update must be object");
        DocumentView spec = e.value.as_document();
        Document q = document_or_empty(spec, "q");
        Value u = spec.get("u");
        engine::UpdateOptions options;
        options.upsert = spec.get("upsert").truthy();
        options.bypass_document_validation = ctx.cmd.get("bypassDocumentValidation").truthy();
        options.journal = journaled(ctx);
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
        options.collation = collation_of(spec);
        options.let = let;
        engine::UpdateResult result;
        if (u.is_array()) {
          // An update pipeline: the engine takes the stages' array bytes.
          options.update_is_pipeline = true;
          result = multi ? ctx.engine.update_many(ctx.db, coll, q, u.as_array(), options)
                         : ctx.engine.update_one(ctx.db, coll, q, u.as_array(), options);
        } else if (!u.is_document()) {
          throw Error(ErrorCode::kFailedToParse, "'u' must be an update document");
        } else if (is_operator_update(u.as_document())) {
          result = multi ? ctx.engine.update_many(ctx.db, coll, q, u.as_document(), options)
                         : ctx.engine.update_one(ctx.db, coll, q, u.as_document(), options);
        } else {
          if (multi) {
            throw Error(ErrorCode::kFailedToParse, "multi update is not supported for replacement");
          }
          engine::ReplaceOptions replace_options;
          replace_options.upsert = options.upsert;
          replace_options.bypass_document_validation = options.bypass_document_validation;
          replace_options.journal = options.journal;
          replace_options.hint = options.hint;
          replace_options.collation = options.collation;
          replace_options.let = let;
          result = ctx.engine.replace_one(ctx.db, coll, q, u.as_document(), replace_options);
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
      });
  b.append("n", static_cast<int32_t>(n));
  b.append("nModified", static_cast<int32_t>(modified));
  if (any_upsert) b.append_array("upserted", upserted.finish_array().view());
  if (errors) b.append_array("writeErrors", errors->view());
}

void remove(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  DocumentView deletes = required_array(ctx.cmd, "deletes");
  check_write_batch_size(deletes);
  const Document let = document_or_empty(ctx.cmd, "let");
  check_statements(deletes, "delete", "deletes", {"q", "limit", "hint", "collation"}, {});
  int64_t n = 0;
  std::optional<bson::Array> errors =
      run_statements(ctx.cmd, deletes, [&](const bson::Element& e, int64_t) {
        if (!e.value.is_document()) throw Error(ErrorCode::kTypeMismatch, "delete must be object");
        DocumentView spec = e.value.as_document();
        Document q = document_or_empty(spec, "q");
        int64_t limit = integer_or(spec, "limit", 0);
        engine::DeleteOptions delete_options;
        delete_options.journal = journaled(ctx);
        delete_options.hint = hint_of(spec);
        delete_options.collation = collation_of(spec);
        delete_options.let = let;
        n += limit == 1 ? ctx.engine.delete_one(ctx.db, coll, q, delete_options)
                        : ctx.engine.delete_many(ctx.db, coll, q, delete_options);
      });
  b.append("n", static_cast<int32_t>(n));
  if (errors) b.append_array("writeErrors", errors->view());
}

void find_and_modify(const CommandContext& ctx, DocumentBuilder& b) {
  const std::string& coll = ctx.collection;
  Document query = document_or_empty(ctx.cmd, "query");
  engine::FindAndModifyOptions options;
  options.sort = document_or_empty(ctx.cmd, "sort");
  options.projection = document_or_empty(ctx.cmd, "fields");
  options.hint = hint_of(ctx.cmd);
  options.collation = collation_of(ctx.cmd);
  options.let = document_or_empty(ctx.cmd, "let");
  // writeConcern {j: false} on a durable engine: acknowledged from the log buffer (the
  // next journaled write flushes it; see FindAndModifyOptions::journal).
  options.journal = journaled(ctx);
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
    value = ctx.engine.find_one_and_delete(ctx.db, coll, query, options);
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
        ctx.engine, ctx.db, coll, query,
        update.is_array() ? update.as_array() : update.as_document(), options);
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

}  // namespace

void register_write_commands(CommandRegistry& registry) {
  registry.add({"insert"}, &insert, kWrites | kApiV1 | kCollection,
               {"documents", "ordered", "bypassDocumentValidation"});
  registry.add({"update"}, &update, kWrites | kApiV1 | kCollection,
               {"updates", "ordered", "bypassDocumentValidation", "let"});
  registry.add({"delete"}, &remove, kWrites | kApiV1 | kCollection, {"deletes", "ordered", "let"});
  registry.add({"findAndModify", "findandmodify"}, &find_and_modify, kWrites | kApiV1 | kCollection,
               {"query", "fields", "sort", "update", "remove", "new", "upsert",
                "bypassDocumentValidation", "arrayFilters", "hint", "let", "collation"});
}

}  // namespace mongostore::server
