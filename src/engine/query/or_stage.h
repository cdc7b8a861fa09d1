// The scans of an OR plan (PlannedQuery::or_branches), inside the caller's unit of work, as
// MongoDB's OR and SORT_MERGE stages:
//   - OR reads the branches' index scans one after the other;
//   - SORT_MERGE reads them side by side and hands out the document whose sort key is
//     smallest among the branches' next matches, so the output is in sort order and a limit
//     stops the scans early (every branch's index order gives the sort: plan_or's rule).
// Both deduplicate by record id: a record key met once (in any branch, also a multikey
// index's second entry) is not fetched again. Each fetched document is re-checked against
// the whole filter, so a branch's bounds only narrow the candidates.
//
// An OrScanPosition lets a find cursor resume the scan in a later snapshot. Same thread as
// the session.
#pragma once

#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/catalog/collection_entry.h"
#include "engine/query/execution_stats.h"
#include "engine/query/planned_query.h"
#include "engine/sort_spec.h"
#include "engine/storage/index_table.h"
#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_cursor.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {

/// Where an OR plan's scan stands.
struct OrScanPosition {
  size_t branch = 0;                        // OR: the branch being read
  std::vector<IndexScanPosition> branches;  // one per branch (sized on first use)
  std::set<std::string> seen;               // record keys already met

  /// With `journal`, the changes to `seen` are logged so that a snapshot retried by
  /// write_conflict_retry can undo them (`seen` grows with the scan: it is not copied per
  /// batch). The caller clears `changes` once a batch succeeded.
  bool journal = false;
  std::vector<std::pair<std::string, bool>> changes;  // (key, inserted)

  bool insert_seen(const std::string& key) {
    if (!seen.insert(key).second) return false;
    if (journal) changes.emplace_back(key, true);
    return true;
  }
  void erase_seen(const std::string& key) {
    if (seen.erase(key) != 0 && journal) changes.emplace_back(key, false);
  }
  /// Undoes the logged changes to `seen`.
  void undo_seen() {
    for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
      if (it->second) {
        seen.erase(it->first);
      } else {
        seen.insert(it->first);
      }
    }
    changes.clear();
  }
};

/// Opens one cursor per branch of `plan` (its index table, or the record table for the `_id`
/// index) into `out`. False when a branch's table is gone (its index was dropped).
inline bool open_or_cursors(WT_SESSION* s, const CollectionEntry& entry, const PlannedQuery& plan,
                            std::deque<CursorHandle>* out) {
  for (const PlannedBranch& b : plan.or_branches) {
    out->emplace_back(s, b.id_index ? entry.table_uri : b.index->table_uri);
    if (!out->back()) return false;
  }
  return true;
}

/// Reads the OR plan `plan` through `cursors` (open_or_cursors), resuming at `*resume` when
/// given, fetching documents through `primary`; calls `visit(key, doc, details)` for those
/// `matcher` accepts, until `visit` returns false. With plan.merge_sort the documents come in
/// the order of plan.sort (strings under the matcher's collation).
template <class Visit>
void or_scan(WT_SESSION* s, WT_CURSOR* primary, const std::deque<CursorHandle>& cursors,
             const Matcher& matcher, const PlannedQuery& plan, Visit& visit, ExecutionStats* stats,
             OrScanPosition* resume = nullptr) {
  OrScanPosition fresh;
  OrScanPosition& pos = resume != nullptr ? *resume : fresh;
  const size_t n = plan.or_branches.size();
  pos.branches.resize(n);
  // The record key of the entry under branch `b`'s cursor, and its document (fetched through
  // `primary` for a secondary index); false when the record is gone or already met.
  auto fetch = [&](size_t b, WT_CURSOR* c, std::string* key, bson::DocumentView* doc) {
    ++stats->keys_examined;
    if (plan.or_branches[b].id_index) {
      *key = current_key(c);
    } else {
      WT_ITEM pk{};
      c->get_value(c, &pk);
      key->assign(static_cast<const char*>(pk.data), pk.size);
    }
    if (!pos.insert_seen(*key)) return false;
    if (plan.or_branches[b].id_index) {
      *doc = current_value(c);
    } else {
      int rc = RecordTable::search(primary, *key);
      if (rc == WT_NOTFOUND) return false;
      check_in_transaction(rc, "search", s);
      *doc = current_value(primary);
    }
    ++stats->docs_examined;
    return true;
  };

  if (!plan.merge_sort) {
    for (; pos.branch < n; ++pos.branch) {
      const size_t b = pos.branch;
      bool stopped = false;
      IndexTable::scan_ranges(s, cursors[b].get(), plan.or_branches[b].plan, pos.branches[b],
                              [&](WT_CURSOR* c) -> bool {
                                std::string key;
                                bson::DocumentView doc;
                                if (!fetch(b, c, &key, &doc)) return true;
                                MatchDetails details;
                                if (!matcher.matches(doc, &details)) return true;
                                if (visit(key, doc, details)) return true;
                                stopped = true;
                                return false;
                              });
      if (stopped) return;
    }
    return;
  }

  // SORT_MERGE: each branch's next match waits in `heads` until it is the smallest.
  const SortSpec sort = SortSpec::compile(plan.sort.view(), matcher.collation());
  struct Head {
    std::string sort_key;
    std::string key;
    bson::Document doc;
    MatchDetails details;
    IndexScanPosition before;  // the branch's position before this match was read
  };
  std::vector<std::optional<Head>> heads(n);
  auto advance = [&](size_t b) {
    IndexScanPosition before;
    before.step = pos.branches[b].step;
    before.after_key = pos.branches[b].after_key;
    before.has_after_key = pos.branches[b].has_after_key;
    IndexTable::scan_ranges(
        s, cursors[b].get(), plan.or_branches[b].plan, pos.branches[b], [&](WT_CURSOR* c) -> bool {
          std::string key;
          bson::DocumentView doc;
          if (!fetch(b, c, &key, &doc)) return true;
          MatchDetails details;
          if (!matcher.matches(doc, &details)) return true;
          heads[b] = Head{sort.key_for(doc), std::move(key), bson::Document::copy_of(doc), details,
                          std::move(before)};
          return false;  // stays on this entry: the next read resumes after it
        });
  };
  for (size_t b = 0; b < n; ++b) advance(b);
  while (true) {
    std::optional<size_t> smallest;
    for (size_t b = 0; b < n; ++b) {
      if (heads[b] && (!smallest || heads[b]->sort_key < heads[*smallest]->sort_key)) smallest = b;
    }
    if (!smallest) return;
    Head h = std::move(*heads[*smallest]);
    heads[*smallest].reset();
    if (!visit(h.key, h.doc.view(), h.details)) {
      // Stopped: the other branches' waiting matches were read but not handed out. A later
      // snapshot reads them again from where those branches stood before them.
      for (size_t b = 0; b < n; ++b) {
        if (!heads[b]) continue;
        pos.erase_seen(heads[b]->key);
        pos.branches[b] = std::move(heads[b]->before);
      }
      return;
    }
    advance(*smallest);
  }
}

}  // namespace mongostore::engine
