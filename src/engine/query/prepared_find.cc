#include "engine/query/prepared_find.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/query/find_cursor.h"
#include "engine/query/planned_query.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

size_t multikey_count(const IndexList& indexes) {
  size_t n = 0;
  for (const std::shared_ptr<IndexEntry>& index : indexes) n += index->multikey.load() ? 1 : 0;
  return n;
}

// The index a single-index plan reads.
const IndexDescriptor& index_of(const PlannedQuery& plan) {
  return plan.id_index ? id_index_descriptor() : plan.index->descriptor;
}

}  // namespace

std::optional<IndexCursorState> PlanCache::get(bson::DocumentView filter) const {
  std::shared_ptr<const Kept> kept;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    kept = kept_;
  }
  if (!kept || kept->collection->retired.load()) return std::nullopt;
  if (kept->collection->indexes() != kept->indexes) return std::nullopt;
  if (multikey_count(*kept->indexes) != kept->multikey) return std::nullopt;
  const bson::DocumentView kept_filter = kept->filter.view();
  if (filter.size() == kept_filter.size() &&
      std::memcmp(filter.data(), kept_filter.data(), filter.size()) == 0) {
    return IndexCursorState{kept->collection, kept->plan, IndexScanPosition()};
  }
  // Another filter: only the ranges of a single-index plan can move (rebind_range_plan,
  // whose check of the kept plan was made once, when it was kept).
  if (!kept->rebindable) return std::nullopt;
  const PlannedQuery& kept_plan = *kept->plan;
  std::optional<IndexPlan> rebound =
      rebind_checked_plan(*kept_plan.index_plan, index_of(kept_plan), *kept->rebindable, filter);
  if (!rebound) return std::nullopt;
  auto plan = std::make_shared<PlannedQuery>(kept_plan);
  plan->index_plan = std::move(*rebound);
  return IndexCursorState{kept->collection, std::move(plan), IndexScanPosition()};
}

std::shared_ptr<CollectionEntry> PlanCache::collection() const {
  std::shared_ptr<const Kept> kept;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    kept = kept_;
  }
  if (!kept || kept->collection->retired.load()) return nullptr;
  return kept->collection;
}

std::optional<IndexCursorState> PlanCache::plan(
    const std::function<std::optional<IndexCursorState>()>& plan, bson::DocumentView filter) {
  std::optional<IndexCursorState> first = plan();
  if (!first) return first;
  std::shared_ptr<CollectionEntry> collection = first->collection;
  std::shared_ptr<const IndexList> indexes = collection->indexes();
  const bool partial =
      std::any_of(indexes->begin(), indexes->end(), [](const std::shared_ptr<IndexEntry>& index) {
        return index->descriptor.partial_filter().has_value();
      });
  // Such a plan could not be rebound (get), and keeping it would only replace the kept plan
  // of the prepared filter: planned once, as a plain find.
  if (partial && rebindable_range(filter)) return first;
  const size_t multikey = multikey_count(*indexes);
  std::optional<IndexCursorState> second = plan();
  if (!second || second->collection != collection || collection->retired.load() ||
      collection->indexes() != indexes || multikey_count(*indexes) != multikey) {
    return second;
  }
  auto kept = std::make_shared<Kept>();
  kept->collection = collection;
  kept->partial = partial;
  kept->indexes = std::move(indexes);
  kept->multikey = multikey;
  kept->filter = bson::Document::copy_of(filter);
  kept->plan = second->plan;
  const PlannedQuery& p = *kept->plan;
  if (!partial && !p.is_or() && p.index_plan && !p.id_key &&
      rebindable_plan(*p.index_plan, index_of(p), kept->filter.view())) {
    kept->rebindable = read_rebindable_range(kept->filter.view());  // views into kept->filter
  }
  std::lock_guard<std::mutex> lock(mutex_);
  kept_ = std::move(kept);
  return second;
}

std::shared_ptr<const CompiledFind> compile_find(std::string_view db, std::string_view coll,
                                                 bson::DocumentView filter,
                                                 const FindOptions& options,
                                                 const FindOptions& resolved) {
  auto find = std::make_shared<CompiledFind>();
  find->db = std::string(db);
  find->coll = std::string(coll);
  find->filter = bson::Document::copy_of(filter);
  find->options = options;
  find->collation = resolved.collation;
  // The order and the errors of QueryExecutor::find.
  find->matcher = compile_filter(filter, resolved.let, resolved.collation);
  find->projection = Projection::compile(resolved.projection.view(), &find->matcher);
  find->sort = SortSpec::compile(resolved.sort.view(), find->matcher.collation());
  if (options.skip < 0) throw Error(ErrorCode::kBadValue, "skip value must be non-negative");
  if (options.limit < 0) throw Error(ErrorCode::kBadValue, "limit value must be non-negative");
  check_results_may_hold_more_fields(options);
  if (options.results_may_hold_more_fields) {
    find->reads = std::make_shared<const Projection>(find->projection);
  }
  if (std::optional<RebindableRange> range = read_rebindable_range(find->filter.view())) {
    const bson::Value number = range->value;
    find->range_number = CompiledFind::RangeNumber{
        static_cast<size_t>(number.data() - find->filter.data()), number.size(), number.type()};
  }
  return find;
}

bool rebinds_range(const CompiledFind& find, bson::DocumentView filter) {
  if (const std::optional<CompiledFind::RangeNumber>& n = find.range_number;
      n && filter.size() == find.filter.size()) {
    // The same bytes around the payload: the same structure, the same path and operator,
    // and the number's type byte. Only a number that is still finite keeps it rebindable.
    const uint8_t* a = filter.data();
    const uint8_t* b = find.filter.data();
    const size_t after = n->offset + n->size;
    if (std::memcmp(a, b, n->offset) == 0 &&
        std::memcmp(a + after, b + after, filter.size() - after) == 0) {
      if (n->type == bson::BsonType::kInt32 || n->type == bson::BsonType::kInt64) return true;
      if (n->type == bson::BsonType::kDouble) {
        double v;
        std::memcpy(&v, a + n->offset, sizeof v);
        if (std::isfinite(v)) return true;
      }
    }
  }
  return rebindable_range(filter);
}

std::unique_ptr<Cursor> run_compiled_find(std::shared_ptr<const void> keep_alive,
                                          std::shared_ptr<MultiDocumentTransaction> transaction,
                                          QueryExecutor& executor, const CompiledFind& find,
                                          const bson::DocumentView* filter,
                                          const FindOptions& resolved) {
  const bool same_collation = resolved.collation == find.collation;
  // Asked once, and only where both uses below ask it: it reads the filter through.
  const bool rebindable = filter != nullptr && same_collation && rebinds_range(find, *filter);
  // A run rebound to another number of its one range (a sweep's `now`) compiles that filter
  // only if its read needs a matcher (FindCursor::defer_matcher): such a filter cannot fail
  // to compile, and the kept plan's exact bounds need none.
  const bool defer = filter != nullptr && same_collation && resolved.let.empty() &&
                     !find.projection.uses_query() && rebindable;
  Matcher matcher = find.matcher;
  if (!defer && (filter != nullptr || !same_collation)) {
    matcher = compile_filter(filter != nullptr ? *filter : find.filter.view(), resolved.let,
                             resolved.collation);
  }
  // Only the positional operator's projection holds the query; an $elemMatch projection's
  // own filter is compiled without a collation (Projection::compile), so it stays valid.
  // Results that may hold more fields are handed out as read; an only-selecting projection
  // never holds the query.
  Projection projection = find.reads ? Projection() : find.projection;
  if (projection.uses_query() && (filter != nullptr || !same_collation)) {
    projection = Projection::compile(resolved.projection.view(), &matcher);
  }
  SortSpec sort =
      same_collation ? find.sort : SortSpec::compile(resolved.sort.view(), matcher.collation());
  auto cursor = std::make_unique<FindCursor>(std::move(keep_alive), std::move(transaction),
                                             executor, find.db, find.coll, std::move(matcher),
                                             std::move(projection), std::move(sort), resolved);
  if (find.reads) cursor->read_through(find.reads);
  if (defer) cursor->defer_matcher(bson::Document::copy_of(*filter), resolved.collation);
  // The kept plan is for the prepared collation: of the prepared filter, or of a filter it
  // can be rebound to (another filter would only replace it).
  if (same_collation && (filter == nullptr || rebindable)) {
    cursor->use_plan_cache(find.plans);
  }
  return cursor;
}

}  // namespace mongostore::engine
