// Engine: the embedded document database (MongoDB semantics on WiredTiger).
//
// An Engine owns one WiredTiger connection over a data directory (or memory). It keeps a
// catalog of databases and collections, stores each collection as a WiredTiger table keyed by
// the order-preserving key of `_id` (so a find by `_id` is one B-tree lookup) and each
// secondary index as a table of its own (index key -> `_id` key, written in the document's
// transaction), and runs every operation in a WiredTiger snapshot transaction. A write that
// conflicts with a concurrent writer of the same document is rolled back and retried against the
// new version inside the engine, as mongod does, so a read-check-write (a version CAS) has exactly
// one winner.
//
// All methods are thread-safe. Errors are mongostore::Error with MongoDB's codes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/document_validation_error.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/engine/document_batch.h"
#include "mongostore/engine/durability.h"
#include "mongostore/engine/transaction.h"
#include "mongostore/error.h"

namespace mongostore::engine {

/// The largest document MongoDB stores: 16 MiB.
inline constexpr size_t kMaxDocumentSize = 16 * 1024 * 1024;

struct EngineOptions {
  /// The data directory; created if absent. Ignored (may be empty) for kInMemory.
  std::string path;
  Durability durability = Durability::kDurable;
  /// WiredTiger cache size in MiB (for kInMemory also the cap on data held).
  size_t cache_size_mb = 512;
  /// Durable engines refuse writes with OutOfDiskSpace (14031) while the data directory's
  /// filesystem has less free space than this (MiB; 0: no reserve), so WiredTiger keeps the
  /// room its checkpoints and recovery need; reads go on and writes resume once space is
  /// freed. See docs/durability.md.
  size_t disk_space_reserve_mb = 256;
  /// Called once, from whichever thread saw it, if WiredTiger panics (an unrecoverable
  /// storage error, such as running out of space in its log). A panicked engine serves
  /// nothing: every later operation fails InternalError saying so, until the process
  /// restarts (recovery replays the journal: nothing acknowledged is lost). `mongostore serve`
  /// exits with status 14 here, as mongod does, rather than answer as if it were healthy.
  std::function<void(const std::string& message)> on_storage_panic;
};

/// A DuplicateKey (11000) error with the index's key pattern and the offending key value.
using mongostore::DuplicateKeyError;

/// An index hint (MongoDB's `hint`): the index's name ("a_1") or its key pattern ({a: 1}).
/// `_id_`, {_id: 1} and {$natural: 1 | -1} mean the collection scan in `_id` order. A hint
/// naming no index fails BadValue (2) "hint provided does not correspond to an existing
/// index". The hinted index is used even when it cannot bound the query (a whole-index scan);
/// a sparse or partial index then returns only the documents it holds, as in MongoDB.
struct IndexHint {
  std::string name;
  bson::Document keys;
  bool empty() const { return name.empty() && keys.empty(); }
};

struct FindOptions {
  /// Fields to return (MongoDB projection); empty returns whole documents.
  bson::Document projection;
  /// The caller reads the results' fields by name, and only fields `projection` keeps: the
  /// cursor may then return documents holding more fields than the projection keeps, each
  /// with the value the projection would keep (the stored document as it is, or the fields an
  /// index stores for a covered read), and so skip building projected copies. For a
  /// projection that only keeps or drops plain fields (every value a number or a boolean, no
  /// `$` in a path); BadValue (2) otherwise.
  bool results_may_hold_more_fields = false;
  /// Sort specification ({a: 1, b: -1}); empty means `_id` order. MongoDB's sort order:
  /// for an array field, ascending uses its smallest element and descending its largest;
  /// missing sorts as null.
  bson::Document sort;
  int64_t skip = 0;
  /// 0 means no limit.
  int64_t limit = 0;
  /// Documents per batch handed out by a cursor.
  size_t batch_size = 101;
  IndexHint hint;
  /// Lets a blocking sort exceed the memory limit: without a `limit` it becomes an external
  /// merge sort that spills to <dbpath>/_tmp (the aggregation $sort's); with a `limit` the
  /// top-k sort keeps going in memory (it holds skip + limit documents). Without it a sort
  /// past the limit fails QueryExceededMemoryLimitNoDiskUseAllowed (292).
  bool allow_disk_use = false;
  /// What a blocking sort may hold in memory (MongoDB's 100 MB).
  size_t memory_limit_bytes = 100 * 1024 * 1024;
  /// Variables ({name: expression}, MongoDB 5.0's `let`) the filter's $expr can read as
  /// $$name.
  bson::Document let;
  /// The collation of string comparisons in the filter and the sort ({locale: ...}, see
  /// collation.h); empty: the collection's default (create's `collation`, else
  /// simple); {locale: "simple"}: bytes whatever the default. A bad one throws as
  /// Collation::parse.
  bson::Document collation;
};

/// Options of count_documents.
struct CountOptions {
  /// The collation of string comparisons in the filter and the sort ({locale: ...}, see
  /// collation.h); empty: the collection's default (create's `collation`, else
  /// simple); {locale: "simple"}: bytes whatever the default. A bad one throws as
  /// Collation::parse.
  bson::Document collation;
};

/// Options of distinct: the collation also decides which strings are the same value (the
/// first one met is returned) and their order.
struct DistinctOptions {
  /// The collation of string comparisons in the filter and the sort ({locale: ...}, see
  /// collation.h); empty: the collection's default (create's `collation`, else
  /// simple); {locale: "simple"}: bytes whatever the default. A bad one throws as
  /// Collation::parse.
  bson::Document collation;
};

/// Options of insert_one / insert_many.
struct InsertOptions {
  /// MongoDB's bypassDocumentValidation: the collection's validator is not applied.
  bool bypass_document_validation = false;
  /// false: acknowledged before the write reaches stable storage (writeConcern {j: false} or
  /// {w: 0}) on a durable engine; see FindAndModifyOptions::journal.
  bool journal = true;
};

struct UpdateOptions {
  bool upsert = false;
  /// MongoDB's bypassDocumentValidation: the collection's validator is not applied.
  bool bypass_document_validation = false;
  /// false: acknowledged before the write reaches stable storage (writeConcern {j: false} or
  /// {w: 0}) on a durable engine; see FindAndModifyOptions::journal.
  bool journal = true;
  /// The update is an update pipeline: an array of $set/$addFields, $unset, $project and
  /// $replaceRoot/$replaceWith stages, passed as the array's BSON bytes.
  bool update_is_pipeline = false;
  /// arrayFilters for filtered positional updates ($[<id>]).
  std::vector<bson::Document> array_filters;
  IndexHint hint;
  /// updateOne only (as in MongoDB 8.0): when several documents match, the first in this
  /// order is updated. update_many with a sort fails InvalidOptions (72).
  bson::Document sort;
  /// Variables ({name: expression}, MongoDB 5.0's `let`) the filter's $expr can read as
  /// $$name (and so can an update pipeline's expressions).
  bson::Document let;
  /// The collation of string comparisons in the filter and the sort ({locale: ...}, see
  /// collation.h); empty: the collection's default (create's `collation`, else
  /// simple); {locale: "simple"}: bytes whatever the default. A bad one throws as
  /// Collation::parse.
  bson::Document collation;
};

struct DeleteOptions {
  IndexHint hint;
  /// Variables ({name: expression}, MongoDB 5.0's `let`) the filter's $expr can read as
  /// $$name.
  bson::Document let;
  /// false: acknowledged before the write reaches stable storage (writeConcern {j: false} or
  /// {w: 0}) on a durable engine; see FindAndModifyOptions::journal.
  bool journal = true;
  /// As FindOptions::collation.
  bson::Document collation;
};

struct ReplaceOptions {
  /// Insert the replacement (with the filter's `_id` equality, if any) when nothing matches.
  bool upsert = false;
  /// MongoDB's bypassDocumentValidation: the collection's validator is not applied.
  bool bypass_document_validation = false;
  /// false: acknowledged before the write reaches stable storage (writeConcern {j: false} or
  /// {w: 0}) on a durable engine; see FindAndModifyOptions::journal.
  bool journal = true;
  IndexHint hint;
  /// When several documents match, the first in this order is replaced (MongoDB 8.0).
  bson::Document sort;
  /// The collation of string comparisons in the filter and the sort ({locale: ...}, see
  /// collation.h); empty: the collection's default (create's `collation`, else
  /// simple); {locale: "simple"}: bytes whatever the default. A bad one throws as
  /// Collation::parse.
  bson::Document collation;

  /// Variables ({name: expression}, MongoDB 5.0's `let`) the filter's $expr can read as
  /// $$name.
  bson::Document let;
};

/// A replaceOne runs as an update whose document is the replacement, with these options.
inline UpdateOptions update_options_for(const ReplaceOptions& replace) {
  UpdateOptions options;
  options.upsert = replace.upsert;
  options.bypass_document_validation = replace.bypass_document_validation;
  options.hint = replace.hint;
  options.sort = replace.sort;
  options.let = replace.let;
  options.journal = replace.journal;
  options.collation = replace.collation;
  return options;
}

struct UpdateResult {
  int64_t matched_count = 0;
  int64_t modified_count = 0;
  /// The `_id` of the document an upsert inserted.
  std::optional<bson::OwnedValue> upserted_id;
};

struct InsertManyResult {
  std::vector<bson::OwnedValue> inserted_ids;
};

/// Which document findOneAndUpdate returns.
enum class ReturnDocument { kBefore, kAfter };

/// What a findAndModify did, reported from inside its transaction (exact under concurrency,
/// unlike a read before or after it).
struct FindAndModifyOutcome {
  /// A document matched (and was updated, replaced or deleted).
  bool matched = false;
  /// The `_id` of the document an upsert inserted.
  std::optional<bson::OwnedValue> upserted_id;
};

struct FindAndModifyOptions {
  /// Which document to modify when several match.
  bson::Document sort;
  bool upsert = false;
  /// MongoDB's bypassDocumentValidation: the collection's validator is not applied.
  bool bypass_document_validation = false;
  ReturnDocument return_document = ReturnDocument::kBefore;
  bson::Document projection;
  std::vector<bson::Document> array_filters;
  /// As UpdateOptions::update_is_pipeline (findOneAndUpdate only).
  bool update_is_pipeline = false;
  IndexHint hint;
  /// Variables ({name: expression}, MongoDB 5.0's `let`) the filter's $expr can read as
  /// $$name (and so can an update pipeline's expressions).
  bson::Document let;
  /// The collation of the filter and the sort, as FindOptions::collation.
  bson::Document collation;
  /// false: acknowledge before the write reaches stable storage (writeConcern {j: false}) on
  /// a durable engine. The journal is ordered, so any later journaled write makes this one
  /// durable as well: a crash can lose it only together with everything written after it.
  /// The ExecutionStore reserves its seq blocks this way, one fsync per commit instead of
  /// three.
  bool journal = true;
  /// When set, receives what the operation did (the server's lastErrorObject needs it).
  FindAndModifyOutcome* outcome = nullptr;
};

struct SpillStats;

struct AggregateOptions {
  /// The collation of the pipeline's string comparisons: $match, $sort, $group keys,
  /// $lookup matching, $setWindowFields sorts; empty: simple.
  bson::Document collation;
  /// Lets blocking stages exceed the memory limit: $sort, $group, $bucket, $sortByCount,
  /// $sample and $facet's input then spill to files in <dbpath>/_tmp (an in-memory engine: a
  /// directory in its private /tmp home). A leading $sort stays in the pipeline, so it spills,
  /// unless an index gives its order or a $limit right after it bounds it (then the find's
  /// top-k sort holds just that many documents).
  bool allow_disk_use = false;
  /// What a blocking stage may hold in memory (MongoDB's 100 MB).
  size_t memory_limit_bytes = 100 * 1024 * 1024;
  /// When set, receives what the pipeline spilled (see aggregation.h).
  SpillStats* spill_stats = nullptr;
  size_t batch_size = 101;
  /// The aggregate command's `let` variables ({name: expression}).
  bson::Document let;
  /// The index the pipeline's leading $match reads.
  IndexHint hint;
  /// MongoDB's bypassDocumentValidation: $out and $merge write without applying the target's
  /// validator.
  bool bypass_document_validation = false;
};

/// Statistics of one collection.
/// What validate_collection found.
struct ValidateResult {
  int64_t records = 0;
  /// Entries of each index, `_id_` first, then in the order list_indexes gives.
  std::vector<std::pair<std::string, int64_t>> keys_per_index;
  /// What does not agree (an index entry no document gives, a key missing from an index).
  std::vector<std::string> errors;
  bool valid() const { return errors.empty(); }
};

struct CollectionStats {
  int64_t document_count = 0;
  int64_t data_size = 0;  // sum of BSON sizes
};

class Engine;

/// A server-side cursor over a find's results, handed out in batches. Each batch reads in
/// its own snapshot and resumes after the last key returned (as MongoDB's cursors yield
/// between batches), so a long scan never pins one snapshot for its whole life.
class Cursor {
 public:
  virtual ~Cursor() = default;
  /// The next batch; empty when exhausted.
  virtual std::vector<bson::Document> next_batch() = 0;
  /// The next batch, as next_batch() would return it, into `batch` (cleared first, its
  /// memory reused), for readers that only visit each document in place
  /// (client::PreparedFind::for_each). The default moves next_batch()'s documents in; the
  /// embedded engine's index reads write them end to end into the batch's buffer instead
  /// (no allocation per document). Same errors as next_batch().
  virtual void next_batch_into(DocumentBatch& batch);
  virtual bool exhausted() const = 0;
  /// About how many bytes this open cursor holds in memory: results kept for its later
  /// batches (a sort without an index holds its whole result) and its copy of the query.
  /// What keeping it open costs; 0 when it does not know. Not thread-safe with next_batch().
  virtual size_t memory_bytes() const { return 0; }
  /// Drains the cursor.
  std::vector<bson::Document> to_vector();
};

/// A find compiled once by Engine::prepare_find, to be run many times by
/// Engine::find_prepared. Opaque and immutable: one may be run by several threads at once,
/// through any Engine of the process (a transaction's included).
class PreparedFind {
 public:
  virtual ~PreparedFind() = default;
};

class Engine {
 public:
  /// Opens (creating if needed) the engine. Throws Error(DataDirectoryInvalid) naming the path
  /// when the directory cannot be created, is not writable, is locked by another process, or
  /// holds something that is not a mongostore data directory.
  static std::shared_ptr<Engine> open(const EngineOptions& options);

  virtual ~Engine() = default;

  virtual const EngineOptions& options() const = 0;

  // --- catalog -------------------------------------------------------------------------
  /// Database names that hold at least one collection, sorted.
  virtual std::vector<std::string> list_databases() = 0;
  /// Collection names of `db`, sorted.
  virtual std::vector<std::string> list_collections(std::string_view db) = 0;
  /// Creates a collection; NamespaceExists (48) if it exists. Names follow MongoDB's rules
  /// (InvalidNamespace 73 otherwise). `options` takes MongoDB's create options `validator`
  /// (any filter, $jsonSchema and $expr included; $where, $text and geo-near fail BadValue),
  /// `validationLevel` ("strict", "moderate", "off") and `validationAction` ("error",
  /// "warn"), and `collation`, the collection's default collation (Collation::parse; its
  /// errors): operations without a collation and indexes created without one take it, and
  /// collection_options shows it in full; they are kept in the collection's durable catalog
  /// record. A malformed validator fails with the matcher's error; any other option fails
  /// Location40415 (unknown field). The `_id` index keeps the simple collation.
  virtual void create_collection(std::string_view db, std::string_view coll,
                                 bson::DocumentView options) = 0;
  void create_collection(std::string_view db, std::string_view coll) {
    create_collection(db, coll, bson::DocumentView());
  }
  /// collMod: changes the collection's `validator` (an empty one removes it),
  /// `validationLevel` and `validationAction`, durably, for every write that starts after it
  /// returns (writes in progress finish first). NamespaceNotFound (26) for a missing
  /// collection; any other option fails Location40415 (unknown field).
  virtual void modify_collection(std::string_view db, std::string_view coll,
                                 bson::DocumentView options) = 0;
  /// The collection's options as listCollections shows them ({validator, validationLevel,
  /// validationAction, collation}, only those that were set; {} for a plain collection).
  /// NamespaceNotFound (26) for a missing collection.
  virtual bson::Document collection_options(std::string_view db, std::string_view coll) = 0;
  /// Drops a collection; returns false if there was none. Thread-safe against every other
  /// call: a write in progress on the collection finishes first (and is dropped with it); a
  /// write that comes after goes to a fresh collection it creates implicitly (insert, upsert)
  /// or finds none; an open cursor on it fails its next batch with QueryPlanKilled (175).
  virtual bool drop_collection(std::string_view db, std::string_view coll) = 0;
  /// Replaces every document of `coll` (created when missing) with `documents`, keeping its
  /// indexes: all or nothing, so a duplicate key or a document MongoDB rejects leaves the
  /// collection as it was. What `$out` does, and the way MongoDB does it: the documents go
  /// into a temporary collection (`tmp.agg_out.<n>`, with the target's indexes) in batches,
  /// which then replaces the target in one atomic rename. Readers see the old contents or the
  /// new, never a mix; a crash leaves the target as it was (the next open drops the
  /// temporary collection); no transaction has to hold the whole result.
  ///
  /// The documents are pulled one at a time from `next_document` (nullopt ends them) and
  /// written as they come, so the result never has to be held in memory.
  ///
  /// The target's validator applies to the documents (the temporary collection gets the
  /// target's options) unless `bypass_document_validation`.
  virtual void replace_collection_documents(
      std::string_view db, std::string_view coll,
      const std::function<std::optional<bson::Document>()>& next_document,
      bool bypass_document_validation) = 0;
  void replace_collection_documents(
      std::string_view db, std::string_view coll,
      const std::function<std::optional<bson::Document>()>& next_document) {
    replace_collection_documents(db, coll, next_document, false);
  }
  /// The same with the documents in a vector.
  void replace_collection_documents(std::string_view db, std::string_view coll,
                                    const std::vector<bson::Document>& documents) {
    size_t next = 0;
    replace_collection_documents(
        db, coll,
        [&]() -> std::optional<bson::Document> {
          if (next == documents.size()) return std::nullopt;
          return documents[next++];
        },
        false);
  }
  /// Renames `from_db.from` to `to_db.to` atomically and durably: one catalog transaction,
  /// the documents and indexes stay where they are (no copy). With `drop_target` an existing
  /// target is replaced in the same step. Errors: NamespaceNotFound (26) without a source,
  /// NamespaceExists (48) for an existing target without `drop_target`, IllegalOperation (20)
  /// to itself, InvalidNamespace (73) for a bad target name. Writes that were waiting for
  /// the source go to whatever has its name afterwards; open cursors on it keep reading the
  /// renamed collection.
  virtual void rename_collection(std::string_view from_db, std::string_view from,
                                 std::string_view to_db, std::string_view to, bool drop_target) = 0;
  /// Drops every collection of `db`.
  virtual void drop_database(std::string_view db) = 0;
  virtual bool collection_exists(std::string_view db, std::string_view coll) = 0;

  // --- writes (a missing collection is created, as MongoDB does) ------------------------
  /// Inserts one document. A missing `_id` gets a new ObjectId (and `_id` is moved first).
  /// Returns the `_id`. DuplicateKeyError on a taken `_id`, BSONObjectTooLarge (10334) over
  /// 16 MiB, BadValue / InvalidIdField for documents MongoDB rejects,
  /// DocumentValidationError (121) for one the collection's validator rejects.
  virtual bson::OwnedValue insert_one(std::string_view db, std::string_view coll,
                                      bson::DocumentView document,
                                      const InsertOptions& options) = 0;
  bson::OwnedValue insert_one(std::string_view db, std::string_view coll,
                              bson::DocumentView document) {
    return insert_one(db, coll, document, InsertOptions{});
  }
  /// Inserts in order; stops at the first error (ordered insert), earlier ones stay.
  virtual InsertManyResult insert_many(std::string_view db, std::string_view coll,
                                       const std::vector<bson::Document>& documents,
                                       const InsertOptions& options) = 0;
  InsertManyResult insert_many(std::string_view db, std::string_view coll,
                               const std::vector<bson::Document>& documents) {
    return insert_many(db, coll, documents, InsertOptions{});
  }
  /// Replaces the first document matching `filter`, keeping its `_id`.
  virtual UpdateResult replace_one(std::string_view db, std::string_view coll,
                                   bson::DocumentView filter, bson::DocumentView replacement,
                                   const ReplaceOptions& options) = 0;
  UpdateResult replace_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView replacement, bool upsert = false) {
    ReplaceOptions options;
    options.upsert = upsert;
    return replace_one(db, coll, filter, replacement, options);
  }
  virtual UpdateResult update_one(std::string_view db, std::string_view coll,
                                  bson::DocumentView filter, bson::DocumentView update,
                                  const UpdateOptions& options = {}) = 0;
  virtual UpdateResult update_many(std::string_view db, std::string_view coll,
                                   bson::DocumentView filter, bson::DocumentView update,
                                   const UpdateOptions& options = {}) = 0;
  virtual int64_t delete_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                             const DeleteOptions& options) = 0;
  virtual int64_t delete_many(std::string_view db, std::string_view coll, bson::DocumentView filter,
                              const DeleteOptions& options) = 0;
  int64_t delete_one(std::string_view db, std::string_view coll, bson::DocumentView filter) {
    return delete_one(db, coll, filter, DeleteOptions{});
  }
  int64_t delete_many(std::string_view db, std::string_view coll, bson::DocumentView filter) {
    return delete_many(db, coll, filter, DeleteOptions{});
  }
  /// Atomically finds, updates and returns one document (the before or after image).
  virtual std::optional<bson::Document> find_one_and_update(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      bson::DocumentView update, const FindAndModifyOptions& options = {}) = 0;

  /// Atomically finds one document, replaces it (keeping `_id`) and returns the before or
  /// after image.
  virtual std::optional<bson::Document> find_one_and_replace(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      bson::DocumentView replacement, const FindAndModifyOptions& options = {}) = 0;
  /// Atomically finds, deletes and returns one document (options: sort, projection).
  virtual std::optional<bson::Document> find_one_and_delete(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      const FindAndModifyOptions& options = {}) = 0;

  // --- reads ---------------------------------------------------------------------------
  /// The document with `_id` equal to `id`, if any.
  virtual std::optional<bson::Document> find_by_id(std::string_view db, std::string_view coll,
                                                   const bson::Value& id) = 0;
  virtual std::optional<bson::Document> find_one(std::string_view db, std::string_view coll,
                                                 bson::DocumentView filter,
                                                 const FindOptions& options = {}) = 0;
  /// A cursor over the documents matching `filter`: in sort order when `options.sort` is
  /// given, otherwise in `_id` order for a collection scan and in index order when the
  /// planner reads through an index (MongoDB promises no order without a sort). The cursor
  /// reads the collection its first batch found for its whole life: a later batch after that
  /// collection was dropped fails QueryPlanKilled (175), even if the name exists again.
  virtual std::unique_ptr<Cursor> find(std::string_view db, std::string_view coll,
                                       bson::DocumentView filter,
                                       const FindOptions& options = {}) = 0;
  /// Compiles find(db, coll, filter, options)'s filter, projection and sort once, for
  /// find_prepared. Throws what find throws for an invalid filter, projection, sort, skip or
  /// limit, now instead of at each run.
  virtual std::shared_ptr<const PreparedFind> prepare_find(std::string_view db,
                                                           std::string_view coll,
                                                           bson::DocumentView filter,
                                                           const FindOptions& options = {}) = 0;
  /// Runs `prepared` as find would run it now (the collection's current default collation,
  /// this engine's transaction if any), with `filter` in place of the prepared filter when
  /// given (then only that filter is compiled). Same results and errors as find.
  virtual std::unique_ptr<Cursor> find_prepared(const PreparedFind& prepared,
                                                const bson::DocumentView* filter = nullptr) = 0;
  /// Whether a find of `filter` sorted by `sort` (with `hint`) reads its order from an index,
  /// so its sort streams instead of holding the result in memory. True for a missing
  /// collection (nothing to sort).
  virtual bool index_provides_sort(std::string_view db, std::string_view coll,
                                   bson::DocumentView filter, bson::DocumentView sort,
                                   const IndexHint& hint = {}) = 0;
  virtual int64_t count_documents(std::string_view db, std::string_view coll,
                                  bson::DocumentView filter, const CountOptions& options = {}) = 0;
  /// The distinct values of `field` (a dotted path) among documents matching `filter`,
  /// with arrays flattened one level as MongoDB does, in MongoDB's sort order.
  virtual std::vector<bson::OwnedValue> distinct(std::string_view db, std::string_view coll,
                                                 std::string_view field, bson::DocumentView filter,
                                                 const DistinctOptions& options = {}) = 0;
  /// Runs an aggregation pipeline (one stage document per element) over the collection. A
  /// leading $match is pushed into the find, so it uses an index when one fits. A pipeline
  /// ending in $out or $merge runs to completion here and returns an exhausted cursor.
  virtual std::unique_ptr<Cursor> aggregate(std::string_view db, std::string_view coll,
                                            const std::vector<bson::Document>& pipeline,
                                            const AggregateOptions& options = {}) = 0;
  /// The number of documents in the collection (from a scan of the table).
  virtual int64_t estimated_document_count(std::string_view db, std::string_view coll) = 0;
  virtual CollectionStats collection_stats(std::string_view db, std::string_view coll) = 0;
  /// Walks the collection and each of its indexes in one snapshot and checks that every
  /// index holds exactly the keys its documents give (MongoDB's validate). Throws
  /// NamespaceNotFound (26) for a missing collection.
  virtual ValidateResult validate_collection(std::string_view db, std::string_view coll) = 0;

  // --- indexes -------------------------------------------------------------------------
  // Each secondary index is its own WiredTiger table, written in the same transaction as the
  // document, so a document and its index entries are never seen apart and a unique
  // violation rolls the whole write back. Keys are MongoDB's: a missing field is null (two
  // documents missing a unique field collide), an array field gives one entry per element
  // (multikey), and two array fields in one compound key fail CannotIndexParallelArrays (171).
  // find, count, distinct, update, delete and findAndModify use an index when the filter has
  // equality, a range or $in on a prefix of its fields, or when the sort is its order.

  /// Creates an index (the collection is created if missing) and returns its name.
  /// `keys` is the key pattern ({a: 1, b: -1}); `options` takes MongoDB's createIndexes
  /// fields: name (default "a_1_b_-1"), unique, sparse, partialFilterExpression, collation,
  /// and mongostore's own storedFields: an array of top-level field names whose values each
  /// document's first entry carries (IndexDescriptor::stored_fields; index_entry_value.h),
  /// so that a find through the index whose filter and plain-inclusion projection read only
  /// those fields never reads the documents (a covered read; explain shows PROJECTION_COVERED
  /// and no FETCH). A real mongod refuses
  /// storedFields. An existing identical index is a no-op; the same name with another key
  /// pattern fails
  /// IndexKeySpecsConflict (86); the same name or key with other options fails
  /// IndexOptionsConflict (85). Built from a scan of the collection; a duplicate key fails
  /// with DuplicateKeyError (11000) and leaves nothing behind.
  virtual std::string create_index(std::string_view db, std::string_view coll,
                                   bson::DocumentView keys,
                                   bson::DocumentView options = bson::DocumentView()) = 0;
  /// The collection's indexes in MongoDB's listIndexes shape ({v: 2, key, name, ...}),
  /// `_id_` first. NamespaceNotFound (26) for a missing collection.
  virtual std::vector<bson::Document> list_indexes(std::string_view db, std::string_view coll) = 0;
  /// Drops an index by name ("*": every index but `_id_`); `_id_` fails InvalidOptions (72),
  /// an unknown name IndexNotFound (27).
  virtual void drop_index(std::string_view db, std::string_view coll, std::string_view name) = 0;
  /// Drops the index with key pattern `keys`.
  virtual void drop_index(std::string_view db, std::string_view coll, bson::DocumentView keys) = 0;
  /// Runs the find and describes it as MongoDB's explain("executionStats") does:
  /// {queryPlanner: {namespace, parsedQuery, winningPlan}, executionStats: {executionSuccess,
  /// nReturned, totalKeysExamined, totalDocsExamined}}. winningPlan is {stage: "FETCH",
  /// inputStage: {stage: "IXSCAN", keyPattern, indexName, isMultiKey, direction,
  /// indexBounds}}, {stage: "COLLSCAN"} or {stage: "IDHACK"}, under {stage: "SORT"} when the
  /// sort is blocking.
  virtual bson::Document explain_find(std::string_view db, std::string_view coll,
                                      bson::DocumentView filter,
                                      const FindOptions& options = {}) = 0;

  /// Forces everything acknowledged so far to stable storage (a checkpoint).
  virtual void flush() = 0;

  // --- transactions --------------------------------------------------------------------
  /// Starts a multi-document transaction; see mongostore/engine/transaction.h for its
  /// isolation, errors and limits. Throws OperationNotSupportedInTransaction (263) when
  /// called on a transaction's engine() (transactions do not nest).
  virtual std::shared_ptr<Transaction> begin_transaction(const TransactionOptions& options) = 0;
  std::shared_ptr<Transaction> begin_transaction() { return begin_transaction({}); }
};

}  // namespace mongostore::engine
