// RecordStore: graphs of immutable, declared records kept in MongoDB documents (seed 003's
// MongoStore), on the Client seam, so the same code runs on the embedded engine and on MongoDB.
//
//   auto store = records::RecordStore::open(client::connect("embedded:/var/lib/app"));
//   int64_t sid = store.save(structure);                  // the whole graph, bottom-up
//   std::shared_ptr<const Structure> s = store.fetch<Structure>(sid);
//   store.fetch_by_content_id<Structure>(store.content_id(structure));
//
// One collection per record type holds `{_id: sid, _httk_role, f: {...}, logical_id,
// store_timestamp, content_id}` documents, exactly as httk's Python store writes them, so
// either can read the other's data (docs/record-store.md). A record's references and child
// records are saved first, in their own collections, and referred to by sid.
//
// Dedup: a record type's policy (schema.h) decides whether saving an equal record again
// returns the stored sid (content_id, by_value) or inserts a new document (none). Saving a
// record that was only a dependency of another as a top-level record promotes it to `main`.
//
// Transaction modes (reference §11): `auto` uses multi-document transactions when the client
// has them (the embedded client always; a remote one when the server is a replica set),
// `require` refuses to open otherwise, `never` never uses them. In transaction mode every
// top-level save is one transaction (retried on TransientTransactionError, up to 5 attempts):
// a failure leaves nothing of the graph. Without transactions (degraded mode, announced once
// through the warning sink) every write is a durable single-document write, bottom-up: a crash
// can leave unreachable `dep` documents (fsck collects them) but never a record pointing at a
// missing sid. See docs/record-store.md "Transaction modes".
//
// Thread safety: a RecordStore may be shared by threads; saves are serialised per store (as
// httk's process write mutex), fetches run concurrently. Errors are records::errors.h types
// or mongostore::Error from the backend.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "mongostore/client/client.h"
#include "mongostore/records/declare.h"
#include "mongostore/records/errors.h"
#include "mongostore/records/fsck.h"
#include "mongostore/records/schema.h"
#include "mongostore/records/value.h"

namespace mongostore::records {

enum class TransactionMode { kAuto, kRequire, kNever };

struct TopSave;        // internal
class Searcher;        // searcher.h
struct SearchOptions;  // searcher.h: what a replace or an alternative adds to a top-level save

/// One record type backing an entry family.
struct EntryRecord {
  std::string name;                            // the record's name within the family
  std::shared_ptr<const RecordSchema> schema;  // must use content_id dedup
  std::string definition_id;
};

/// An entry family: a logical kind of entry backed by one or more record types. With two or
/// more, a dispatch collection maps each content id to the record that holds it.
struct EntryFamily {
  std::string name;
  std::string definition_id;
  std::vector<EntryRecord> records;
};

struct RecordStoreOptions {
  std::string database = "httk";
  TransactionMode transactions = TransactionMode::kAuto;
  /// The store's entry families (possibly none). The first open of a database must declare
  /// them (BadValue when this is nullopt); they are stored in the layout, and every later open
  /// must supply the same declarations again (EntryLayoutBindingError when a store that has
  /// families is opened without them; StorageLayoutUpgradeRequiredError when they differ).
  /// A store without families may be reopened bare (nullopt): the stored layout is trusted.
  std::optional<std::vector<EntryFamily>> families;
  /// Accept a purely additive schema change (new tables, or new nullable IdentitySkip
  /// fields) and re-stamp the fingerprints (reference §8).
  bool upgrade = false;
  /// Store-managed timestamps (nanoseconds // resolution) on every document.
  bool store_timestamps = true;
  int64_t store_timestamp_resolution = 1000;
  /// The clock guard (reference §6; src/records/store_clock.h): a save whose timestamp would
  /// fall below the highest one this process has seen in the store fails with
  /// StoreClockRegressionError, after sleeping out a deficit under 1 ms when
  /// `clock_regression_grace` is on. `allow_clock_regression` turns the guard off.
  bool clock_regression_grace = true;
  bool allow_clock_regression = false;
  /// The clock timestamps are read from, in nanoseconds since the epoch (default: the system
  /// clock). Tests inject one to step it back.
  std::function<int64_t()> clock_ns;
  /// A lease whose heartbeat is older than this on the server's clock is stale (reference §7:
  /// 8 s). Only fsck(force) and clear_stale_lock() read it; tests shorten it.
  std::chrono::milliseconds lease_stale_after{8000};
  /// Where the one-time degraded-mode announcement goes (default: stderr). It is called on the
  /// thread that runs RecordStore::open; stores opened on several threads with one sink call it
  /// concurrently, so a shared sink must synchronise itself.
  std::function<void(std::string_view)> warn;
};

/// A record fetched through an entry family: which backing record it is, and the record.
struct FetchedEntry {
  std::string record_name;
  int64_t sid = 0;
  std::shared_ptr<const DynamicRecord> record;
};

class RecordStore {
 public:
  using SchemaPtr = std::shared_ptr<const RecordSchema>;

  /// Opens (creating on first use) the store in `options.database`: probes the server
  /// (`hello`), reads or writes the layout document, and validates the declarations against
  /// it. Errors: StorageLayoutUpgradeRequiredError (with the diff) when the stored layout or a
  /// fingerprint differs, EntryLayoutBindingError when stored families are not re-supplied,
  /// TransactionsUnavailableError for `require` without transactions, SchemaError for a bad
  /// family declaration.
  static RecordStore open(std::shared_ptr<client::Client> client, RecordStoreOptions options = {});
  /// open(client::connect(uri), options).
  static RecordStore connect(std::string_view uri, RecordStoreOptions options = {});

  RecordStore(RecordStore&&) noexcept;
  RecordStore& operator=(RecordStore&&) noexcept;
  ~RecordStore();

  /// True when saves run as multi-document transactions (false: degraded mode).
  bool transactions_enabled() const;
  /// The store's database.
  client::Database database() const;
  /// The options the store was opened with.
  const RecordStoreOptions& options() const;

  /// A new query over this store (include mongostore/records/searcher.h to use it).
  Searcher searcher();
  Searcher searcher(const SearchOptions& options);

  // --- typed records ---------------------------------------------------------------------

  /// Saves `record` and everything it refers to; returns its sid. Errors: SchemaError (a
  /// non-optional field is None), StorageProjectionCycleError, RecordTooLargeError (before
  /// anything is written), EntryMetadataConflictError (a content_id dedup hit whose
  /// IdentitySkip values differ), EntryDispatchIntegrityError, StoreLockedError (an fsck
  /// holds or left the store's fsck lease), StoreClockRegressionError (the clock is behind the
  /// store's newest timestamp; nothing written), and backend errors (a user `unique` index:
  /// DuplicateKey). Each save holds a writer lease (src/records/leases.h) while it runs.
  template <Declared T>
  int64_t save(const T& record) {
    ToDynamic ctx;
    return save(RecordType<T>::get().to_dynamic(record, ctx), &record);
  }
  template <Declared T>
  int64_t save(const std::shared_ptr<const T>& record) {
    ToDynamic ctx;
    return save(RecordType<T>::get().to_dynamic(*record, ctx), record.get(), record);
  }
  /// The record with this sid, rebuilt exactly. A live record fetched before is returned as
  /// the same object. RecordNotFound when the collection has no such sid.
  template <Declared T>
  std::shared_ptr<const T> fetch(int64_t sid) {
    return typed<T>(fetch(schema_of<T>(), sid));
  }
  /// Records by sid, in ascending sid order (RecordNotFound for a missing one).
  template <Declared T>
  std::vector<std::shared_ptr<const T>> fetch_many(std::vector<int64_t> sids) {
    std::vector<std::shared_ptr<const T>> out;
    for (const auto& r : fetch_many(schema_of<T>(), std::move(sids))) out.push_back(typed<T>(r));
    return out;
  }
  /// The record with this content id, or null (SchemaError unless T dedups by content id).
  template <Declared T>
  std::shared_ptr<const T> fetch_by_content_id(std::string_view content_id) {
    auto r = fetch_by_content_id(schema_of<T>(), content_id);
    return r ? typed<T>(r) : nullptr;
  }
  /// The sid of a record saved or fetched through this store, or found by its content id;
  /// nullopt when it is not stored.
  template <Declared T>
  std::optional<int64_t> sid_of(const T& record) {
    if (auto sid = cached_sid(&record)) return sid;
    ToDynamic ctx;
    return sid_of(*RecordType<T>::get().to_dynamic(record, ctx));
  }
  template <Declared T>
  std::optional<int64_t> sid_of(const std::shared_ptr<const T>& record) {
    return sid_of(*record);
  }
  /// The records of type T whose reference field `field` points at `sid`, by sid.
  template <Declared T>
  std::vector<std::shared_ptr<const T>> referring(std::string_view field, int64_t sid) {
    std::vector<std::shared_ptr<const T>> out;
    for (const auto& r : referring(schema_of<T>(), field, sid)) out.push_back(typed<T>(r));
    return out;
  }
  /// Saves `record` as the logical successor of `predecessor` (reference §5): the new
  /// document joins the predecessor's lineage (its logical_id); nothing is updated or deleted.
  /// Replacing again with the same content is a no-op returning the existing sid; a dedup hit
  /// in another lineage fails with EntryReplacementError; dedup = none always inserts.
  /// BadValue when the predecessor is not stored (it must have been saved or fetched, or be
  /// found by its content id).
  template <Declared T>
  int64_t replace(const T& predecessor, const T& record) {
    ToDynamic ctx;
    auto pred = RecordType<T>::get().to_dynamic(predecessor, ctx);
    std::optional<int64_t> sid = cached_sid(&predecessor);
    ToDynamic ctx2;
    return replace(pred, sid, RecordType<T>::get().to_dynamic(record, ctx2), &record);
  }
  template <Declared T>
  int64_t replace(const std::shared_ptr<const T>& predecessor, const T& record) {
    return replace(*predecessor, record);
  }
  int64_t replace(const DynamicRecord& predecessor,
                  const std::shared_ptr<const DynamicRecord>& record);
  /// Every record of `record`'s lineage, oldest first (the latest is the highest sid).
  /// BadValue when `record` is not stored.
  template <Declared T>
  std::vector<std::shared_ptr<const T>> history(const T& record) {
    std::optional<int64_t> sid = cached_sid(&record);
    ToDynamic ctx;
    auto dynamic = RecordType<T>::get().to_dynamic(record, ctx);
    std::vector<std::shared_ptr<const T>> out;
    for (const auto& r : history(*dynamic, sid)) out.push_back(typed<T>(r));
    return out;
  }
  template <Declared T>
  std::vector<std::shared_ptr<const T>> history(const std::shared_ptr<const T>& record) {
    return history(*record);
  }
  std::vector<std::shared_ptr<const DynamicRecord>> history(const DynamicRecord& record) {
    return history(record, std::nullopt);
  }

  /// Saves `record` as an alternative representation, of kind `kind`, of the stored main
  /// record `main_sid` of the same collection (seed 003's alternatives). The alternative's
  /// document carries the main's group (`alt_id`, the main's logical_id) and `alt_kind`; its
  /// content id folds the main and the kind in, so it never dedups onto its main; all
  /// alternatives of one (main, kind) form one lineage, the latest being the current one.
  /// BadValue for an unknown main, a main that is itself an alternative, or a kind that is
  /// empty or holds '~' (entries are served as "<id>~<kind>");
  /// StorageLayoutUpgradeRequiredError when the main was written before alternatives existed
  /// (no alt_id): such a store must be rebuilt.
  template <Declared T>
  int64_t save_alternative(const T& record, int64_t main_sid, std::string_view kind) {
    ToDynamic ctx;
    return save_alternative(RecordType<T>::get().to_dynamic(record, ctx), main_sid, kind, &record);
  }
  int64_t save_alternative(const std::shared_ptr<const DynamicRecord>& record, int64_t main_sid,
                           std::string_view kind) {
    return save_alternative(record, main_sid, kind, record.get());
  }
  /// The current (latest) alternative of kind `kind` of main `main_sid`, or null.
  template <Declared T>
  std::shared_ptr<const T> fetch_alternative(int64_t main_sid, std::string_view kind) {
    auto r = fetch_alternative(schema_of<T>(), main_sid, kind);
    return r ? typed<T>(r) : nullptr;
  }
  std::shared_ptr<const DynamicRecord> fetch_alternative(const SchemaPtr& schema, int64_t main_sid,
                                                         std::string_view kind);

  /// The content id (64 hex) of a record, as httk computes it.
  template <Declared T>
  std::string content_id(const T& record) {
    ToDynamic ctx;
    return content_id(*RecordType<T>::get().to_dynamic(record, ctx));
  }

  // --- records of a runtime schema ---------------------------------------------------------

  int64_t save(const std::shared_ptr<const DynamicRecord>& record) {
    return save(record, record.get());
  }
  std::shared_ptr<const DynamicRecord> fetch(const SchemaPtr& schema, int64_t sid);
  std::vector<std::shared_ptr<const DynamicRecord>> fetch_many(const SchemaPtr& schema,
                                                               std::vector<int64_t> sids);
  std::shared_ptr<const DynamicRecord> fetch_by_content_id(const SchemaPtr& schema,
                                                           std::string_view content_id);
  std::optional<int64_t> sid_of(const DynamicRecord& record);
  /// The records of `schema` whose reference field (or list of records) `field` holds `sid`,
  /// by sid. SchemaError when `field` is not such a field.
  std::vector<std::shared_ptr<const DynamicRecord>> referring(const SchemaPtr& schema,
                                                              std::string_view field, int64_t sid);
  std::string content_id(const DynamicRecord& record);

  /// The entry of `family` with this content id: its backing record. ValueError-like BadValue
  /// for an unknown family; nullopt when no backing holds it; EntryDispatchIntegrityError when
  /// the dispatch document is missing for a stored backing, or disagrees with it.
  std::optional<FetchedEntry> fetch_entry(std::string_view family, std::string_view content_id);

  /// Creates every collection and index the store's families need now (saves do it lazily
  /// for the types they meet).
  void ensure_collections();

  /// Runs `body` as one multi-document transaction: every save inside commits together or not
  /// at all, with one store timestamp and one writer lease, holding the store's write mutex
  /// (reference §11). Nesting is flat: a scope inside a scope is part of it. Any exception from
  /// `body` or a save aborts the transaction (clearing the identity caches) and propagates; the
  /// scope is not retried (a TransientTransactionError reaches the caller). Collections of
  /// the declared families are created before it begins. In degraded mode this throws
  /// TransactionsUnavailableError before running `body`.
  void transaction(const std::function<void(RecordStore&)>& body);

  // --- maintenance (reference §7; include/mongostore/records/fsck.h) ----------------------

  /// Checks and repairs the store, and collects unreachable `dep` documents: see fsck.h for
  /// the steps, the summary and the errors (StoreLockedError, LeaseLostError).
  FsckSummary fsck(const FsckOptions& options = {});
  /// Deletes the fsck lease when it is stale (its holder died); returns whether it did. A
  /// fresh lease (a live fsck) is left alone.
  bool clear_stale_lock();

  class Impl;

 private:
  explicit RecordStore(std::unique_ptr<Impl> impl);
  int64_t save(const std::shared_ptr<const DynamicRecord>& record, const void* source,
               std::shared_ptr<const void> keep_alive = nullptr, const TopSave* top = nullptr);
  std::optional<int64_t> cached_sid(const void* source);
  int64_t save_alternative(const Value::RecordPtr& record, int64_t main_sid, std::string_view kind,
                           const void* source);
  int64_t replace(const Value::RecordPtr& predecessor, std::optional<int64_t> predecessor_sid,
                  const Value::RecordPtr& record, const void* source);
  std::vector<std::shared_ptr<const DynamicRecord>> history(const DynamicRecord& record,
                                                            std::optional<int64_t> sid);
  // The stored document of a record that must be stored (BadValue naming `what` otherwise).
  bson::Document stored_document(const DynamicRecord& record, std::optional<int64_t> sid,
                                 std::string_view what);
  FromDynamic converter();

  template <class T>
  std::shared_ptr<const T> typed(const std::shared_ptr<const DynamicRecord>& record) {
    FromDynamic ctx = converter();
    return ctx.shared<T>(*record, [&record, &ctx]() -> std::shared_ptr<const void> {
      return std::make_shared<const T>(RecordType<T>::get().from_dynamic(*record, ctx));
    });
  }

  std::unique_ptr<Impl> impl_;
};

}  // namespace mongostore::records
