// WriteCommands: the write operations of the Engine interface, built on the one-document
// write path (collection_write_path.h): insert (one, many), update (one, many, with upsert;
// replaceOne is an update whose document is the replacement), delete (one, many),
// findAndModify, and $out's replace_collection_documents.
//
// Each operation resolves its collection (creating it when the write may) with its WriteGate
// held shared, plans its filter, and runs its reads and writes in one unit of work through
// write_conflict_retry, so a read-check-write has exactly one winner. An upsert that loses a
// race on a unique key retries (as mongod does) and finds the winner's document.
//
// See include/mongostore/engine/engine.h for each operation's contract and errors.
// Thread-safe: it holds no state of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/catalog/collection_catalog.h"
#include "engine/catalog/durable_catalog.h"
#include "engine/catalog/index_catalog.h"
#include "engine/operation_context.h"
#include "mongostore/engine/engine.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/engine/update.h"

namespace mongostore::engine {

class WriteCommands {
 public:
  WriteCommands(DurableCatalog& durable, CollectionCatalog& collections, IndexCatalog& indexes)
      : durable_(durable), collections_(collections), indexes_(indexes) {}

  bson::OwnedValue insert_one(OperationContext& op, std::string_view db, std::string_view coll,
                              bson::DocumentView document, const InsertOptions& options);
  InsertManyResult insert_many(OperationContext& op, std::string_view db, std::string_view coll,
                               const std::vector<bson::Document>& documents,
                               const InsertOptions& options);
  /// updateOne (`multi` false) / updateMany (true); replaceOne with a replacement document.
  UpdateResult update(OperationContext& op, std::string_view db, std::string_view coll,
                      bson::DocumentView filter, bson::DocumentView update,
                      const UpdateOptions& options, bool multi);
  int64_t remove(OperationContext& op, std::string_view db, std::string_view coll,
                 bson::DocumentView filter, bool multi, const DeleteOptions& options);
  /// findOneAndUpdate / findOneAndReplace (`update` given) or findOneAndDelete (nullptr).
  std::optional<bson::Document> find_and_modify(OperationContext& op, std::string_view db,
                                                std::string_view coll, bson::DocumentView filter,
                                                const bson::DocumentView* update,
                                                const FindAndModifyOptions& options);
  void replace_collection_documents(
      OperationContext& op, std::string_view db, std::string_view coll,
      const std::function<std::optional<bson::Document>()>& next_document,
      bool bypass_document_validation);

  /// BadValue (2) for a replacement document with $-operators.
  static void reject_operators_in_replacement(bson::DocumentView replacement);

 private:
  // updateOne's fast path for an `_id` pinned with scalar equality guards
  // (write/id_guard_filter.h); nullopt when the stored document leaves it to the general path
  // (nothing written then).
  std::optional<UpdateResult> update_by_id(OperationContext& op, std::string_view db,
                                           std::string_view coll, bson::DocumentView filter,
                                           const bson::Value& id, bson::DocumentView update,
                                           const UpdateOptions& options);
  // The document an upsert inserts: the filter's equality fields, then the update.
  static bson::Document build_upsert(const Matcher& matcher, const Update& update);

  DurableCatalog& durable_;
  CollectionCatalog& collections_;
  IndexCatalog& indexes_;
};

}  // namespace mongostore::engine
