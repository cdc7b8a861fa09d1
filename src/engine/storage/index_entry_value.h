// IndexEntryValue: the value of one secondary index entry.
//
// An ordinary index's value is the record id (the document's key in its RecordTable), as it
// always was. An index with stored fields (IndexDescriptor::stored_fields) puts before it a
// BSON document of those fields as the indexed document holds them, in the document's first
// entry (the one with the smallest key bytes) only:
//
//   first entry   value = {<stored field>: <value>, ...} (BSON, self-delimiting) then record id
//   other entries value = 00 00 00 00 (a length no BSON document has) then record id
//
// The fields come in the document's order, each the first top-level field of that name (what
// DocumentView::get reads); a field the document lacks is left out. A reader that needs only
// these fields takes them from the entry and never reads the document: a covered read. Only
// the first entry carries them so that a multikey document (k entries) costs one copy of its
// fields, and a write that changes them rewrites one entry, not k: a forward scan meets a
// document's first entry before its others, and a reader that meets another entry first (a
// range starting inside the document's keys, a backward scan) reads the document. The write
// path keeps this true: a write that changes the stored fields or the first key rewrites the
// entries concerned in the same unit of work (collection_write_path.cc).
//
// Pure functions over bytes; thread-safe.
#pragma once

#include <wiredtiger.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/index_descriptor.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"
#include "mongostore/error.h"

namespace mongostore::engine {

struct IndexEntryValue {
  std::string_view record_id;
  /// The stored fields when `has_stored`; the empty document for an ordinary index.
  bson::DocumentView stored;
  /// Whether the entry carries its document's stored fields: the first entry of a document in
  /// an index with stored fields.
  bool has_stored = false;

  /// What an entry other than its document's first carries before the record id, in an index
  /// with stored fields: a zero length, which no BSON document has.
  static constexpr std::string_view kNotStoredHere{"\0\0\0\0", 4};

  /// Splits the value `v` of an entry of `d`'s table. DataCorruptionDetected (12) when an
  /// index with stored fields holds a value that starts with neither a whole BSON document nor
  /// kNotStoredHere.
  static IndexEntryValue read(const IndexDescriptor& d, const WT_ITEM& v) {
    const char* data = static_cast<const char*>(v.data);
    if (d.stored_fields().empty()) return {std::string_view(data, v.size), bson::DocumentView()};
    uint32_t n = 0;
    if (v.size >= sizeof n) std::memcpy(&n, data, sizeof n);  // BSON's length: little-endian
    if (v.size >= sizeof n && n == 0) {
      return {std::string_view(data + sizeof n, v.size - sizeof n), bson::DocumentView(nullptr, 0),
              false};
    }
    if (v.size < sizeof n || n < 5 || n > v.size) {
      throw Error(ErrorCode::kDataCorruptionDetected,
                  "index " + d.name() + " has an entry whose stored fields are cut short");
    }
    return {std::string_view(data + n, v.size - n),
            bson::DocumentView(reinterpret_cast<const uint8_t*>(data), n), true};
  }

  /// The value `v` of an entry of an index without stored fields, with no check: the record
  /// id, and `stored` a view of nothing (not to be read).
  static IndexEntryValue of_record_id(const WT_ITEM& v) {
    return {std::string_view(static_cast<const char*>(v.data), v.size),
            bson::DocumentView(nullptr, 0)};
  }

  /// What the entry of a document's `i`-th key (by key bytes, from 0) carries before the record
  /// id, given `stored`, the document's stored fields (stored_fields_from): `stored` for the
  /// first, kNotStoredHere for the others, nothing at all for an index without stored fields.
  static std::string_view stored_at(const IndexDescriptor& d, size_t i, std::string_view stored) {
    if (i == 0 || d.stored_fields().empty()) return stored;
    return kNotStoredHere;
  }

  /// What the first entry of `d` carries for a document (stored_at): its stored fields as a
  /// BSON document, or nothing for an index without stored fields. From `value_of(name)`: the
  /// first top-level value of that name in the document (missing when absent), a view into its
  /// bytes, as DocumentView::get and TopLevelDiff::after return it. An update's write path has
  /// its fields at hand in its TopLevelDiff already.
  template <class ValueOf>
  static std::string stored_fields_from(const IndexDescriptor& d, ValueOf&& value_of) {
    if (d.stored_fields().empty()) return {};
    // Each value's element starts before it: its type byte and its name with the name's NUL
    // (BSON's layout). The elements are copied in the document's order, whatever the order of
    // the names.
    struct Span {
      const uint8_t* begin;
      const uint8_t* end;
    };
    Span spans[IndexDescriptor::kMaxStoredFields];
    size_t n = 0, bytes = 5;
    for (const std::string& name : d.stored_fields()) {
      const bson::Value v = value_of(std::string_view(name));
      if (v.is_missing()) continue;
      Span span{v.data() - name.size() - 2, v.data() + v.size()};
      size_t i = n++;
      for (; i > 0 && spans[i - 1].begin > span.begin; --i) spans[i] = spans[i - 1];
      spans[i] = span;
      bytes += static_cast<size_t>(span.end - span.begin);
    }
    std::string out(bytes, '\0');
    char* p = out.data() + 4;
    for (size_t i = 0; i < n; ++i) {
      const size_t len = static_cast<size_t>(spans[i].end - spans[i].begin);
      std::memcpy(p, spans[i].begin, len);
      p += len;
    }
    for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(bytes >> (8 * i));  // little-endian
    return out;
  }

  /// The same, each field looked up in `doc` (a walk from its start per field).
  static std::string stored_fields_of(const IndexDescriptor& d, bson::DocumentView doc) {
    return stored_fields_from(d, [&](std::string_view name) { return doc.get(name); });
  }
};

}  // namespace mongostore::engine
