// Update pipelines: the Update layer calls back into this layer to compile the stages of an
// update given as a list ({$set: ...}, {$unset: ...}, ...), as MongoDB 4.2+ allows.
#include <array>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/update.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

// The stages MongoDB allows in an update: each maps one document to one document.
constexpr std::array<std::string_view, 6> kUpdateStages = {
    "$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith"};

UpdatePipelineFunction compile_update_pipeline(bson::DocumentView stages, bson::DocumentView let,
                                               std::shared_ptr<const Collation> collation) {
  size_t index = 0;
  for (const bson::Element& e : stages) {
    if (!e.value.is_document() || e.value.as_document().empty()) {
      throw Error(ErrorCode::kFailedToParse, "update pipeline stage " + std::to_string(index) +
                                                 " must be an object with one stage name");
    }
    std::string_view name = e.value.as_document().begin()->key;
    bool allowed = false;
    for (std::string_view s : kUpdateStages) allowed = allowed || s == name;
    if (!allowed) {
      throw Error(ErrorCode::kInvalidOptions,
                  std::string(name) + " is not allowed to be used within an update");
    }
    ++index;
  }
  if (index == 0) {
    throw Error(ErrorCode::kFailedToParse, "an update pipeline must have at least one stage");
  }
  Pipeline pipeline = Pipeline::compile(stages);
  Variables variables = evaluate_let(let);
  // Every document an updateMany rewrites gets the same $$NOW: the command's.
  bson::Document now = bson::make_document("", NowScope::now());
  variables.emplace_back("NOW", bson::OwnedValue(now.get("")));
  AggregationContext context;
  context.collation = std::move(collation);  // the update's: its expressions compare under it
  return [pipeline, variables, context](bson::DocumentView original) {
    std::vector<bson::Document> input;
    input.push_back(bson::Document::copy_of(original));
    auto out = pipeline.run(make_vector_source(std::move(input)), context, variables);
    std::optional<bson::Document> updated = out->next();
    if (!updated) {
      throw Error(ErrorCode::kInternalError, "update pipeline produced no document");
    }
    return std::move(*updated);
  };
}

}  // namespace

void install_update_pipelines() {
  install_update_pipeline_compiler(&compile_update_pipeline);
}

}  // namespace mongostore::engine
