// IndexDescriptor: one secondary (or the `_id`) index of a collection as the catalog keeps it.
//
// A descriptor is parsed from a createIndexes key pattern and options, checked the way
// mongod checks them, and written back in MongoDB's listIndexes shape
// ({v: 2, key, name, unique, sparse, partialFilterExpression}). The catalog record adds two
// private fields per index: `table` (the WiredTiger table holding the entries) and
// `multikey` (whether some document produced more than one key, which limits the planner).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {

struct IndexField {
  std::string path;
  bool descending = false;
};

class IndexDescriptor {
 public:
  /// Parses a key pattern ({a: 1, "b.c": -1}) and createIndexes options ({name, unique,
  /// sparse, partialFilterExpression}); throws CannotCreateIndex (67), BadValue or
  /// InvalidOptions (72) for what mongod rejects. A missing name is MongoDB's default
  /// ("a_1_b.c_-1").
  static IndexDescriptor parse(bson::DocumentView key_pattern, bson::DocumentView options);
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

  /// The listIndexes document {v: 2, key, name, ...options}.
  bson::Document to_document() const;
  /// to_document() plus the private catalog fields.
  bson::Document to_catalog(const std::string& table, bool multikey) const;

  /// Same key pattern (field names, order and directions).
  bool same_key(const IndexDescriptor& other) const;
  /// Same options that matter for IndexOptionsConflict (unique, sparse, partial filter).
  bool same_options(const IndexDescriptor& other) const;

 private:
  std::string name_;
  std::vector<IndexField> fields_;
  bson::Document key_pattern_;
  bool unique_ = false;
  bool sparse_ = false;
  bson::Document partial_expression_;
  std::optional<Matcher> partial_;
};

}  // namespace mongostore::engine
