// CollectionCatalog: namespaces -> collections (MongoDB's CollectionCatalog plus the
// collection DDL): create (explicit and implicit), collMod, drop, rename, dropDatabase, and
// the resolution of a name for a read or a write.
//
// Every change is made durable through the DurableCatalog in its own unit of work, and the
// in-memory map changes in that unit's on-commit hook, under the catalog lock: the map and
// the durable record never disagree about a committed change.
//
// Thread-safe. Lock order: a collection's WriteGate before the catalog lock (drops, renames
// and index builds all take them so), and two gates in namespace order.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/catalog/collection_entry.h"
#include "engine/catalog/durable_catalog.h"
#include "engine/catalog/namespace_less.h"
#include "engine/operation_context.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

class WiredTigerConnection;

class CollectionCatalog {
 public:
  // $out writes into collections named so; the ones a crash left behind are dropped at open.
  static constexpr const char* kTemporaryOutPrefix = "tmp.agg_out.";

  CollectionCatalog(WiredTigerConnection& connection, DurableCatalog& durable)
      : connection_(connection), durable_(durable) {}

  /// Loads the durable catalog and drops the temporary collections of an interrupted $out.
  void open(OperationContext& op);

  std::vector<std::string> list_databases();
  std::vector<std::string> list_collections(std::string_view db);
  bool exists(std::string_view db, std::string_view coll);

  /// See Engine::create_collection / modify_collection / collection_options /
  /// drop_collection / rename_collection / drop_database for contracts and errors.
  void create(OperationContext& op, std::string_view db, std::string_view coll,
              bson::DocumentView options);
  void modify(OperationContext& op, std::string_view db, std::string_view coll,
              bson::DocumentView options);
  bson::Document options(std::string_view db, std::string_view coll);
  bool drop(OperationContext& op, std::string_view db, std::string_view coll);
  void rename(OperationContext& op, std::string_view from_db, std::string_view from,
              std::string_view to_db, std::string_view to, bool drop_target);
  void drop_database(OperationContext& op, std::string_view db);

  /// The collection named so, or nullptr.
  std::shared_ptr<CollectionEntry> lookup(std::string_view db, std::string_view coll);

  /// The collection named so, created when missing; never null. The entry is the one the
  /// catalog held (or got) under the catalog lock: looking the name up again after creating
  /// it could find nothing, because a drop may have come in between (issue 18: an insert
  /// racing a drop wrote through a null entry). The caller may still find it retired by the
  /// time it holds its gate; writable() then resolves the name again.
  std::shared_ptr<CollectionEntry> lookup_or_create(OperationContext& op, std::string_view db,
                                                    std::string_view coll);

  /// The collection's entry, and whether this call created it (false: it already existed);
  /// a created one gets `validation` and `default_collation` (null: simple).
  std::pair<std::shared_ptr<CollectionEntry>, bool> create_if_missing(
      OperationContext& op, std::string_view db, std::string_view coll,
      std::shared_ptr<const CollectionValidation> validation = nullptr,
      std::shared_ptr<const Collation> default_collation = nullptr);

  /// The collection a write goes to, with its write gate held shared for the write.
  struct WriteTarget {
    std::shared_ptr<CollectionEntry> entry;  // null: no such collection (and not `create`)
    std::shared_lock<WriteGate> gate;
  };
  /// A writer that resolved the name just before a rename or drop waits at the gate, then
  /// finds the entry retired and resolves the name again, instead of writing into the
  /// renamed collection (the write goes to whatever has the name now, as on MongoDB).
  WriteTarget writable(OperationContext& op, std::string_view db, std::string_view coll,
                       bool create);

  /// A name for a new $out temporary collection (tmp.agg_out.<n>).
  std::string next_temporary_name();

 private:
  void drop_temporary_collections(OperationContext& op);

  WiredTigerConnection& connection_;
  DurableCatalog& durable_;
  std::shared_mutex catalog_mutex_;
  std::map<std::string, std::shared_ptr<CollectionEntry>, NamespaceLess> catalog_;  // by "db.coll"
  std::atomic<long long> next_temporary_{0};  // tmp.agg_out.<n>
};

}  // namespace mongostore::engine
