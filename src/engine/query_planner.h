// QueryPlanner: picks the index a find (or count, update, delete, findAndModify) reads.
//
// The planner looks at the filter's top-level conjunction (implicit equality, $eq, $in, $gt,
// $gte, $lt, $lte, $type, and the same inside a top-level $and; an $expr's {$eq: ["$path",
// constant]} is an equality too) and, for each index, turns the
// conditions on a prefix of its fields into byte ranges of index keys: equality and $in
// fields give points, the first range field ends the prefix. A sort that the index order
// gives (after equality fields, forwards or backwards) needs no blocking sort. Bounds are
// conservative — the executor re-checks the whole filter on every fetched document, so an
// index only narrows the candidates (except where they are exact, IndexPlan::exact):
//   - range operators are bracketed by type as MongoDB's are ($gt: 5 reads numbers above 5),
//     and a $type reads its types' brackets (only when nothing else bounds the field);
//   - on a multikey index each field uses one condition only (a document [4, 11] matches
//     {$gt: 5, $lt: 10} without any key inside (5, 10)), and no sort comes from it;
//   - a sparse index is used only when a bounded condition cannot match null / missing, and a
//     partial index only when the filter repeats every condition of its partial filter.
// An $or of the conjunction whose every branch is conditions on one and the same field
// ({$or: [{f: null}, {f: {$lte: 5}}]}) bounds that field by the union of its branches'
// bounds, read by one index scan with several intervals (mongod merges such an $or into one
// IXSCAN the same way); when the field also has a range, that union is used only when it is
// points. An $or whose every branch can use an index may instead be read as a union of index
// scans (plan_or). With no usable index the plan is a collection scan. Collations: see
// plan_query. range_rebind.h moves a kept plan to another number in its filter's one range
// condition without planning again; both compute intervals and key ranges with index_bounds.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/index_descriptor.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// An index the planner may use.
struct IndexCandidate {
  const IndexDescriptor* descriptor;
  bool multikey;
};

/// Keys k with start <= k < end (or start <= k when end_unbounded), compared as bytes.
struct KeyRange {
  std::string start;
  std::string end;
  bool end_unbounded = false;
};

struct IndexPlan {
  size_t candidate = 0;          // position in the candidates given to plan_query
  std::vector<KeyRange> ranges;  // ascending, disjoint
  /// Walk the ranges backwards (the sort is the reverse of the index order).
  bool reverse = false;
  /// The index order is the requested sort: no blocking sort needed.
  bool provides_sort = false;
  /// One document may have several entries: the executor deduplicates.
  bool multikey = false;
  /// Every document with a key in `ranges` matches the filter the plan was made for, so the
  /// executor need not re-check it (as mongod's exact bounds): the filter is one condition
  /// on a number (not NaN) of a path without positional parts, the index's first field, or
  /// an $or of such conditions on that one path (with {path: null} among them only on an
  /// index that is not multikey, where the null key means null or missing). Also
  /// on a multikey index (a key in the bounds is an element satisfying the one condition);
  /// there, though, only the matcher knows which array element matched (MatchDetails, for an
  /// update's positional `$`), so a scan that needs it re-checks anyway (index_scan).
  bool exact = false;
  /// MongoDB's explain shape: {field: ["[1, 1]", ...], ...}; only with `explain_bounds`.
  bson::Document bounds;
  /// How narrow the plan is, to compare plans: 4 per equality field of the bounded prefix, 2
  /// for a range field after them, 1 when it gives the sort; 0 when no field is bounded (the
  /// index is read whole, for the sort or a hint).
  int score = 0;
};

/// An $or read as the union of one index scan per branch (MongoDB's OR stage), or, when every
/// branch's scan gives the requested sort, as their merge in sort order (SORT_MERGE), so a
/// limit stops early. Both return each document once (from the first branch whose clause it
/// matches); the executor re-checks the whole filter on every fetched document, so the
/// branches' bounds only narrow the candidates.
struct OrPlan {
  std::vector<IndexPlan> branches;      // in the $or's order; `candidate` as plan_query's
  std::vector<bson::Document> filters;  // each branch's own clause of the $or
  bool merge_sort = false;
};

/// The most branches an $or may have to be planned as an OR: each branch opens a cursor.
inline constexpr size_t kMaxOrPlanBranches = 64;

/// The chosen index plan, or nullopt for a collection scan. With `forced` (a hint), the single
/// candidate is always used: conditions it cannot bound become a scan of the whole index, and
/// a sparse or partial index is read as it is (it may hold fewer documents, as in MongoDB).
/// `explain_bounds` also writes the plan's bounds as text (IndexPlan::bounds): only explain
/// shows them, and an $in of many values makes them costly. The query compares strings under
/// `collation` (null: simple): an index under the same collation bounds string conditions
/// by their sort keys and may give the sort; an index under another one bounds only
/// conditions whose values hold no string, and never gives the sort (as MongoDB decides).
std::optional<IndexPlan> plan_query(bson::DocumentView filter, bson::DocumentView sort,
                                    const std::vector<IndexCandidate>& candidates,
                                    bool forced = false, bool explain_bounds = false,
                                    const Collation* collation = nullptr);

/// The OR plan of `filter`'s $or (a top-level $or, or one inside a top-level $and), or nullopt
/// when some branch cannot use an index or the plan would not beat `to_beat` (the score of
/// the single-index plan, -1 for none). Each branch is planned by plan_query (never forced)
/// as the branch's conditions together with the filter's other top-level conditions, so the
/// collation, sparse and partial index rules are plan_query's; a branch must bound some field
/// of its index and score above `to_beat`. With a `sort`, `merge_sort` says every branch's
/// index order gives it. At most kMaxOrPlanBranches branches; the first $or found is planned.
std::optional<OrPlan> plan_or(bson::DocumentView filter, bson::DocumentView sort,
                              const std::vector<IndexCandidate>& candidates, int to_beat,
                              bool explain_bounds = false, const Collation* collation = nullptr);

/// The `_id` an $expr of `filter` pins: {$expr: {$eq: ["$_id", v]}}, also under $and and
/// bound through $let as bind_variables_to_filter writes it, so the engine reads that one
/// document as for {_id: v} (and re-checks the whole filter on it). Plain equalities on
/// `_id` are the matcher's (Matcher::id_equality); this covers what only an $expr says.
std::optional<bson::Value> expr_id_equality(bson::DocumentView filter);

}  // namespace mongostore::engine
