// PlannedQuery: how a query reads a collection (one primary-key lookup, an index scan, an
// OR of index scans (or_stage.h) or a collection scan), and the glue between the catalog and the
// QueryPlanner (query_planner.h): the candidates are the collection's indexes with their multikey
// flags, a hint forces one, a pinned `_id` is a point lookup (IDHACK).
//
// The `_id` index is the record table itself (its keys are the `_id` index keys), and it is
// a planner candidate like the secondary indexes: an `_id` equality is a point lookup, an
// `_id` $in or range (or a sort on `_id`) reads the record table over the key ranges.
//
// A PlannedQuery holds a shared_ptr to its index, so it stays readable after a drop; whether
// it is still the one to use is plan_still_valid's question. Pure functions; thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/catalog/collection_entry.h"
#include "engine/query_planner.h"
#include "mongostore/bson/document.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {

/// One branch of an OR plan: an index scan as PlannedQuery's own (`index` null with
/// `id_index`), and the branch's clause of the $or compiled under the query's collation (a
/// document it matches is left to the first branch that matches it: or_stage.h).
struct PlannedBranch {
  IndexPlan plan;
  std::shared_ptr<IndexEntry> index;
  bool id_index = false;
  std::shared_ptr<const Matcher> clause;
};

struct PlannedQuery {
  std::optional<std::string> id_key;  // IDHACK
  std::optional<IndexPlan> index_plan;
  /// An OR plan (QueryPlanner's OrPlan): one index scan per branch of the filter's $or,
  /// deduplicated by record id; no `index_plan` then.
  std::vector<PlannedBranch> or_branches;
  /// The OR plan merges its branches in sort order (SORT_MERGE): it gives the sort.
  bool merge_sort = false;
  /// The secondary index the plan reads; null with `id_index`.
  std::shared_ptr<IndexEntry> index;
  /// The plan reads the `_id` index: the record table over `index_plan`'s ranges.
  bool id_index = false;
  bson::Document sort;  // the sort the plan was made for (kept to re-plan)
  IndexHint hint;       // the hint it was made with (kept to re-plan)
  bool is_or() const { return !or_branches.empty(); }
  bool provides_sort() const {
    return index_plan ? index_plan->provides_sort : is_or() && merge_sort;
  }
};

/// The `_id` index as the planner sees it: {_id: 1}, named "_id_", unique.
const IndexDescriptor& id_index_descriptor();

/// A command's filter with its `let` variables bound into the filter's $expr (MongoDB 5.0).
/// Strings compare under `collation` (an options struct's `collation` field, parsed; empty:
/// simple).
Matcher compile_filter(bson::DocumentView filter, const bson::Document& let,
                       const bson::Document& collation = {});

/// The `_id` a filter pins, by an equality ({_id: v}) or an $expr {$eq: ["$_id", v]} (the
/// form of a $lookup's join on `_id`): a read of one document.
std::optional<bson::Value> pinned_id(const Matcher& matcher);

/// The index a hint names: nullptr for the `_id` order (`_id_`, {_id: 1}, {$natural: ±1}).
/// BadValue (2) when it names no index.
std::shared_ptr<IndexEntry> hinted_index(const CollectionEntry& entry, const IndexHint& hint);

/// Plans `matcher` (sorted by `sort`, with `hint`) over `entry`'s current indexes;
/// `explain_bounds` as plan_query's. Without a hint, an $or whose every branch can use an
/// index becomes an OR plan when each branch beats the best single-index plan (plan_or); a
/// hint naming an index always reads that index alone.
PlannedQuery plan_for(const CollectionEntry& entry, const Matcher& matcher, bson::DocumentView sort,
                      const IndexHint& hint = {}, bool explain_bounds = false);

/// Whether an index plan can still be trusted: its index (every index of an OR plan) is still
/// in the collection and has not become multikey under a plan that assumed it was not.
bool plan_still_valid(const CollectionEntry& entry, const PlannedQuery& plan);

}  // namespace mongostore::engine
