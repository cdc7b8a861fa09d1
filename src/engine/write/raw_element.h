// read_element: one element of valid BSON bytes read in place, inline. The write path walks
// the top level of every stored document it updates (TopLevelDiff, IdGuardFilter) and pays a
// DocumentView::Iterator call per element otherwise.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "bson/raw.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// Reads the element starting at `p` (its type byte; not a document's final 0) into *e;
/// returns where the next element starts. The bytes must be valid BSON.
inline const uint8_t* read_element(const uint8_t* p, bson::Element* e) {
  const auto type = static_cast<bson::BsonType>(*p);
  const char* key = reinterpret_cast<const char*>(p + 1);
  const size_t key_len = std::strlen(key);
  const uint8_t* payload = p + 2 + key_len;
  const uint32_t size = bson::raw::payload_size(type, payload);
  *e = bson::Element{std::string_view(key, key_len), bson::Value(type, payload, size)};
  return payload + size;
}

}  // namespace mongostore::engine
