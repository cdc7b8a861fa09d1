// $facet: runs several sub-pipelines over the same (buffered) input and returns one document
// holding each sub-pipeline's results.
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

class FacetStage : public Stage {
 public:
  std::vector<std::pair<std::string, Pipeline>> facets;
  std::string_view name() const override { return "$facet"; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    MemoryTracker memory(*ctx, "$facet");
    std::vector<Document> docs;
    while (auto d = input->next()) {
      memory.add(approx_size(*d));
      docs.push_back(std::move(*d));
    }
    bson::DocumentBuilder b;
    for (const auto& [name, p] : facets) {
      auto out = p.run(make_vector_source(docs), *ctx->context, ctx->variables);
      b.open_array(name);
      size_t bytes = 0;
      while (auto r = out->next()) {
        bytes += r->size();
        if (bytes > 100 * 1024 * 1024) {
          fail(4031700, "document constructed by $facet is " + std::to_string(bytes) +
                            " bytes, which exceeds the limit of 104857600 bytes");
        }
        b.push(*r);
      }
      b.close();
    }
    std::vector<Document> result;
    result.push_back(b.finish());
    return make_vector_source(std::move(result));
  }
};

}  // namespace

StagePtr parse_facet(const Value& spec) {
  if (!spec.is_document() || spec.as_document().empty()) {
    fail(40169, "the $facet specification must be a non-empty object, but found: " + render(spec));
  }
  auto stage = std::make_shared<FacetStage>();
  for (const bson::Element& e : spec.as_document()) {
    if (e.key.empty() || e.key[0] == '$' || e.key.find('.') != std::string_view::npos) {
      fail(40352, "$facet output field names must not be empty, start with '$' or contain '.': " +
                      std::string(e.key));
    }
    if (!e.value.is_array()) {
      fail(40170, "arguments to $facet must be arrays, " + std::string(e.key) + " is type " +
                      type_name(e.value));
    }
    for (const bson::Element& s : e.value.as_array()) {
      if (s.value.is_document() && !s.value.as_document().empty()) {
        std::string_view n = s.value.as_document().begin()->key;
        if (n == "$out" || n == "$merge" || n == "$facet") {
          fail(40600, std::string(n) + " is not allowed to be used within a $facet stage");
        }
      }
    }
    stage->facets.emplace_back(std::string(e.key), Pipeline::compile(e.value.as_array()));
  }
  return stage;
}

}  // namespace mongostore::engine::aggregation_detail
