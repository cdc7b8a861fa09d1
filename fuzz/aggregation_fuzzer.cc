// Fuzzes the aggregation layer. The input (extended JSON) is either a pipeline (an array of
// stages), compiled and run over fixed documents, or an expression, compiled and evaluated
// against each of them. The run is bounded: blocking stages get 1 MB before they must fail
// (no disk use), $lookup and $unionWith read the fixed documents, $out and $merge write
// nowhere, and at most 1,000 results are pulled.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fuzz_input.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/matcher.h"

using namespace mongostore;

namespace {

constexpr int kMaxResults = 1000;

std::vector<bson::Document> sample_copies() {
  std::vector<bson::Document> out;
  for (const bson::Document& d : fuzz::sample_documents()) out.push_back(d);
  return out;
}

engine::AggregationContext bounded_context() {
  engine::AggregationContext context;
  context.allow_disk_use = false;
  context.memory_limit_bytes = 1 << 20;
  context.read_collection = [](std::string_view, bson::DocumentView filter) {
    engine::Matcher matcher = engine::Matcher::compile(filter);
    std::vector<bson::Document> matching;
    for (const bson::Document& d : fuzz::sample_documents()) {
      if (matcher.matches(d)) matching.push_back(d);
    }
    return engine::make_vector_source(std::move(matching));
  };
  context.replace_collection = [](std::string_view, engine::DocumentSource& documents) {
    for (int i = 0; i < kMaxResults && documents.next(); ++i) {
    }
  };
  context.merge_document = [](std::string_view, bson::DocumentView,
                              const engine::MergeDecision& decide) {
    (void)decide(std::nullopt);
    (void)decide(fuzz::sample_documents().front().view());
  };
  return context;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  engine::install_expr_in_find_filters();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<bson::Document> input = fuzz::json_value(data, size);
  if (!input) return 0;
  bson::Value spec = input->get("v");
  try {
    if (spec.is_array()) {
      engine::Pipeline pipeline = engine::Pipeline::compile(spec.as_array());
      (void)pipeline.leading_match();
      engine::Pipeline::Prefix prefix = pipeline.find_prefix();
      (void)pipeline.without_prefix(prefix.stages);
      std::unique_ptr<engine::DocumentSource> out =
          pipeline.run(engine::make_vector_source(sample_copies()), bounded_context());
      for (int i = 0; i < kMaxResults && out->next(); ++i) {
      }
    } else {
      engine::Expression expression = engine::Expression::compile(spec);
      for (const bson::Document& doc : fuzz::sample_documents()) {
        try {
          (void)expression.evaluate(doc);
        } catch (const Error&) {
        }
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
