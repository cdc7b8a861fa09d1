// The scans of a planned query, inside the caller's unit of work: IDHACK (one record lookup),
// `_id` index scan (the record table over key ranges), index scan (IndexTable ranges, each
// entry fetched from the record table, or read from the entry's stored fields when covered and
// the entry carries them, and re-checked against the whole filter, a multikey index
// deduplicated), OR plan (or_stage.h) and collection scan (the record table in `_id` order).
// Templates, so the visitor inlines on the hot path.
//
// An index plan is checked again after its scan: a plan made before the snapshot began may
// have trusted tight bounds on an index that became multikey, or read an index dropped (and
// no longer maintained) before the snapshot. Writers change those flags before they
// commit, so a check after the scan sees every change the snapshot can contain; a stale
// plan is replaced and WriteConflictException thrown, so write_conflict_retry runs the
// unit of work again (every caller's body starts afresh).
//
// Same thread as the OperationContext.
#pragma once

#include <optional>
#include <string>

#include "engine/catalog/collection_entry.h"
#include "engine/operation_context.h"
#include "engine/query/execution_stats.h"
#include "engine/query/or_stage.h"
#include "engine/query/planned_query.h"
#include "engine/sort_spec.h"
#include "engine/storage/index_entry_value.h"
#include "engine/storage/index_table.h"
#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_cursor.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {

/// A matched document, copied out of the snapshot, with its record key.
struct Match {
  std::string key;
  bson::Document document;
  std::optional<size_t> array_index;
};

/// Reads the index entries of `plan` from `ic` (an index described by `index`; resuming at
/// `*resume` when given), fetches each document through `primary` and calls
/// `visit(key, doc, details)` for those `matcher` accepts (all of them, unchecked, when the
/// plan's bounds are exact), until `visit` returns false. With `positions`, the visitor reads
/// `details.array_index` (an update's positional `$`), which only the matcher finds: exact
/// bounds on a multikey index are then re-checked.
///
/// `covered`: the caller reads only fields `index` stores, and so does `matcher` (see
/// covers_read): the document visited is then the entry's stored fields
/// (index_entry_value.h) and no document is fetched (docs_examined stays 0), except where the
/// scan meets a multikey document at an entry other than its first, which does not carry them.
template <class Visit>
void index_scan(WT_SESSION* s, WT_CURSOR* primary, WT_CURSOR* ic, const IndexDescriptor& index,
                const Matcher& matcher, const IndexPlan& plan, Visit& visit, ExecutionStats* stats,
                IndexScanPosition* resume = nullptr, bool positions = true, bool covered = false) {
  const bool check = !plan.exact || (plan.multikey && positions);
  IndexScanPosition fresh;
  IndexScanPosition& pos = resume != nullptr ? *resume : fresh;
  // Most indexes store no fields: their value is the record id, read without a split.
  const bool stores = !index.stored_fields().empty();
  // Returns false to stop the whole scan.
  auto fetch = [&](WT_CURSOR* cursor) -> bool {
    ++stats->keys_examined;
    WT_ITEM v{};
    cursor->get_value(cursor, &v);
    const IndexEntryValue value =
        stores ? IndexEntryValue::read(index, v) : IndexEntryValue::of_record_id(v);
    std::string key(value.record_id);
    bson::DocumentView doc = value.stored;
    // A multikey index may list one document several times.
    if (plan.multikey && !pos.seen.insert(key)) return true;
    // A covered read reads the document only at an entry that does not carry its stored fields
    // (not the document's first entry: index_entry_value.h).
    if (!covered || !value.has_stored) {
      int rc = RecordTable::search(primary, key);
      if (rc == WT_NOTFOUND) return true;
      check_in_transaction(rc, "search", s);
      ++stats->docs_examined;
      doc = current_value(primary);
    }
    MatchDetails details;
    if (check && !matcher.matches(doc, &details)) return true;
    return static_cast<bool>(visit(key, doc, details));
  };
  IndexTable::scan_ranges(s, ic, plan, pos, fetch);
}

/// Reads the `_id` index, which is the record table itself, over `plan`'s key ranges (resuming
/// at `*resume` when given): each entry is the document. Calls `visit(key, doc, details)` for
/// those `matcher` accepts, until `visit` returns false.
template <class Visit>
void id_index_scan(WT_SESSION* s, WT_CURSOR* records, const Matcher& matcher, const IndexPlan& plan,
                   Visit& visit, ExecutionStats* stats, IndexScanPosition* resume = nullptr) {
  IndexScanPosition fresh;
  IndexScanPosition& pos = resume != nullptr ? *resume : fresh;
  auto entry = [&](WT_CURSOR* cursor) -> bool {
    ++stats->keys_examined;
    ++stats->docs_examined;
    bson::DocumentView doc = current_value(cursor);
    MatchDetails details;
    if (!plan.exact && !matcher.matches(doc, &details)) return true;
    return static_cast<bool>(visit(current_key(cursor), doc, details));
  };
  IndexTable::scan_ranges(s, records, plan, pos, entry, /*prefix_free=*/true);
}

/// Visits matching documents in plan order (`_id` order for a collection scan) until
/// `visit(key, doc, details)` returns false. See the file comment for stale plans. `covered`:
/// a plan reading one secondary index visits its entries' stored fields (index_scan).
template <class Visit>
void scan(OperationContext& op, const CollectionEntry& entry, const Matcher& matcher,
          PlannedQuery& plan, Visit&& visit, ExecutionStats* stats = nullptr,
          bool covered = false) {
  WT_SESSION* s = op.session();
  ExecutionStats local;
  if (stats == nullptr) stats = &local;
  CursorHandle c(s, entry.table_uri);
  if (!c) return;
  if (plan.id_key) {
    const std::string& key = *plan.id_key;
    int rc = RecordTable::search(c.get(), key);
    ++stats->keys_examined;
    if (rc == WT_NOTFOUND) return;
    check_in_transaction(rc, "search", s);
    ++stats->docs_examined;
    bson::DocumentView doc = current_value(c.get());
    MatchDetails details;
    if (matcher.matches(doc, &details)) visit(key, doc, details);
    return;
  }
  if (plan.index_plan && plan.id_index) {
    id_index_scan(s, c.get(), matcher, *plan.index_plan, visit, stats);
    return;
  }
  if (plan.is_or()) {
    std::deque<CursorHandle> cursors;
    if (open_or_cursors(s, entry, plan, &cursors)) {
      or_scan(s, c.get(), cursors, matcher, plan, visit, stats);
      if (!plan_still_valid(entry, plan)) {
        plan = plan_for(entry, matcher, plan.sort.view(), plan.hint);
        throw WriteConflictException{};
      }
      return;
    }
    // An index was dropped since planning: fall back to the collection scan.
  }
  if (plan.index_plan) {
    CursorHandle ic(s, plan.index->table_uri);
    if (ic) {
      index_scan(s, c.get(), ic.get(), plan.index->descriptor, matcher, *plan.index_plan, visit,
                 stats, /*resume=*/nullptr, /*positions=*/true, covered);
      if (!plan_still_valid(entry, plan)) {
        plan = plan_for(entry, matcher, plan.sort.view(), plan.hint);
        throw WriteConflictException{};
      }
      return;
    }
    // The index was dropped since planning: fall back to the collection scan.
  }
  int rc;
  while ((rc = c->next(c.get())) == 0) {
    ++stats->docs_examined;
    bson::DocumentView doc = current_value(c.get());
    MatchDetails details;
    if (matcher.matches(doc, &details)) {
      if (!visit(current_key(c.get()), doc, details)) return;
    }
  }
  if (rc != WT_NOTFOUND) check_in_transaction(rc, "next", s);
}

/// The first match in plan order, or in `sort` order when one is given.
inline std::optional<Match> first_match(OperationContext& op, const CollectionEntry& entry,
                                        const Matcher& matcher, PlannedQuery& plan,
                                        const SortSpec& sort = SortSpec()) {
  std::optional<Match> m;
  std::string best;
  bool sorted_by_plan = sort.empty() || plan.provides_sort();
  scan(op, entry, matcher, plan,
       [&](const std::string& key, bson::DocumentView doc, const MatchDetails& details) {
         if (sorted_by_plan) {
           m = Match{key, bson::Document::copy_of(doc), details.array_index};
           return false;
         }
         std::string sort_key = sort.key_for(doc);
         if (!m || sort_key < best) {
           best = std::move(sort_key);
           m = Match{key, bson::Document::copy_of(doc), details.array_index};
         }
         return true;
       });
  return m;
}

}  // namespace mongostore::engine
