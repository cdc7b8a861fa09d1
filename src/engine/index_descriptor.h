// IndexDescriptor: one secondary (or the `_id`) index of a collection as the catalog keeps it.
//
// A descriptor is parsed from a createIndexes key pattern and options, checked the way
// mongod checks them, and written back in MongoDB's listIndexes shape
// ({v: 2, key, name, unique, sparse, partialFilterExpression, collation}), plus mongostore's own
// `storedFields` (below). The catalog record adds
// two private fields per index: `table` (the WiredTiger table holding the entries) and `multikey`
// (whether some document produced more than one key, which limits the planner).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/collation.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {

struct IndexField {
  std::string path;
  bool descending = false;
};

class IndexDescriptor {
 public:
  /// Parses a key pattern ({a: 1, "b.c": -1}) and createIndexes options ({name, unique,
  /// sparse, partialFilterExpression, collation, storedFields}); throws CannotCreateIndex (67),
  /// BadValue or InvalidOptions (72) for what mongod rejects (a bad collation:
  /// Collation::parse's errors), and TypeMismatch (14) or CannotCreateIndex for a storedFields
  /// that is not an array of 1 to kMaxStoredFields distinct top-level field names.
  /// A missing name is MongoDB's default ("a_1_b.c_-1"). Without a `collation` option the
  /// index takes `default_collation` (the collection's; null: simple); `{locale: "simple"}`
  /// asks for the simple one whatever the collection's default.
  static IndexDescriptor parse(bson::DocumentView key_pattern, bson::DocumentView options,
                               std::shared_ptr<const Collation> default_collation = nullptr);
  /// Reads one element of a catalog record's `indexes` array.
  static IndexDescriptor from_catalog(bson::DocumentView spec);

  /// MongoDB's generated index name for a key pattern.
  static std::string default_name(bson::DocumentView key_pattern);

  const std::string& name() const { return name_; }
  const std::vector<IndexField>& fields() const { return fields_; }
  bson::DocumentView key_pattern() const { return key_pattern_.view(); }
  bool unique() const { return unique_; }
  bool sparse() const { return sparse_; }
  bool is_id_index() const { return name_ == "_id_"; }
  /// The partial filter, when the index is partial.
  const std::optional<Matcher>& partial_filter() const { return partial_; }
  bson::DocumentView partial_filter_expression() const { return partial_expression_.view(); }
  /// The collation its string keys are stored under (ICU sort keys); null: simple (bytes).
  const Collation* collation() const { return collation_.get(); }

  /// mongostore's `storedFields` option (not MongoDB's: a real mongod refuses it): top-level
  /// fields whose values each document's first entry carries beside the record id, so that a
  /// find reading only these fields is answered from the index without reading the
  /// documents (a covered read, index_entry_value.h). Every write that changes one of them
  /// rewrites the document's first entry, which alone carries them. Empty: an ordinary index.
  const std::vector<std::string>& stored_fields() const { return stored_fields_; }
  static constexpr size_t kMaxStoredFields = 32;
  /// Whether every one of `fields` (top-level names) is a stored field.
  bool stores_all(const std::vector<std::string>& fields) const;

  /// The listIndexes document {v: 2, key, name, ...options}.
  bson::Document to_document() const;
  /// to_document() plus the private catalog fields.
  bson::Document to_catalog(const std::string& table, bool multikey) const;

  /// Same key pattern (field names, order and directions) and same collation: as in MongoDB,
  /// {a: 1} under two collations are two different indexes.
  bool same_key(const IndexDescriptor& other) const;
  /// Same key pattern, whatever the collations (what dropIndexes by key pattern matches).
  bool same_key_pattern(const IndexDescriptor& other) const;
  /// Same options that matter for IndexOptionsConflict (unique, sparse, partial filter,
  /// stored fields).
  bool same_options(const IndexDescriptor& other) const;

 private:
  std::string name_;
  std::vector<IndexField> fields_;
  bson::Document key_pattern_;
  bool unique_ = false;
  bool sparse_ = false;
  bson::Document partial_expression_;
  std::optional<Matcher> partial_;
  std::shared_ptr<const Collation> collation_;
  std::vector<std::string> stored_fields_;
};

}  // namespace mongostore::engine
