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
#include <cstring>
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
  /// Allocates nothing until the first append (or reserve).
  DocumentBuilder() = default;
  DocumentBuilder(const DocumentBuilder& other);
  DocumentBuilder(DocumentBuilder&& other) noexcept;
  DocumentBuilder& operator=(const DocumentBuilder& other);
  DocumentBuilder& operator=(DocumentBuilder&& other) noexcept;
  ~DocumentBuilder() = default;

  // The common appends (numbers, booleans, strings, views of values and documents) are inline:
  // one capacity check, then the type byte, the key and the payload are copied into the
  // buffer. The rest are out of line in builder.cc.
  DocumentBuilder& append(std::string_view key, double v) {
    return append_fixed(BsonType::kDouble, key, v);
  }
  DocumentBuilder& append(std::string_view key, int32_t v) {
    return append_fixed(BsonType::kInt32, key, v);
  }
  DocumentBuilder& append(std::string_view key, int64_t v) {
    return append_fixed(BsonType::kInt64, key, v);
  }
  DocumentBuilder& append(std::string_view key, bool v) {
    return append_fixed(BsonType::kBool, key, static_cast<uint8_t>(v ? 1 : 0));
  }
  DocumentBuilder& append(std::string_view key, std::string_view v) {
    uint8_t* p = begin_element(BsonType::kString, key, 4 + v.size() + 1);
    uint32_t len = static_cast<uint32_t>(v.size() + 1);
    std::memcpy(p, &len, 4);
    if (!v.empty()) std::memcpy(p + 4, v.data(), v.size());
    p[4 + v.size()] = 0;
    return *this;
  }
  DocumentBuilder& append(std::string_view key, const char* v) {
    return append(key, std::string_view(v));
  }
  DocumentBuilder& append(std::string_view key, const std::string& v) {
    return append(key, std::string_view(v));
  }
  /// Throws kBadValue for a missing value (it has no BSON representation).
  DocumentBuilder& append(std::string_view key, Value v) {
    if (v.is_missing()) missing_value(key);
    return append_raw(v.type(), key, v.data(), v.size());
  }
  DocumentBuilder& append(std::string_view key, DocumentView document) {
    return append_raw(BsonType::kDocument, key, document.data(), document.size());
  }
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
  DocumentBuilder& append_array(std::string_view key, DocumentView array) {
    return append_raw(BsonType::kArray, key, array.data(), array.size());
  }
  /// Copies every element of `document` into the current level.
  DocumentBuilder& append_elements(DocumentView document);
  /// Inside an array: copies the elements of `array` verbatim (one memcpy) and continues the
  /// generated keys after them. Returns false, copying nothing, when `array`'s keys are not
  /// the canonical "0", "1", ... (the caller then pushes elements one by one).
  bool push_array_elements(DocumentView array);

  /// Starts a sub-document or sub-array under `key`; close() ends it.
  DocumentBuilder& open_document(std::string_view key) { return open(BsonType::kDocument, key); }
  DocumentBuilder& open_array(std::string_view key) { return open(BsonType::kArray, key); }
  /// Ends the innermost open level; kInternalError when none is open.
  DocumentBuilder& close();

  /// Inside an array: appends the next element ("0", "1", ... keys are generated).
  template <class T>
  DocumentBuilder& push(T&& v) {
    char digits[kIndexKeyCapacity];
    return append(next_index_key(digits), std::forward<T>(v));
  }
  DocumentBuilder& push_document() {
    char digits[kIndexKeyCapacity];
    return open_document(next_index_key(digits));
  }
  DocumentBuilder& push_array() {
    char digits[kIndexKeyCapacity];
    return open_array(next_index_key(digits));
  }

  /// Current size of the buffer in bytes.
  size_t size() const { return len_; }
  /// Makes room for `bytes` in all, so that building a document of about a known size (an
  /// update rewriting one) does not reallocate and copy its buffer as it grows.
  void reserve(size_t bytes) {
    if (bytes > cap_) grow_to(bytes);
  }
  /// Closes every open level and returns the document; the builder is then empty again.
  Document finish();
  /// Like finish(), but for a builder used as an array (top level keyed by push()).
  Array finish_array();

 private:
  // Where a level's length prefix is, and the next key push() generates in it.
  struct Frame {
    size_t start;
    uint32_t next_index;
  };
  // Levels up to this depth (the document itself included) live in the builder; deeper ones
  // spill to deep_frames_, so the common shallow documents never allocate a frame stack.
  static constexpr size_t kInlineFrames = 8;
  static constexpr size_t kIndexKeyCapacity = 16;

  // Reserves `n` more bytes and returns where they start.
  uint8_t* extend(size_t n) {
    // (data_ is null only before the first allocation; testing it also tells the compiler
    // that no path writes through a null buffer, which -Wstringop-overflow cannot see.)
    if (len_ + n > cap_ || data_ == nullptr) [[unlikely]]
      grow_to(len_ + n);
    uint8_t* p = data_ + len_;
    len_ += n;
    return p;
  }
  // Writes the type byte and the key (throwing kBadValue for a key holding a NUL byte) and
  // reserves `payload` bytes after them, returning where the payload goes.
  uint8_t* begin_element(BsonType type, std::string_view key, size_t payload) {
    if (key_has_nul(key)) nul_key();
    uint8_t* p = extend(1 + key.size() + 1 + payload);
    p[0] = static_cast<uint8_t>(type);
    if (!key.empty()) std::memcpy(p + 1, key.data(), key.size());
    p[1 + key.size()] = 0;
    return p + 1 + key.size() + 1;
  }
  template <class T>
  DocumentBuilder& append_fixed(BsonType type, std::string_view key, T v) {
    std::memcpy(begin_element(type, key, sizeof(T)), &v, sizeof(T));
    return *this;
  }
  DocumentBuilder& append_raw(BsonType type, std::string_view key, const uint8_t* bytes, size_t n) {
    uint8_t* p = begin_element(type, key, n);
    if (n != 0) std::memcpy(p, bytes, n);
    return *this;
  }
  static bool key_has_nul(std::string_view key) {
    // A word a step instead of a byte loop (not vectorised at -O2) or a call into memchr:
    // a word holds a zero byte exactly when (w - 0x01..01) & ~w & 0x80..80 is non-zero. The
    // last word of a key overlaps the one before it rather than reading past the key.
    const char* p = key.data();
    size_t n = key.size();
    if (n >= 8) {
      for (size_t i = 0;; i += 8) {
        if (i + 8 > n) i = n - 8;
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        if (((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull) != 0) return true;
        if (i + 8 == n) return false;
      }
    }
    if (n >= 4) {
      uint32_t first, last;
      std::memcpy(&first, p, 4);
      std::memcpy(&last, p + n - 4, 4);
      return (((first - 0x01010101u) & ~first) | ((last - 0x01010101u) & ~last)) & 0x80808080u;
    }
    bool nul = false;
    for (size_t i = 0; i < n; ++i) nul |= p[i] == 0;
    return nul;
  }
  Frame& top() { return depth_ <= kInlineFrames ? frames_[depth_ - 1] : deep_frames_.back(); }
  std::string_view next_index_key(char (&digits)[kIndexKeyCapacity]);
  DocumentBuilder& open(BsonType type, std::string_view key);
  void grow_to(size_t bytes);
  // Back to a new builder's state (no buffer, one open level).
  void reset();
  [[noreturn]] static void nul_key();
  [[noreturn]] static void missing_value(std::string_view key);

  // buffer_'s size is the capacity in use (cap_); the document's bytes are its first len_,
  // the first four being the length prefix patched by finish(). data_ caches buffer_.data().
  std::vector<uint8_t> buffer_;
  uint8_t* data_ = nullptr;
  size_t len_ = 4;
  size_t cap_ = 0;
  size_t depth_ = 1;  // open levels, the document itself included
  Frame frames_[kInlineFrames] = {{0, 0}};
  std::vector<Frame> deep_frames_;
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
