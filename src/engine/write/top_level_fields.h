// TopLevelFields: the top-level fields of one document, looked up by name in one pass.
//
// update_document asks both versions of a document for the top-level field of each affected
// index (and for _id); DocumentView::get walks from the first element every time. This
// remembers each element it has walked past, so any number of lookups walk the document at
// most once, and no further than the last field asked for (the first kRemembered fields are
// remembered; lookups past them walk from the start, as get does).
//
// Not thread-safe (one write path owns it); the document's bytes must outlive it.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "mongostore/bson/document.h"

namespace mongostore::engine {

class TopLevelFields {
 public:
  explicit TopLevelFields(bson::DocumentView doc) : doc_(doc), next_(doc.begin()) {}

  bson::DocumentView document() const { return doc_; }

  /// The value of the first top-level field named `key` (missing when there is none), as
  /// DocumentView::get returns it.
  bson::Value get(std::string_view key) {
    for (size_t i = 0; i < count_; ++i) {
      if (seen_[i].key == key) return seen_[i].value;
    }
    const bson::DocumentView::Iterator end = doc_.end();
    while (!(next_ == end)) {
      // Past kRemembered fields (rare: an index on a late field of a wide document), a
      // lookup walks on its own, as DocumentView::get; nothing is allocated either way.
      if (count_ == kRemembered) return doc_.get(key);
      seen_[count_++] = *next_;
      ++next_;
      if (seen_[count_ - 1].key == key) return seen_[count_ - 1].value;
    }
    return bson::Value();
  }

 private:
  static constexpr size_t kRemembered = 16;
  bson::DocumentView doc_;
  bson::DocumentView::Iterator next_;
  std::array<bson::Element, kRemembered> seen_;
  size_t count_ = 0;
};

}  // namespace mongostore::engine
