// FindCursor: the Cursor a find hands out. It picks its way of reading on the first batch:
// through an index in index order (resuming in the index), a collection scan in `_id` order
// (resuming after the last `_id` key), a blocking sort held in memory (read and sorted on
// the first batch), or with allowDiskUse and no limit an external sort that spills. Each
// batch reads in a snapshot of its own (a fresh OperationContext and unit of work), so a
// long scan never pins one snapshot for its whole life, except in a multi-document
// transaction, where every batch reads the transaction's snapshot (and its own writes)
// and, after the transaction ended, fails NoSuchTransaction.
//
// It holds `keep_alive` (the engine) so the executor it reads through outlives it. Not
// thread-safe: one user at a time, as Cursor says.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/query/query_executor.h"
#include "engine/sort_spec.h"
#include "engine/transaction/multi_document_transaction.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/document_batch.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/engine/projection.h"

namespace mongostore::engine {

class PlanCache;

class FindCursor final : public Cursor {
 public:
  FindCursor(std::shared_ptr<const void> keep_alive,
             std::shared_ptr<MultiDocumentTransaction> transaction, QueryExecutor& executor,
             std::string db, std::string coll, Matcher matcher, Projection projection,
             SortSpec sort, const FindOptions& options)
      : keep_alive_(std::move(keep_alive)),
        transaction_(std::move(transaction)),
        executor_(executor),
        db_(std::move(db)),
        coll_(std::move(coll)),
        matcher_(std::move(matcher)),
        projection_(std::move(projection)),
        sort_(std::move(sort)),
        sort_spec_(options.sort.empty() ? std::nullopt : std::optional(options.sort)),
        hint_(options.hint.empty() ? std::nullopt : std::optional(options.hint)),
        // An external sort reads in snapshots of its own: not inside a transaction, whose
        // snapshot (and own writes) the sort must see.
        allow_disk_use_(options.allow_disk_use && transaction_ == nullptr),
        memory_limit_(options.memory_limit_bytes),
        skip_(options.skip),
        remaining_(options.limit > 0 ? options.limit : -1),
        batch_size_(options.batch_size == 0 ? 101 : options.batch_size) {}

  /// The caller reads the results through `reads` (an only-selecting projection) and takes
  /// results holding more fields (FindOptions::results_may_hold_more_fields): the
  /// constructor's projection is then the identity, and `reads` says which fields an index's
  /// stored fields must hold for a covered read. Before the first batch only.
  void read_through(std::shared_ptr<const Projection> reads) { reads_ = std::move(reads); }

  /// Takes its index plan from `cache` (a prepared find's, engine/query/prepared_find.h)
  /// while it is valid, and leaves the plan it makes there. Before the first batch only.
  void use_plan_cache(std::shared_ptr<PlanCache> cache) { plan_cache_ = std::move(cache); }

  /// Runs `filter` instead of the constructor's matcher's, compiling it (under `collation`,
  /// no let) only when a read needs a matcher: an index plan with exact bounds needs none, so
  /// a prepared find rebound to another number of its range (a sweep's {next_fire_at:
  /// {$lte: now}}) compiles nothing. For filters that cannot fail to compile
  /// (rebindable_range). Before the first batch only.
  void defer_matcher(bson::Document filter, bson::Document collation) {
    deferred_.emplace(Deferred{std::move(filter), std::move(collation)});
  }

  std::vector<bson::Document> next_batch() override;
  /// A cursor reading through an index writes the documents end to end into the batch's
  /// buffer (no allocation per document); the other reads hand over the documents they make.
  void next_batch_into(DocumentBatch& batch) override;
  bool exhausted() const override { return done_; }
  size_t memory_bytes() const override {
    return sorted_bytes_ + filter().size() + sort_spec().size();
  }

 private:
  // With `into`, an index read fills it and returns nothing; other reads return their batch.
  std::vector<bson::Document> read_next_batch(OperationContext& op, DocumentBatch* into = nullptr);
  // The filter this cursor runs, and its matcher (the deferred one compiled on first use).
  bson::DocumentView filter() const {
    return deferred_ ? deferred_->filter.view() : matcher_.filter();
  }
  const Matcher& matcher();
  bson::DocumentView sort_spec() const;
  const IndexHint& hint() const;

  std::shared_ptr<const void> keep_alive_;
  // Set when the cursor was opened in a multi-document transaction: every batch then runs
  // as a statement of it, in its snapshot.
  std::shared_ptr<MultiDocumentTransaction> transaction_;
  QueryExecutor& executor_;
  std::string db_, coll_;
  Matcher matcher_;
  // Set by defer_matcher until matcher() compiles it into matcher_. One optional for both, so
  // that a cursor that defers nothing holds no document (an empty one allocates).
  struct Deferred {
    bson::Document filter;
    bson::Document collation;
  };
  std::optional<Deferred> deferred_;
  Projection projection_;  // what each result is made of
  // The projection the caller reads through (read_through); null: projection_. Shared with a
  // prepared find's runs, not copied into each.
  std::shared_ptr<const Projection> reads_;
  SortSpec sort_;
  // The find's sort and hint, held only when given: a cursor without them (most) copies no
  // document, since even an empty one allocates. Read through sort_spec() and hint().
  std::optional<bson::Document> sort_spec_;
  std::optional<IndexHint> hint_;
  std::shared_ptr<PlanCache> plan_cache_;  // null: plan on the first batch
  bool allow_disk_use_;
  size_t memory_limit_;
  bool materialized_ = false;
  // Set when the find reads through an index in index order: batches resume in the index.
  std::optional<IndexCursorState> index_cursor_;
  // A find with a blocking sort reads and sorts the whole result on the first batch, then
  // hands it out from here.
  std::vector<bson::Document> sorted_;
  // Or, with allowDiskUse and no limit, an external sort that spills past the memory limit.
  std::unique_ptr<DocumentSource> external_;
  // The collection a collection-scan cursor reads, resolved by its first batch.
  std::shared_ptr<CollectionEntry> collection_;
  size_t sorted_next_ = 0;
  size_t sorted_bytes_ = 0;  // of sorted_[sorted_next_...]
  int64_t skip_;
  int64_t remaining_;  // -1: unlimited
  size_t batch_size_;
  std::string last_key_;
  bool started_ = false;
  bool done_ = false;
};

}  // namespace mongostore::engine
