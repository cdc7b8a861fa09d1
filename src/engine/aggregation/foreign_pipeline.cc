// ForeignPipeline: a sub-pipeline that reads another collection ($lookup, $unionWith). Its
// leading $match becomes the read's filter, so the foreign collection's indexes serve it
// instead of every document being read and filtered here; an $expr in it gets the scope's
// variables bound in ({$expr: {$eq: ["$_id", "$$local"]}} is then a point read, as the
// planner reads an $eq of a path and a bound variable as an index point).
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

ForeignPipeline ForeignPipeline::split(Pipeline pipeline) {
  ForeignPipeline f;
  f.leading_match = pipeline.leading_match();
  if (f.leading_match) {
    f.leading_match_has_expr = filter_has_expr(f.leading_match->view());
    pipeline = pipeline.without_prefix(1);  // the read applies it
  }
  f.rest = std::move(pipeline);
  return f;
}

std::optional<Document> ForeignPipeline::read_filter(const Variables& variables) const {
  if (!leading_match) return std::nullopt;
  if (!leading_match_has_expr) return leading_match;
  return bind_variables_to_filter(leading_match->view(), variables);
}

std::unique_ptr<DocumentSource> ForeignPipeline::stream(std::unique_ptr<DocumentSource> read,
                                                        const RunContext& ctx,
                                                        const Variables& variables) const {
  if (rest.size() == 0) return read;
  return rest.run(std::move(read), *ctx.context, variables);
}

std::vector<Document> ForeignPipeline::run(std::unique_ptr<DocumentSource> read,
                                           const RunContext& ctx,
                                           const Variables& variables) const {
  return drain(*stream(std::move(read), ctx, variables));
}

std::unique_ptr<DocumentSource> read_foreign(const RunContext& ctx, std::string_view stage,
                                             std::string_view collection, DocumentView filter) {
  if (!ctx.context->read_collection) {
    fail(1, std::string(stage) +
                " needs collection access, which this aggregation context does not offer");
  }
  NowScope now(run_now(ctx));  // the read's $expr sees the pipeline's $$NOW
  return ctx.context->read_collection(collection, filter);
}

}  // namespace mongostore::engine::aggregation_detail
