// DocumentBuilder: writes BSON directly into one growing buffer.
//
//   DocumentBuilder b;
//   b.append("_id", ObjectId::generate()).append("name", "ada");
//   b.open_array("tags").push("x").push(2).close();
//   b.open_document("address").append("city", "Paris").close();
//   Document doc = b.finish();
//
// or, for small literals, make_document("a", 1, "b", make_array(1, 2)).
//
// Keys are not checked for MongoDB's field-name rules here (that is the engine's job at write
// time); a key may not contain a NUL byte, which BSON cannot represent.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/bson/types.h"
#include "mongostore/bson/value.h"

namespace mongostore::bson {

/// An owning BSON array (a document keyed "0", "1", ...), so builders know to tag it as one.
class Array {
 public:
  Array() = default;
  explicit Array(Document doc) : doc_(std::move(doc)) {}
  DocumentView view() const { return doc_.view(); }
  size_t count() const { return doc_.view().count(); }

 private:
  Document doc_;
};

class DocumentBuilder {
 public:
  DocumentBuilder();

  DocumentBuilder& append(std::string_view key, double v);
  DocumentBuilder& append(std::string_view key, int32_t v);
  DocumentBuilder& append(std::string_view key, int64_t v);
  DocumentBuilder& append(std::string_view key, bool v);
  DocumentBuilder& append(std::string_view key, std::string_view v);
  DocumentBuilder& append(std::string_view key, const char* v) {
    return append(key, std::string_view(v));
  }
  DocumentBuilder& append(std::string_view key, const std::string& v) {
    return append(key, std::string_view(v));
  }
  DocumentBuilder& append(std::string_view key, Value v);
  DocumentBuilder& append(std::string_view key, DocumentView document);
  DocumentBuilder& append(std::string_view key, const Document& document) {
    return append(key, document.view());
  }
  DocumentBuilder& append(std::string_view key, const Array& array);
  DocumentBuilder& append(std::string_view key, const ObjectId& v);
  DocumentBuilder& append(std::string_view key, const Decimal128& v);
  DocumentBuilder& append(std::string_view key, DateTime v);
  DocumentBuilder& append(std::string_view key, Timestamp v);
  DocumentBuilder& append(std::string_view key, BinaryView v);
  DocumentBuilder& append(std::string_view key, RegexView v);
  DocumentBuilder& append(std::string_view key, Null);
  DocumentBuilder& append(std::string_view key, Undefined);
  DocumentBuilder& append(std::string_view key, MinKey);
  DocumentBuilder& append(std::string_view key, MaxKey);
  /// Appends `array` (a document keyed "0", "1", ...) as a BSON array.
  DocumentBuilder& append_array(std::string_view key, DocumentView array);
  /// Copies every element of `document` into the current level.
  DocumentBuilder& append_elements(DocumentView document);
  /// Inside an array: copies the elements of `array` verbatim (one memcpy) and continues the
  /// generated keys after them. Returns false, copying nothing, when `array`'s keys are not
  /// the canonical "0", "1", ... (the caller then pushes elements one by one).
  bool push_array_elements(DocumentView array);

  /// Starts a sub-document or sub-array under `key`; close() ends it.
  DocumentBuilder& open_document(std::string_view key);
  DocumentBuilder& open_array(std::string_view key);
  DocumentBuilder& close();

  /// Inside an array: appends the next element ("0", "1", ... keys are generated).
  template <class T>
  DocumentBuilder& push(T&& v) {
    std::string key = next_index_key();
    return append(key, std::forward<T>(v));
  }
  DocumentBuilder& push_document() { return open_document(next_index_key()); }
  DocumentBuilder& push_array() { return open_array(next_index_key()); }

  /// Current size of the buffer in bytes.
  size_t size() const { return buffer_.size(); }
  /// Makes room for `bytes` in all, so that building a document of about a known size (an
  /// update rewriting one) does not reallocate and copy its buffer as it grows.
  void reserve(size_t bytes) { buffer_.reserve(bytes); }
  /// Closes every open level and returns the document; the builder is then empty again.
  Document finish();
  /// Like finish(), but for a builder used as an array (top level keyed by push()).
  Array finish_array();

 private:
  struct Frame {
    size_t start;
    uint32_t next_index;
  };
  void begin_element(BsonType type, std::string_view key);
  void put_bytes(const void* p, size_t n);
  template <class T>
  void put(T v);
  std::string next_index_key();

  std::vector<uint8_t> buffer_;
  std::vector<Frame> frames_;
};

namespace builder_detail {
inline void append_pairs(DocumentBuilder&) {}
template <class V, class... Rest>
void append_pairs(DocumentBuilder& b, std::string_view key, V&& v, Rest&&... rest) {
  b.append(key, std::forward<V>(v));
  append_pairs(b, std::forward<Rest>(rest)...);
}
}  // namespace builder_detail

/// make_document("a", 1, "b", "x") == {a: 1, b: "x"}: keys and values alternate.
template <class... Args>
Document make_document(Args&&... args) {
  static_assert(sizeof...(Args) % 2 == 0, "make_document takes key, value pairs");
  DocumentBuilder b;
  builder_detail::append_pairs(b, std::forward<Args>(args)...);
  return b.finish();
}

/// make_array(1, "x", make_document("a", 1)) == [1, "x", {a: 1}].
template <class... Args>
Array make_array(Args&&... args) {
  DocumentBuilder b;
  (b.push(std::forward<Args>(args)), ...);
  return b.finish_array();
}

}  // namespace mongostore::bson
