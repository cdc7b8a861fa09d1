// The scans of an OR plan (PlannedQuery::or_branches), inside the caller's unit of work, as
// MongoDB's OR and SORT_MERGE stages:
//   - OR reads the branches' index scans one after the other;
//   - SORT_MERGE reads them side by side and hands out the document whose sort key is
//     smallest among the branches' next matches, so the output is in sort order and a limit
//     stops the scans early (every branch's index order gives the sort: plan_or's rule).
// Each fetched document is re-checked against the whole filter, so a branch's bounds only
// narrow the candidates.
//
// A document several branches meet is returned once, by the first branch whose clause it
// matches: a branch returns only documents that match its own clause and no earlier one.
// That needs no set of the record ids returned (which would grow with the result, as
// mongod's does): that first branch's scan does reach the document, because the planner's
// bounds, sparse and partial rules hold every document matching the branch's clause and the
// filter's other conditions.
// A multikey branch (never part of a merge) lists a document once per key: its
// IndexScanPosition remembers the record ids it met, as a multikey index scan does.
//
// An OrScanPosition lets a find cursor resume the scan in a later snapshot. Same thread as
// the session.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "engine/catalog/collection_entry.h"
#include "engine/query/execution_stats.h"
#include "engine/query/planned_query.h"
#include "engine/sort_spec.h"
#include "engine/storage/index_entry_value.h"
#include "engine/storage/index_table.h"
#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_cursor.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {

/// Where an OR plan's scan stands.
struct OrScanPosition {
  size_t branch = 0;                        // OR: the branch being read
  std::vector<IndexScanPosition> branches;  // one per branch (sized on first use)
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
  // Fetches the document of the entry under branch `b`'s cursor `c` (through `primary` for a
  // secondary index) and says whether branch `b` returns it: it exists, this branch has not
  // met it before (multikey), it matches the filter and this branch's clause, and no earlier
  // branch's clause.
  auto accept = [&](size_t b, WT_CURSOR* c, std::string* key, bson::DocumentView* doc,
                    MatchDetails* details) {
    ++stats->keys_examined;
    const PlannedBranch& branch = plan.or_branches[b];
    if (branch.id_index) {
      *key = current_key(c);
      *doc = current_value(c);
    } else {
      WT_ITEM v{};
      c->get_value(c, &v);
      const IndexEntryValue value = IndexEntryValue::read(branch.index->descriptor, v);
      key->assign(value.record_id);
      if (branch.plan.multikey && !pos.branches[b].seen.insert(*key)) return false;
      int rc = RecordTable::search(primary, *key);
      if (rc == WT_NOTFOUND) return false;
      check_in_transaction(rc, "search", s);
      *doc = current_value(primary);
    }
    ++stats->docs_examined;
    if (!matcher.matches(*doc, details) || !branch.clause->matches(*doc)) return false;
    for (size_t earlier = 0; earlier < b; ++earlier) {
      if (plan.or_branches[earlier].clause->matches(*doc)) return false;
    }
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
                                MatchDetails details;
                                if (!accept(b, c, &key, &doc, &details)) return true;
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
    IndexScanPosition before = pos.branches[b];  // no `seen`: a merge has no multikey branch
    IndexTable::scan_ranges(
        s, cursors[b].get(), plan.or_branches[b].plan, pos.branches[b], [&](WT_CURSOR* c) -> bool {
          std::string key;
          bson::DocumentView doc;
          MatchDetails details;
          if (!accept(b, c, &key, &doc, &details)) return true;
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
      // Stopped: the other branches' waiting matches were read but not handed out; a later
      // snapshot reads them again from where those branches stood before them.
      for (size_t b = 0; b < n; ++b) {
        if (heads[b]) pos.branches[b] = std::move(heads[b]->before);
      }
      return;
    }
    advance(*smallest);
  }
}

}  // namespace mongostore::engine
