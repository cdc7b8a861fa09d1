// $unionWith: the input's documents, then those of another collection through an optional
// sub-pipeline (MongoDB 4.4; without `coll`, a pipeline starting with $documents, 6.0). The
// other collection is read only once the input is exhausted, through ForeignPipeline (its
// leading $match is the read's filter).
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

class UnionWithStage : public Stage {
 public:
  UnionWithStage(std::string coll, ForeignPipeline pipeline)
      : coll_(std::move(coll)), pipeline_(std::move(pipeline)) {}
  std::string_view name() const override { return "$unionWith"; }

  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    struct State {
      std::unique_ptr<DocumentSource> input;
      std::unique_ptr<DocumentSource> other;  // started once the input is done
    };
    auto state = std::make_shared<State>();
    state->input = std::move(input);
    auto self = std::make_shared<UnionWithStage>(*this);
    return std::make_unique<FunctionSource>([self, state, ctx]() -> std::optional<Document> {
      if (state->input) {
        if (auto d = state->input->next()) return d;
        state->input.reset();
      }
      if (!state->other) state->other = self->read_other(*ctx);
      return state->other->next();
    });
  }

 private:
  std::unique_ptr<DocumentSource> read_other(const RunContext& ctx) const {
    std::unique_ptr<DocumentSource> read;
    if (coll_.empty()) {
      read = make_vector_source({});  // the sub-pipeline makes its documents ($documents)
    } else {
      std::optional<Document> filter = pipeline_.read_filter(ctx.variables);
      read = read_foreign(ctx, "$unionWith", coll_, filter ? filter->view() : Document().view());
    }
    return pipeline_.stream(std::move(read), ctx, ctx.variables);
  }

  std::string coll_;
  ForeignPipeline pipeline_;
};

}  // namespace

StagePtr parse_union_with(const Value& spec) {
  std::string coll;
  std::optional<DocumentView> stages;
  if (spec.type() == BsonType::kString) {
    coll = std::string(spec.as_string());
  } else if (spec.is_document()) {
    bool has_coll = false;
    for (const bson::Element& e : spec.as_document()) {
      if (e.key == "coll") {
        if (e.value.type() != BsonType::kString) {
          fail(ErrorCode::kTypeMismatch, "BSON field '$unionWith.coll' is the wrong type '" +
                                             type_name(e.value) + "', expected type 'string'");
        }
        coll = std::string(e.value.as_string());
        has_coll = true;
      } else if (e.key == "pipeline") {
        if (!e.value.is_array()) {
          fail(ErrorCode::kTypeMismatch, "BSON field '$unionWith.pipeline' is the wrong type '" +
                                             type_name(e.value) + "', expected type 'array'");
        }
        stages = e.value.as_array();
      } else {
        fail(40415, "BSON field '$unionWith." + std::string(e.key) + "' is an unknown field.");
      }
    }
    if (!has_coll) {
      bool documents_first = false;
      if (stages) {
        auto it = stages->begin();
        documents_first = it != stages->end() && it->value.is_document() &&
                          !it->value.as_document().empty() &&
                          it->value.as_document().begin()->key == "$documents";
      }
      if (!documents_first) {
        fail(ErrorCode::kFailedToParse,
             "$unionWith stage without explicit collection must have a pipeline with $documents "
             "as first stage");
      }
    }
  } else {
    fail(ErrorCode::kFailedToParse,
         "the $unionWith stage specification must be an object or string, but found " +
             type_name(spec));
  }
  Pipeline sub = stages ? Pipeline::compile(*stages) : Pipeline();
  if (sub.writes_output()) {
    fail(31441, "$out and $merge are not allowed within a $unionWith's sub-pipeline");
  }
  return std::make_shared<UnionWithStage>(std::move(coll), ForeignPipeline::split(std::move(sub)));
}

}  // namespace mongostore::engine::aggregation_detail
