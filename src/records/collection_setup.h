// CollectionSetup: the collections and indexes a record type needs, created before its first
// insert (reference §1.5), idempotently and once per process per type.
//
// Record collections get `uq_<c>_content_id` (content_id dedup), `ix_<c>__httk_role`,
// `ix_<c>_logical_id`, `ix_<c>_store_timestamp` (timestamps on), one index per column of
// every Indexed / Unique field (`ix_…` / `uq_…`; a unique index on a nullable column is
// partial, on documents that have the column), and the composite indexes. Names over 63
// characters become name[:54] + "_" + the first 8 hex of the name's SHA-256.
//
// Each collection gets its `$jsonSchema` validator (reference §1.4; record_validator.h),
// validationLevel strict and validationAction error: `create` with the validator, or `collMod`
// when the collection exists already (another process, or an upgrade that added a field), so a
// document of the wrong shape is refused by the server whoever writes it.
#pragma once

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "mongostore/client/client.h"
#include "mongostore/records/schema.h"

namespace mongostore::records {

/// MongoDB and httk keep index and collection names to 63 characters.
std::string bounded_name(const std::string& name);

class CollectionSetup {
 public:
  CollectionSetup(client::Database db, bool store_timestamps)
      : db_(std::move(db)), store_timestamps_(store_timestamps) {}

  /// Prepares the collection of `schema` and of every record type it reaches.
  void ensure(const std::shared_ptr<const RecordSchema>& schema);
  /// Prepares a family's dispatch collection (validator: these record names) and its
  /// `{record, sid}` unique index.
  void ensure_dispatch(const std::string& collection, const std::vector<std::string>& records);

 private:
  void create(const RecordSchema& schema);
  // Creates `name` with `validator`, or sets it on the existing collection.
  void create_collection(const std::string& name, const bson::Document& validator);

  client::Database db_;
  bool store_timestamps_;
  std::mutex mu_;
  std::set<std::string> done_;
};

}  // namespace mongostore::records
