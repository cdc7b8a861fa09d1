// What the fuzz targets share: their input read as the extended JSON of one value, and a few
// fixed documents of varied shapes for compiled filters, updates and pipelines to run over.
//
// The targets that fuzz a language (filters, updates, pipelines, schemas) take text rather than
// BSON bytes: mutations of text keep far more inputs parseable, and bson_fuzzer covers the BSON
// decoder itself. Each target catches mongostore::Error (a refused input is the expected
// outcome); anything else escaping — a crash, a sanitizer report, another exception — is a
// finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/error.h"

namespace mongostore::fuzz {

/// The input as {"v": <input>}, so that any JSON value (a document, an array of stages, a
/// bare expression) is accepted; nullopt when it does not parse. An input that is a whole BSON
/// document (its length prefix is its size) is taken as that wrapper itself: libbson's JSON
/// reader stops at 100 levels of nesting, BSON reaches the 200 that commands may have.
inline std::optional<bson::Document> json_value(const uint8_t* data, size_t size) {
  if (size >= 5 && static_cast<size_t>(data[0] | data[1] << 8 | data[2] << 16) == size &&
      data[3] == 0) {
    try {
      return bson::Document::from_bytes(std::span<const uint8_t>(data, size));
    } catch (const Error&) {
      return std::nullopt;
    }
  }
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (text.find('\0') != std::string_view::npos) return std::nullopt;
  try {
    return bson::Document::from_json("{\"v\": " + std::string(text) + "\n}");
  } catch (const Error&) {
    return std::nullopt;
  }
}

/// Documents with nested documents and arrays, every numeric type, strings with non-ASCII
/// text, dates, regexes, binary data, NaN and the extreme keys.
inline const std::vector<bson::Document>& sample_documents() {
  static const std::vector<bson::Document> docs = [] {
    std::vector<bson::Document> out;
    for (const char* json : {
             R"({"_id": 1, "a": 1, "b": "x", "c": [1, 2, {"d": 3}], "e": {"f": null, "g": [[]]}})",
             R"({"_id": {"$oid": "5f1d7a3b9d1e8a0001a1b2c3"}, "a": [{"b": 1}, {"b": [2, 3]}],
                 "s": "h\u00e9llo w\u00f6rld", "t": {"$date": "2020-02-29T12:34:56.789Z"},
                 "n": {"$numberDecimal": "-1.50E+3"}, "l": {"$numberLong": "9223372036854775807"}})",
             R"({"_id": "k", "a": {"$numberDouble": "NaN"}, "b": {"$numberDouble": "-Infinity"},
                 "bin": {"$binary": {"base64": "AAEC", "subType": "04"}},
                 "r": {"$regularExpression": {"pattern": "^a.*", "options": "i"}},
                 "min": {"$minKey": 1}, "max": {"$maxKey": 1}, "ts": {"$timestamp": {"t": 1, "i": 2}},
                 "c": [[1, [2, [3]]], {"c": {"c": {"c": 4}}}], "e": {}, "arr": []})",
             R"({"a": 2.5, "b": true, "c": [{"a": 1, "b": "y"}, {"a": 2, "b": "z"}, null],
                 "$": 1, "": {"": [0]}, "x.y": -0.0, "i": -2147483648})",
             R"({})",
         }) {
      out.push_back(bson::Document::from_json(json));
    }
    return out;
  }();
  return docs;
}

}  // namespace mongostore::fuzz
