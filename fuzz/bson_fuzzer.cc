// Fuzzes BSON validation and extended JSON, in both directions. The input is tried as BSON
// bytes (validate_bson and Document::from_bytes must agree; what they accept must print as
// JSON) and as extended JSON text (what Document::from_json returns must be valid BSON, as
// every Document is; what its plain-JSON fast path answers, libbson's reader must answer with
// the same bytes).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bson/json_parser.h"
#include "mongostore/bson/document.h"
#include "mongostore/error.h"

using namespace mongostore;

namespace {

void walk(bson::DocumentView doc) {
  for (const bson::Element& e : doc) {
    if (e.value.is_document()) (void)e.value.as_document().size();
  }
  (void)doc.to_json(bson::JsonMode::kRelaxed);
  (void)doc.to_json(bson::JsonMode::kCanonical);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  std::string reason;
  bool valid = bson::validate_bson(bytes, &reason);
  try {
    bson::Document doc = bson::Document::from_bytes(bytes);
    if (!valid) __builtin_trap();  // from_bytes accepted what validate_bson refused
    walk(doc);
    // What we print, we read back.
    bson::Document back = bson::Document::from_json(doc.to_json(bson::JsonMode::kCanonical));
    walk(back);
  } catch (const Error&) {
  }

  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    bson::Document doc = bson::Document::from_json(text);
    std::string why;
    if (!bson::validate_bson(std::span<const uint8_t>(doc.data(), doc.size()), &why)) {
      __builtin_trap();  // a Document holding invalid BSON
    }
    walk(doc);
  } catch (const Error&) {
  }

  // The fast path may only decline or agree with libbson byte for byte.
  if (std::optional<bson::Document> plain = bson::parse_plain_json(text)) {
    try {
      bson::Document lib = bson::parse_extended_json(text);
      if (!(lib.view() == plain->view())) __builtin_trap();  // different bytes
    } catch (const Error&) {
      __builtin_trap();  // the fast path accepted what libbson refuses
    }
  }
  return 0;
}
