// WiredTigerEngine: the Engine (include/mongostore/engine/engine.h) on WiredTiger, as a
// facade over the engine's units:
//
//   storage/   WiredTigerConnection (connection, session pool, tables), RecordTable,
//              IndexTable, cursor helpers;
//   UnitOfWork, OperationContext, write_conflict_retry (the auto-commit boundary);
//   catalog/   DurableCatalog, CollectionCatalog, IndexCatalog, validate_collection;
//   write/     the one-document write path and WriteCommands built on it;
//   query/     planning glue, scans, blocking sorts, explain, FindCursor (QueryExecutor).
//
// Each Engine method opens an OperationContext and calls the unit that owns the operation.
// The units live in EngineUnits, shared by the engine Engine::open returns and by the view
// each multi-document transaction hands out (Transaction::engine()): the same facade with
// a transaction attached, whose every call runs as a statement of that transaction (see
// transaction/multi_document_transaction.h) and refuses the DDL a transaction may not run.
// Thread-safe, as Engine promises: the units are. Made only through Engine::open and
// begin_transaction (cursors keep it alive through shared_from_this).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine_units.h"
#include "engine/operation_context.h"
#include "mongostore/engine/engine.h"

namespace mongostore::engine {

class WiredTigerEngine final : public Engine,
                               public std::enable_shared_from_this<WiredTigerEngine> {
 public:
  /// Opens the connection, loads the catalog (dropping what a crash left behind) and starts
  /// the journal flusher of a kJournaled engine. Throws Error(DataDirectoryInvalid).
  explicit WiredTigerEngine(const EngineOptions& options);
  /// The view of `units` inside `transaction` (which owns the view).
  WiredTigerEngine(std::shared_ptr<EngineUnits> units, MultiDocumentTransaction* transaction);

  const EngineOptions& options() const override { return units_->options; }

  // --- catalog -------------------------------------------------------------------------
  std::vector<std::string> list_databases() override;
  std::vector<std::string> list_collections(std::string_view db) override;
  bool collection_exists(std::string_view db, std::string_view coll) override;
  using Engine::create_collection;
  void create_collection(std::string_view db, std::string_view coll,
                         bson::DocumentView options) override;
  void modify_collection(std::string_view db, std::string_view coll,
                         bson::DocumentView options) override;
  bson::Document collection_options(std::string_view db, std::string_view coll) override;
  bool drop_collection(std::string_view db, std::string_view coll) override;
  using Engine::replace_collection_documents;
  void replace_collection_documents(
      std::string_view db, std::string_view coll,
      const std::function<std::optional<bson::Document>()>& next_document,
      bool bypass_document_validation) override;
  void rename_collection(std::string_view from_db, std::string_view from, std::string_view to_db,
                         std::string_view to, bool drop_target) override;
  void drop_database(std::string_view db) override;

  // --- writes --------------------------------------------------------------------------
  using Engine::insert_one;
  bson::OwnedValue insert_one(std::string_view db, std::string_view coll,
                              bson::DocumentView document, const InsertOptions& options) override;
  using Engine::insert_many;
  InsertManyResult insert_many(std::string_view db, std::string_view coll,
                               const std::vector<bson::Document>& documents,
                               const InsertOptions& options) override;
  using Engine::replace_one;
  UpdateResult replace_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView replacement, const ReplaceOptions& options) override;
  UpdateResult update_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                          bson::DocumentView update, const UpdateOptions& options) override;
  UpdateResult update_many(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView update, const UpdateOptions& options) override;
  using Engine::delete_many;
  using Engine::delete_one;
  int64_t delete_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                     const DeleteOptions& options) override;
  int64_t delete_many(std::string_view db, std::string_view coll, bson::DocumentView filter,
                      const DeleteOptions& options) override;
  std::optional<bson::Document> find_one_and_update(std::string_view db, std::string_view coll,
                                                    bson::DocumentView filter,
                                                    bson::DocumentView update,
                                                    const FindAndModifyOptions& options) override;
  std::optional<bson::Document> find_one_and_replace(std::string_view db, std::string_view coll,
                                                     bson::DocumentView filter,
                                                     bson::DocumentView replacement,
                                                     const FindAndModifyOptions& options) override;
  std::optional<bson::Document> find_one_and_delete(std::string_view db, std::string_view coll,
                                                    bson::DocumentView filter,
                                                    const FindAndModifyOptions& options) override;

  // --- reads ---------------------------------------------------------------------------
  std::optional<bson::Document> find_by_id(std::string_view db, std::string_view coll,
                                           const bson::Value& id) override;
  std::optional<bson::Document> find_one(std::string_view db, std::string_view coll,
                                         bson::DocumentView filter,
                                         const FindOptions& options) override;
  std::unique_ptr<Cursor> find(std::string_view db, std::string_view coll,
                               bson::DocumentView filter, const FindOptions& options) override;
  std::shared_ptr<const PreparedFind> prepare_find(std::string_view db, std::string_view coll,
                                                   bson::DocumentView filter,
                                                   const FindOptions& options) override;
  std::unique_ptr<Cursor> find_prepared(const PreparedFind& prepared,
                                        const bson::DocumentView* filter) override;
  bool index_provides_sort(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView sort, const IndexHint& hint) override;
  int64_t count_documents(std::string_view db, std::string_view coll, bson::DocumentView filter,
                          const CountOptions& options = {}) override;
  std::vector<bson::OwnedValue> distinct(std::string_view db, std::string_view coll,
                                         std::string_view field, bson::DocumentView filter,
                                         const DistinctOptions& options = {}) override;
  std::unique_ptr<Cursor> aggregate(std::string_view db, std::string_view coll,
                                    const std::vector<bson::Document>& pipeline,
                                    const AggregateOptions& options) override;
  int64_t estimated_document_count(std::string_view db, std::string_view coll) override;
  CollectionStats collection_stats(std::string_view db, std::string_view coll) override;
  ValidateResult validate_collection(std::string_view db, std::string_view coll) override;

  // --- indexes -------------------------------------------------------------------------
  std::string create_index(std::string_view db, std::string_view coll, bson::DocumentView keys,
                           bson::DocumentView options) override;
  std::vector<bson::Document> list_indexes(std::string_view db, std::string_view coll) override;
  void drop_index(std::string_view db, std::string_view coll, std::string_view name) override;
  void drop_index(std::string_view db, std::string_view coll, bson::DocumentView keys) override;
  bson::Document explain_find(std::string_view db, std::string_view coll, bson::DocumentView filter,
                              const FindOptions& options) override;

  void flush() override;

  // --- transactions --------------------------------------------------------------------
  using Engine::begin_transaction;
  std::shared_ptr<Transaction> begin_transaction(const TransactionOptions& options) override;

 private:
  /// Runs `body(op)` on a fresh OperationContext, as a statement of the view's transaction
  /// if it has one.
  template <class F>
  auto run(F&& body);
  /// Throws OperationNotSupportedInTransaction (263) naming `command` in a transaction view.
  void refuse_in_transaction(std::string_view command) const;
  /// The view's transaction, shared (for the cursors it opens); null outside one.
  std::shared_ptr<MultiDocumentTransaction> transaction_shared() const;

  std::shared_ptr<EngineUnits> units_;
  // Set in a transaction's view; the transaction owns the view, so a plain pointer.
  MultiDocumentTransaction* transaction_ = nullptr;
};

}  // namespace mongostore::engine
