// CompiledFind: what Engine::prepare_find compiles once (the filter's Matcher, the
// Projection, the SortSpec) so that each run of a repeated find only plans and reads. A run
// compiles again only what it cannot reuse: the filter when the caller passes another one,
// and everything collation-dependent when the collection's default collation is no longer
// the one it was compiled under (dropped and created again with another). Immutable once
// built: any number of threads may run one at once.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "engine/query/query_executor.h"
#include "engine/query/range_rebind.h"
#include "engine/sort_spec.h"
#include "engine/transaction/multi_document_transaction.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/engine/projection.h"

namespace mongostore::engine {

// The index plan of a prepared filter, kept between its runs while everything the planner
// read is as it was: the same collection (not dropped or renamed since), the same index list
// (lists are replaced, never changed, when an index comes or goes) and the same indexes
// multikey (a flag that is only ever set). Then planning again would give the same plan.
// A run with a filter that differs from the kept plan's only in the number of its one range
// condition (rebindable_range, e.g. a sweep's {next_fire_at: {$lte: now}}) gets the kept plan
// with its range rebound (rebind_range_plan) instead, unless an index of the collection is
// partial (then such a run plans once, as a plain find, and keeps nothing). Only plans that read
// one index or an OR of indexes are kept; the others are made again each run. Thread-safe: runs of
// one prepared find share it.
class PlanCache {
 public:
  /// A fresh cursor state on the kept plan for `filter` (the filter as compiled), or nullopt
  /// when there is none, it is stale or it cannot serve `filter`.
  std::optional<IndexCursorState> get(bson::DocumentView filter) const;
  /// Plans through `plan` (the executor's start_index_cursor, planning `filter`) and returns
  /// its result. To keep a plan it must know what the planner read, so it notes the index
  /// list and the multikey flags after a first plan, plans again, and keeps the second plan
  /// only when they are unchanged after it too (flags are only ever set, lists only ever
  /// replaced): a plan made while an index came, went or turned multikey is used once and
  /// not kept.
  std::optional<IndexCursorState> plan(const std::function<std::optional<IndexCursorState>()>& plan,
                                       bson::DocumentView filter);
  /// The collection the kept plan reads while the catalog still resolves the prepared name to
  /// it (a drop or a rename retires it), or null. Its default collation is then the one a
  /// lookup of the name would give: an entry's is set before it is published, never changed.
  std::shared_ptr<CollectionEntry> collection() const;

 private:
  struct Kept {
    std::shared_ptr<CollectionEntry> collection;
    std::shared_ptr<const IndexList> indexes;
    size_t multikey = 0;
    bool partial = false;   // some index of `indexes` is partial: no rebinding
    bson::Document filter;  // the filter `plan` was made for
    // `filter` read (views into it) when the plan may be rebound (rebindable_plan, asked once).
    std::optional<RebindableRange> rebindable;
    std::shared_ptr<const PlannedQuery> plan;  // shared with the runs that use it
  };
  mutable std::mutex mutex_;
  std::shared_ptr<const Kept> kept_;
};

struct CompiledFind final : PreparedFind {
  std::string db, coll;
  bson::Document filter;
  FindOptions options;       // as the caller gave them (an empty collation: the default's)
  bson::Document collation;  // the one the parts below were compiled under
  Matcher matcher;
  Projection projection;
  // With FindOptions::results_may_hold_more_fields: `projection` shared, for the cursors to
  // read through (FindCursor::read_through), whose own projection is then the identity.
  std::shared_ptr<const Projection> reads;
  SortSpec sort;
  // For runs under the collation it was compiled with: of the prepared filter, and of
  // filters its kept plan can be rebound to (PlanCache).
  std::shared_ptr<PlanCache> plans = std::make_shared<PlanCache>();
  // When `filter` is a rebindable_range filter: where its one number's payload lies in the
  // filter's bytes, and its type. A run's filter that is these bytes with only that payload
  // changed, to a finite number of that type, is then rebindable_range too, which a run
  // knows without parsing it (rebinds_range).
  struct RangeNumber {
    size_t offset = 0;
    uint32_t size = 0;
    bson::BsonType type = bson::BsonType::kEndOfDocument;
  };
  std::optional<RangeNumber> range_number;
};

/// Whether `filter` is a rebindable_range filter: rebindable_range(filter), answered without
/// parsing it when it is `find`'s prepared filter with only the number changed (a sweep's run
/// rebound to `now`). Pure; thread-safe.
bool rebinds_range(const CompiledFind& find, bson::DocumentView filter);

/// Compiles `filter` with `options` as find would; `resolved` is `options` with the
/// collection's default collation filled in. Throws what find throws.
std::shared_ptr<const CompiledFind> compile_find(std::string_view db, std::string_view coll,
                                                 bson::DocumentView filter,
                                                 const FindOptions& options,
                                                 const FindOptions& resolved);

/// A cursor running `find` (with `filter` instead of its own when not null), `resolved` being
/// its options under the collection's default collation now.
std::unique_ptr<Cursor> run_compiled_find(std::shared_ptr<const void> keep_alive,
                                          std::shared_ptr<MultiDocumentTransaction> transaction,
                                          QueryExecutor& executor, const CompiledFind& find,
                                          const bson::DocumentView* filter,
                                          const FindOptions& resolved);

}  // namespace mongostore::engine
