// IndexCatalog: the secondary indexes of collections: createIndexes (validation of the spec
// against the existing ones, the build from a scan of the collection), listIndexes and
// dropIndexes. The index list of a CollectionEntry changes only here, under the
// collection's exclusive WriteGate, with the durable record written in the same step (the
// in-memory list changes in the record's on-commit hook).
//
// Thread-safe (serialised per collection by its WriteGate).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/catalog/collection_catalog.h"
#include "engine/catalog/durable_catalog.h"
#include "engine/operation_context.h"

namespace mongostore::engine {

class IndexCatalog {
 public:
  IndexCatalog(WiredTigerConnection& connection, DurableCatalog& durable,
               CollectionCatalog& collections)
      : connection_(connection), durable_(durable), collections_(collections) {}

  /// See Engine::create_index / list_indexes / drop_index for contracts and errors.
  std::string create(OperationContext& op, std::string_view db, std::string_view coll,
                     bson::DocumentView keys, bson::DocumentView options);
  std::vector<bson::Document> list(std::string_view db, std::string_view coll);
  void drop(OperationContext& op, std::string_view db, std::string_view coll,
            std::string_view name);
  void drop(OperationContext& op, std::string_view db, std::string_view coll,
            bson::DocumentView keys);

 private:
  template <class Pred>
  void drop_where(OperationContext& op, std::string_view db, std::string_view coll,
                  const std::string& not_found, bool is_id, Pred&& pred);
  void build(OperationContext& op, const CollectionEntry& entry, IndexEntry& ix);

  WiredTigerConnection& connection_;
  DurableCatalog& durable_;
  CollectionCatalog& collections_;
};

}  // namespace mongostore::engine
