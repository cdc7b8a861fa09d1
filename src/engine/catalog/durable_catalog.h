// DurableCatalog: the one owner of `table:_mongostore_catalog`, the table that says which
// collections exist, their options and their indexes, and which WiredTiger tables hold them.
//
// One record per collection, keyed by its namespace: {ns, db, collection, table, options,
// indexes: [...]} (options: the validator fields and the default `collation`, as
// listCollections shows them; a record without `collation` is simple), the `_id_`
// index first, each secondary index with its table and multikey flag. The record changes in
// the same WiredTiger transaction as what it describes (a rename, a drop, the first array key
// of an index), so after a crash it agrees with the tables. load() reads it at open and
// drops the tables no record names (left by a drop a crash interrupted).
//
// Methods taking an OperationContext write in its current unit of work. new_table_uri is
// thread-safe; load() runs once, before anything else uses the engine.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "engine/catalog/collection_entry.h"
#include "engine/operation_context.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

class WiredTigerConnection;

class DurableCatalog {
 public:
  static constexpr const char* kUri = "table:_mongostore_catalog";

  explicit DurableCatalog(WiredTigerConnection& connection) : connection_(connection) {}

  /// Creates the catalog table if missing, reads every record, drops orphan tables and makes
  /// new_table_uri continue after the tables that exist. Returns the collections by ns.
  std::map<std::string, std::shared_ptr<CollectionEntry>> load();

  /// A fresh table name for a collection or index ("table:<kind>-<n>-<salt>").
  std::string new_table_uri(const char* kind);

  /// listIndexes' description of the `_id` index.
  static bson::Document id_index_spec();
  /// The catalog record of `entry` with the index list `indexes`.
  static bson::Document record(const CollectionEntry& entry, const IndexList& indexes);

  /// Writes (inserts or replaces) the record of `ns`.
  void put(OperationContext& op, const std::string& ns, const bson::Document& record,
           const char* what = "catalog write");
  /// Removes the record of `ns`.
  void remove(OperationContext& op, const std::string& ns);
  /// Moves a record to a new namespace: both changes in the caller's unit of work.
  void rename(OperationContext& op, const std::string& from_ns, const std::string& to_ns,
              const bson::Document& record);
  /// Marks `ix` multikey in the record of `entry` (unless the record already says so, which
  /// then sets ix.multikey_persisted). Nothing when the record is gone (a drop is under way).
  void persist_multikey(OperationContext& op, const CollectionEntry& entry, IndexEntry& ix);

 private:
  WiredTigerConnection& connection_;
  std::atomic<long long> next_table_{1};
};

}  // namespace mongostore::engine
