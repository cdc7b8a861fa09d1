// RecordReader: rebuilds stored records, with everything they refer to (reference §1.1's
// decoding rules, §4).
//
// The documents of a graph are read level by level, one `_id` $in query per collection and
// level. Records still alive in the store's identity cache
// are reused, not rebuilt: a fetch of a live sid returns the same object.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mongostore/bson/document.h"
#include "records/store_context.h"

namespace mongostore::records {

class RecordReader {
 public:
  using SchemaPtr = std::shared_ptr<const RecordSchema>;
  explicit RecordReader(StoreContext& store) : store_(store) {}

  /// RecordNotFound when `schema`'s collection has no document with this sid.
  Value::RecordPtr fetch(const SchemaPtr& schema, int64_t sid);
  /// In ascending sid order; RecordNotFound for the first missing sid.
  std::vector<Value::RecordPtr> fetch_many(const SchemaPtr& schema, std::vector<int64_t> sids);
  /// Every record of `schema` matching `filter`, sorted by sid.
  std::vector<Value::RecordPtr> fetch_matching(const SchemaPtr& schema, bson::DocumentView filter);

 private:
  using Key = std::pair<std::string, int64_t>;  // (collection, sid)
  // Reads the documents of `wanted` and, level by level, of every record they refer to.
  void load(std::map<Key, SchemaPtr> wanted);
  Value::RecordPtr build(const SchemaPtr& schema, int64_t sid);
  Value::RecordPtr cached(const std::string& table, int64_t sid);
  // The columns() of each of `schema`'s fields, computed once per schema for all the records
  // this reader builds (a map: the references build() holds stay valid while it recurses).
  const std::vector<std::vector<Column>>& columns_of(const SchemaPtr& schema);

  StoreContext& store_;
  std::map<Key, bson::Document> documents_;
  std::map<Key, Value::RecordPtr> built_;
  std::set<Key> building_;
  std::map<SchemaPtr, std::vector<std::vector<Column>>> columns_;
};

}  // namespace mongostore::records
