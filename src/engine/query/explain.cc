// QueryExecutor::explain_find: runs the find and describes it as MongoDB's
// explain("executionStats") does.
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
  if (plan.index_plan) {
    // The same plan again, with its bounds as text (plans leave them out: only explain shows
    // them).
    if (auto entry = collections_.lookup(db, coll)) {
      PlannedQuery described = plan_for(*entry, matcher, options.sort.view(), options.hint,
                                        /*explain_bounds=*/true);
      if (described.index_plan) plan.index_plan->bounds = described.index_plan->bounds;
    }
  }
  bson::DocumentBuilder w;
  if (plan.id_key) {
    w.append("stage", "IDHACK");
  } else if (plan.index_plan) {
    const IndexDescriptor& d = plan.id_index ? id_index_descriptor() : plan.index->descriptor;
    w.append("stage", "FETCH");
    w.open_document("inputStage");
    w.append("stage", "IXSCAN");
    w.append("keyPattern", d.key_pattern());
    w.append("indexName", d.name());
    w.append("isMultiKey", plan.index_plan->multikey);
    w.append("isUnique", d.unique());
    w.append("isSparse", d.sparse());
    w.append("isPartial", d.partial_filter().has_value());
    if (d.collation() != nullptr) w.append("collation", d.collation()->spec().view());
    w.append("direction", plan.index_plan->reverse ? "backward" : "forward");
    w.append("indexBounds", plan.index_plan->bounds.view());
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
