// J(): a document written as (extended) JSON, for tests that spell their inputs that way;
// as_json() / sorted_json(): results as JSON text, for tests that compare them.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::testing {

/// The document `json` spells (Document::from_json: relaxed or canonical extended JSON). A
/// malformed literal throws Document::from_json's error, which fails the test that wrote it.
inline bson::Document J(std::string_view json) {
  return bson::Document::from_json(json);
}

/// Each document as relaxed extended JSON, in the given order (results compared as lists).
inline std::vector<std::string> as_json(const std::vector<bson::Document>& docs) {
  std::vector<std::string> out;
  out.reserve(docs.size());
  for (const bson::Document& d : docs) out.push_back(d.to_json());
  return out;
}

/// as_json, sorted (results compared as sets, whatever order a plan returns them in).
inline std::vector<std::string> sorted_json(const std::vector<bson::Document>& docs) {
  std::vector<std::string> out = as_json(docs);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mongostore::testing
