// IndexKeyGenerator: the index entries one document produces for one index.
//
// Per field of the key pattern, the values the dotted path reaches: a missing field is null,
// an array at the end of the path contributes each element (an empty array contributes
// undefined, as in MongoDB), and arrays on the way are traversed. A compound key is the
// cartesian product of its fields' values, each part encoded with append_index_key (so
// compound keys are plain concatenations and sort field by field). Two fields that each
// reach through a different array fail with CannotIndexParallelArrays (171), as in MongoDB.
// A sparse index skips documents in which every field is missing; a partial index skips
// documents its partialFilterExpression does not match. Under an index collation every string
// (also inside arrays and documents) is stored as its ICU sort key (Collation::comparison_key),
// so the keys order, and a unique index collides, as the collation compares: an entry's bytes
// can never be read back as the string it came from.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/index_descriptor.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// One index entry of a document: the key bytes and the value of each field (views into the
/// document, or into static null / undefined values).
struct GeneratedKey {
  std::string bytes;
  std::vector<bson::Value> values;
};

class IndexKeyGenerator {
 public:
  explicit IndexKeyGenerator(const IndexDescriptor& descriptor) : descriptor_(&descriptor) {}

  /// Appends the document's distinct keys (sorted by bytes) to `out`; sets *multikey when the
  /// document reached an array through some field. Adds nothing for a document the index
  /// skips (sparse or partial).
  void generate(bson::DocumentView doc, std::vector<GeneratedKey>* out, bool* multikey) const;
  /// The smallest of the document's keys (the bytes generate() lists first), without listing
  /// the others; nullopt when it has none. For a writer that needs only a document's first
  /// entry (an index with stored fields: index_entry_value.h).
  std::optional<std::string> first_key(bson::DocumentView doc) const {
    return first_key_from(doc, [&](std::string_view name) { return doc.get(name); });
  }
  /// The same, from `value_of(name)`: the first top-level value of that name in `doc`
  /// (missing when absent), as DocumentView::get and TopLevelDiff return it (the lookup of
  /// IndexEntryValue::stored_fields_from). An update's write path has the field in its
  /// TopLevelDiff already: a one-field index walks the rest of its key path from there.
  /// `doc` is still what a partial filter matches and what a compound index's keys come from.
  template <class ValueOf>
  std::optional<std::string> first_key_from(bson::DocumentView doc, ValueOf&& value_of) const {
    if (descriptor_->fields().size() != 1) return first_key_at(doc, bson::Value());
    return first_key_at(doc, value_of(key_path_head()));
  }

 private:
  /// The first component of the first key field's path (the top-level field it starts at).
  std::string_view key_path_head() const;
  /// first_key_from, given that top-level field's value (ignored by a compound index).
  std::optional<std::string> first_key_at(bson::DocumentView doc,
                                          const bson::Value& top_level) const;

  const IndexDescriptor* descriptor_;
};

/// One key part of `v` for index `d`: append_index_key of the value, or of its
/// comparison_key under the index's collation.
std::string index_key_of(const IndexDescriptor& d, const bson::Value& v, bool descending);

/// "{ a: 1, b: \"x\" }": the dup-key part of MongoDB's E11000 message.
std::string describe_key(const IndexDescriptor& descriptor, const std::vector<bson::Value>& values);

}  // namespace mongostore::engine
