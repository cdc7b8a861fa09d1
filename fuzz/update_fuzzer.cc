// Fuzzes the update compiler and applier. The input (extended JSON) is an update document, an
// update pipeline (an array), or {"u": update, "q": filter, "arrayFilters": [...]}: the filter,
// when given, is matched first and gives the positional `$` its array index, as in the engine.
// The update is applied to fixed documents, as an update and as an upsert's insert.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "fuzz_input.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/engine/update.h"

using namespace mongostore;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  engine::install_expr_in_find_filters();
  engine::install_update_pipelines();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<bson::Document> input = fuzz::json_value(data, size);
  if (!input) return 0;
  bson::Value update = input->get("v");
  bson::Value query;
  std::vector<bson::DocumentView> array_filters;
  if (update.is_document() && update.as_document().has("u")) {
    bson::DocumentView wrapper = update.as_document();
    update = wrapper.get("u");
    query = wrapper.get("q");
    bson::Value filters = wrapper.get("arrayFilters");
    if (filters.is_array()) {
      for (const bson::Element& e : filters.as_array()) {
        if (!e.value.is_document()) return 0;
        array_filters.push_back(e.value.as_document());
      }
    }
  }
  try {
    if (!update.is_array() && !update.is_document()) return 0;
    const engine::Update compiled =
        update.is_array() ? engine::Update::compile_pipeline(update.as_array())
                          : engine::Update::compile(update.as_document(), array_filters);
    std::optional<engine::Matcher> matcher;
    if (query.is_document()) matcher = engine::Matcher::compile(query.as_document());
    for (const bson::Document& doc : fuzz::sample_documents()) {
      engine::MatchDetails details;
      try {
        if (matcher && !matcher->matches(doc, &details)) continue;
        (void)compiled.apply(doc, details.array_index, false);
      } catch (const Error&) {
      }
      try {
        (void)compiled.apply(doc, std::nullopt, true);
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
