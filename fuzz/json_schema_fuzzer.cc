// Fuzzes the $jsonSchema compiler and its matching. The input (extended JSON) is a schema, or
// a filter {"$jsonSchema": schema} as the tests write them; the compiled schema is matched
// against fixed documents and each of their values.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/matcher/json_schema.h"
#include "fuzz_input.h"

using namespace mongostore;
using engine::matcher_detail::JsonSchema;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<bson::Document> input = fuzz::json_value(data, size);
  if (!input) return 0;
  bson::Value schema = input->get("v");
  if (!schema.is_document()) return 0;
  bson::Value inner = schema.as_document().get("$jsonSchema");
  if (inner.is_document()) schema = inner;
  try {
    std::unique_ptr<const JsonSchema> compiled = JsonSchema::compile(schema.as_document());
    for (const bson::Document& doc : fuzz::sample_documents()) {
      (void)compiled->matches_document(doc);
      for (const bson::Element& e : doc) (void)compiled->matches(e.value);
    }
  } catch (const Error&) {
  }
  return 0;
}
