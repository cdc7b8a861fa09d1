// The WiredTiger-backed Engine: a facade over the engine's units (see wiredtiger_engine.h).
#include "engine/wiredtiger_engine.h"

#include "engine/aggregate_runner.h"
#include "engine/catalog/validate_collection.h"
#include "engine/operation_context.h"
#include "engine/query/prepared_find.h"
#include "engine/transaction/multi_document_transaction.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

// Runs f(options), with the collection's default collation filled in when the operation
// gives none (an explicit {locale: "simple"} is not empty, so it overrides the default).
template <class Options, class F>
auto with_default_collation(CollectionCatalog& catalog, std::string_view db, std::string_view coll,
                            const Options& options, F&& f) {
  if (options.collation.empty()) {
    if (auto entry = catalog.lookup(db, coll); entry && entry->default_collation) {
      Options inherited = options;
      inherited.collation = entry->default_collation->spec();
      return f(inherited);
    }
  }
  return f(options);
}

}  // namespace

void Cursor::next_batch_into(DocumentBatch& batch) {
  batch.clear();
  for (bson::Document& d : next_batch()) batch.append(std::move(d));
}

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
    : units_(std::make_shared<EngineUnits>(options)) {
  OperationContext op(units_->connection);
  units_->collections.open(op);
  units_->connection.start_journal_flusher();
}

WiredTigerEngine::WiredTigerEngine(std::shared_ptr<EngineUnits> units,
                                   MultiDocumentTransaction* transaction)
    : units_(std::move(units)), transaction_(transaction) {}

template <class F>
auto WiredTigerEngine::run(F&& body) {
  OperationContext op(units_->connection);
  return run_statement(transaction_, op, [&] { return body(op); });
}

void WiredTigerEngine::refuse_in_transaction(std::string_view command) const {
  if (transaction_ == nullptr) return;
  throw Error(ErrorCode::kOperationNotSupportedInTransaction,
              "Cannot run '" + std::string(command) + "' in a multi-document transaction.");
}

// --- catalog ---------------------------------------------------------------------------

std::vector<std::string> WiredTigerEngine::list_databases() {
  return units_->collections.list_databases();
}

std::vector<std::string> WiredTigerEngine::list_collections(std::string_view db) {
  return units_->collections.list_collections(db);
}

bool WiredTigerEngine::collection_exists(std::string_view db, std::string_view coll) {
  return units_->collections.exists(db, coll);
}

void WiredTigerEngine::create_collection(std::string_view db, std::string_view coll,
                                         bson::DocumentView options) {
  units_->disk_space.check();
  run([&](OperationContext& op) { units_->collections.create(op, db, coll, options); });
}

void WiredTigerEngine::modify_collection(std::string_view db, std::string_view coll,
                                         bson::DocumentView options) {
  units_->disk_space.check();
  run([&](OperationContext& op) {
    refuse_in_transaction("collMod");
    units_->collections.modify(op, db, coll, options);
  });
}

bson::Document WiredTigerEngine::collection_options(std::string_view db, std::string_view coll) {
  return units_->collections.options(db, coll);
}

bool WiredTigerEngine::drop_collection(std::string_view db, std::string_view coll) {
  return run([&](OperationContext& op) {
    refuse_in_transaction("drop");
    return units_->collections.drop(op, db, coll);
  });
}

void WiredTigerEngine::replace_collection_documents(
    std::string_view db, std::string_view coll,
    const std::function<std::optional<bson::Document>()>& next_document,
    bool bypass_document_validation) {
  units_->disk_space.check();
  run([&](OperationContext& op) {
    refuse_in_transaction("$out");
    units_->writes.replace_collection_documents(op, db, coll, next_document,
                                                bypass_document_validation);
  });
}

void WiredTigerEngine::rename_collection(std::string_view from_db, std::string_view from,
                                         std::string_view to_db, std::string_view to,
                                         bool drop_target) {
  units_->disk_space.check();
  run([&](OperationContext& op) {
    refuse_in_transaction("renameCollection");
    units_->collections.rename(op, from_db, from, to_db, to, drop_target);
  });
}

void WiredTigerEngine::drop_database(std::string_view db) {
  run([&](OperationContext& op) {
    refuse_in_transaction("dropDatabase");
    units_->collections.drop_database(op, db);
  });
}

// --- writes ----------------------------------------------------------------------------

bson::OwnedValue WiredTigerEngine::insert_one(std::string_view db, std::string_view coll,
                                              bson::DocumentView document,
                                              const InsertOptions& options) {
  units_->disk_space.check();
  return run([&](OperationContext& op) {
    return units_->writes.insert_one(op, db, coll, document, options);
  });
}

InsertManyResult WiredTigerEngine::insert_many(std::string_view db, std::string_view coll,
                                               const std::vector<bson::Document>& documents,
                                               const InsertOptions& options) {
  units_->disk_space.check();
  return run([&](OperationContext& op) {
    return units_->writes.insert_many(op, db, coll, documents, options);
  });
}

UpdateResult WiredTigerEngine::replace_one(std::string_view db, std::string_view coll,
                                           bson::DocumentView filter,
                                           bson::DocumentView replacement,
                                           const ReplaceOptions& options) {
  WriteCommands::reject_operators_in_replacement(replacement);
  units_->disk_space.check();
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->writes.update(op, db, coll, filter, replacement, update_options_for(options),
                                   /*multi=*/false);
    });
  });
}

UpdateResult WiredTigerEngine::update_one(std::string_view db, std::string_view coll,
                                          bson::DocumentView filter, bson::DocumentView update,
                                          const UpdateOptions& options) {
  units_->disk_space.check();
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->writes.update(op, db, coll, filter, update, options, /*multi=*/false);
    });
  });
}

UpdateResult WiredTigerEngine::update_many(std::string_view db, std::string_view coll,
                                           bson::DocumentView filter, bson::DocumentView update,
                                           const UpdateOptions& options) {
  units_->disk_space.check();
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->writes.update(op, db, coll, filter, update, options, /*multi=*/true);
    });
  });
}

int64_t WiredTigerEngine::delete_one(std::string_view db, std::string_view coll,
                                     bson::DocumentView filter, const DeleteOptions& options) {
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->writes.remove(op, db, coll, filter, /*multi=*/false, options);
    });
  });
}

int64_t WiredTigerEngine::delete_many(std::string_view db, std::string_view coll,
                                      bson::DocumentView filter, const DeleteOptions& options) {
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->writes.remove(op, db, coll, filter, /*multi=*/true, options);
    });
  });
}

std::optional<bson::Document> WiredTigerEngine::find_one_and_update(
    std::string_view db, std::string_view coll, bson::DocumentView filter,
    bson::DocumentView update, const FindAndModifyOptions& options) {
  units_->disk_space.check();
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->writes.find_and_modify(op, db, coll, filter, &update, options);
    });
  });
}

std::optional<bson::Document> WiredTigerEngine::find_one_and_replace(
    std::string_view db, std::string_view coll, bson::DocumentView filter,
    bson::DocumentView replacement, const FindAndModifyOptions& options) {
  WriteCommands::reject_operators_in_replacement(replacement);
  units_->disk_space.check();
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->writes.find_and_modify(op, db, coll, filter, &replacement, options);
    });
  });
}

std::optional<bson::Document> WiredTigerEngine::find_one_and_delete(
    std::string_view db, std::string_view coll, bson::DocumentView filter,
    const FindAndModifyOptions& options) {
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->writes.find_and_modify(op, db, coll, filter, nullptr, options);
    });
  });
}

// --- reads -----------------------------------------------------------------------------

std::optional<bson::Document> WiredTigerEngine::find_by_id(std::string_view db,
                                                           std::string_view coll,
                                                           const bson::Value& id) {
  return run([&](OperationContext& op) { return units_->queries.find_by_id(op, db, coll, id); });
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
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext&) {
      return units_->queries.find(shared_from_this(), transaction_shared(), db, coll, filter,
                                  options);
    });
  });
}

std::shared_ptr<const PreparedFind> WiredTigerEngine::prepare_find(std::string_view db,
                                                                   std::string_view coll,
                                                                   bson::DocumentView filter,
                                                                   const FindOptions& options) {
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& resolved) {
    return run(
        [&](OperationContext&) { return compile_find(db, coll, filter, options, resolved); });
  });
}

std::unique_ptr<Cursor> WiredTigerEngine::find_prepared(const PreparedFind& prepared,
                                                        const bson::DocumentView* filter) {
  const auto& compiled = static_cast<const CompiledFind&>(prepared);  // the only kind
  auto body = [&](const FindOptions& resolved) {
    return run([&](OperationContext&) {
      return run_compiled_find(shared_from_this(), transaction_shared(), units_->queries, compiled,
                               filter, resolved);
    });
  };
  // While the collection its kept plan reads is the one the name resolves to, that entry's
  // default collation is what with_default_collation would look up in the catalog (by
  // name, under the catalog's lock): a repeated find (a sweep) skips the lookup.
  if (compiled.options.collation.empty()) {
    if (std::shared_ptr<CollectionEntry> entry = compiled.plans->collection()) {
      if (!entry->default_collation) return body(compiled.options);
      FindOptions inherited = compiled.options;
      inherited.collation = entry->default_collation->spec();
      return body(inherited);
    }
  }
  return with_default_collation(units_->collections, compiled.db, compiled.coll, compiled.options,
                                body);
}

bool WiredTigerEngine::index_provides_sort(std::string_view db, std::string_view coll,
                                           bson::DocumentView filter, bson::DocumentView sort,
                                           const IndexHint& hint) {
  return units_->queries.index_provides_sort(db, coll, filter, sort, hint);
}

int64_t WiredTigerEngine::count_documents(std::string_view db, std::string_view coll,
                                          bson::DocumentView filter, const CountOptions& options) {
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->queries.count_documents(op, db, coll, filter, options.collation);
    });
  });
}

std::vector<bson::OwnedValue> WiredTigerEngine::distinct(std::string_view db, std::string_view coll,
                                                         std::string_view field,
                                                         bson::DocumentView filter,
                                                         const DistinctOptions& options) {
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->queries.distinct(op, db, coll, field, filter, options.collation);
    });
  });
}

std::unique_ptr<Cursor> WiredTigerEngine::aggregate(std::string_view db, std::string_view coll,
                                                    const std::vector<bson::Document>& pipeline,
                                                    const AggregateOptions& options) {
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext&) {
      return run_aggregate(*this, db, coll, pipeline, options,
                           units_->connection.spill_directory());
    });
  });
}

int64_t WiredTigerEngine::estimated_document_count(std::string_view db, std::string_view coll) {
  return collection_stats(db, coll).document_count;
}

CollectionStats WiredTigerEngine::collection_stats(std::string_view db, std::string_view coll) {
  return run([&](OperationContext& op) { return units_->queries.collection_stats(op, db, coll); });
}

ValidateResult WiredTigerEngine::validate_collection(std::string_view db, std::string_view coll) {
  auto entry = units_->collections.lookup(db, coll);
  if (!entry) {
    throw Error(ErrorCode::kNamespaceNotFound,
                "Collection '" + ns_of(db, coll) + "' does not exist to validate.");
  }
  return run([&](OperationContext& op) { return engine::validate_collection(op, *entry); });
}

// --- indexes ---------------------------------------------------------------------------

std::string WiredTigerEngine::create_index(std::string_view db, std::string_view coll,
                                           bson::DocumentView keys, bson::DocumentView options) {
  units_->disk_space.check();
  return run([&](OperationContext& op) {
    refuse_in_transaction("createIndexes");
    return units_->indexes.create(op, db, coll, keys, options);
  });
}

std::vector<bson::Document> WiredTigerEngine::list_indexes(std::string_view db,
                                                           std::string_view coll) {
  return units_->indexes.list(db, coll);
}

void WiredTigerEngine::drop_index(std::string_view db, std::string_view coll,
                                  std::string_view name) {
  run([&](OperationContext& op) {
    refuse_in_transaction("dropIndexes");
    units_->indexes.drop(op, db, coll, name);
  });
}

void WiredTigerEngine::drop_index(std::string_view db, std::string_view coll,
                                  bson::DocumentView keys) {
  run([&](OperationContext& op) {
    refuse_in_transaction("dropIndexes");
    units_->indexes.drop(op, db, coll, keys);
  });
}

bson::Document WiredTigerEngine::explain_find(std::string_view db, std::string_view coll,
                                              bson::DocumentView filter,
                                              const FindOptions& options) {
  return with_default_collation(units_->collections, db, coll, options, [&](const auto& options) {
    return run([&](OperationContext& op) {
      return units_->queries.explain_find(op, db, coll, filter, options);
    });
  });
}

void WiredTigerEngine::flush() {
  units_->connection.checkpoint();
}

std::shared_ptr<Transaction> WiredTigerEngine::begin_transaction(
    const TransactionOptions& options) {
  if (transaction_ != nullptr) {
    throw Error(ErrorCode::kOperationNotSupportedInTransaction,
                "Cannot start a transaction inside a multi-document transaction.");
  }
  auto txn = std::make_shared<MultiDocumentTransaction>(
      units_, units_->connection, units_->next_transaction_id.fetch_add(1), options);
  txn->set_view(std::make_shared<WiredTigerEngine>(units_, txn.get()));
  units_->transaction_reaper.watch(txn);
  return txn;
}

std::shared_ptr<MultiDocumentTransaction> WiredTigerEngine::transaction_shared() const {
  return transaction_ == nullptr ? nullptr : transaction_->shared_from_this();
}

}  // namespace mongostore::engine
