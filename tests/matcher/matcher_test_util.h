// Helpers for the matcher tests: filters and documents written as extended JSON.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/error.h"
#include "support/json.h"

namespace mongostore::engine::testing {

using mongostore::testing::J;

/// True when `filter` matches `doc` (both extended JSON).
inline bool M(std::string_view filter, std::string_view doc) {
  return Matcher::compile(J(filter)).matches(J(doc));
}

inline bool M(const bson::Document& filter, std::string_view doc) {
  return Matcher::compile(filter).matches(J(doc));
}

/// {path: {op: ARG}} where `arg_json` is the extended JSON of ARG (built, so that operator
/// names libbson's legacy JSON reader would take for type wrappers, like $type, stay literal).
inline bson::Document op_filter(std::string_view path, std::string_view op,
                                std::string_view arg_json) {
  bson::Document holder = J("{\"v\": " + std::string(arg_json) + "}");
  bson::DocumentBuilder b;
  b.open_document(path).append(op, holder.get("v")).close();
  return b.finish();
}

/// {a: {$type: ARG}}
inline bson::Document type_filter(std::string_view arg_json) {
  return op_filter("a", "$type", arg_json);
}

/// The error code compile() raises for `filter`, or 0.
inline int32_t compile_error(const bson::Document& filter, std::string* message = nullptr) {
  try {
    Matcher::compile(filter);
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return 0;
}

inline int32_t compile_error(std::string_view filter, std::string* message = nullptr) {
  return compile_error(J(filter), message);
}

}  // namespace mongostore::engine::testing
