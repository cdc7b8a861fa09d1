// $facet: runs several sub-pipelines over the same (buffered) input and returns one document
// holding each sub-pipeline's results.
#include "engine/aggregation/internal.h"
#include "engine/aggregation/spill.h"

namespace mongostore::engine::aggregation_detail {

namespace {

class FacetStage : public Stage {
 public:
  static constexpr size_t kReadBuffer = 256 * 1024;
  std::vector<std::pair<std::string, Pipeline>> facets;
  std::string_view name() const override { return "$facet"; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    // The input is buffered once and replayed to each sub-pipeline. With allowDiskUse, past
    // the memory limit the buffer goes to a spill file as one run, read back per facet.
    MemoryTracker memory(*ctx, "$facet");
    std::vector<Document> docs;
    std::unique_ptr<SpillFile> spill;
    while (auto d = input->next()) {
      if (spill) {
        spill->add({}, d->data(), d->size());
        continue;
      }
      memory.add(approx_size(*d));
      docs.push_back(std::move(*d));
      if (memory.over_limit()) {
        spill = std::make_unique<SpillFile>(*ctx, "$facet");
        for (const Document& doc : docs) spill->add({}, doc.data(), doc.size());
        docs = std::vector<Document>();
        memory.reset();
      }
    }
    if (spill) spill->end_run();
    // Each facet reads the buffer from the start; documents are copied one at a time.
    auto replay = [&]() -> std::unique_ptr<DocumentSource> {
      if (spill) {
        std::shared_ptr<RunCursor> run = spill->open_run(0, kReadBuffer);
        return std::make_unique<FunctionSource>([run]() -> std::optional<Document> {
          if (!run->next()) return std::nullopt;
          return run->take_document();
        });
      }
      auto next = std::make_shared<size_t>(0);
      return std::make_unique<FunctionSource>([&docs, next]() -> std::optional<Document> {
        if (*next == docs.size()) return std::nullopt;
        return docs[(*next)++];
      });
    };
    bson::DocumentBuilder b;
    size_t bytes = 0;  // of the whole output document, as MongoDB's limit counts
    for (const auto& [name, p] : facets) {
      auto out = p.run(replay(), *ctx->context, ctx->variables);
      b.open_array(name);
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
