// ExistingArray: an array field's elements walked once over their bytes, for the array
// operators that keep them ($push, $addToSet).
//
// Keeping the existing elements as one byte copy needs their keys to be the canonical "0",
// "1", ... (a foreign writer may have stored others; those arrays are renumbered element by
// element). DocumentBuilder::push_array_elements checks that with a second walk of the array
// through DocumentView's iterator after the operator has already walked it (to count it, or
// to compare it with the values to add); scan() answers the count and the keys in one walk
// of the raw bytes, and append_to() then copies the elements and keys each new element
// after them, with the same bytes push_array_elements + push would write.
//
// Thread safety: a value type over borrowed bytes; the array must outlive it.
#pragma once

#include <cstddef>
#include <string_view>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"

namespace mongostore::engine::update_detail {

class ExistingArray {
 public:
  /// Walks `array` (valid BSON: a stored document's or a validated argument's).
  static ExistingArray scan(bson::DocumentView array);
  /// No array (a missing field): no elements.
  ExistingArray() = default;

  size_t count() const { return count_; }
  /// True when the keys are "0", "1", ... in order.
  bool canonical() const { return canonical_; }

  /// Inside an array just opened on `b`: writes the existing elements (one byte copy when
  /// canonical, else each renumbered) and then leaves `b` ready for append(); returns the
  /// index the next element gets.
  size_t write_elements(bson::DocumentBuilder& b) const;

 private:
  bson::DocumentView array_;
  size_t count_ = 0;
  bool canonical_ = true;
  bool present_ = false;
};

/// Keys "n", "n+1", ... for elements appended after write_elements with explicit keys (the
/// builder's own counter does not advance over a byte copy).
class ArrayKeys {
 public:
  explicit ArrayKeys(size_t next) : next_(next) {}
  /// The next key; valid until the following call.
  std::string_view next();

 private:
  size_t next_;
  char buf_[24];
};

}  // namespace mongostore::engine::update_detail
