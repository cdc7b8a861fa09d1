// Client, Database, Collection: the seam every store is written against.
//
//   auto client = mongostore::client::connect("embedded:/var/lib/myapp");  // or "embedded:memory"
//   auto orders = client->database("shop").collection("orders");
//   orders.insert_one(make_document("_id", 1, "total", 9.5));
//   auto doc = orders.find_one(make_document("_id", 1));
//
// A Client is one backend: the embedded engine in this process (the default), or — in a later
// release — a MongoDB deployment through libmongoc. Store code holds a Client and never knows
// which; every operation has MongoDB's semantics and raises mongostore::Error with MongoDB's
// codes on both. Database and Collection are cheap value handles; all are thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/client/client_session.h"
#include "mongostore/engine/engine.h"

namespace mongostore::client {

using engine::AggregateOptions;
using engine::CollectionStats;
using engine::CountOptions;
using engine::Cursor;
using engine::DeleteOptions;
using engine::DistinctOptions;
using engine::DuplicateKeyError;
using engine::FindAndModifyOptions;
using engine::FindOptions;
using engine::IndexHint;
using engine::InsertManyResult;
using engine::InsertOptions;
using engine::ReplaceOptions;
using engine::ReturnDocument;
using engine::UpdateOptions;
using engine::UpdateResult;

class Database;
class Collection;
class PreparedFind;

/// What PreparedFind::for_each hands its visitor (Collection::prepare_find).
enum class VisitedDocuments {
  /// Each document as find() returns it.
  kProjected,
  /// For a visitor that reads only fields the projection keeps, each by name. When the
  /// projection only keeps or drops fields (every value a number or a boolean, no `$` in a
  /// path), the embedded backend hands the visitor the stored document, or the fields an
  /// index stores when the read is covered (FindOptions::results_may_hold_more_fields): it
  /// holds each kept field with the value the projection would keep, and building the
  /// projected copy is skipped. Otherwise, and on the remote backend (where the projection
  /// saves bytes on the wire), the projected document. find() returns projected documents
  /// either way.
  kStoredWhenOnlySelecting,
};

/// A collection's validation options (MongoDB's create / collMod fields `validator`,
/// `validationLevel`, `validationAction`). Unset fields are not sent: create leaves them at
/// MongoDB's defaults (no validator, "strict", "error"), modify_collection leaves them as
/// they are. An empty `validator` given to modify_collection removes the validator.
struct CollectionOptions {
  /// Any filter; $jsonSchema and $expr included ($where, $text and geo-near fail BadValue).
  std::optional<bson::Document> validator;
  /// "strict" (every insert and update), "moderate" (updates of documents that already
  /// failed the validator are not checked) or "off".
  std::optional<std::string> validation_level;
  /// "error" (the write fails DocumentValidationFailure, 121) or "warn" (written, logged).
  std::optional<std::string> validation_action;
  /// The collection's default collation ({locale, ...}, see engine/collation.h): operations
  /// and indexes that give none take it. create only (collMod refuses it, as mongod).
  std::optional<bson::Document> collation;

  /// The fields as the create / collMod command takes them.
  bson::Document to_document() const;
};

class Client : public std::enable_shared_from_this<Client> {
 public:
  virtual ~Client() = default;

  Database database(std::string_view name);
  virtual std::vector<std::string> list_database_names() = 0;
  /// Round trip to the backend; throws when it is unreachable.
  virtual void ping() = 0;
  /// "embedded" or "remote".
  virtual std::string_view backend_name() const = 0;
  /// The deployment's `hello` reply: a store reads `setName` (a replica set) and
  /// `maxBsonObjectSize` from it. The embedded engine answers as a standalone server (no
  /// `setName`), yet its sessions have transactions: the embedded backend always does.
  virtual bson::Document hello() = 0;

  /// Starts a session (see mongostore/client/client_session.h): operations made through its
  /// client() run in it, and in its transactions. The session keeps this client alive.
  virtual std::shared_ptr<ClientSession> start_session(const SessionOptions& options) = 0;
  std::shared_ptr<ClientSession> start_session() { return start_session(SessionOptions{}); }

  // The operations behind Database and Collection, by namespace. Prefer the handles.
  virtual std::vector<std::string> list_collection_names(std::string_view db) = 0;
  /// See Database::create_collection.
  virtual void create_collection(std::string_view db, std::string_view coll,
                                 const CollectionOptions& options) = 0;
  void create_collection(std::string_view db, std::string_view coll) {
    create_collection(db, coll, CollectionOptions{});
  }
  /// See Database::modify_collection.
  virtual void modify_collection(std::string_view db, std::string_view coll,
                                 const CollectionOptions& options) = 0;
  /// See Database::collection_options.
  virtual bson::Document collection_options(std::string_view db, std::string_view coll) = 0;
  virtual bool drop_collection(std::string_view db, std::string_view coll) = 0;
  virtual void drop_database(std::string_view db) = 0;
  virtual bson::OwnedValue insert_one(std::string_view db, std::string_view coll,
                                      bson::DocumentView document,
                                      const InsertOptions& options) = 0;
  virtual InsertManyResult insert_many(std::string_view db, std::string_view coll,
                                       const std::vector<bson::Document>& documents,
                                       const InsertOptions& options) = 0;
  bson::OwnedValue insert_one(std::string_view db, std::string_view coll,
                              bson::DocumentView document) {
    return insert_one(db, coll, document, InsertOptions{});
  }
  InsertManyResult insert_many(std::string_view db, std::string_view coll,
                               const std::vector<bson::Document>& documents) {
    return insert_many(db, coll, documents, InsertOptions{});
  }
  virtual std::optional<bson::Document> find_one(std::string_view db, std::string_view coll,
                                                 bson::DocumentView filter,
                                                 const FindOptions& options) = 0;
  virtual std::unique_ptr<Cursor> find(std::string_view db, std::string_view coll,
                                       bson::DocumentView filter, const FindOptions& options) = 0;
  virtual UpdateResult replace_one(std::string_view db, std::string_view coll,
                                   bson::DocumentView filter, bson::DocumentView replacement,
                                   const ReplaceOptions& options) = 0;
  virtual UpdateResult update_one(std::string_view db, std::string_view coll,
                                  bson::DocumentView filter, bson::DocumentView update,
                                  const UpdateOptions& options) = 0;
  virtual UpdateResult update_many(std::string_view db, std::string_view coll,
                                   bson::DocumentView filter, bson::DocumentView update,
                                   const UpdateOptions& options) = 0;
  virtual int64_t delete_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                             const DeleteOptions& options) = 0;
  virtual int64_t delete_many(std::string_view db, std::string_view coll, bson::DocumentView filter,
                              const DeleteOptions& options) = 0;
  virtual std::optional<bson::Document> find_one_and_update(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      bson::DocumentView update, const FindAndModifyOptions& options) = 0;
  virtual std::optional<bson::Document> find_one_and_replace(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      bson::DocumentView replacement, const FindAndModifyOptions& options) = 0;
  virtual std::optional<bson::Document> find_one_and_delete(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      const FindAndModifyOptions& options) = 0;
  virtual int64_t count_documents(std::string_view db, std::string_view coll,
                                  bson::DocumentView filter, const CountOptions& options = {}) = 0;
  virtual std::vector<bson::OwnedValue> distinct(std::string_view db, std::string_view coll,
                                                 std::string_view field, bson::DocumentView filter,
                                                 const DistinctOptions& options = {}) = 0;
  virtual int64_t estimated_document_count(std::string_view db, std::string_view coll) = 0;
  virtual std::string create_index(std::string_view db, std::string_view coll,
                                   bson::DocumentView keys, bson::DocumentView options) = 0;
  virtual std::vector<bson::Document> list_indexes(std::string_view db, std::string_view coll) = 0;
  virtual void drop_index(std::string_view db, std::string_view coll, std::string_view name) = 0;
  virtual void drop_index(std::string_view db, std::string_view coll, bson::DocumentView keys) = 0;
  virtual bson::Document explain_find(std::string_view db, std::string_view coll,
                                      bson::DocumentView filter, const FindOptions& options) = 0;
  /// An empty `coll` runs a database-level aggregation (see Database::aggregate).
  virtual std::unique_ptr<Cursor> aggregate(std::string_view db, std::string_view coll,
                                            const std::vector<bson::Document>& pipeline,
                                            const AggregateOptions& options) = 0;

  // --- prepared finds (Collection::prepare_find, mongostore/client/prepared_find.h) -----
  /// The backend's compiled form of find(db, coll, filter, options), or null when it compiles
  /// nothing and a PreparedFind sends the plain find each time (the default; the remote
  /// backend, whose server plans every find it receives). A backend that compiles throws
  /// here what find throws for an invalid filter, projection, sort, skip or limit.
  virtual std::shared_ptr<const engine::PreparedFind> compile_find(std::string_view db,
                                                                   std::string_view coll,
                                                                   bson::DocumentView filter,
                                                                   const FindOptions& options);
  /// Runs what this backend's compile_find returned, with `filter` in place of the compiled
  /// one when not null. The default (no compile_find) throws InternalError.
  virtual std::unique_ptr<Cursor> find_compiled(const engine::PreparedFind& compiled,
                                                const bson::DocumentView* filter);
};

class Database {
 public:
  Database(std::shared_ptr<Client> client, std::string name)
      : client_(std::move(client)), name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  Collection collection(std::string_view name) const;
  std::vector<std::string> list_collection_names() const {
    return client_->list_collection_names(name_);
  }
  /// NamespaceExists (48) if it exists.
  void create_collection(std::string_view name) const {
    client_->create_collection(name_, name, CollectionOptions{});
  }
  /// Creates a collection with a validator (MongoDB's create with validator, validationLevel,
  /// validationAction). A malformed validator fails with the matcher's error (BadValue,
  /// FailedToParse, ...); NamespaceExists (48) if it exists.
  void create_collection(std::string_view name, const CollectionOptions& options) const {
    client_->create_collection(name_, name, options);
  }
  /// MongoDB's collMod: changes the fields set in `options`. NamespaceNotFound (26) for a
  /// missing collection.
  void modify_collection(std::string_view name, const CollectionOptions& options) const {
    client_->modify_collection(name_, name, options);
  }
  /// The collection's options as listCollections gives them ({validator, validationLevel,
  /// validationAction}, only those set; {} for a plain collection). NamespaceNotFound (26)
  /// for a missing collection.
  bson::Document collection_options(std::string_view name) const {
    return client_->collection_options(name_, name);
  }
  void drop() const { client_->drop_database(name_); }
  /// A database-level aggregation (MongoDB's `aggregate: 1`): the pipeline starts with a stage
  /// that makes its own documents (`$documents`), and may write them with $out or $merge.
  /// Any other first stage fails InvalidNamespace (73).
  std::unique_ptr<Cursor> aggregate(const std::vector<bson::Document>& pipeline,
                                    const AggregateOptions& options = {}) const {
    return client_->aggregate(name_, "", pipeline, options);
  }

 private:
  std::shared_ptr<Client> client_;
  std::string name_;
};

class Collection {
 public:
  Collection(std::shared_ptr<Client> client, std::string db, std::string name)
      : client_(std::move(client)), db_(std::move(db)), name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  const std::string& database_name() const { return db_; }

  /// Returns the `_id` (generated when the document has none).
  bson::OwnedValue insert_one(bson::DocumentView document) const {
    return client_->insert_one(db_, name_, document);
  }
  /// Ordered: stops at the first failing document.
  InsertManyResult insert_many(const std::vector<bson::Document>& documents) const {
    return client_->insert_many(db_, name_, documents);
  }
  /// With options (bypass_document_validation).
  bson::OwnedValue insert_one(bson::DocumentView document, const InsertOptions& options) const {
    return client_->insert_one(db_, name_, document, options);
  }
  InsertManyResult insert_many(const std::vector<bson::Document>& documents,
                               const InsertOptions& options) const {
    return client_->insert_many(db_, name_, documents, options);
  }
  std::optional<bson::Document> find_one(bson::DocumentView filter,
                                         const FindOptions& options = {}) const {
    return client_->find_one(db_, name_, filter, options);
  }
  std::unique_ptr<Cursor> find(bson::DocumentView filter, const FindOptions& options = {}) const {
    return client_->find(db_, name_, filter, options);
  }
  /// A find to run many times (mongostore/client/prepared_find.h): compiled once where the
  /// backend can, same results as find(filter, options) at each run. `visited`: what its
  /// for_each hands the visitor.
  PreparedFind prepare_find(bson::DocumentView filter, const FindOptions& options = {},
                            VisitedDocuments visited = VisitedDocuments::kProjected) const;
  /// `replacement` holds no $-operators; the stored `_id` is kept (changing it fails
  /// ImmutableField 66).
  UpdateResult replace_one(bson::DocumentView filter, bson::DocumentView replacement,
                           bool upsert = false) const {
    ReplaceOptions options;
    options.upsert = upsert;
    return client_->replace_one(db_, name_, filter, replacement, options);
  }
  UpdateResult replace_one(bson::DocumentView filter, bson::DocumentView replacement,
                           const ReplaceOptions& options) const {
    return client_->replace_one(db_, name_, filter, replacement, options);
  }
  /// `update` must hold only $-operators (BadValue otherwise, as drivers check).
  UpdateResult update_one(bson::DocumentView filter, bson::DocumentView update,
                          const UpdateOptions& options = {}) const;
  UpdateResult update_many(bson::DocumentView filter, bson::DocumentView update,
                           const UpdateOptions& options = {}) const;
  /// Update pipelines (MongoDB 4.2+): `pipeline` holds $set/$addFields, $unset, $project and
  /// $replaceRoot/$replaceWith stages, given as a std::vector<bson::Document> (a braced list
  /// of one document would also convert to a DocumentView, so spell the vector out).
  /// The document's `_id` cannot change (ImmutableField 66).
  UpdateResult update_one(bson::DocumentView filter, const std::vector<bson::Document>& pipeline,
                          UpdateOptions options = {}) const;
  UpdateResult update_many(bson::DocumentView filter, const std::vector<bson::Document>& pipeline,
                           UpdateOptions options = {}) const;
  std::optional<bson::Document> find_one_and_update(bson::DocumentView filter,
                                                    const std::vector<bson::Document>& pipeline,
                                                    FindAndModifyOptions options = {}) const;
  /// Returns how many documents were deleted (0 or 1).
  int64_t delete_one(bson::DocumentView filter, const DeleteOptions& options = {}) const {
    return client_->delete_one(db_, name_, filter, options);
  }
  int64_t delete_many(bson::DocumentView filter, const DeleteOptions& options = {}) const {
    return client_->delete_many(db_, name_, filter, options);
  }
  std::optional<bson::Document> find_one_and_update(
      bson::DocumentView filter, bson::DocumentView update,
      const FindAndModifyOptions& options = {}) const {
    return client_->find_one_and_update(db_, name_, filter, update, options);
  }
  std::optional<bson::Document> find_one_and_replace(
      bson::DocumentView filter, bson::DocumentView replacement,
      const FindAndModifyOptions& options = {}) const {
    return client_->find_one_and_replace(db_, name_, filter, replacement, options);
  }
  std::optional<bson::Document> find_one_and_delete(
      bson::DocumentView filter, const FindAndModifyOptions& options = {}) const {
    return client_->find_one_and_delete(db_, name_, filter, options);
  }
  int64_t count_documents(bson::DocumentView filter, const CountOptions& options = {}) const {
    return client_->count_documents(db_, name_, filter, options);
  }
  std::vector<bson::OwnedValue> distinct(std::string_view field,
                                         bson::DocumentView filter = bson::DocumentView(),
                                         const DistinctOptions& options = {}) const {
    return client_->distinct(db_, name_, field, filter, options);
  }
  int64_t estimated_document_count() const { return client_->estimated_document_count(db_, name_); }
  /// Runs an aggregation pipeline (one document per stage).
  std::unique_ptr<Cursor> aggregate(const std::vector<bson::Document>& pipeline,
                                    const AggregateOptions& options = {}) const {
    return client_->aggregate(db_, name_, pipeline, options);
  }
  /// Creates an index ({a: 1, b: -1}; options: name, unique, sparse,
  /// partialFilterExpression, collation, and on the embedded engine storedFields) and returns
  /// its name; see Engine::create_index.
  std::string create_index(bson::DocumentView keys,
                           bson::DocumentView options = bson::DocumentView()) const {
    return client_->create_index(db_, name_, keys, options);
  }
  /// The indexes as listIndexes returns them, `_id_` first.
  std::vector<bson::Document> list_indexes() const { return client_->list_indexes(db_, name_); }
  /// Drops an index by name (IndexNotFound 27 if none; `_id_` cannot be dropped).
  void drop_index(std::string_view index_name) const {
    client_->drop_index(db_, name_, index_name);
  }
  /// Drops the index with this key pattern.
  void drop_index(bson::DocumentView keys) const { client_->drop_index(db_, name_, keys); }
  /// explain("executionStats") of a find: the winning plan and keys/documents examined.
  bson::Document explain(bson::DocumentView filter, const FindOptions& options = {}) const {
    return client_->explain_find(db_, name_, filter, options);
  }
  /// Returns false if the collection did not exist.
  bool drop() const { return client_->drop_collection(db_, name_); }

 private:
  std::shared_ptr<Client> client_;
  std::string db_;
  std::string name_;
};

/// Opens a client from a URI:
///
/// | URI                                  | backend                                          |
/// |--------------------------------------|--------------------------------------------------|
/// | `embedded:memory`                    | the embedded engine, in memory                   |
/// | `embedded:/path/dir`                 | the embedded engine on a durable data directory  |
/// | `mongodb://...`, `mongodb+srv://...` | MongoDB or `mongostore serve`, through libmongoc |
///
/// A bare path (no scheme) means `embedded:<path>`. An embedded URI takes these options after
/// a `?` (joined by `&`): `durability=durable|journaled|in-memory` (see engine/durability.h;
/// on `embedded:memory` only `in-memory`) and `cacheSizeMB=<1 to 10485760>` (WiredTiger's
/// cache, for `embedded:memory` also the most data it holds; default 512). A remote URI
/// takes MongoDB's URI options, as libmongoc reads them.
///
/// Errors: BadValue (2) for an empty URI, an unknown or malformed option, or a remote URI
/// libmongoc cannot parse; HostUnreachable (6) when no server of a remote URI answered within
/// serverSelectionTimeoutMS; DataDirectoryInvalid (Engine::open's) for an embedded directory
/// that cannot be created, is not writable, is held by another process or is not a mongostore
/// data directory.
///
/// Thread safety: the client is safe to share between threads. Releasing the last reference
/// to a remote client takes up to 500 ms: libmongoc 1.23's monitor thread looks for
/// cancellation once per 500 ms while it awaits the server's next `hello` reply. Keep one
/// client for a program's life rather than one per operation.
std::shared_ptr<Client> connect(std::string_view uri);

/// The embedded backend over an engine opened with `options`.
std::shared_ptr<Client> open_embedded(const engine::EngineOptions& options);
/// The embedded backend over an existing engine (shared, e.g. with a server).
std::shared_ptr<Client> embedded_client(std::shared_ptr<engine::Engine> engine);

}  // namespace mongostore::client
