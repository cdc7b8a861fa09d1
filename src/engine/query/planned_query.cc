#include "engine/query/planned_query.h"

#include <algorithm>
#include <vector>

#include "engine/storage/record_table.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/error.h"

namespace mongostore::engine {

Matcher compile_filter(bson::DocumentView filter, const bson::Document& let,
                       const bson::Document& collation) {
  MatcherOptions options;
  options.collation = Collation::of_option(collation);
  if (let.empty()) return Matcher::compile(filter, options);
  return Matcher::compile(bind_let_to_filter(filter, let.view()), options);
}

const IndexDescriptor& id_index_descriptor() {
  static const IndexDescriptor descriptor = IndexDescriptor::parse(
      bson::make_document("_id", 1), bson::make_document("name", "_id_", "unique", true));
  return descriptor;
}

std::optional<bson::Value> pinned_id(const Matcher& matcher) {
  if (auto id = matcher.id_equality()) return id;
  return expr_id_equality(matcher.filter());
}

std::shared_ptr<IndexEntry> hinted_index(const CollectionEntry& entry, const IndexHint& hint) {
  if (hint.name == "_id_") return nullptr;
  if (!hint.keys.empty()) {
    auto first = hint.keys.view().begin();
    if (first->key == "$natural") return nullptr;
    if (first->key == "_id" && ++first == hint.keys.view().end() &&
        hint.keys.view().get("_id").is_number() &&
        hint.keys.view().get("_id").number_as_double() > 0) {
      return nullptr;
    }
  }
  const auto indexes = entry.indexes();  // held: see IndexCatalog::list
  std::shared_ptr<IndexEntry> found;
  for (const auto& ix : *indexes) {
    if (hint.name.empty() ? ix->descriptor.key_pattern() == hint.keys.view()
                          : ix->descriptor.name() == hint.name) {
      if (!found) {
        found = ix;
        continue;
      }
      // As mongod's planner: a key pattern two indexes share (under different collations)
      // is no hint (IndexNotFound, 27).
      throw Error(ErrorCode::kIndexNotFound,
                  "error processing query: planner returned error :: caused by :: Hint matched "
                  "multiple indexes, must hint by index name. Matched: " +
                      found->descriptor.name() + " and " + ix->descriptor.name());
    }
  }
  if (found) return found;
  throw Error(ErrorCode::kBadValue,
              "error processing query: planner returned error :: "
              "caused by :: hint provided does not correspond to an "
              "existing index");
}

PlannedQuery plan_for(const CollectionEntry& entry, const Matcher& matcher, bson::DocumentView sort,
                      const IndexHint& hint, bool explain_bounds) {
  PlannedQuery q;
  q.sort = bson::Document::copy_of(sort);
  q.hint = hint;
  const Collation* collation = matcher.collation().get();
  // The `_id` index (the record table) holds simple keys: a pinned `_id` holding a string
  // under another collation may match other `_id`s, so it is not a point lookup then.
  auto point_id = [&]() -> std::optional<bson::Value> {
    auto id = pinned_id(matcher);
    if (id && collation != nullptr && Collation::collation_sensitive(*id)) return std::nullopt;
    return id;
  };
  if (!hint.empty()) {
    std::shared_ptr<IndexEntry> index = hinted_index(entry, hint);
    if (index == nullptr) {
      // The `_id` order: a pinned `_id` stays a point lookup (the same entries either way).
      if (auto id = point_id()) q.id_key = record_key(*id);
      return q;
    }
    std::vector<IndexCandidate> only{IndexCandidate{&index->descriptor, index->multikey.load()}};
    q.index_plan =
        plan_query(matcher.filter(), sort, only, /*forced=*/true, explain_bounds, collation);
    q.index = std::move(index);
    return q;
  }
  if (auto id = point_id()) {
    q.id_key = record_key(*id);
    return q;
  }
  auto indexes = entry.indexes();
  // Candidate 0 is the `_id` index (the record table), then the secondary indexes.
  std::vector<IndexCandidate> candidates{IndexCandidate{&id_index_descriptor(), false}};
  for (const auto& ix : *indexes) {
    candidates.push_back(IndexCandidate{&ix->descriptor, ix->multikey.load()});
  }
  q.index_plan =
      plan_query(matcher.filter(), sort, candidates, /*forced=*/false, explain_bounds, collation);
  if (auto or_plan = plan_or(matcher.filter(), sort, candidates,
                             q.index_plan ? q.index_plan->score : -1, explain_bounds, collation)) {
    q.index_plan.reset();
    q.merge_sort = or_plan->merge_sort;
    MatcherOptions clause_options;
    clause_options.collation = matcher.collation();
    for (size_t i = 0; i < or_plan->branches.size(); ++i) {
      PlannedBranch b;
      b.id_index = or_plan->branches[i].candidate == 0;
      if (!b.id_index) b.index = (*indexes)[or_plan->branches[i].candidate - 1];
      b.plan = std::move(or_plan->branches[i]);
      b.clause = std::make_shared<const Matcher>(
          Matcher::compile(or_plan->filters[i].view(), clause_options));
      q.or_branches.push_back(std::move(b));
    }
    return q;
  }
  if (!q.index_plan) return q;
  if (q.index_plan->candidate == 0) {
    q.id_index = true;
  } else {
    q.index = (*indexes)[q.index_plan->candidate - 1];
  }
  return q;
}

bool plan_still_valid(const CollectionEntry& entry, const PlannedQuery& plan) {
  auto valid = [&](const IndexPlan& p, const std::shared_ptr<IndexEntry>& index, bool id_index) {
    if (id_index) return true;  // never multikey, and gone only with the collection
    if (!p.multikey && index->multikey.load()) return false;
    auto indexes = entry.indexes();
    return std::find(indexes->begin(), indexes->end(), index) != indexes->end();
  };
  if (plan.is_or()) {
    return std::all_of(plan.or_branches.begin(), plan.or_branches.end(),
                       [&](const PlannedBranch& b) { return valid(b.plan, b.index, b.id_index); });
  }
  return valid(*plan.index_plan, plan.index, plan.id_index);
}

}  // namespace mongostore::engine
