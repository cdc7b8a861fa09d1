// Inline walks of a document's elements over its bytes, for the paths that run on every write
// (the update language binding and applying, the write path's diff of two versions and its
// `_id` guard check) and for readers of a few named fields (first_values).
//
// DocumentView's iterator does the same per element, but out of line: begin() and end() are
// calls that each load an element, and every step is a call; for the few elements of an
// update's operator documents or a stored document's top level that overhead was most of the
// walk. Same elements, same order, same Values.
//
// The bytes must be valid BSON (a stored document, or a validated argument). Thread safety:
// views over borrowed bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "bson/raw.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"

namespace mongostore::bson {

/// Reads the element starting at `p` (its type byte; not a document's final 0) into *e;
/// returns where the next element starts.
inline const uint8_t* read_element(const uint8_t* p, Element* e) {
  const auto type = static_cast<BsonType>(*p);
  const char* key = reinterpret_cast<const char*>(p + 1);
  const size_t key_len = std::strlen(key);
  const uint8_t* payload = p + 2 + key_len;
  const uint32_t size = raw::payload_size(type, payload);
  *e = Element{std::string_view(key, key_len), Value(type, payload, size)};
  return payload + size;
}

/// A document's elements in order: `while (elements.next(e)) ...`.
class RawElements {
 public:
  explicit RawElements(DocumentView doc)
      : pos_(doc.data() + 4), end_(doc.data() + doc.size() - 1) {}

  /// The next element into `out`; false after the last.
  bool next(Element& out) {
    if (pos_ >= end_) return false;
    pos_ = read_element(pos_, &out);
    return true;
  }

 private:
  const uint8_t* pos_;
  const uint8_t* end_;
};

/// The values of `keys` in `doc`, each the first element with its key (missing if none), as
/// DocumentView::get returns them, in one walk that ends once every key is found. For readers
/// of a few named fields of a document, where N calls of get() would each walk from the start.
/// The keys must be distinct.
template <size_t N>
std::array<Value, N> first_values(DocumentView doc, const std::array<std::string_view, N>& keys) {
  std::array<Value, N> out;
  size_t left = N;
  Element e;
  for (RawElements elements(doc); left > 0 && elements.next(e);) {
    for (size_t i = 0; i < N; ++i) {
      if (out[i].is_missing() && e.key == keys[i]) {
        out[i] = e.value;
        --left;
        break;
      }
    }
  }
  return out;
}

}  // namespace mongostore::bson
