// Fuzzes the filter compiler and matcher: the input (extended JSON) is compiled as a find
// filter, with $expr enabled as Engine::open enables it, and matched against fixed documents.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/matcher.h"

using namespace mongostore;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  engine::install_expr_in_find_filters();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<bson::Document> input = fuzz::json_value(data, size);
  if (!input) return 0;
  bson::Value filter = input->get("v");
  if (!filter.is_document()) return 0;
  try {
    engine::Matcher matcher = engine::Matcher::compile(filter.as_document());
    (void)matcher.id_equality();
    (void)matcher.equality_fields();
    for (const bson::Document& doc : fuzz::sample_documents()) {
      engine::MatchDetails details;
      try {
        (void)matcher.matches(doc, &details);  // $expr may fail at run time, as in mongod
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
