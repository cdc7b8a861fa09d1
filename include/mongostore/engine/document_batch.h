// DocumentBatch: one batch of a find's documents, copied out of the snapshot end to end into
// one buffer (or, for the reads that make whole documents anyway, held as those documents).
// A reader that visits each document in place (PreparedFind::for_each) pays one buffer per
// cursor, reused batch after batch, instead of a heap allocation and a free per document.
//
// The views it hands out point into the batch: valid until the next clear() or append.
// Not thread-safe: one cursor's reader.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::engine {

class DocumentBatch {
 public:
  /// Empties the batch, keeping its memory for the next one.
  void clear() {
    bytes_.clear();
    ends_.clear();
    documents_.clear();
  }

  /// The buffer to append one document's bytes to; end_document() then marks where it ends.
  std::vector<uint8_t>& bytes() { return bytes_; }
  void end_document() { ends_.push_back(bytes_.size()); }
  /// Appends a copy of `doc`.
  void append_copy(bson::DocumentView doc) {
    bytes_.insert(bytes_.end(), doc.data(), doc.data() + doc.size());
    end_document();
  }
  /// Appends a document already made (kept as it is, not copied).
  void append(bson::Document doc) { documents_.push_back(std::move(doc)); }

  /// Makes room for `documents` documents in all, each the size of the average one so far,
  /// without reallocating again until then; for the buffer, only up to kReservedBytes (large
  /// documents grow it by doubling, never by a guess many times their size).
  void reserve(size_t documents) {
    if (ends_.empty() || documents <= ends_.size()) return;
    ends_.reserve(documents);
    const size_t average = bytes_.size() / ends_.size();
    if (average != 0 && documents <= kReservedBytes / average) {
      bytes_.reserve(std::max(bytes_.capacity(), average * documents));
    }
  }
  static constexpr size_t kReservedBytes = 64 * 1024;

  /// The bytes the batch holds room for (its buffer and the ends of its documents).
  size_t capacity_bytes() const {
    return bytes_.capacity() + ends_.capacity() * sizeof(size_t) +
           documents_.capacity() * sizeof(bson::Document);
  }

  /// How many documents the batch holds.
  size_t size() const { return ends_.size() + documents_.size(); }
  bool empty() const { return size() == 0; }

  /// Calls `visit(view)` for each document, in the order appended (the bytes' documents
  /// first: a batch is filled one way or the other, never both).
  template <class Visit>
  void for_each(Visit&& visit) const {
    size_t begin = 0;
    for (size_t end : ends_) {
      visit(bson::DocumentView(bytes_.data() + begin, end - begin));
      begin = end;
    }
    for (const bson::Document& d : documents_) visit(d.view());
  }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<size_t> ends_;
  std::vector<bson::Document> documents_;
};

}  // namespace mongostore::engine
