// J(): a document written as (extended) JSON, for tests that spell their inputs that way.
#pragma once

#include <string_view>

#include "mongostore/bson/document.h"

namespace mongostore::testing {

/// The document `json` spells (Document::from_json: relaxed or canonical extended JSON). A
/// malformed literal throws Document::from_json's error, which fails the test that wrote it.
inline bson::Document J(std::string_view json) {
  return bson::Document::from_json(json);
}

}  // namespace mongostore::testing
