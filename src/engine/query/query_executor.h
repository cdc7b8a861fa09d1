// QueryExecutor: the read side of the engine over planned queries: find (through
// FindCursor's batches), find by `_id`, count, distinct, collection stats, the blocking sort
// (top-k in memory, or external with allowDiskUse) and explain.
//
// Each method runs its reads in units of work of its own on the given OperationContext
// (write_conflict_retry with a read-only unit: a snapshot, rolled back at the end). It reads
// the CollectionCatalog and never changes it. Thread-safe: it holds no per-query state (a
// FindCursor holds that).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/catalog/collection_catalog.h"
#include "engine/operation_context.h"
#include "engine/query/execution_stats.h"
#include "engine/query/or_stage.h"
#include "engine/query/planned_query.h"
#include "engine/sort_spec.h"
#include "engine/storage/index_table.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/document_batch.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/engine/projection.h"

namespace mongostore::engine {

class MultiDocumentTransaction;

class WiredTigerConnection;

/// A find cursor reading through an index (or the indexes of an OR plan): its plan and where
/// the scan stands.
struct IndexCursorState {
  std::shared_ptr<CollectionEntry> collection;  // the collection the cursor reads for its life
  // Immutable once made: a prepared find's runs share its kept plan (PlanCache) rather than
  // copying it per run.
  std::shared_ptr<const PlannedQuery> plan;
  IndexScanPosition position;
  OrScanPosition or_position;  // for an OR plan
};

/// BadValue (2) when `options` asks for results_may_hold_more_fields with a projection that
/// does more than keep or drop plain fields.
void check_results_may_hold_more_fields(const FindOptions& options);

class QueryExecutor {
 public:
  QueryExecutor(WiredTigerConnection& connection, CollectionCatalog& collections)
      : connection_(connection), collections_(collections) {}

  WiredTigerConnection& connection() const { return connection_; }

  /// See the Engine methods of the same names for contracts and errors. `keep_alive` is
  /// held by the cursors handed out, so the engine outlives them.
  /// `transaction` (null: none) is the multi-document transaction the cursor reads in.
  std::unique_ptr<Cursor> find(std::shared_ptr<const void> keep_alive,
                               std::shared_ptr<MultiDocumentTransaction> transaction,
                               std::string_view db, std::string_view coll,
                               bson::DocumentView filter, const FindOptions& options);
  std::optional<bson::Document> find_by_id(OperationContext& op, std::string_view db,
                                           std::string_view coll, const bson::Value& id);
  bool index_provides_sort(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView sort, const IndexHint& hint);
  int64_t count_documents(OperationContext& op, std::string_view db, std::string_view coll,
                          bson::DocumentView filter, const bson::Document& collation);
  std::vector<bson::OwnedValue> distinct(OperationContext& op, std::string_view db,
                                         std::string_view coll, std::string_view field,
                                         bson::DocumentView filter,
                                         const bson::Document& collation);
  CollectionStats collection_stats(OperationContext& op, std::string_view db,
                                   std::string_view coll);
  bson::Document explain_find(OperationContext& op, std::string_view db, std::string_view coll,
                              bson::DocumentView filter, const FindOptions& options);

  // --- for FindCursor -------------------------------------------------------------------

  /// The whole result of a find in one snapshot: planned, sorted (unless the plan's index
  /// gives the order; a top-k sort with a limit), with skip and limit (-1: none) applied.
  std::vector<bson::Document> query_results(
      OperationContext& op, const std::string& db, const std::string& coll, const Matcher& matcher,
      const Projection& projection, bson::DocumentView sort_spec, const SortSpec& sort,
      int64_t skip, int64_t limit, const IndexHint& hint, bool allow_disk_use, size_t memory_limit,
      ExecutionStats* stats = nullptr, PlannedQuery* plan_out = nullptr);
  /// A find's blocking sort with allowDiskUse: the aggregation $sort over an unsorted find.
  std::unique_ptr<DocumentSource> external_sort(std::shared_ptr<const void> keep_alive,
                                                const std::string& db, const std::string& coll,
                                                const Matcher& matcher,
                                                bson::DocumentView sort_spec, const IndexHint& hint,
                                                size_t memory_limit);
  /// One batch of a collection scan (or `_id` lookup), resuming after `*last_key`.
  std::vector<bson::Document> read_batch(OperationContext& op, const std::string& db,
                                         const std::string& coll, const Matcher& matcher,
                                         const Projection& projection,
                                         std::shared_ptr<CollectionEntry>* collection,
                                         std::string* last_key, bool* started, int64_t* skip,
                                         int64_t* remaining, size_t batch_size, bool* done);
  /// The index cursor of a find that reads in index order (or an OR plan's), or nullopt.
  std::optional<IndexCursorState> start_index_cursor(const std::string& db, const std::string& coll,
                                                     const Matcher& matcher,
                                                     bson::DocumentView sort_spec,
                                                     const IndexHint& hint);
  /// One batch of an index cursor, resuming at its position: each result is `projection`
  /// of a document. `reads` is the projection the caller reads the results through (usually
  /// `projection` itself; wider than an identity `projection` when the results may hold more
  /// fields): when the index's stored fields hold every field it and `matcher` read, the
  /// batch is read from the index entries alone (covered_read.h).
  std::vector<bson::Document> read_index_batch(OperationContext& op, const Matcher& matcher,
                                               const Projection& projection,
                                               const Projection& reads, IndexCursorState* cursor,
                                               int64_t* skip, int64_t* remaining, size_t batch_size,
                                               bool* done);
  /// The same batch into `batch` (cleared first), its documents end to end in the batch's
  /// buffer: no allocation per document. Copied out of the snapshot like the other, so a
  /// retried snapshot leaves only its last attempt's documents.
  void read_index_batch(OperationContext& op, const Matcher& matcher, const Projection& projection,
                        const Projection& reads, IndexCursorState* cursor, int64_t* skip,
                        int64_t* remaining, size_t batch_size, bool* done, DocumentBatch* batch);

 private:
  WiredTigerConnection& connection_;
  CollectionCatalog& collections_;
};

}  // namespace mongostore::engine
