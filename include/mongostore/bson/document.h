// Document and DocumentView: BSON documents, owned and borrowed.
//
// A DocumentView is a pointer and a length into validated BSON bytes; iterating it yields
// Elements (key + Value) without copying. A Document owns its bytes. Every way of making a
// Document from outside bytes (from_bytes, from_json) validates first, so corrupt or
// truncated BSON is rejected before it can reach storage; views made from a Document are
// then safe to walk without further checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/value.h"

namespace mongostore::bson {

/// Which extended JSON dialect to write
/// (https://www.mongodb.com/docs/manual/reference/mongodb-extended-json/).
enum class JsonMode {
  kRelaxed,    // numbers as JSON numbers where lossless, dates as ISO-8601
  kCanonical,  // every type explicit: {"$numberInt": "1"}
};

/// One key/value pair of a document.
struct Element {
  std::string_view key;
  Value value;
};

/// A borrowed, validated BSON document (or array, whose keys are "0", "1", ...).
class DocumentView {
 public:
  /// The empty document.
  DocumentView();
  /// Views `size` bytes at `data`, which must hold one valid BSON document. No validation is
  /// done here: use Document::from_bytes for untrusted input.
  DocumentView(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Element;
    using difference_type = std::ptrdiff_t;
    using pointer = const Element*;
    using reference = const Element&;

    Iterator() = default;
    Iterator(const uint8_t* pos, const uint8_t* end) : pos_(pos), end_(end) { load(); }
    const Element& operator*() const { return current_; }
    const Element* operator->() const { return &current_; }
    Iterator& operator++() {
      pos_ = next_;
      load();
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.pos_ == b.pos_; }

   private:
    void load();
    const uint8_t* pos_ = nullptr;
    const uint8_t* end_ = nullptr;
    const uint8_t* next_ = nullptr;
    Element current_;
  };

  Iterator begin() const;
  Iterator end() const;

  /// The value of the first element named `key` (no dotted paths); missing if absent.
  Value get(std::string_view key) const;
  /// Convenience: the value at a dotted path through sub-documents only ("a.b.c"). Arrays
  /// are not traversed (the query layer owns MongoDB's array path semantics).
  Value get_path(std::string_view dotted) const;
  bool has(std::string_view key) const { return !get(key).is_missing(); }

  /// True when the document has no elements.
  bool empty() const { return size_ <= 5; }
  /// Number of elements (walks the document).
  size_t count() const;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

  /// Extended JSON of the document. Arrays render as documents unless `as_array`.
  std::string to_json(JsonMode mode = JsonMode::kRelaxed) const;
  /// Extended JSON rendering this view as a JSON array.
  std::string to_json_array(JsonMode mode = JsonMode::kRelaxed) const;

  /// Byte-wise equality (same elements, same order, same types).
  friend bool operator==(const DocumentView& a, const DocumentView& b);

 private:
  const uint8_t* data_;
  size_t size_;
};

/// An owning BSON document.
class Document {
 public:
  /// The empty document `{}`.
  Document();
  /// Takes ownership of `bytes`, which must already be valid BSON (builders produce it).
  static Document adopt(std::vector<uint8_t> bytes);
  /// Copies and validates `bytes`: throws Error(InvalidBSON, 22) naming the problem when they
  /// are not exactly one well-formed BSON document (truncated, bad lengths, invalid UTF-8 in
  /// strings, unknown types, trailing bytes).
  static Document from_bytes(std::span<const uint8_t> bytes);
  /// Copies a view (already valid).
  static Document copy_of(DocumentView view);
  /// Parses extended JSON, relaxed or canonical. Throws Error(FailedToParse, 9) with the
  /// parser's message on bad input.
  static Document from_json(std::string_view json);

  DocumentView view() const { return DocumentView(bytes_.data(), bytes_.size()); }
  operator DocumentView() const { return view(); }

  DocumentView::Iterator begin() const { return view().begin(); }
  DocumentView::Iterator end() const { return view().end(); }
  Value get(std::string_view key) const { return view().get(key); }
  Value get_path(std::string_view dotted) const { return view().get_path(dotted); }
  bool has(std::string_view key) const { return view().has(key); }
  bool empty() const { return view().empty(); }
  const uint8_t* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  std::string to_json(JsonMode mode = JsonMode::kRelaxed) const { return view().to_json(mode); }

  /// Moves the bytes out, leaving the empty document.
  std::vector<uint8_t> release();

  friend bool operator==(const Document& a, const Document& b) { return a.view() == b.view(); }

 private:
  explicit Document(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  std::vector<uint8_t> bytes_;
};

/// An owning single BSON value (kept as the one element of a private document), for values
/// that must outlive the document they came from.
class OwnedValue {
 public:
  OwnedValue();  // missing
  explicit OwnedValue(Value v);
  Value view() const;
  operator Value() const { return view(); }

 private:
  Document holder_;
};

/// MongoDB's maxBSONDepth: how many levels of non-empty embedded documents or arrays any BSON
/// mongostore accepts may nest below its top level (commands included). Stored documents have
/// a lower limit (engine::kMaxStoredDocumentDepth).
inline constexpr size_t kMaxBsonDepth = 200;

/// Checks that `bytes` hold exactly one valid BSON document nested at most kMaxBsonDepth
/// levels; on failure returns false and sets `*reason`. Never recurses, whatever the input.
/// Document::from_bytes throws InvalidBSON (22) for invalid bytes and Overflow (15) for too
/// deep a nesting.
bool validate_bson(std::span<const uint8_t> bytes, std::string* reason);

/// Whether `document` nests non-empty embedded documents or arrays more than `max_levels`
/// levels below its top level ({a: {b: 1}} nests one level; an empty {} or [] adds none, as
/// MongoDB counts). Walks the bytes without recursion, so any depth is safe to ask about.
bool nesting_exceeds(DocumentView document, size_t max_levels);

}  // namespace mongostore::bson
