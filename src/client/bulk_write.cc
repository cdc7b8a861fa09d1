// bulkWrite over the Collection handle (see bulk_write.h): validate every model, then run
// them one by one, collecting counts and write errors.
#include "mongostore/client/bulk_write.h"

#include "client/write_validation.h"

#include <string>
#include <type_traits>
#include <utility>

namespace mongostore::client {
namespace {

std::string first_message(const std::vector<WriteError>& errors) {
  if (errors.empty()) return "bulk write failed";
  std::string message = errors.front().errmsg;
  if (errors.size() > 1) {
    message += " (and " + std::to_string(errors.size() - 1) + " more write error" +
               (errors.size() > 2 ? "s" : "") + ")";
  }
  return message;
}

int32_t first_code(const std::vector<WriteError>& errors) {
  return errors.empty() ? static_cast<int32_t>(ErrorCode::kUnknownError) : errors.front().code;
}

// Drivers refuse these before sending anything, so no model of the batch runs.
void validate_update(size_t index, bson::DocumentView update) {
  require_update_operators(update, "bulk write operation " + std::to_string(index));
}

void validate_replacement(size_t index, bson::DocumentView replacement) {
  forbid_update_operators(replacement, "bulk write operation " + std::to_string(index));
}

void validate(const std::vector<WriteModel>& models) {
  if (models.empty()) {
    throw Error(ErrorCode::kBadValue, "bulk write requires at least one operation");
  }
  for (size_t i = 0; i < models.size(); ++i) {
    std::visit(
        [&](const auto& m) {
          using M = std::decay_t<decltype(m)>;
          if constexpr (std::is_same_v<M, UpdateOne> || std::is_same_v<M, UpdateMany>) {
            if (m.pipeline.empty()) {
              validate_update(i, m.update.view());
            } else if (!m.update.empty()) {
              throw Error(ErrorCode::kBadValue, "bulk write operation " + std::to_string(i) +
                                                    ": give an update or a pipeline, not both");
            }
          } else if constexpr (std::is_same_v<M, ReplaceOne>) {
            validate_replacement(i, m.replacement.view());
          }
        },
        models[i]);
  }
}

void add_update(BulkWriteResult& result, size_t index, const UpdateResult& r) {
  result.matched_count += r.matched_count;
  result.modified_count += r.modified_count;
  if (r.upserted_id) {
    ++result.upserted_count;
    result.upserted_ids.emplace(index, *r.upserted_id);
  }
}

template <typename Model>
UpdateOptions update_options(const Model& m, const BulkWriteOptions& bulk) {
  UpdateOptions o;
  o.let = bulk.let;
  o.bypass_document_validation = bulk.bypass_document_validation;
  o.upsert = m.upsert;
  o.array_filters = m.array_filters;
  o.hint = m.hint;
  if constexpr (requires { m.sort; }) o.sort = m.sort;
  o.collation = m.collation;
  return o;
}

void run_one(const Collection& coll, size_t index, const WriteModel& model,
             const BulkWriteOptions& bulk, BulkWriteResult& result) {
  const bson::Document& let = bulk.let;
  std::visit(
      [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, InsertOne>) {
          InsertOptions options;
          options.bypass_document_validation = bulk.bypass_document_validation;
          bson::OwnedValue id = coll.insert_one(m.document.view(), options);
          ++result.inserted_count;
          result.inserted_ids.emplace(index, std::move(id));
        } else if constexpr (std::is_same_v<M, UpdateOne>) {
          UpdateOptions options = update_options(m, bulk);
          add_update(result, index,
                     m.pipeline.empty() ? coll.update_one(m.filter, m.update, options)
                                        : coll.update_one(m.filter, m.pipeline, options));
        } else if constexpr (std::is_same_v<M, UpdateMany>) {
          UpdateOptions options = update_options(m, bulk);
          add_update(result, index,
                     m.pipeline.empty() ? coll.update_many(m.filter, m.update, options)
                                        : coll.update_many(m.filter, m.pipeline, options));
        } else if constexpr (std::is_same_v<M, ReplaceOne>) {
          ReplaceOptions options;
          options.upsert = m.upsert;
          options.hint = m.hint;
          options.sort = m.sort;
          options.collation = m.collation;
          options.let = let;
          options.bypass_document_validation = bulk.bypass_document_validation;
          add_update(result, index, coll.replace_one(m.filter, m.replacement, options));
        } else if constexpr (std::is_same_v<M, DeleteOne>) {
          result.deleted_count +=
              coll.delete_one(m.filter, DeleteOptions{m.hint, let, true, m.collation});
        } else {
          static_assert(std::is_same_v<M, DeleteMany>);
          result.deleted_count +=
              coll.delete_many(m.filter, DeleteOptions{m.hint, let, true, m.collation});
        }
      },
      model);
}

WriteError write_error_of(size_t index, const Error& e) {
  WriteError w;
  w.index = index;
  w.code = e.code();
  w.errmsg = e.what();
  if (const auto* dup = dynamic_cast<const DuplicateKeyError*>(&e)) {
    w.key_pattern = dup->key_pattern();
    w.key_value = dup->key_value();
  }
  return w;
}

}  // namespace

BulkWriteError::BulkWriteError(std::vector<WriteError> write_errors, BulkWriteResult result)
    : Error(first_code(write_errors), first_message(write_errors)),
      write_errors_(std::move(write_errors)),
      result_(std::move(result)) {}

BulkWriteResult bulk_write(const Collection& collection, const std::vector<WriteModel>& models,
                           const BulkWriteOptions& options) {
  validate(models);
  BulkWriteResult result;
  std::vector<WriteError> errors;
  for (size_t i = 0; i < models.size(); ++i) {
    try {
      run_one(collection, i, models[i], options, result);
    } catch (const Error& e) {
      errors.push_back(write_error_of(i, e));
      if (options.ordered) break;
    }
  }
  if (!errors.empty()) throw BulkWriteError(std::move(errors), std::move(result));
  return result;
}

}  // namespace mongostore::client
