// bulkWrite: a batch of inserts, updates, replaces and deletes on one collection.
//
//   using namespace mongostore::client;
//   std::vector<WriteModel> ops = {
//       InsertOne{make_document("_id", 1)},
//       UpdateOne{make_document("_id", 2), make_document("$inc", make_document("n", 1))},
//       DeleteMany{make_document("done", true)},
//   };
//   try {
//     BulkWriteResult r = bulk_write(orders, ops, {.ordered = false});
//   } catch (const BulkWriteError& e) {
//     for (const WriteError& w : e.write_errors()) ...;  // w.index is the failing op
//     e.result();                                        // what was done before/around it
//   }
//
// Backend-neutral: written against Collection only, so it behaves the same on every Client.
// Each model runs as its own write (as on a MongoDB server, a bulk is not a transaction).
// Ordered (the default) stops at the first failing operation; unordered runs them all and
// reports every failure. Either way, a failure raises BulkWriteError with the partial result.
//
// Validation done before anything is written (as drivers do, raising a plain Error with code
// BadValue): an empty batch, an UpdateOne/UpdateMany whose update is empty or has a key that
// is not a $-operator, a ReplaceOne whose replacement has a top-level $-key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"

namespace mongostore::client {

struct InsertOne {
  bson::Document document;
};

struct UpdateOne {
  bson::Document filter;
  /// An operator document ({$set: ...}); replacements go through ReplaceOne.
  bson::Document update;
  bool upsert = false;
  std::vector<bson::Document> array_filters;
  /// An update pipeline instead of `update` (which must then be empty).
  std::vector<bson::Document> pipeline;
  IndexHint hint;
  /// Which document to update when several match (MongoDB 8.0).
  bson::Document sort;
  /// The collation of the filter (see engine::FindOptions::collation); empty: none given.
  bson::Document collation;
};

struct UpdateMany {
  bson::Document filter;
  bson::Document update;
  bool upsert = false;
  std::vector<bson::Document> array_filters;
  /// An update pipeline instead of `update` (which must then be empty).
  std::vector<bson::Document> pipeline;
  IndexHint hint;
  /// The collation of the filter (see engine::FindOptions::collation); empty: none given.
  bson::Document collation;
};

struct ReplaceOne {
  bson::Document filter;
  /// A document without $-keys; its `_id`, if any, must match the stored one.
  bson::Document replacement;
  bool upsert = false;
  IndexHint hint;
  /// Which document to replace when several match (MongoDB 8.0).
  bson::Document sort;
  /// The collation of the filter (see engine::FindOptions::collation); empty: none given.
  bson::Document collation;
};

struct DeleteOne {
  bson::Document filter;
  IndexHint hint;
  /// The collation of the filter (see engine::FindOptions::collation); empty: none given.
  bson::Document collation;
};

struct DeleteMany {
  bson::Document filter;
  IndexHint hint;
  /// The collation of the filter (see engine::FindOptions::collation); empty: none given.
  bson::Document collation;
};

using WriteModel =
    std::variant<InsertOne, UpdateOne, UpdateMany, ReplaceOne, DeleteOne, DeleteMany>;

struct BulkWriteOptions {
  /// true: stop at the first failing operation. false: run all, collect every failure.
  bool ordered = true;
  /// Variables ({name: expression}) every operation's filter $expr (and update pipeline) can
  /// read as $$name, MongoDB 5.0's `let`.
  bson::Document let;
  /// MongoDB's bypassDocumentValidation: the collection's validator is not applied.
  bool bypass_document_validation = false;
};

struct BulkWriteResult {
  int64_t inserted_count = 0;
  /// Documents matched by updates and replaces (upserts do not count).
  int64_t matched_count = 0;
  int64_t modified_count = 0;
  int64_t deleted_count = 0;
  int64_t upserted_count = 0;
  /// Operation index → `_id` of the document an upsert inserted.
  std::map<size_t, bson::OwnedValue> upserted_ids;
  /// Operation index → `_id` of each document an InsertOne inserted (successful ones only).
  std::map<size_t, bson::OwnedValue> inserted_ids;
};

/// One failed operation of a bulk write.
struct WriteError {
  size_t index = 0;  // position of the operation in the batch
  int32_t code = 0;  // MongoDB's error code
  std::string errmsg;
  /// For DuplicateKey (11000): the index's key pattern and the offending key; else empty.
  bson::Document key_pattern;
  bson::Document key_value;

  std::string_view code_name() const { return mongostore::code_name(code); }
};

/// Raised when at least one operation failed. code() and what() are those of the first write
/// error; write_errors() lists all of them in operation order; result() is what was done.
class BulkWriteError : public Error {
 public:
  BulkWriteError(std::vector<WriteError> write_errors, BulkWriteResult result);

  const std::vector<WriteError>& write_errors() const { return write_errors_; }
  const BulkWriteResult& result() const { return result_; }

 private:
  std::vector<WriteError> write_errors_;
  BulkWriteResult result_;
};

/// Runs `models` against `collection`. Throws Error(BadValue) for invalid models (nothing is
/// written then) and BulkWriteError when operations fail.
BulkWriteResult bulk_write(const Collection& collection, const std::vector<WriteModel>& models,
                           const BulkWriteOptions& options = {});

}  // namespace mongostore::client
