// The WiredTiger-backed Engine: a facade over the engine's units (see wiredtiger_engine.h).
#include "engine/wiredtiger_engine.h"

#include "engine/aggregate_runner.h"
#include "engine/catalog/validate_collection.h"
#include "engine/operation_context.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/error.h"

namespace mongostore::engine {

std::vector<bson::Document> Cursor::to_vector() {
  std::vector<bson::Document> out;
  while (!exhausted()) {
    auto batch = next_batch();
    for (auto& d : batch) out.push_back(std::move(d));
  }
  return out;
}

std::shared_ptr<Engine> Engine::open(const EngineOptions& options) {
  install_expr_in_find_filters();
  install_update_pipelines();
  return std::make_shared<WiredTigerEngine>(options);
}

WiredTigerEngine::WiredTigerEngine(const EngineOptions& options)
    : options_(options),
      connection_(options),
      durable_catalog_(connection_),
      collections_(connection_, durable_catalog_),
      indexes_(connection_, durable_catalog_, collections_),
      queries_(connection_, collections_),
      writes_(durable_catalog_, collections_, indexes_),
      disk_space_(connection_.home(), options.durability == Durability::kInMemory
                                          ? 0
                                          : uint64_t{options.disk_space_reserve_mb} << 20) {
  OperationContext op(connection_);
  collections_.open(op);
  connection_.start_journal_flusher();
}

// --- catalog ---------------------------------------------------------------------------

std::vector<std::string> WiredTigerEngine::list_databases() {
  return collections_.list_databases();
}

std::vector<std::string> WiredTigerEngine::list_collections(std::string_view db) {
  return collections_.list_collections(db);
}

bool WiredTigerEngine::collection_exists(std::string_view db, std::string_view coll) {
  return collections_.exists(db, coll);
}

void WiredTigerEngine::create_collection(std::string_view db, std::string_view coll,
                                         bson::DocumentView options) {
  disk_space_.check();
  OperationContext op(connection_);
  collections_.create(op, db, coll, options);
}

void WiredTigerEngine::modify_collection(std::string_view db, std::string_view coll,
                                         bson::DocumentView options) {
  disk_space_.check();
  OperationContext op(connection_);
  collections_.modify(op, db, coll, options);
}

bson::Document WiredTigerEngine::collection_options(std::string_view db, std::string_view coll) {
  return collections_.options(db, coll);
}

bool WiredTigerEngine::drop_collection(std::string_view db, std::string_view coll) {
  OperationContext op(connection_);
  return collections_.drop(op, db, coll);
}

void WiredTigerEngine::replace_collection_documents(
    std::string_view db, std::string_view coll,
    const std::function<std::optional<bson::Document>()>& next_document,
    bool bypass_document_validation) {
  disk_space_.check();
  OperationContext op(connection_);
  writes_.replace_collection_documents(op, db, coll, next_document, bypass_document_validation);
}

void WiredTigerEngine::rename_collection(std::string_view from_db, std::string_view from,
                                         std::string_view to_db, std::string_view to,
                                         bool drop_target) {
  disk_space_.check();
  OperationContext op(connection_);
  collections_.rename(op, from_db, from, to_db, to, drop_target);
}

void WiredTigerEngine::drop_database(std::string_view db) {
  OperationContext op(connection_);
  collections_.drop_database(op, db);
}

// --- writes ----------------------------------------------------------------------------

bson::OwnedValue WiredTigerEngine::insert_one(std::string_view db, std::string_view coll,
                                              bson::DocumentView document,
                                              const InsertOptions& options) {
  disk_space_.check();
  OperationContext op(connection_);
  return writes_.insert_one(op, db, coll, document, options);
}

InsertManyResult WiredTigerEngine::insert_many(std::string_view db, std::string_view coll,
                                               const std::vector<bson::Document>& documents,
                                               const InsertOptions& options) {
  disk_space_.check();
  OperationContext op(connection_);
  return writes_.insert_many(op, db, coll, documents, options);
}

UpdateResult WiredTigerEngine::replace_one(std::string_view db, std::string_view coll,
                                           bson::DocumentView filter,
                                           bson::DocumentView replacement,
                                           const ReplaceOptions& options) {
  WriteCommands::reject_operators_in_replacement(replacement);
  disk_space_.check();
  OperationContext op(connection_);
  return writes_.update(op, db, coll, filter, replacement, update_options_for(options),
                        /*multi=*/false);
}

UpdateResult WiredTigerEngine::update_one(std::string_view db, std::string_view coll,
                                          bson::DocumentView filter, bson::DocumentView update,
                                          const UpdateOptions& options) {
  disk_space_.check();
  OperationContext op(connection_);
  return writes_.update(op, db, coll, filter, update, options, /*multi=*/false);
}

UpdateResult WiredTigerEngine::update_many(std::string_view db, std::string_view coll,
                                           bson::DocumentView filter, bson::DocumentView update,
                                           const UpdateOptions& options) {
  disk_space_.check();
  OperationContext op(connection_);
  return writes_.update(op, db, coll, filter, update, options, /*multi=*/true);
}

int64_t WiredTigerEngine::delete_one(std::string_view db, std::string_view coll,
                                     bson::DocumentView filter, const DeleteOptions& options) {
  OperationContext op(connection_);
  return writes_.remove(op, db, coll, filter, /*multi=*/false, options);
}

int64_t WiredTigerEngine::delete_many(std::string_view db, std::string_view coll,
                                      bson::DocumentView filter, const DeleteOptions& options) {
  OperationContext op(connection_);
  return writes_.remove(op, db, coll, filter, /*multi=*/true, options);
}

std::optional<bson::Document> WiredTigerEngine::find_one_and_update(
    std::string_view db, std::string_view coll, bson::DocumentView filter,
    bson::DocumentView update, const FindAndModifyOptions& options) {
  disk_space_.check();
  OperationContext op(connection_);
  return writes_.find_and_modify(op, db, coll, filter, &update, options);
}

std::optional<bson::Document> WiredTigerEngine::find_one_and_replace(
    std::string_view db, std::string_view coll, bson::DocumentView filter,
    bson::DocumentView replacement, const FindAndModifyOptions& options) {
  WriteCommands::reject_operators_in_replacement(replacement);
  disk_space_.check();
  OperationContext op(connection_);
  return writes_.find_and_modify(op, db, coll, filter, &replacement, options);
}

std::optional<bson::Document> WiredTigerEngine::find_one_and_delete(
    std::string_view db, std::string_view coll, bson::DocumentView filter,
    const FindAndModifyOptions& options) {
  OperationContext op(connection_);
  return writes_.find_and_modify(op, db, coll, filter, nullptr, options);
}

// --- reads -----------------------------------------------------------------------------

std::optional<bson::Document> WiredTigerEngine::find_by_id(std::string_view db,
                                                           std::string_view coll,
                                                           const bson::Value& id) {
  OperationContext op(connection_);
  return queries_.find_by_id(op, db, coll, id);
}

std::optional<bson::Document> WiredTigerEngine::find_one(std::string_view db, std::string_view coll,
                                                         bson::DocumentView filter,
                                                         const FindOptions& options) {
  FindOptions one = options;
  one.limit = 1;
  one.batch_size = 1;
  auto cursor = find(db, coll, filter, one);
  auto batch = cursor->next_batch();
  if (batch.empty()) return std::nullopt;
  return std::move(batch.front());
}

std::unique_ptr<Cursor> WiredTigerEngine::find(std::string_view db, std::string_view coll,
                                               bson::DocumentView filter,
                                               const FindOptions& options) {
  return queries_.find(shared_from_this(), db, coll, filter, options);
}

bool WiredTigerEngine::index_provides_sort(std::string_view db, std::string_view coll,
                                           bson::DocumentView filter, bson::DocumentView sort,
                                           const IndexHint& hint) {
  return queries_.index_provides_sort(db, coll, filter, sort, hint);
}

int64_t WiredTigerEngine::count_documents(std::string_view db, std::string_view coll,
                                          bson::DocumentView filter, const CountOptions& options) {
  OperationContext op(connection_);
  return queries_.count_documents(op, db, coll, filter, options.collation);
}

std::vector<bson::OwnedValue> WiredTigerEngine::distinct(std::string_view db, std::string_view coll,
                                                         std::string_view field,
                                                         bson::DocumentView filter,
                                                         const DistinctOptions& options) {
  OperationContext op(connection_);
  return queries_.distinct(op, db, coll, field, filter, options.collation);
}

std::unique_ptr<Cursor> WiredTigerEngine::aggregate(std::string_view db, std::string_view coll,
                                                    const std::vector<bson::Document>& pipeline,
                                                    const AggregateOptions& options) {
  return run_aggregate(*this, db, coll, pipeline, options, connection_.spill_directory());
}

int64_t WiredTigerEngine::estimated_document_count(std::string_view db, std::string_view coll) {
  return collection_stats(db, coll).document_count;
}

CollectionStats WiredTigerEngine::collection_stats(std::string_view db, std::string_view coll) {
  OperationContext op(connection_);
  return queries_.collection_stats(op, db, coll);
}

ValidateResult WiredTigerEngine::validate_collection(std::string_view db, std::string_view coll) {
  auto entry = collections_.lookup(db, coll);
  if (!entry) {
    throw Error(ErrorCode::kNamespaceNotFound,
                "Collection '" + ns_of(db, coll) + "' does not exist to validate.");
  }
  OperationContext op(connection_);
  return engine::validate_collection(op, *entry);
}

// --- indexes ---------------------------------------------------------------------------

std::string WiredTigerEngine::create_index(std::string_view db, std::string_view coll,
                                           bson::DocumentView keys, bson::DocumentView options) {
  disk_space_.check();
  OperationContext op(connection_);
  return indexes_.create(op, db, coll, keys, options);
}

std::vector<bson::Document> WiredTigerEngine::list_indexes(std::string_view db,
                                                           std::string_view coll) {
  return indexes_.list(db, coll);
}

void WiredTigerEngine::drop_index(std::string_view db, std::string_view coll,
                                  std::string_view name) {
  OperationContext op(connection_);
  indexes_.drop(op, db, coll, name);
}

void WiredTigerEngine::drop_index(std::string_view db, std::string_view coll,
                                  bson::DocumentView keys) {
  OperationContext op(connection_);
  indexes_.drop(op, db, coll, keys);
}

bson::Document WiredTigerEngine::explain_find(std::string_view db, std::string_view coll,
                                              bson::DocumentView filter,
                                              const FindOptions& options) {
  OperationContext op(connection_);
  return queries_.explain_find(op, db, coll, filter, options);
}

void WiredTigerEngine::flush() {
  connection_.checkpoint();
}

std::shared_ptr<Transaction> WiredTigerEngine::begin_transaction(const TransactionOptions&) {
  // Being built (issue 20): lands with the transaction unit.
  throw Error(ErrorCode::kNotImplemented, "multi-document transactions are not built yet");
}

}  // namespace mongostore::engine
