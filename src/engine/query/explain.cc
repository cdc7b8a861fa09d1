// QueryExecutor::explain_find: runs the find and describes it as MongoDB's
// explain("executionStats") does.
#include "engine/query/covered_read.h"
#include "engine/query/query_executor.h"
#include "mongostore/bson/builder.h"

namespace mongostore::engine {

bson::Document QueryExecutor::explain_find(OperationContext& op, std::string_view db,
                                           std::string_view coll, bson::DocumentView filter,
                                           const FindOptions& options) {
  Matcher matcher = compile_filter(filter, options.let, options.collation);
  Projection projection = Projection::compile(options.projection.view(), &matcher);
  SortSpec sort = SortSpec::compile(options.sort.view(), matcher.collation());
  ExecutionStats stats;
  PlannedQuery plan;
  query_results(op, std::string(db), std::string(coll), matcher, projection, options.sort.view(),
                sort, options.skip, options.limit > 0 ? options.limit : -1, options.hint,
                options.allow_disk_use, options.memory_limit_bytes, &stats, &plan);
  if (plan.index_plan || plan.is_or()) {
    // The same plan again, with its bounds as text (plans leave them out: only explain shows
    // them).
    if (auto entry = collections_.lookup(db, coll)) {
      PlannedQuery described = plan_for(*entry, matcher, options.sort.view(), options.hint,
                                        /*explain_bounds=*/true);
      if (plan.index_plan && described.index_plan) {
        plan.index_plan->bounds = described.index_plan->bounds;
      }
      if (plan.is_or() && described.or_branches.size() == plan.or_branches.size()) {
        for (size_t b = 0; b < plan.or_branches.size(); ++b) {
          plan.or_branches[b].plan.bounds = described.or_branches[b].plan.bounds;
        }
      }
    }
  }
  // An IXSCAN stage's fields, as mongod's explain prints them.
  auto ixscan = [](bson::DocumentBuilder& w, const IndexDescriptor& d, const IndexPlan& p) {
    w.append("stage", "IXSCAN");
    w.append("keyPattern", d.key_pattern());
    w.append("indexName", d.name());
    w.append("isMultiKey", p.multikey);
    w.append("isUnique", d.unique());
    w.append("isSparse", d.sparse());
    w.append("isPartial", d.partial_filter().has_value());
    if (d.collation() != nullptr) w.append("collation", d.collation()->spec().view());
    w.append("direction", p.reverse ? "backward" : "forward");
    w.append("indexBounds", p.bounds.view());
  };
  bson::DocumentBuilder w;
  if (plan.id_key) {
    w.append("stage", "IDHACK");
  } else if (plan.index_plan) {
    const IndexDescriptor& d = plan.id_index ? id_index_descriptor() : plan.index->descriptor;
    // A covered read (covered_read.h) reads the index entries alone, as query_results did.
    const bool covered = read_is_covered(plan, matcher, projection, options.sort.view());
    w.append("stage", covered ? "PROJECTION_COVERED" : "FETCH");
    if (covered) w.append("transformBy", options.projection.view());
    w.open_document("inputStage");
    ixscan(w, d, *plan.index_plan);
    w.close();
  } else if (plan.is_or()) {
    // mongod's shape: FETCH over an OR (or a SORT_MERGE) of the branches' IXSCANs.
    w.append("stage", "FETCH");
    w.open_document("inputStage");
    if (plan.merge_sort) {
      w.append("stage", "SORT_MERGE");
      w.append("sortPattern", options.sort.view());
    } else {
      w.append("stage", "OR");
    }
    w.open_array("inputStages");
    for (const PlannedBranch& b : plan.or_branches) {
      w.push_document();
      ixscan(w, b.id_index ? id_index_descriptor() : b.index->descriptor, b.plan);
      w.close();
    }
    w.close();
    w.close();
  } else {
    w.append("stage", "COLLSCAN");
    w.append("direction", "forward");
  }
  bson::Document winning = w.finish();
  if (!sort.empty() && !plan.provides_sort()) {
    winning =
        bson::make_document("stage", "SORT", "sortPattern", options.sort, "inputStage", winning);
  }
  bson::DocumentBuilder b;
  b.open_document("queryPlanner");
  b.append("namespace", ns_of(db, coll));
  b.append("parsedQuery", filter);
  b.append("winningPlan", winning.view());
  b.close();
  b.open_document("executionStats");
  b.append("executionSuccess", true);
  b.append("nReturned", stats.returned);
  b.append("totalKeysExamined", stats.keys_examined);
  b.append("totalDocsExamined", stats.docs_examined);
  b.close();
  return b.finish();
}

}  // namespace mongostore::engine
