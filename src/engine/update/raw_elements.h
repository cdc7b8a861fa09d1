// RawElements: a document's elements walked over its bytes by inline code, for the update
// paths that run on every write (binding a recent shape's arguments, the applier's walk of
// each document level).
//
// DocumentView's iterator does the same per element, but out of line: begin() and end() are
// calls that each load an element, and every step is a call; for the few elements of an
// update's operator documents that overhead was most of the walk. Same elements, same order,
// same Values.
//
// The document must be valid BSON (a stored document, or a validated argument). Thread
// safety: a cursor over borrowed bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "bson/raw.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"

namespace mongostore::engine::update_detail {

class RawElements {
 public:
  explicit RawElements(bson::DocumentView doc)
      : pos_(doc.data() + 4), end_(doc.data() + doc.size() - 1) {}

  /// The next element into `out`; false after the last.
  bool next(bson::Element& out) {
    if (pos_ >= end_) return false;
    const auto type = static_cast<bson::BsonType>(*pos_);
    const char* key = reinterpret_cast<const char*>(pos_ + 1);
    const size_t key_len = std::strlen(key);
    const uint8_t* payload = pos_ + 2 + key_len;
    const uint32_t size = bson::raw::payload_size(type, payload);
    out.key = std::string_view(key, key_len);
    out.value = bson::Value(type, payload, size);
    pos_ = payload + size;
    return true;
  }

 private:
  const uint8_t* pos_;
  const uint8_t* end_;
};

}  // namespace mongostore::engine::update_detail
