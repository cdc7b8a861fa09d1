#include "engine/query/query_executor.h"

#include <algorithm>
#include <map>
#include <utility>

#include "engine/path_values.h"
#include "engine/query/covered_read.h"
#include "engine/query/document_scan.h"
#include "engine/query/find_cursor.h"
#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_cursor.h"
#include "engine/write_conflict_retry.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/error.h"

namespace mongostore::engine {

namespace {

constexpr UnitOfWork::Mode kRead = UnitOfWork::Mode::kReadOnly;

// A cursor's later batch on a collection dropped since its first fails QueryPlanKilled, as
// mongod's getMore does; a renamed collection is read on under its new name.
[[noreturn]] void throw_collection_dropped(const CollectionEntry& entry) {
  throw Error(
      ErrorCode::kQueryPlanKilled,
      "query plan killed :: caused by :: collection dropped: " + ns_of(entry.db, entry.coll));
}

void check_not_dropped(const CollectionEntry& entry) {
  if (entry.dropped.load()) throw_collection_dropped(entry);
}

}  // namespace

void check_results_may_hold_more_fields(const FindOptions& options) {
  if (options.results_may_hold_more_fields && !Projection::only_selects(options.projection)) {
    throw Error(ErrorCode::kBadValue,
                "results_may_hold_more_fields needs a projection that only keeps or drops plain "
                "fields, not " +
                    options.projection.to_json());
  }
}

std::unique_ptr<Cursor> QueryExecutor::find(std::shared_ptr<const void> keep_alive,
                                            std::shared_ptr<MultiDocumentTransaction> transaction,
                                            std::string_view db, std::string_view coll,
                                            bson::DocumentView filter, const FindOptions& options) {
  Matcher matcher = compile_filter(filter, options.let, options.collation);
  Projection projection = Projection::compile(options.projection.view(), &matcher);
  SortSpec sort = SortSpec::compile(options.sort.view(), matcher.collation());
  if (options.skip < 0) throw Error(ErrorCode::kBadValue, "skip value must be non-negative");
  if (options.limit < 0) throw Error(ErrorCode::kBadValue, "limit value must be non-negative");
  check_results_may_hold_more_fields(options);
  // Results that may hold more fields are handed out as read (no projection applied).
  std::shared_ptr<const Projection> reads;
  if (options.results_may_hold_more_fields) {
    reads = std::make_shared<const Projection>(std::exchange(projection, Projection()));
  }
  auto cursor = std::make_unique<FindCursor>(std::move(keep_alive), std::move(transaction), *this,
                                             std::string(db), std::string(coll), std::move(matcher),
                                             std::move(projection), std::move(sort), options);
  if (reads) cursor->read_through(std::move(reads));
  return cursor;
}

std::optional<bson::Document> QueryExecutor::find_by_id(OperationContext& op, std::string_view db,
                                                        std::string_view coll,
                                                        const bson::Value& id) {
  auto entry = collections_.lookup(db, coll);
  if (!entry) return std::nullopt;
  std::string key = record_key(id);
  return write_conflict_retry(op, kRead,
                              [&] { return RecordTable(op.session(), entry->table_uri).get(key); });
}

bool QueryExecutor::index_provides_sort(std::string_view db, std::string_view coll,
                                        bson::DocumentView filter, bson::DocumentView sort,
                                        const IndexHint& hint) {
  auto entry = collections_.lookup(std::string(db), std::string(coll));
  if (!entry) return true;
  return plan_for(*entry, Matcher::compile(filter), sort, hint).provides_sort();
}

int64_t QueryExecutor::count_documents(OperationContext& op, std::string_view db,
                                       std::string_view coll, bson::DocumentView filter,
                                       const bson::Document& collation) {
  Matcher matcher = compile_filter(filter, bson::Document(), collation);
  auto entry = collections_.lookup(db, coll);
  if (!entry) return 0;
  PlannedQuery plan = plan_for(*entry, matcher, bson::DocumentView());
  return write_conflict_retry(op, kRead, [&]() -> int64_t {
    int64_t n = 0;
    scan(op, *entry, matcher, plan,
         [&](const std::string&, bson::DocumentView, const MatchDetails&) {
           ++n;
           return true;
         });
    return n;
  });
}

std::vector<bson::OwnedValue> QueryExecutor::distinct(OperationContext& op, std::string_view db,
                                                      std::string_view coll, std::string_view field,
                                                      bson::DocumentView filter,
                                                      const bson::Document& collation) {
  if (field.empty()) throw Error(ErrorCode::kBadValue, "distinct key cannot be empty");
  Matcher matcher = compile_filter(filter, bson::Document(), collation);
  const Collation* strings = matcher.collation().get();
  auto entry = collections_.lookup(db, coll);
  if (!entry) return {};
  PlannedQuery plan = plan_for(*entry, matcher, bson::DocumentView());
  // Keyed by the index key: equal values (1, 1.0) collapse and the map is in MongoDB order.
  std::map<std::string, bson::OwnedValue> seen;
  write_conflict_retry(op, kRead, [&] {
    seen.clear();
    // The values go back in one reply document, so they must fit in one, as in mongod.
    size_t bytes = 0;
    std::vector<bson::Value> values;
    scan(op, *entry, matcher, plan,
         [&](const std::string&, bson::DocumentView doc, const MatchDetails&) {
           values.clear();
           collect_path_values(doc, field, &values);
           for (const bson::Value& v : values) {
             // Under a collation, strings it finds equal are one value (the first met).
             std::string key = strings != nullptr
                                   ? bson::encode_index_key(strings->comparison_key(v))
                                   : bson::encode_index_key(v);
             if (seen.count(key)) continue;
             bytes += v.size() + 16;  // the value and its array element's type and index
             if (bytes + 1024 >= kMaxDocumentSize) {
               throw Error(17217, "distinct too big, 16mb cap");
             }
             seen.emplace(std::move(key), bson::OwnedValue(v));
           }
           return true;
         });
  });
  std::vector<bson::OwnedValue> out;
  for (auto& [key, v] : seen) out.push_back(std::move(v));
  return out;
}

CollectionStats QueryExecutor::collection_stats(OperationContext& op, std::string_view db,
                                                std::string_view coll) {
  CollectionStats stats;
  auto entry = collections_.lookup(db, coll);
  if (!entry) return stats;
  write_conflict_retry(op, kRead, [&] {
    CursorHandle c(op.session(), entry->table_uri);
    while (c && c->next(c.get()) == 0) {
      ++stats.document_count;
      stats.data_size += static_cast<int64_t>(current_value(c.get()).size());
    }
  });
  return stats;
}

// Reads one batch for a FindCursor; returns the documents and updates the resume key.
std::vector<bson::Document> QueryExecutor::read_batch(
    OperationContext& op, const std::string& db, const std::string& coll, const Matcher& matcher,
    const Projection& projection, std::shared_ptr<CollectionEntry>* collection,
    std::string* last_key, bool* started, int64_t* skip, int64_t* remaining, size_t batch_size,
    bool* done) {
  std::vector<bson::Document> out;
  // The first batch resolves the name; later ones read the same collection (renamed or
  // not), or fail if it was dropped (never resuming in a new collection of the same name).
  if (!*started) *collection = collections_.lookup(db, coll);
  std::shared_ptr<CollectionEntry> entry = *collection;
  if (!entry) {
    *done = true;
    return out;
  }
  if (*started) check_not_dropped(*entry);
  std::optional<bson::Value> id = pinned_id(matcher);
  // The record table holds plain `_id` keys: a pinned `_id` holding a string under a
  // non-simple collation may match other `_id`s, so it is no point lookup then (as the planner).
  if (id && matcher.collation() != nullptr && Collation::collation_sensitive(*id)) id.reset();
  // The body may run more than once (a retried snapshot), so it works on copies of the
  // cursor state and publishes them only after the snapshot succeeded.
  struct State {
    std::string last_key;
    int64_t skip, remaining;
    bool done = false;
  } state;
  write_conflict_retry(op, kRead, [&] {
    WT_SESSION* s = op.session();
    out.clear();
    state = State{*last_key, *skip, *remaining, false};
    CursorHandle c(s, entry->table_uri);
    if (!c) {
      // The table is gone: dropped before this batch (after the check above).
      if (*started) throw_collection_dropped(*entry);
      state.done = true;
      return;
    }
    if (id) {
      // A pinned _id is a point lookup, not a scan.
      std::string key = record_key(*id);
      int rc = RecordTable::search(c.get(), key);
      if (rc == 0) {
        bson::DocumentView doc = current_value(c.get());
        if (matcher.matches(doc) && state.skip == 0 && state.remaining != 0) {
          out.push_back(projection.is_identity() ? bson::Document::copy_of(doc)
                                                 : projection.apply(doc));
        }
      } else if (rc != WT_NOTFOUND) {
        check_in_transaction(rc, "search", s);
      }
      state.done = true;
      return;
    }
    int rc = RecordTable::seek_after(c.get(), state.last_key, *started);
    while (rc == 0) {
      state.last_key = current_key(c.get());
      bson::DocumentView doc = current_value(c.get());
      if (matcher.matches(doc)) {
        if (state.skip > 0) {
          --state.skip;
        } else {
          out.push_back(projection.is_identity() ? bson::Document::copy_of(doc)
                                                 : projection.apply(doc));
          if (state.remaining > 0 && --state.remaining == 0) break;
          if (out.size() >= batch_size) break;
        }
      }
      rc = c->next(c.get());
    }
    if (rc != 0 && rc != WT_NOTFOUND) check_in_transaction(rc, "next", s);
    if (rc == WT_NOTFOUND || state.remaining == 0) state.done = true;
  });
  *last_key = state.last_key;
  *skip = state.skip;
  *remaining = state.remaining;
  *done = state.done;
  *started = true;
  return out;
}

// One batch of a find read through an index in index order (unsorted, or sorted by the
// index): its own snapshot, resuming after the last index key of the previous batch. The
// plan is fixed when the cursor starts; if its index is dropped meanwhile the cursor is
// killed (QueryPlanKilled, 175), as in MongoDB.
std::optional<IndexCursorState> QueryExecutor::start_index_cursor(const std::string& db,
                                                                  const std::string& coll,
                                                                  const Matcher& matcher,
                                                                  bson::DocumentView sort_spec,
                                                                  const IndexHint& hint) {
  auto entry = collections_.lookup(db, coll);
  if (!entry) return std::nullopt;
  PlannedQuery plan = plan_for(*entry, matcher, sort_spec, hint);
  if (!plan.index_plan && !plan.is_or()) return std::nullopt;
  if (!sort_spec.empty() && !plan.provides_sort()) return std::nullopt;
  return IndexCursorState{std::move(entry), std::make_shared<const PlannedQuery>(std::move(plan)),
                          IndexScanPosition(), OrScanPosition()};
}

namespace {

// Where read_index_batch_into puts a batch's documents: each its own Document...
struct DocumentVectorSink {
  std::vector<bson::Document>& documents;
  void clear() { documents.clear(); }
  size_t size() const { return documents.size(); }
  void add(bson::DocumentView doc, const Projection& projection, size_t batch_size) {
    // Room for a small batch at the first document (a sweep's ~10), not one regrowth per
    // doubling; nothing for an empty one.
    if (documents.empty()) documents.reserve(std::min<size_t>(batch_size, 16));
    documents.push_back(projection.is_identity() ? bson::Document::copy_of(doc)
                                                 : projection.apply(doc));
  }
};

// ...or end to end in a DocumentBatch's buffer.
struct DocumentBatchSink {
  DocumentBatch& batch;
  void clear() { batch.clear(); }
  size_t size() const { return batch.size(); }
  void add(bson::DocumentView doc, const Projection& projection, size_t batch_size) {
    const bool first = batch.empty();
    if (projection.is_identity()) {
      batch.append_copy(doc);
    } else {
      projection.apply_into(doc, batch.bytes());
      batch.end_document();
    }
    // Room for a small batch (a sweep's ~10) of documents the size of the first, made once
    // rather than by a regrowth per doubling.
    if (first) batch.reserve(std::min<size_t>(batch_size, 16));
  }
};

template <class Sink>
void read_index_batch_into(OperationContext& op, const Matcher& matcher,
                           const Projection& projection, const Projection& reads,
                           IndexCursorState* cursor, int64_t* skip, int64_t* remaining,
                           size_t batch_size, bool* done, Sink& out) {
  const std::shared_ptr<CollectionEntry>& entry = cursor->collection;
  check_not_dropped(*entry);
  IndexScanPosition position;
  OrScanPosition or_position;
  int64_t to_skip = 0, left = 0;
  bool finished = false;
  const PlannedQuery& plan = *cursor->plan;
  // Asked once a batch, and only of an index with stored fields (most have none).
  const bool covered = read_is_covered(plan, matcher, reads);
  write_conflict_retry(op, kRead, [&] {
    WT_SESSION* s = op.session();
    out.clear();
    position = cursor->position;  // a retried snapshot starts from the same place
    or_position = cursor->or_position;
    to_skip = *skip;
    left = *remaining;
    finished = true;
    CursorHandle c(s, entry->table_uri);
    if (!c || entry->dropped.load()) throw_collection_dropped(*entry);
    // Each index the plan reads must still be there (and open).
    auto check_index = [&](const std::shared_ptr<IndexEntry>& index, const CursorHandle& ic) {
      auto indexes = entry->indexes();
      if (!ic || std::find(indexes->begin(), indexes->end(), index) == indexes->end()) {
        throw Error(175, "query plan killed :: caused by :: index '" + index->descriptor.name() +
                             "' dropped");
      }
    };
    std::optional<CursorHandle> ic;
    // Only an OR plan has branch cursors: a deque allocates even when empty, and the one-index
    // plan of a repeated find (a sweep) should not pay for one each batch.
    std::optional<std::deque<CursorHandle>> or_cursors;
    if (plan.is_or()) {
      or_cursors.emplace();
      open_or_cursors(s, *entry, plan, &*or_cursors);
      for (size_t b = 0; b < or_cursors->size(); ++b) {
        if (!plan.or_branches[b].id_index) check_index(plan.or_branches[b].index, (*or_cursors)[b]);
      }
    } else if (!plan.id_index) {
      ic.emplace(s, plan.index->table_uri);
      check_index(plan.index, *ic);
    }
    ExecutionStats stats;
    auto visit = [&](const std::string&, bson::DocumentView doc, const MatchDetails&) {
      if (to_skip > 0) {
        --to_skip;
        return true;
      }
      out.add(doc, projection, batch_size);
      if (left > 0 && --left == 0) return false;
      if (out.size() >= batch_size) {
        finished = false;
        return false;
      }
      return true;
    };
    if (plan.is_or()) {
      or_scan(s, c.get(), *or_cursors, matcher, plan, visit, &stats, &or_position);
    } else if (plan.id_index) {
      id_index_scan(s, c.get(), matcher, *plan.index_plan, visit, &stats, &position);
    } else {
      // A find's projection finds its positional element itself (Projection::apply).
      index_scan(s, c.get(), ic->get(), plan.index->descriptor, matcher, *plan.index_plan, visit,
                 &stats, &position, /*positions=*/false, covered);
    }
  });
  cursor->position = std::move(position);
  cursor->or_position = std::move(or_position);
  *skip = to_skip;
  *remaining = left;
  *done = finished || left == 0;
}

}  // namespace

std::vector<bson::Document> QueryExecutor::read_index_batch(
    OperationContext& op, const Matcher& matcher, const Projection& projection,
    const Projection& reads, IndexCursorState* cursor, int64_t* skip, int64_t* remaining,
    size_t batch_size, bool* done) {
  std::vector<bson::Document> out;
  DocumentVectorSink sink{out};
  read_index_batch_into(op, matcher, projection, reads, cursor, skip, remaining, batch_size, done,
                        sink);
  return out;
}

void QueryExecutor::read_index_batch(OperationContext& op, const Matcher& matcher,
                                     const Projection& projection, const Projection& reads,
                                     IndexCursorState* cursor, int64_t* skip, int64_t* remaining,
                                     size_t batch_size, bool* done, DocumentBatch* batch) {
  DocumentBatchSink sink{*batch};
  read_index_batch_into(op, matcher, projection, reads, cursor, skip, remaining, batch_size, done,
                        sink);
}

}  // namespace mongostore::engine
