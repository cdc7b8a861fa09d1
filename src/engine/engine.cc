// The WiredTiger-backed Engine. See include/mongostore/engine/engine.h for the contract.
#include "mongostore/engine/engine.h"

#include <wiredtiger.h>

#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>
#include <thread>

#include "engine/aggregate_runner.h"
#include "engine/collection_validation.h"
#include "engine/data_directory.h"
#include "engine/document_validation.h"
#include "engine/index_descriptor.h"
#include "engine/index_key_generator.h"
#include "engine/operation_context.h"
#include "engine/path_values.h"
#include "engine/query_planner.h"
#include "engine/sort_spec.h"
#include "engine/storage/wiredtiger_connection.h"
#include "engine/storage/wiredtiger_cursor.h"
#include "engine/unit_of_work.h"
#include "engine/wiredtiger_session_pool.h"
#include "engine/write_conflict_retry.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/limits.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/engine/projection.h"
#include "mongostore/engine/update.h"

namespace mongostore::engine {

std::vector<bson::Document> Cursor::to_vector() {
  std::vector<bson::Document> out;
  while (!exhausted()) {
    auto batch = next_batch();
    for (auto& d : batch) out.push_back(std::move(d));
  }
  return out;
}

namespace {

constexpr const char* kCatalogUri = "table:_mongostore_catalog";
// $out writes into collections named so; the ones a crash left behind are dropped at open.
constexpr const char* kTemporaryOutPrefix = "tmp.agg_out.";
constexpr const char* kCollectionTableConfig = "key_format=u,value_format=u";

std::string ns_of(std::string_view db, std::string_view coll) {
  std::string ns;
  ns.reserve(db.size() + 1 + coll.size());
  ns.append(db).append(".").append(coll);
  return ns;
}

std::string id_key(const bson::Value& id) {
  return bson::encode_index_key(id);
}

// A secondary index: its descriptor, its table (key = index key bytes, plus the primary key
// for a non-unique index so entries are distinct; value = the primary key) and whether some
// document gave it several keys.
struct IndexEntry {
  IndexDescriptor descriptor;
  std::string table_uri;
  // Set (never cleared) as soon as a write produces an array key; the planner reads it.
  std::atomic<bool> multikey{false};
  // The catalog record already says multikey (seen in a committed snapshot).
  std::atomic<bool> multikey_persisted{false};
};

using IndexList = std::vector<std::shared_ptr<IndexEntry>>;

// A reader-writer lock that does not starve its exclusive side: document writes share it,
// index builds and drops take it alone. pthread's rwlock prefers readers, so a steady stream
// of writes could hold an index build off forever; the turnstile makes new shared lockers
// queue behind a waiting exclusive one.
class WriteGate {
 public:
  void lock_shared() {
    { std::lock_guard<std::mutex> turn(turnstile_); }
    mutex_.lock_shared();
  }
  void unlock_shared() { mutex_.unlock_shared(); }
  void lock() {
    std::lock_guard<std::mutex> turn(turnstile_);
    mutex_.lock();
  }
  void unlock() { mutex_.unlock(); }

 private:
  std::mutex turnstile_;
  std::shared_mutex mutex_;
};

struct CollectionEntry {
  std::string db;
  std::string coll;
  std::string table_uri;
  // Document writes hold this shared for their whole transaction; index builds and drops
  // (and collection drops) hold it exclusively, so a write never misses an index that is
  // being built and never writes to one that is gone.
  WriteGate write_gate;
  // Set (under the exclusive gate) when a rename or a drop took this entry out of the
  // catalog: a writer that resolved the name before must resolve it again.
  std::atomic<bool> retired{false};
  // Set with `retired` when the collection itself is gone (dropped, or replaced by a rename
  // onto its name), not merely renamed: an open cursor on it is killed.
  std::atomic<bool> dropped{false};

  std::shared_ptr<const IndexList> indexes() const {
    std::lock_guard<std::mutex> lock(index_mutex);
    return index_list;
  }
  void set_indexes(std::shared_ptr<const IndexList> list) {
    std::lock_guard<std::mutex> lock(index_mutex);
    index_list = std::move(list);
  }
  // The validator and its options; replaced (by collMod) under the exclusive write gate, so
  // a write reads one version for its whole transaction.
  std::shared_ptr<const CollectionValidation> validation() const {
    std::lock_guard<std::mutex> lock(index_mutex);
    return validation_;
  }
  void set_validation(std::shared_ptr<const CollectionValidation> v) {
    std::lock_guard<std::mutex> lock(index_mutex);
    validation_ = std::move(v);
  }

 private:
  std::shared_ptr<const CollectionValidation> validation_ =
      std::make_shared<const CollectionValidation>();
  mutable std::mutex index_mutex;
  std::shared_ptr<const IndexList> index_list = std::make_shared<IndexList>();
};

// Counters kept while a query runs, for explain.
struct ExecutionStats {
  int64_t keys_examined = 0;
  int64_t docs_examined = 0;
  int64_t returned = 0;
};

// Where an index scan stands, so a cursor can resume it in a later snapshot.
struct IndexScanPosition {
  size_t step = 0;        // the range being scanned (in scan order)
  std::string after_key;  // the last index key examined in it
  bool has_after_key = false;
  std::set<std::string> seen;  // primary keys returned, for a multikey index
};

// How a query reads: one primary-key lookup, an index scan, or a collection scan.
struct PlannedQuery {
  std::optional<std::string> id_key;  // IDHACK
  std::optional<IndexPlan> index_plan;
  std::shared_ptr<IndexEntry> index;
  bson::Document sort;  // the sort the plan was made for (kept to re-plan)
  IndexHint hint;       // the hint it was made with (kept to re-plan)
  bool provides_sort() const { return index_plan && index_plan->provides_sort; }
};

bson::Document duplicate_id_error_key(const bson::Value& id) {
  bson::DocumentBuilder b;
  b.append("_id", id);
  return b.finish();
}

[[noreturn]] void throw_duplicate_id(const std::string& ns, const bson::Value& id) {
  throw DuplicateKeyError("E11000 duplicate key error collection: " + ns +
                              " index: _id_ dup key: { _id: " + id.to_json() + " }",
                          bson::make_document("_id", 1), duplicate_id_error_key(id));
}

class WiredTigerEngine;

// A find cursor reading through an index: its plan and where the scan stands.
struct IndexCursorState {
  std::shared_ptr<CollectionEntry> collection;  // the collection the cursor reads for its life
  PlannedQuery plan;
  IndexScanPosition position;
};

class FindCursor final : public Cursor {
 public:
  FindCursor(std::shared_ptr<WiredTigerEngine> engine, std::string db, std::string coll,
             Matcher matcher, Projection projection, SortSpec sort, const FindOptions& options)
      : engine_(std::move(engine)),
        db_(std::move(db)),
        coll_(std::move(coll)),
        matcher_(std::move(matcher)),
        projection_(std::move(projection)),
        sort_(std::move(sort)),
        sort_spec_(options.sort),
        hint_(options.hint),
        allow_disk_use_(options.allow_disk_use),
        memory_limit_(options.memory_limit_bytes),
        skip_(options.skip),
        remaining_(options.limit > 0 ? options.limit : -1),
        batch_size_(options.batch_size == 0 ? 101 : options.batch_size) {}

  std::vector<bson::Document> next_batch() override;
  bool exhausted() const override { return done_; }
  size_t memory_bytes() const override {
    return sorted_bytes_ + matcher_.filter().size() + sort_spec_.size();
  }

 private:
  std::shared_ptr<WiredTigerEngine> engine_;
  std::string db_, coll_;
  Matcher matcher_;
  Projection projection_;
  SortSpec sort_;
  bson::Document sort_spec_;
  IndexHint hint_;
  bool allow_disk_use_;
  size_t memory_limit_;
  bool materialized_ = false;
  // Set when the find reads through an index in index order: batches resume in the index.
  std::optional<IndexCursorState> index_cursor_;
  // A find with a blocking sort reads and sorts the whole result on the first batch, then
  // hands it out from here.
  std::vector<bson::Document> sorted_;
  // Or, with allowDiskUse and no limit, an external sort that spills past the memory limit.
  std::unique_ptr<DocumentSource> external_;
  // The collection a collection-scan cursor reads, resolved by its first batch.
  std::shared_ptr<CollectionEntry> collection_;
  size_t sorted_next_ = 0;
  size_t sorted_bytes_ = 0;  // of sorted_[sorted_next_...]
  int64_t skip_;
  int64_t remaining_;  // -1: unlimited
  size_t batch_size_;
  std::string last_key_;
  bool started_ = false;
  bool done_ = false;
};

// A command's filter with its `let` variables bound into the filter's $expr (MongoDB 5.0).
Matcher compile_filter(bson::DocumentView filter, const bson::Document& let) {
  if (let.empty()) return Matcher::compile(filter);
  return Matcher::compile(bind_let_to_filter(filter, let.view()));
}

class WiredTigerEngine final : public Engine,
                               public std::enable_shared_from_this<WiredTigerEngine> {
 private:
  // Runs `body(session)` in a unit of work of its own, retrying on write conflicts.
  // `commit_config` overrides the commit's sync for one write (an unjournaled write).
  template <class F>
  auto run_transaction(F&& body, bool write, const char* commit_config = nullptr) {
    OperationContext op(*connection_);
    return write_conflict_retry(
        op, write ? UnitOfWork::Mode::kWrite : UnitOfWork::Mode::kReadOnly,
        [&] { return body(op.session()); }, commit_config);
  }

  template <class F>
  auto run_write(F&& body) {
    return run_transaction(std::forward<F>(body), true);
  }
  // A write acknowledged once it is in the log buffer, before fsync (writeConcern j:false).
  // The log is ordered: the next synced commit makes this one durable too.
  template <class F>
  auto run_write(F&& body, bool journal) {
    return run_transaction(std::forward<F>(body), true, connection_->commit_config_for(journal));
  }
  template <class F>
  auto run_read(F&& body) {
    return run_transaction(std::forward<F>(body), false);
  }
  template <class F>
  void run_catalog_write(F&& body) {
    run_transaction(std::forward<F>(body), true);
  }

 public:
 public:
  explicit WiredTigerEngine(const EngineOptions& options)
      : options_(options), connection_(std::make_unique<WiredTigerConnection>(options)) {
    pool_ = &connection_->pool();
    spill_directory_ = connection_->spill_directory();
    load_catalog();
    drop_temporary_collections();
    connection_->start_journal_flusher();
  }

  const EngineOptions& options() const override { return options_; }

  // --- catalog -------------------------------------------------------------------------

  std::vector<std::string> list_databases() override {
    std::shared_lock lock(catalog_mutex_);
    std::vector<std::string> out;
    for (const auto& [ns, entry] : catalog_) {
      if (out.empty() || out.back() != entry->db) out.push_back(entry->db);
    }
    return out;
  }

  std::vector<std::string> list_collections(std::string_view db) override {
    std::shared_lock lock(catalog_mutex_);
    std::vector<std::string> out;
    for (const auto& [ns, entry] : catalog_) {
      if (entry->db == db) out.push_back(entry->coll);
    }
    return out;
  }

  bool collection_exists(std::string_view db, std::string_view coll) override {
    std::shared_lock lock(catalog_mutex_);
    return catalog_.count(ns_of(db, coll)) != 0;
  }

  using Engine::create_collection;
  void create_collection(std::string_view db, std::string_view coll,
                         bson::DocumentView options) override {
    for (const bson::Element& e : options) {
      if (e.key != "validator" && e.key != "validationLevel" && e.key != "validationAction") {
        throw Error(ErrorCode::kUnknownField,
                    "BSON field 'create." + std::string(e.key) + "' is an unknown field.");
      }
    }
    auto validation = std::make_shared<const CollectionValidation>(
        CollectionValidation::parse(options, "create"));
    if (!create_if_missing(db, coll, std::move(validation)).second) {
      throw Error(ErrorCode::kNamespaceExists,
                  "Collection " + ns_of(db, coll) + " already exists.");
    }
  }

  void modify_collection(std::string_view db, std::string_view coll,
                         bson::DocumentView options) override {
    for (const bson::Element& e : options) {
      if (e.key != "validator" && e.key != "validationLevel" && e.key != "validationAction") {
        throw Error(ErrorCode::kUnknownField,
                    "BSON field 'collMod." + std::string(e.key) + "' is an unknown field.");
      }
    }
    CollectionValidation::parse(options, "collMod");  // errors before waiting for writers
    for (;;) {
      std::shared_ptr<CollectionEntry> entry = collection_for_read(db, coll);
      if (!entry) {
        throw Error(ErrorCode::kNamespaceNotFound, "ns does not exist: " + ns_of(db, coll));
      }
      // Writers in progress finish under the old options; later ones see the new ones.
      std::unique_lock<WriteGate> gate(entry->write_gate);
      if (entry->retired.load()) continue;  // renamed or dropped meanwhile: look again
      std::shared_ptr<const CollectionValidation> before = entry->validation();
      entry->set_validation(
          std::make_shared<const CollectionValidation>(before->modified(options)));
      try {
        write_catalog_record(ns_of(db, coll), catalog_record(*entry, *entry->indexes()));
      } catch (...) {
        entry->set_validation(std::move(before));
        throw;
      }
      return;
    }
  }

  bson::Document collection_options(std::string_view db, std::string_view coll) override {
    std::shared_ptr<CollectionEntry> entry = collection_for_read(db, coll);
    if (!entry) {
      throw Error(ErrorCode::kNamespaceNotFound, "ns does not exist: " + ns_of(db, coll));
    }
    return entry->validation()->options();
  }

  bool drop_collection(std::string_view db, std::string_view coll) override {
    std::string ns = ns_of(db, coll);
    std::shared_ptr<CollectionEntry> entry = collection_for_read(db, coll);
    if (!entry) return false;
    // Writers finish first (the gate is taken before the catalog lock, as index builds do).
    std::unique_lock gate(entry->write_gate);
    {
      std::unique_lock lock(catalog_mutex_);
      auto it = catalog_.find(ns);
      if (it == catalog_.end() || it->second != entry) return false;
      // The catalog entry goes first: after a crash between the two steps the table is an
      // orphan, removed at the next open, never a collection without storage.
      run_catalog_write([&](WT_SESSION* s) {
        CursorHandle c(s, kCatalogUri);
        c->set_key(c.get(), ns.c_str());
        check_in_transaction(c->remove(c.get()), "catalog remove", s);
      });
      catalog_.erase(it);
      entry->dropped.store(true);
      entry->retired.store(true);
    }
    drop_table(entry->table_uri);
    for (const auto& ix : *entry->indexes()) drop_table(ix->table_uri);
    return true;
  }

  void rename_collection(std::string_view from_db, std::string_view from, std::string_view to_db,
                         std::string_view to, bool drop_target) override {
    validate_database_name(to_db);
    validate_collection_name(to);
    const std::string from_ns = ns_of(from_db, from), to_ns = ns_of(to_db, to);
    if (from_ns == to_ns) {
      throw Error(ErrorCode::kIllegalOperation, "Can't rename a collection to itself");
    }
    for (;;) {
      std::shared_ptr<CollectionEntry> source = collection_for_read(from_db, from);
      if (!source) {
        throw Error(ErrorCode::kNamespaceNotFound,
                    "Source collection " + from_ns + " does not exist");
      }
      std::shared_ptr<CollectionEntry> target = collection_for_read(to_db, to);
      if (target && !drop_target) {
        throw Error(ErrorCode::kNamespaceExists, "target namespace exists");
      }
      // Writers on both finish first. Gates go in namespace order, so two renames over the
      // same pair cannot deadlock; they are taken before the catalog lock, as drops do.
      std::unique_lock<WriteGate> first_gate, second_gate;
      if (!target || from_ns < to_ns) {
        first_gate = std::unique_lock<WriteGate>(source->write_gate);
        if (target) second_gate = std::unique_lock<WriteGate>(target->write_gate);
      } else {
        first_gate = std::unique_lock<WriteGate>(target->write_gate);
        second_gate = std::unique_lock<WriteGate>(source->write_gate);
      }
      {
        std::unique_lock lock(catalog_mutex_);
        auto now = [&](const std::string& ns) {
          auto it = catalog_.find(ns);
          return it == catalog_.end() ? nullptr : it->second;
        };
        if (now(from_ns) != source || now(to_ns) != target) continue;  // changed: look again
        auto renamed = std::make_shared<CollectionEntry>();
        renamed->db = std::string(to_db);
        renamed->coll = std::string(to);
        renamed->table_uri = source->table_uri;
        renamed->set_indexes(source->indexes());
        renamed->set_validation(source->validation());
        bson::Document record = catalog_record(*renamed, *renamed->indexes());
        // One catalog transaction: after a crash the collection has one name or the other,
        // and a replaced target is gone exactly when the rename happened.
        run_catalog_write([&](WT_SESSION* s) {
          CursorHandle c(s, kCatalogUri);
          c->set_key(c.get(), from_ns.c_str());
          check_in_transaction(c->remove(c.get()), "catalog remove", s);
          WT_ITEM v = item_of(record.data(), record.size());
          c->set_key(c.get(), to_ns.c_str());
          c->set_value(c.get(), &v);
          check_in_transaction(c->insert(c.get()), "catalog insert", s);
        });
        source->retired.store(true);
        if (target) {
          target->dropped.store(true);
          target->retired.store(true);
        }
        catalog_.erase(from_ns);
        catalog_[to_ns] = renamed;
      }
      if (target) {
        // The replaced target's tables are orphans now (removed at the next open if this
        // does not get to it).
        drop_table(target->table_uri);
        for (const auto& ix : *target->indexes()) drop_table(ix->table_uri);
      }
      return;
    }
  }

  // --- indexes -------------------------------------------------------------------------

  std::string create_index(std::string_view db, std::string_view coll, bson::DocumentView keys,
                           bson::DocumentView options) override {
    IndexDescriptor d = IndexDescriptor::parse(keys, options);
    bool id_key_pattern =
        d.fields().size() == 1 && d.fields()[0].path == "_id" && !d.fields()[0].descending;
    if (d.is_id_index() || (id_key_pattern && !d.unique() && !d.sparse() && !d.partial_filter())) {
      // The _id index always exists.
      collection_for_write(db, coll);
      return "_id_";
    }
    for (;;) {
      auto entry = collection_for_write(db, coll);
      std::unique_lock gate(entry->write_gate);
      if (collection_for_read(db, coll) != entry) continue;  // dropped meanwhile: retry
      auto current = entry->indexes();
      for (const auto& ix : *current) {
        const IndexDescriptor& e = ix->descriptor;
        if (e.name() == d.name()) {
          if (!e.same_key(d)) {
            throw Error(ErrorCode::kIndexKeySpecsConflict,
                        "An existing index has the same name as the requested index. When index "
                        "names are not specified, they are auto generated and can cause "
                        "conflicts. Please refer to our documentation. Requested index: " +
                            d.to_document().to_json() +
                            ", existing index: " + e.to_document().to_json());
          }
          if (!e.same_options(d)) {
            throw Error(ErrorCode::kIndexOptionsConflict,
                        "An existing index has the same name as the requested index. Requested "
                        "index: " +
                            d.to_document().to_json() +
                            ", existing index: " + e.to_document().to_json());
          }
          return d.name();  // identical: nothing to do
        }
        if (e.same_key(d) && e.partial_filter_expression() == d.partial_filter_expression()) {
          throw Error(ErrorCode::kIndexOptionsConflict,
                      "Index already exists with a different name: " + e.name());
        }
      }
      auto ix = std::make_shared<IndexEntry>();
      ix->descriptor = d;
      ix->table_uri = new_table_uri("index");
      {
        auto s = pool_->acquire();
        check_wiredtiger(s->create(s.get(), ix->table_uri.c_str(), kCollectionTableConfig),
                         "create", s.get());
      }
      try {
        build_index(*entry, *ix);
        auto next = std::make_shared<IndexList>(*current);
        next->push_back(ix);
        bson::Document record = catalog_record(*entry, *next);
        write_catalog_record(ns_of(db, coll), record);
        ix->multikey_persisted.store(ix->multikey.load());
        entry->set_indexes(std::move(next));
      } catch (...) {
        drop_table(ix->table_uri);
        throw;
      }
      return d.name();
    }
  }

  std::vector<bson::Document> list_indexes(std::string_view db, std::string_view coll) override {
    auto entry = collection_for_read(db, coll);
    if (!entry) {
      throw Error(ErrorCode::kNamespaceNotFound, "ns does not exist: " + ns_of(db, coll));
    }
    std::vector<bson::Document> out;
    out.push_back(id_index_spec());
    for (const auto& ix : *entry->indexes()) out.push_back(ix->descriptor.to_document());
    return out;
  }

  void drop_index(std::string_view db, std::string_view coll, std::string_view name) override {
    if (name == "*") {  // dropIndexes("*"): every index but _id_
      auto entry = collection_for_read(db, coll);
      while (entry && !entry->indexes()->empty()) {
        std::string first = entry->indexes()->front()->descriptor.name();
        drop_index(db, coll, first);
      }
      if (!entry) {
        throw Error(ErrorCode::kNamespaceNotFound, "ns not found " + ns_of(db, coll));
      }
      return;
    }
    drop_index_where(db, coll, "index not found with name [" + std::string(name) + "]",
                     name == "_id_", [&](const IndexDescriptor& d) { return d.name() == name; });
  }

  void drop_index(std::string_view db, std::string_view coll, bson::DocumentView keys) override {
    IndexDescriptor wanted = IndexDescriptor::parse(keys, bson::DocumentView());
    bool is_id = wanted.fields().size() == 1 && wanted.fields()[0].path == "_id";
    drop_index_where(db, coll, "can't find index with key: " + keys.to_json(), is_id,
                     [&](const IndexDescriptor& d) { return d.same_key(wanted); });
  }

 private:
  template <class Pred>
  void drop_index_where(std::string_view db, std::string_view coll, const std::string& not_found,
                        bool is_id, Pred&& pred) {
    if (is_id) throw Error(ErrorCode::kInvalidOptions, "cannot drop _id index");
    auto entry = collection_for_read(db, coll);
    if (!entry) {
      throw Error(ErrorCode::kNamespaceNotFound, "ns not found " + ns_of(db, coll));
    }
    std::unique_lock gate(entry->write_gate);
    if (entry->retired.load()) {
      // Renamed or dropped while this waited: the name means another collection now.
      gate.unlock();
      drop_index_where(db, coll, not_found, is_id, std::forward<Pred>(pred));
      return;
    }
    auto current = entry->indexes();
    auto next = std::make_shared<IndexList>();
    std::shared_ptr<IndexEntry> dropped;
    for (const auto& ix : *current) {
      if (!dropped && pred(ix->descriptor)) {
        dropped = ix;
      } else {
        next->push_back(ix);
      }
    }
    if (!dropped) throw Error(ErrorCode::kIndexNotFound, not_found);
    write_catalog_record(ns_of(db, coll), catalog_record(*entry, *next));
    entry->set_indexes(std::move(next));
    drop_table(dropped->table_uri);
  }

  static bson::Document id_index_spec() {
    return bson::make_document("v", 2, "key", bson::make_document("_id", 1), "name", "_id_");
  }

  // The catalog record of a collection: {ns, db, collection, table, options, indexes: [...]}
  // (options: the validator fields as listCollections shows them), the
  // `_id_` index first, each secondary index with its table and multikey flag.
  static bson::Document catalog_record(const CollectionEntry& entry, const IndexList& indexes) {
    bson::DocumentBuilder b;
    b.append("ns", ns_of(entry.db, entry.coll));
    b.append("db", entry.db);
    b.append("collection", entry.coll);
    b.append("table", entry.table_uri);
    b.append("options", entry.validation()->options());
    b.open_array("indexes");
    b.push(id_index_spec());
    for (const auto& ix : indexes) {
      b.push(ix->descriptor.to_catalog(ix->table_uri, ix->multikey.load()));
    }
    b.close();
    return b.finish();
  }

  void write_catalog_record(const std::string& ns, const bson::Document& record) {
    run_catalog_write([&](WT_SESSION* s) {
      CursorHandle c(s, kCatalogUri);
      WT_ITEM v = item_of(record.data(), record.size());
      c->set_key(c.get(), ns.c_str());
      c->set_value(c.get(), &v);
      check_in_transaction(c->insert(c.get()), "catalog write", s);
    });
  }

  std::string new_table_uri(const char* kind) {
    static std::atomic<uint32_t> salt{0};
    uint32_t r = std::random_device{}() ^ (salt.fetch_add(0x9E3779B9u));
    return std::string("table:") + kind + "-" + std::to_string(next_table_++) + "-" +
           std::to_string(r & 0xFFFFFF);
  }

  // Fills a new index from a scan of the collection, in transactions of a bounded number of
  // documents (writers are held off by the write gate, so the batches see a stable
  // collection). A unique violation throws DuplicateKeyError; the caller drops the table.
  void build_index(const CollectionEntry& entry, IndexEntry& ix) {
    constexpr size_t kBatch = 5000;
    std::string last;
    bool started = false, done = false;
    while (!done) {
      run_write([&](WT_SESSION* s) {
        CursorHandle c(s, entry.table_uri);
        done = false;
        std::string batch_last = last;
        int rc;
        if (!started) {
          rc = c->next(c.get());
        } else {
          WT_ITEM k = item_of(last.data(), last.size());
          c->set_key(c.get(), &k);
          int exact = 0;
          rc = c->search_near(c.get(), &exact);
          if (rc == 0 && exact <= 0) rc = c->next(c.get());
        }
        size_t n = 0;
        IndexKeyGenerator generator(ix.descriptor);
        std::vector<GeneratedKey> keys;
        while (rc == 0 && n < kBatch) {
          batch_last = current_key(c.get());
          bson::DocumentView doc = current_value(c.get());
          keys.clear();
          bool multikey = false;
          generator.generate(doc, &keys, &multikey);
          if (multikey) ix.multikey.store(true);
          for (const GeneratedKey& g : keys) insert_index_entry(s, entry, ix, g, batch_last);
          ++n;
          rc = c->next(c.get());
        }
        if (rc != 0 && rc != WT_NOTFOUND) check_in_transaction(rc, "next", s);
        if (rc == WT_NOTFOUND) done = true;
        last = batch_last;
      });
      started = true;
    }
  }

 public:
  void drop_database(std::string_view db) override {
    for (const std::string& coll : list_collections(db)) drop_collection(db, coll);
  }

  // --- writes --------------------------------------------------------------------------

  using Engine::insert_one;
  bson::OwnedValue insert_one(std::string_view db, std::string_view coll,
                              bson::DocumentView document, const InsertOptions& options) override {
    bson::Document doc = prepare_for_insert(document);
    WriteTarget target = writable(db, coll, /*create=*/true);
    const std::shared_ptr<CollectionEntry>& entry = target.entry;
    bson::Value id = doc.get("_id");
    std::string key = id_key(id);
    validate_write(*entry, doc.view(), nullptr, options.bypass_document_validation);
    run_write([&](WT_SESSION* s) { insert_record(s, *entry, key, doc.view(), id); });
    return bson::OwnedValue(id);
  }

  using Engine::replace_collection_documents;
  void replace_collection_documents(
      std::string_view db, std::string_view coll,
      const std::function<std::optional<bson::Document>()>& next_document,
      bool bypass_document_validation) override {
    validate_database_name(db);
    validate_collection_name(coll);
    // The documents go into a fresh temporary collection that gets the target's indexes, then
    // one atomic rename puts it in the target's place (MongoDB's $out does the same). Readers
    // see the old contents or the new; no transaction holds the whole result.
    // The temporary collection has the target's validator (as MongoDB's $out), so the
    // documents are checked as they are written.
    std::shared_ptr<const CollectionValidation> validation;
    if (auto existing = collection_for_read(db, coll)) validation = existing->validation();
    std::string temp;
    for (;;) {
      temp = std::string(kTemporaryOutPrefix) + std::to_string(next_temporary_++);
      if (create_if_missing(db, temp, validation).second) break;
    }
    try {
      if (collection_exists(db, coll)) {
        for (const bson::Document& index : list_indexes(db, coll)) {
          if (index.get("name").as_string() == "_id_") continue;
          bson::DocumentBuilder options;
          for (const bson::Element& e : index) {
            if (e.key != "key" && e.key != "v" && e.key != "ns") options.append(e.key, e.value);
          }
          create_index(db, temp, index.get("key").as_document(), options.finish());
        }
      }
      WriteTarget target = writable(db, temp, /*create=*/false);
      if (!target.entry) {
        // A dropDatabase (or a drop of the temporary collection by name) came in between.
        throw Error(ErrorCode::kNamespaceNotFound, "$out's temporary collection " +
                                                       ns_of(db, temp) +
                                                       " was dropped while the aggregation ran");
      }
      // Batches keep each transaction small. They need no fsync of their own: the rename's
      // catalog transaction is synced and comes later in the same ordered log.
      constexpr size_t kBatchBytes = 16 * 1024 * 1024;
      // A batch is pulled from the stream before its transaction starts, so a retried
      // transaction writes the same documents again.
      std::vector<bson::Document> batch;
      bool more = true;
      while (more) {
        batch.clear();
        size_t bytes = 0;
        while (bytes < kBatchBytes) {
          std::optional<bson::Document> doc = next_document();
          if (!doc) {
            more = false;
            break;
          }
          bytes += doc->size();
          batch.push_back(prepare_for_insert(doc->view()));
          validate_write(*target.entry, batch.back().view(), nullptr, bypass_document_validation);
        }
        if (batch.empty()) break;
        run_write(
            [&](WT_SESSION* s) {
              for (const bson::Document& doc : batch) {
                bson::Value id = doc.get("_id");
                insert_record(s, *target.entry, id_key(id), doc.view(), id);
              }
              return 0;
            },
            /*journal=*/false);
      }
      target = WriteTarget();
      rename_collection(db, temp, db, coll, /*drop_target=*/true);
    } catch (...) {
      // Nothing reached the target; the temporary collection goes.
      drop_collection(db, temp);
      throw;
    }
  }

  using Engine::insert_many;
  InsertManyResult insert_many(std::string_view db, std::string_view coll,
                               const std::vector<bson::Document>& documents,
                               const InsertOptions& options) override {
    InsertManyResult result;
    for (const auto& d : documents) {
      result.inserted_ids.push_back(insert_one(db, coll, d.view(), options));
    }
    return result;
  }

  UpdateResult replace_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView replacement,
                           const ReplaceOptions& replace_options) override {
    reject_operators_in_replacement(replacement);
    return update_impl(db, coll, filter, replacement, update_options_for(replace_options),
                       /*multi=*/false);
  }

  UpdateResult update_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                          bson::DocumentView update, const UpdateOptions& options) override {
    return update_impl(db, coll, filter, update, options, false);
  }

  UpdateResult update_many(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView update, const UpdateOptions& options) override {
    return update_impl(db, coll, filter, update, options, true);
  }

  int64_t delete_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                     const DeleteOptions& options) override {
    return delete_impl(db, coll, filter, false, options);
  }

  int64_t delete_many(std::string_view db, std::string_view coll, bson::DocumentView filter,
                      const DeleteOptions& options) override {
    return delete_impl(db, coll, filter, true, options);
  }

  std::optional<bson::Document> find_one_and_update(std::string_view db, std::string_view coll,
                                                    bson::DocumentView filter,
                                                    bson::DocumentView update,
                                                    const FindAndModifyOptions& options) override {
    return find_and_modify(db, coll, filter, &update, options);
  }

  std::optional<bson::Document> find_one_and_replace(std::string_view db, std::string_view coll,
                                                     bson::DocumentView filter,
                                                     bson::DocumentView replacement,
                                                     const FindAndModifyOptions& options) override {
    reject_operators_in_replacement(replacement);
    return find_and_modify(db, coll, filter, &replacement, options);
  }

  std::optional<bson::Document> find_one_and_delete(std::string_view db, std::string_view coll,
                                                    bson::DocumentView filter,
                                                    const FindAndModifyOptions& options) override {
    return find_and_modify(db, coll, filter, nullptr, options);
  }

  // The findAndModify family: one transaction finds the first match in sort order and
  // updates, replaces or (with no update) deletes it.
  std::optional<bson::Document> find_and_modify(std::string_view db, std::string_view coll,
                                                bson::DocumentView filter,
                                                const bson::DocumentView* update,
                                                const FindAndModifyOptions& options) {
    NowScope now;  // the filter and an update pipeline share the command's $$NOW
    Matcher matcher = compile_filter(filter, options.let);
    SortSpec sort = SortSpec::compile(options.sort.view());
    std::vector<bson::DocumentView> filters;
    for (const auto& f : options.array_filters) filters.push_back(f.view());
    std::optional<Update> compiled;
    if (options.update_is_pipeline && !options.array_filters.empty()) {
      throw Error(ErrorCode::kFailedToParse,
                  "arrayFilters may not be specified for pipeline-style updates");
    }
    if (update != nullptr) {
      compiled = options.update_is_pipeline ? Update::compile_pipeline(*update, options.let)
                                            : Update::compile(*update, filters);
    }
    Projection projection = Projection::compile(options.projection.view(), &matcher);
    bool upsert = options.upsert && update != nullptr;
    WriteTarget target = writable(db, coll, upsert);
    const std::shared_ptr<CollectionEntry>& entry = target.entry;
    if (!entry) return std::nullopt;
    PlannedQuery plan = plan_for(*entry, matcher, options.sort.view(), options.hint);
    for (int attempt = 0;; ++attempt) {
      try {
        std::optional<bson::Document> out;
        FindAndModifyOutcome outcome;
        run_write(
            [&](WT_SESSION* s) {
              out.reset();
              outcome = FindAndModifyOutcome{};
              std::optional<Match> m = first_match(s, *entry, matcher, plan, sort);
              outcome.matched = m.has_value();
              if (m && !compiled) {
                remove_record(s, *entry, m->key, m->document.view());
                out = projection.apply(m->document.view());
                return;
              }
              if (m) {
                Update::Result r = compiled->apply(m->document.view(), m->array_index, false);
                if (r.modified) {
                  bson::DocumentView before = m->document.view();
                  validate_write(*entry, r.document.view(), &before,
                                 options.bypass_document_validation);
                  write_updated(s, *entry, m->key, m->document.view(), r.document.view());
                }
                bson::DocumentView chosen = options.return_document == ReturnDocument::kAfter
                                                ? r.document.view()
                                                : m->document.view();
                out = projection.apply(chosen);
                return;
              }
              if (!upsert) return;
              bson::Document inserted = build_upsert(matcher, *compiled);
              validate_write(*entry, inserted.view(), nullptr, options.bypass_document_validation);
              bson::Value id = inserted.get("_id");
              insert_record(s, *entry, id_key(id), inserted.view(), id);
              outcome.upserted_id = bson::OwnedValue(id);
              if (options.return_document == ReturnDocument::kAfter)
                out = projection.apply(inserted);
            },
            options.journal);
        if (options.outcome != nullptr) *options.outcome = std::move(outcome);
        return out;
      } catch (const DuplicateKeyError&) {
        // Two upserts raced on one key: the loser retries and now finds the winner's
        // document, as mongod retries upserts on a duplicate key.
        if (!upsert || attempt >= 3) throw;
      }
    }
  }

  // --- reads ---------------------------------------------------------------------------

  std::optional<bson::Document> find_by_id(std::string_view db, std::string_view coll,
                                           const bson::Value& id) override {
    auto entry = collection_for_read(db, coll);
    if (!entry) return std::nullopt;
    std::string key = id_key(id);
    return run_read([&](WT_SESSION* s) -> std::optional<bson::Document> {
      CursorHandle c(s, entry->table_uri);
      if (!c) return std::nullopt;
      WT_ITEM k = item_of(key.data(), key.size());
      c->set_key(c.get(), &k);
      int rc = c->search(c.get());
      if (rc == WT_NOTFOUND) return std::nullopt;
      check_in_transaction(rc, "search", s);
      return bson::Document::copy_of(current_value(c.get()));
    });
  }

  std::optional<bson::Document> find_one(std::string_view db, std::string_view coll,
                                         bson::DocumentView filter,
                                         const FindOptions& options) override {
    FindOptions one = options;
    one.limit = 1;
    one.batch_size = 1;
    auto cursor = find(db, coll, filter, one);
    auto batch = cursor->next_batch();
    if (batch.empty()) return std::nullopt;
    return std::move(batch.front());
  }

  std::unique_ptr<Cursor> find(std::string_view db, std::string_view coll,
                               bson::DocumentView filter, const FindOptions& options) override {
    Matcher matcher = compile_filter(filter, options.let);
    Projection projection = Projection::compile(options.projection.view(), &matcher);
    SortSpec sort = SortSpec::compile(options.sort.view());
    if (options.skip < 0) throw Error(ErrorCode::kBadValue, "skip value must be non-negative");
    if (options.limit < 0) throw Error(ErrorCode::kBadValue, "limit value must be non-negative");
    return std::make_unique<FindCursor>(shared_from_this(), std::string(db), std::string(coll),
                                        std::move(matcher), std::move(projection), std::move(sort),
                                        options);
  }

  bool index_provides_sort(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView sort, const IndexHint& hint) override {
    auto entry = collection_for_read(std::string(db), std::string(coll));
    if (!entry) return true;
    return plan_for(*entry, Matcher::compile(filter), sort, hint).provides_sort();
  }

  int64_t count_documents(std::string_view db, std::string_view coll,
                          bson::DocumentView filter) override {
    Matcher matcher = Matcher::compile(filter);
    auto entry = collection_for_read(db, coll);
    if (!entry) return 0;
    PlannedQuery plan = plan_for(*entry, matcher, bson::DocumentView());
    return run_read([&](WT_SESSION* s) -> int64_t {
      int64_t n = 0;
      scan(s, *entry, matcher, plan,
           [&](const std::string&, bson::DocumentView, const MatchDetails&) {
             ++n;
             return true;
           });
      return n;
    });
  }

  CollectionStats collection_stats(std::string_view db, std::string_view coll) override {
    CollectionStats stats;
    auto entry = collection_for_read(db, coll);
    if (!entry) return stats;
    run_read([&](WT_SESSION* s) {
      CursorHandle c(s, entry->table_uri);
      while (c && c->next(c.get()) == 0) {
        ++stats.document_count;
        stats.data_size += static_cast<int64_t>(current_value(c.get()).size());
      }
      return 0;
    });
    return stats;
  }

  // Walks the collection and every index in one snapshot: each document's keys (as a write
  // would make them) must be exactly the index's entries. The comparison is by count and by
  // an order-independent fingerprint of (entry key, primary key), so it needs no memory per
  // document.
  ValidateResult validate_collection(std::string_view db, std::string_view coll) override {
    auto entry = collection_for_read(db, coll);
    if (!entry) {
      throw Error(ErrorCode::kNamespaceNotFound,
                  "Collection '" + ns_of(db, coll) + "' does not exist to validate.");
    }
    return run_read([&](WT_SESSION* s) {
      ValidateResult result;
      auto indexes = entry->indexes();
      struct Tally {
        int64_t expected = 0, actual = 0;
        uint64_t expected_print = 0, actual_print = 0;
      };
      std::vector<Tally> tallies(indexes->size());
      auto print = [](std::string_view key, std::string_view primary) {
        std::string joined(key);
        joined.push_back('\0');
        joined.append(primary);
        return static_cast<uint64_t>(std::hash<std::string>{}(joined));
      };
      CursorHandle c(s, entry->table_uri);
      std::vector<GeneratedKey> keys;
      while (c && c->next(c.get()) == 0) {
        ++result.records;
        std::string primary = current_key(c.get());
        bson::DocumentView doc = current_value(c.get());
        for (size_t i = 0; i < indexes->size(); ++i) {
          const IndexEntry& ix = *(*indexes)[i];
          keys.clear();
          bool multikey = false;
          try {
            IndexKeyGenerator(ix.descriptor).generate(doc, &keys, &multikey);
          } catch (const Error& e) {
            result.errors.push_back(
                "document with record key of " + std::to_string(primary.size()) +
                " bytes cannot be indexed by " + ix.descriptor.name() + ": " + e.what());
            continue;
          }
          for (const GeneratedKey& g : keys) {
            std::string key = g.bytes;
            if (!ix.descriptor.unique()) key += primary;
            ++tallies[i].expected;
            tallies[i].expected_print += print(key, primary);
          }
        }
      }
      result.keys_per_index.emplace_back("_id_", result.records);
      for (size_t i = 0; i < indexes->size(); ++i) {
        const IndexEntry& ix = *(*indexes)[i];
        CursorHandle ic(s, ix.table_uri);
        while (ic && ic->next(ic.get()) == 0) {
          WT_ITEM v{};
          ic->get_value(ic.get(), &v);
          std::string_view primary(static_cast<const char*>(v.data), v.size);
          ++tallies[i].actual;
          tallies[i].actual_print += print(current_key(ic.get()), primary);
        }
        result.keys_per_index.emplace_back(ix.descriptor.name(), tallies[i].actual);
        if (tallies[i].actual != tallies[i].expected) {
          result.errors.push_back("index '" + ix.descriptor.name() + "' has " +
                                  std::to_string(tallies[i].actual) + " keys; the documents give " +
                                  std::to_string(tallies[i].expected));
        } else if (tallies[i].actual_print != tallies[i].expected_print) {
          result.errors.push_back("index '" + ix.descriptor.name() +
                                  "' has entries that do not match the documents");
        }
      }
      return result;
    });
  }

  void flush() override { connection_->checkpoint(); }

  // A cursor's later batch on a collection dropped since its first fails QueryPlanKilled, as
  // mongod's getMore does; a renamed collection is read on under its new name.
  [[noreturn]] static void throw_collection_dropped(const CollectionEntry& entry) {
    throw Error(
        ErrorCode::kQueryPlanKilled,
        "query plan killed :: caused by :: collection dropped: " + ns_of(entry.db, entry.coll));
  }
  static void check_not_dropped(const CollectionEntry& entry) {
    if (entry.dropped.load()) throw_collection_dropped(entry);
  }

  // Reads one batch for a FindCursor; returns the documents and updates the resume key.
  std::vector<bson::Document> read_batch(const std::string& db, const std::string& coll,
                                         const Matcher& matcher, const Projection& projection,
                                         std::shared_ptr<CollectionEntry>* collection,
                                         std::string* last_key, bool* started, int64_t* skip,
                                         int64_t* remaining, size_t batch_size, bool* done) {
    std::vector<bson::Document> out;
    // The first batch resolves the name; later ones read the same collection (renamed or
    // not), or fail if it was dropped (never resuming in a new collection of the same name).
    if (!*started) *collection = collection_for_read(db, coll);
    std::shared_ptr<CollectionEntry> entry = *collection;
    if (!entry) {
      *done = true;
      return out;
    }
    if (*started) check_not_dropped(*entry);
    std::optional<bson::Value> id = pinned_id(matcher);
    // The body may run more than once (a retried snapshot), so it works on copies of the
    // cursor state and publishes them only after the snapshot succeeded.
    struct State {
      std::string last_key;
      int64_t skip, remaining;
      bool done = false;
    } state;
    run_read([&](WT_SESSION* s) {
      out.clear();
      state = State{*last_key, *skip, *remaining, false};
      CursorHandle c(s, entry->table_uri);
      if (!c) {
        // The table is gone: dropped before this batch (after the check above).
        if (*started) throw_collection_dropped(*entry);
        state.done = true;
        return 0;
      }
      if (id) {
        // A pinned _id is a point lookup, not a scan.
        std::string key = id_key(*id);
        WT_ITEM k = item_of(key.data(), key.size());
        c->set_key(c.get(), &k);
        int rc = c->search(c.get());
        if (rc == 0) {
          bson::DocumentView doc = current_value(c.get());
          if (matcher.matches(doc) && state.skip == 0 && state.remaining != 0) {
            out.push_back(projection.is_identity() ? bson::Document::copy_of(doc)
                                                   : projection.apply(doc));
          }
        } else if (rc != WT_NOTFOUND) {
          check_in_transaction(rc, "search", s);
        }
        state.done = true;
        return 0;
      }
      int rc;
      if (!*started) {
        rc = c->next(c.get());
      } else {
        WT_ITEM k = item_of(state.last_key.data(), state.last_key.size());
        c->set_key(c.get(), &k);
        int exact = 0;
        rc = c->search_near(c.get(), &exact);
        if (rc == 0 && exact <= 0) rc = c->next(c.get());
      }
      while (rc == 0) {
        state.last_key = current_key(c.get());
        bson::DocumentView doc = current_value(c.get());
        if (matcher.matches(doc)) {
          if (state.skip > 0) {
            --state.skip;
          } else {
            out.push_back(projection.is_identity() ? bson::Document::copy_of(doc)
                                                   : projection.apply(doc));
            if (state.remaining > 0 && --state.remaining == 0) break;
            if (out.size() >= batch_size) break;
          }
        }
        rc = c->next(c.get());
      }
      if (rc != 0 && rc != WT_NOTFOUND) check_in_transaction(rc, "next", s);
      if (rc == WT_NOTFOUND || state.remaining == 0) state.done = true;
      return 0;
    });
    *last_key = state.last_key;
    *skip = state.skip;
    *remaining = state.remaining;
    *done = state.done;
    *started = true;
    return out;
  }

 private:
  struct Match {
    std::string key;
    bson::Document document;
    std::optional<size_t> array_index;
  };

  // The collection's validator on the document a write would store (`before`: the document
  // an update replaces, for validationLevel moderate). Called with the write gate held, so
  // the validator cannot change under the write.
  static void validate_write(const CollectionEntry& entry, bson::DocumentView document,
                             const bson::DocumentView* before, bool bypass) {
    if (bypass) return;
    entry.validation()->check(document, before, ns_of(entry.db, entry.coll));
  }

  void insert_record(WT_SESSION* s, const CollectionEntry& entry, const std::string& key,
                     bson::DocumentView doc, const bson::Value& id) {
    // overwrite=false makes the insert fail on an existing key: the _id uniqueness check and
    // the write are one B-tree operation.
    CursorHandle c(s, entry.table_uri, "overwrite=false");
    if (!c) {
      throw Error(ErrorCode::kNamespaceNotFound,
                  "collection " + ns_of(entry.db, entry.coll) + " was dropped during the write");
    }
    WT_ITEM k = item_of(key.data(), key.size());
    WT_ITEM v = item_of(doc.data(), doc.size());
    c->set_key(c.get(), &k);
    c->set_value(c.get(), &v);
    int rc = c->insert(c.get());
    if (rc == WT_DUPLICATE_KEY) throw_duplicate_id(ns_of(entry.db, entry.coll), id);
    check_in_transaction(rc, "insert", s);
    auto indexes = entry.indexes();
    for (const auto& ix : *indexes) {
      std::vector<GeneratedKey> keys;
      generate_keys(s, entry, *ix, doc, &keys);
      for (const GeneratedKey& g : keys) insert_index_entry(s, entry, *ix, g, key);
    }
  }

  void write_updated(WT_SESSION* s, const CollectionEntry& entry, const std::string& key,
                     bson::DocumentView before, bson::DocumentView after) {
    validate_document_size(after.size(),
                           "Resulting document after update is larger than 16MB; object");
    check_stored_depth(after, /*inserting=*/false);
    bson::Value old_id = before.get("_id");
    bson::Value new_id = after.get("_id");
    if (!bson::values_equal(old_id, new_id) || old_id.type() != new_id.type()) {
      throw Error(ErrorCode::kImmutableField,
                  "Performing an update on the path '_id' would modify the immutable field '_id'");
    }
    CursorHandle c(s, entry.table_uri);
    WT_ITEM k = item_of(key.data(), key.size());
    WT_ITEM v = item_of(after.data(), after.size());
    c->set_key(c.get(), &k);
    c->set_value(c.get(), &v);
    check_in_transaction(c->update(c.get()), "update", s);
    // Index entries: remove the keys only the old version had, add the ones only the new
    // version has (both lists are sorted by bytes).
    auto indexes = entry.indexes();
    for (const auto& ix : *indexes) {
      std::vector<GeneratedKey> old_keys, new_keys;
      bool ignored = false;
      IndexKeyGenerator(ix->descriptor).generate(before, &old_keys, &ignored);
      generate_keys(s, entry, *ix, after, &new_keys);
      size_t i = 0, j = 0;
      while (i < old_keys.size() || j < new_keys.size()) {
        if (j == new_keys.size() ||
            (i < old_keys.size() && old_keys[i].bytes < new_keys[j].bytes)) {
          remove_index_entry(s, *ix, old_keys[i++].bytes, key);
        } else if (i == old_keys.size() || new_keys[j].bytes < old_keys[i].bytes) {
          insert_index_entry(s, entry, *ix, new_keys[j++], key);
        } else {
          ++i;
          ++j;
        }
      }
    }
  }

  void remove_record(WT_SESSION* s, const CollectionEntry& entry, const std::string& key,
                     bson::DocumentView doc) {
    CursorHandle c(s, entry.table_uri);
    WT_ITEM k = item_of(key.data(), key.size());
    c->set_key(c.get(), &k);
    check_in_transaction(c->remove(c.get()), "remove", s);
    auto indexes = entry.indexes();
    for (const auto& ix : *indexes) {
      std::vector<GeneratedKey> keys;
      bool ignored = false;
      IndexKeyGenerator(ix->descriptor).generate(doc, &keys, &ignored);
      for (const GeneratedKey& g : keys) remove_index_entry(s, *ix, g.bytes, key);
    }
  }

  // The keys of `doc` for `ix`; the first array key marks the index multikey, in memory at
  // once (the planner must stop trusting tight bounds before the document is visible) and in
  // the catalog record within this same transaction.
  void generate_keys(WT_SESSION* s, const CollectionEntry& entry, IndexEntry& ix,
                     bson::DocumentView doc, std::vector<GeneratedKey>* keys) {
    bool multikey = false;
    IndexKeyGenerator(ix.descriptor).generate(doc, keys, &multikey);
    if (!multikey || ix.multikey_persisted.load(std::memory_order_relaxed)) return;
    ix.multikey.store(true);
    persist_multikey(s, entry, ix);
  }

  void persist_multikey(WT_SESSION* s, const CollectionEntry& entry, IndexEntry& ix) {
    std::string ns = ns_of(entry.db, entry.coll);
    CursorHandle c(s, kCatalogUri, "overwrite=false");
    c->set_key(c.get(), ns.c_str());
    int rc = c->search(c.get());
    if (rc == WT_NOTFOUND) return;  // the collection is being dropped
    check_in_transaction(rc, "catalog search", s);
    bson::DocumentView record = current_value(c.get());
    for (const bson::Element& spec : record.get("indexes").as_array()) {
      bson::DocumentView d = spec.value.as_document();
      if (d.get("name").is_string() && d.get("name").as_string() == ix.descriptor.name() &&
          d.get("multikey").truthy()) {
        ix.multikey_persisted.store(true);
        return;
      }
    }
    bson::Document updated = catalog_record(entry, *entry.indexes());
    WT_ITEM v = item_of(updated.data(), updated.size());
    c->set_key(c.get(), ns.c_str());
    c->set_value(c.get(), &v);
    check_in_transaction(c->update(c.get()), "catalog update", s);
  }

  void insert_index_entry(WT_SESSION* s, const CollectionEntry& entry, const IndexEntry& ix,
                          const GeneratedKey& g, const std::string& primary_key) {
    CursorHandle c(s, ix.table_uri, "overwrite=false");
    if (!c) {
      throw Error(ErrorCode::kNamespaceNotFound,
                  "index " + ix.descriptor.name() + " was dropped during the write");
    }
    std::string key = g.bytes;
    if (!ix.descriptor.unique()) key += primary_key;
    WT_ITEM k = item_of(key.data(), key.size());
    WT_ITEM v = item_of(primary_key.data(), primary_key.size());
    c->set_key(c.get(), &k);
    c->set_value(c.get(), &v);
    int rc = c->insert(c.get());
    if (rc == WT_DUPLICATE_KEY && ix.descriptor.unique()) {
      throw_duplicate_key(ns_of(entry.db, entry.coll), ix.descriptor, g.values);
    }
    if (rc == WT_DUPLICATE_KEY) return;
    check_in_transaction(rc, "index insert", s);
  }

  void remove_index_entry(WT_SESSION* s, const IndexEntry& ix, const std::string& index_key,
                          const std::string& primary_key) {
    CursorHandle c(s, ix.table_uri);
    if (!c) return;
    std::string key = index_key;
    if (!ix.descriptor.unique()) key += primary_key;
    WT_ITEM k = item_of(key.data(), key.size());
    c->set_key(c.get(), &k);
    int rc = c->remove(c.get());
    if (rc == WT_NOTFOUND) return;
    check_in_transaction(rc, "index remove", s);
  }

  [[noreturn]] static void throw_duplicate_key(const std::string& ns, const IndexDescriptor& d,
                                               const std::vector<bson::Value>& values) {
    bson::DocumentBuilder kv;
    for (size_t i = 0; i < d.fields().size() && i < values.size(); ++i) {
      kv.append(d.fields()[i].path, values[i]);
    }
    throw DuplicateKeyError("E11000 duplicate key error collection: " + ns + " index: " + d.name() +
                                " dup key: " + describe_key(d, values),
                            bson::Document::copy_of(d.key_pattern()), kv.finish());
  }

  // --- query execution ---------------------------------------------------------------

  // The index a hint names: nullptr for the `_id` order (`_id_`, {_id: 1}, {$natural: ±1}).
  static std::shared_ptr<IndexEntry> hinted_index(const CollectionEntry& entry,
                                                  const IndexHint& hint) {
    if (hint.name == "_id_") return nullptr;
    if (!hint.keys.empty()) {
      auto first = hint.keys.view().begin();
      if (first->key == "$natural") return nullptr;
      if (first->key == "_id" && ++first == hint.keys.view().end() &&
          hint.keys.view().get("_id").is_number() &&
          hint.keys.view().get("_id").number_as_double() > 0) {
        return nullptr;
      }
    }
    for (const auto& ix : *entry.indexes()) {
      if (hint.name.empty() ? ix->descriptor.key_pattern() == hint.keys.view()
                            : ix->descriptor.name() == hint.name) {
        return ix;
      }
    }
    throw Error(ErrorCode::kBadValue,
                "error processing query: planner returned error :: "
                "caused by :: hint provided does not correspond to an "
                "existing index");
  }

  // The `_id` a filter pins, by an equality ({_id: v}) or an $expr {$eq: ["$_id", v]} (the
  // form of a $lookup's join on `_id`): a read of one document.
  static std::optional<bson::Value> pinned_id(const Matcher& matcher) {
    if (auto id = matcher.id_equality()) return id;
    return expr_id_equality(matcher.filter());
  }

  PlannedQuery plan_for(const CollectionEntry& entry, const Matcher& matcher,
                        bson::DocumentView sort, const IndexHint& hint = {}) {
    PlannedQuery q;
    q.sort = bson::Document::copy_of(sort);
    q.hint = hint;
    if (!hint.empty()) {
      std::shared_ptr<IndexEntry> index = hinted_index(entry, hint);
      if (index == nullptr) {
        // The `_id` order: a pinned `_id` stays a point lookup (the same entries either way).
        if (auto id = pinned_id(matcher)) q.id_key = id_key(*id);
        return q;
      }
      std::vector<IndexCandidate> only{IndexCandidate{&index->descriptor, index->multikey.load()}};
      q.index_plan = plan_query(matcher.filter(), sort, only, /*forced=*/true);
      q.index = std::move(index);
      return q;
    }
    if (auto id = pinned_id(matcher)) {
      q.id_key = id_key(*id);
      return q;
    }
    auto indexes = entry.indexes();
    if (indexes->empty()) return q;
    std::vector<IndexCandidate> candidates;
    for (const auto& ix : *indexes) {
      candidates.push_back(IndexCandidate{&ix->descriptor, ix->multikey.load()});
    }
    q.index_plan = plan_query(matcher.filter(), sort, candidates);
    if (q.index_plan) q.index = (*indexes)[q.index_plan->candidate];
    return q;
  }

  static bool plan_still_valid(const CollectionEntry& entry, const PlannedQuery& plan) {
    if (!plan.index_plan->multikey && plan.index->multikey.load()) return false;
    auto indexes = entry.indexes();
    return std::find(indexes->begin(), indexes->end(), plan.index) != indexes->end();
  }

  // Visits matching documents in plan order (`_id` order for a collection scan) until
  // `visit` returns false.
  //
  // An index plan is checked again after its scan: a plan made before the snapshot began may
  // have trusted tight bounds on an index that became multikey, or read an index dropped
  // (and no longer maintained) before the snapshot. Writers change those flags before they
  // commit, so a check after the scan sees every change the snapshot can contain; a stale
  // plan is replaced and the transaction retried (every caller's body starts afresh).
  template <class Visit>
  void scan(WT_SESSION* s, const CollectionEntry& entry, const Matcher& matcher, PlannedQuery& plan,
            Visit&& visit, ExecutionStats* stats = nullptr) {
    ExecutionStats local;
    if (stats == nullptr) stats = &local;
    CursorHandle c(s, entry.table_uri);
    if (!c) return;
    if (plan.id_key) {
      const std::string& key = *plan.id_key;
      WT_ITEM k = item_of(key.data(), key.size());
      c->set_key(c.get(), &k);
      int rc = c->search(c.get());
      ++stats->keys_examined;
      if (rc == WT_NOTFOUND) return;
      check_in_transaction(rc, "search", s);
      ++stats->docs_examined;
      bson::DocumentView doc = current_value(c.get());
      MatchDetails details;
      if (matcher.matches(doc, &details)) visit(key, doc, details);
      return;
    }
    if (plan.index_plan) {
      CursorHandle ic(s, plan.index->table_uri);
      if (ic) {
        index_scan(s, c.get(), ic.get(), matcher, *plan.index_plan, visit, stats);
        if (!plan_still_valid(entry, plan)) {
          plan = plan_for(entry, matcher, plan.sort.view(), plan.hint);
          throw WriteConflictException{};
        }
        return;
      }
      // The index was dropped since planning: fall back to the collection scan.
    }
    int rc;
    while ((rc = c->next(c.get())) == 0) {
      ++stats->docs_examined;
      bson::DocumentView doc = current_value(c.get());
      MatchDetails details;
      if (matcher.matches(doc, &details)) {
        if (!visit(current_key(c.get()), doc, details)) return;
      }
    }
    if (rc != WT_NOTFOUND) check_in_transaction(rc, "next", s);
  }

  template <class Visit>
  void index_scan(WT_SESSION* s, WT_CURSOR* primary, WT_CURSOR* ic, const Matcher& matcher,
                  const IndexPlan& plan, Visit& visit, ExecutionStats* stats,
                  IndexScanPosition* resume = nullptr) {
    IndexScanPosition fresh;
    IndexScanPosition& pos = resume != nullptr ? *resume : fresh;
    // Returns false to stop the whole scan.
    auto fetch = [&](WT_CURSOR* cursor) -> bool {
      ++stats->keys_examined;
      WT_ITEM ik{};
      cursor->get_key(cursor, &ik);
      pos.after_key.assign(static_cast<const char*>(ik.data), ik.size);
      pos.has_after_key = true;
      WT_ITEM pk{};
      cursor->get_value(cursor, &pk);
      std::string key(static_cast<const char*>(pk.data), pk.size);
      // A multikey index may list one document several times.
      if (plan.multikey && !pos.seen.insert(key).second) return true;
      WT_ITEM k = item_of(key.data(), key.size());
      primary->set_key(primary, &k);
      int rc = primary->search(primary);
      if (rc == WT_NOTFOUND) return true;
      check_in_transaction(rc, "search", s);
      ++stats->docs_examined;
      bson::DocumentView doc = current_value(primary);
      MatchDetails details;
      if (!matcher.matches(doc, &details)) return true;
      return static_cast<bool>(visit(key, doc, details));
    };
    auto in_range_end = [](const KeyRange& r, WT_CURSOR* cursor) {
      if (r.end_unbounded) return true;
      WT_ITEM k{};
      cursor->get_key(cursor, &k);
      std::string_view key(static_cast<const char*>(k.data), k.size);
      return key < std::string_view(r.end);
    };
    auto at_or_after_start = [](const KeyRange& r, WT_CURSOR* cursor) {
      WT_ITEM k{};
      cursor->get_key(cursor, &k);
      std::string_view key(static_cast<const char*>(k.data), k.size);
      return key >= std::string_view(r.start);
    };
    size_t n = plan.ranges.size();
    for (; pos.step < n; ++pos.step, pos.has_after_key = false) {
      const KeyRange& r = plan.ranges[plan.reverse ? n - 1 - pos.step : pos.step];
      if (!r.end_unbounded && r.end <= r.start) continue;
      int rc = WT_NOTFOUND;
      if (pos.has_after_key) {
        // Resuming a cursor: continue after the last key examined.
        WT_ITEM k = item_of(pos.after_key.data(), pos.after_key.size());
        ic->set_key(ic, &k);
        int exact = 0;
        rc = ic->search_near(ic, &exact);
        if (!plan.reverse && rc == 0 && exact <= 0) rc = ic->next(ic);
        if (plan.reverse && rc == 0 && exact >= 0) rc = ic->prev(ic);
      } else if (!plan.reverse) {
        WT_ITEM k = item_of(r.start.data(), r.start.size());
        ic->set_key(ic, &k);
        int exact = 0;
        rc = ic->search_near(ic, &exact);
        if (rc == 0 && exact < 0) rc = ic->next(ic);
      }
      if (!plan.reverse) {
        while (rc == 0 && in_range_end(r, ic)) {
          if (!fetch(ic)) return;
          rc = ic->next(ic);
        }
      } else {
        if (pos.has_after_key) {
          // positioned above
        } else if (r.end_unbounded) {
          ic->reset(ic);
          rc = ic->prev(ic);
        } else {
          WT_ITEM k = item_of(r.end.data(), r.end.size());
          ic->set_key(ic, &k);
          int exact = 0;
          rc = ic->search_near(ic, &exact);
          if (rc == 0 && exact >= 0) rc = ic->prev(ic);
        }
        while (rc == 0 && at_or_after_start(r, ic)) {
          if (!fetch(ic)) return;
          rc = ic->prev(ic);
        }
      }
      if (rc != 0 && rc != WT_NOTFOUND) check_in_transaction(rc, "index scan", s);
    }
  }

  // The first match in plan order, or in `sort` order when one is given.
  std::optional<Match> first_match(WT_SESSION* s, const CollectionEntry& entry,
                                   const Matcher& matcher, PlannedQuery& plan,
                                   const SortSpec& sort = SortSpec()) {
    std::optional<Match> m;
    std::string best;
    bool sorted_by_plan = sort.empty() || plan.provides_sort();
    scan(s, entry, matcher, plan,
         [&](const std::string& key, bson::DocumentView doc, const MatchDetails& details) {
           if (sorted_by_plan) {
             m = Match{key, bson::Document::copy_of(doc), details.array_index};
             return false;
           }
           std::string sort_key = sort.key_for(doc);
           if (!m || sort_key < best) {
             best = std::move(sort_key);
             m = Match{key, bson::Document::copy_of(doc), details.array_index};
           }
           return true;
         });
    return m;
  }

  static void reject_operators_in_replacement(bson::DocumentView replacement) {
    for (const bson::Element& e : replacement) {
      if (!e.key.empty() && e.key[0] == '$') {
        throw Error(
            ErrorCode::kBadValue,
            "the replacement document must not contain $-operators ('" + std::string(e.key) + "')");
      }
    }
  }

 public:
  // A find's blocking sort with allowDiskUse: the aggregation $sort (an external merge sort
  // that spills to <dbpath>/_tmp past MongoDB's 100 MB) over the matching documents, read
  // unsorted in batches as the same find without a sort reads them (through the planner's
  // index, if any). Both sides sort by MongoDB's sort keys; ties keep the read order.
  std::unique_ptr<DocumentSource> external_sort(const std::string& db, const std::string& coll,
                                                const Matcher& matcher,
                                                bson::DocumentView sort_spec, const IndexHint& hint,
                                                size_t memory_limit) {
    FindOptions unsorted;
    unsorted.hint = hint;
    unsorted.batch_size = 1000;
    auto cursor = std::make_unique<FindCursor>(shared_from_this(), db, coll, matcher, Projection(),
                                               SortSpec::compile(bson::DocumentView()), unsorted);
    AggregationContext context;
    context.allow_disk_use = true;
    context.memory_limit_bytes = memory_limit;
    context.spill_directory = spill_directory_;
    Pipeline sort =
        Pipeline::compile(std::vector<bson::Document>{bson::make_document("$sort", sort_spec)});
    return sort.run(cursor_source(std::move(cursor)), context);
  }

  // The whole result of a find in one snapshot: planned, sorted (unless the plan's index
  // gives the order), with skip and limit (-1: none) applied.
  std::vector<bson::Document> query_results(const std::string& db, const std::string& coll,
                                            const Matcher& matcher, const Projection& projection,
                                            bson::DocumentView sort_spec, const SortSpec& sort,
                                            int64_t skip, int64_t limit, const IndexHint& hint,
                                            bool allow_disk_use, size_t memory_limit,
                                            ExecutionStats* stats = nullptr,
                                            PlannedQuery* plan_out = nullptr) {
    auto entry = collection_for_read(db, coll);
    if (!entry) return {};
    PlannedQuery plan = plan_for(*entry, matcher, sort_spec, hint);
    struct Row {
      std::string key;
      uint64_t seq;  // scan order: ties keep it (a stable sort)
      bson::Document doc;
      bool operator<(const Row& o) const { return key != o.key ? key < o.key : seq < o.seq; }
    };
    // With a limit only the first skip + limit rows can be returned: a bounded max-heap keeps
    // them (a top-k sort, as MongoDB's), so memory is what the result needs, not the scan.
    const std::optional<size_t> keep =
        limit >= 0 ? std::optional<size_t>(static_cast<size_t>(std::max<int64_t>(skip, 0) + limit))
                   : std::nullopt;
    std::vector<Row> rows;
    std::vector<bson::Document> out;
    bool streaming = true;
    ExecutionStats local;
    run_read([&](WT_SESSION* s) {
      streaming = sort.empty() || plan.provides_sort();  // the plan may change on a retry
      rows.clear();
      out.clear();
      local = ExecutionStats();
      size_t bytes = 0;
      uint64_t seq = 0;
      int64_t to_skip = std::max<int64_t>(skip, 0);
      scan(
          s, *entry, matcher, plan,
          [&](const std::string&, bson::DocumentView doc, const MatchDetails&) {
            if (streaming) {
              if (to_skip > 0) {
                --to_skip;
                return true;
              }
              out.push_back(projection.is_identity() ? bson::Document::copy_of(doc)
                                                     : projection.apply(doc));
              return limit < 0 || static_cast<int64_t>(out.size()) < limit;
            }
            if (keep && *keep == 0) return false;
            Row row{sort.key_for(doc), seq++, bson::Document()};
            if (keep && rows.size() == *keep && !(row < rows.front())) return true;
            row.doc = bson::Document::copy_of(doc);
            bytes += doc.size();
            rows.push_back(std::move(row));
            if (keep) {
              std::push_heap(rows.begin(), rows.end());
              if (rows.size() > *keep) {
                std::pop_heap(rows.begin(), rows.end());
                bytes -= rows.back().doc.size();
                rows.pop_back();
              }
            }
            if (bytes > memory_limit && !allow_disk_use) {
              throw Error(292,
                          "Executor error during find command :: caused by :: Sort exceeded "
                          "memory limit of " +
                              std::to_string(memory_limit) +
                              " bytes, but did not opt in to external sorting.");
            }
            return true;
          },
          &local);
      return 0;
    });
    if (!streaming) {
      std::sort(rows.begin(), rows.end());
      for (size_t i = static_cast<size_t>(std::max<int64_t>(skip, 0)); i < rows.size(); ++i) {
        if (limit >= 0 && static_cast<int64_t>(out.size()) >= limit) break;
        out.push_back(projection.is_identity() ? std::move(rows[i].doc)
                                               : projection.apply(rows[i].doc));
      }
    }
    local.returned = static_cast<int64_t>(out.size());
    if (stats != nullptr) *stats = local;
    if (plan_out != nullptr) *plan_out = std::move(plan);
    return out;
  }

  // One batch of a find read through an index in index order (unsorted, or sorted by the
  // index): its own snapshot, resuming after the last index key of the previous batch. The
  // plan is fixed when the cursor starts; if its index is dropped meanwhile the cursor is
  // killed (QueryPlanKilled, 175), as in MongoDB.

  std::optional<IndexCursorState> start_index_cursor(const std::string& db, const std::string& coll,
                                                     const Matcher& matcher,
                                                     bson::DocumentView sort_spec,
                                                     const IndexHint& hint) {
    auto entry = collection_for_read(db, coll);
    if (!entry) return std::nullopt;
    PlannedQuery plan = plan_for(*entry, matcher, sort_spec, hint);
    if (!plan.index_plan) return std::nullopt;
    if (!sort_spec.empty() && !plan.provides_sort()) return std::nullopt;
    return IndexCursorState{std::move(entry), std::move(plan), IndexScanPosition()};
  }

  std::vector<bson::Document> read_index_batch(const Matcher& matcher, const Projection& projection,
                                               IndexCursorState* cursor, int64_t* skip,
                                               int64_t* remaining, size_t batch_size, bool* done) {
    std::vector<bson::Document> out;
    const std::shared_ptr<CollectionEntry>& entry = cursor->collection;
    check_not_dropped(*entry);
    IndexScanPosition position;
    int64_t to_skip = 0, left = 0;
    bool finished = false;
    run_read([&](WT_SESSION* s) {
      out.clear();
      position = cursor->position;  // a retried snapshot starts from the same place
      to_skip = *skip;
      left = *remaining;
      finished = true;
      CursorHandle c(s, entry->table_uri);
      CursorHandle ic(s, cursor->plan.index->table_uri);
      auto indexes = entry->indexes();
      if (!c || entry->dropped.load()) throw_collection_dropped(*entry);
      if (!ic ||
          std::find(indexes->begin(), indexes->end(), cursor->plan.index) == indexes->end()) {
        throw Error(175, "query plan killed :: caused by :: index '" +
                             cursor->plan.index->descriptor.name() + "' dropped");
      }
      ExecutionStats stats;
      auto visit = [&](const std::string&, bson::DocumentView doc, const MatchDetails&) {
        if (to_skip > 0) {
          --to_skip;
          return true;
        }
        out.push_back(projection.is_identity() ? bson::Document::copy_of(doc)
                                               : projection.apply(doc));
        if (left > 0 && --left == 0) return false;
        if (out.size() >= batch_size) {
          finished = false;
          return false;
        }
        return true;
      };
      index_scan(s, c.get(), ic.get(), matcher, *cursor->plan.index_plan, visit, &stats, &position);
      return 0;
    });
    cursor->position = std::move(position);
    *skip = to_skip;
    *remaining = left;
    *done = finished || left == 0;
    return out;
  }

  bson::Document explain_find(std::string_view db, std::string_view coll, bson::DocumentView filter,
                              const FindOptions& options) override {
    Matcher matcher = compile_filter(filter, options.let);
    Projection projection = Projection::compile(options.projection.view(), &matcher);
    SortSpec sort = SortSpec::compile(options.sort.view());
    ExecutionStats stats;
    PlannedQuery plan;
    query_results(std::string(db), std::string(coll), matcher, projection, options.sort.view(),
                  sort, options.skip, options.limit > 0 ? options.limit : -1, options.hint,
                  options.allow_disk_use, options.memory_limit_bytes, &stats, &plan);
    bson::DocumentBuilder w;
    if (plan.id_key) {
      w.append("stage", "IDHACK");
    } else if (plan.index_plan) {
      const IndexDescriptor& d = plan.index->descriptor;
      w.append("stage", "FETCH");
      w.open_document("inputStage");
      w.append("stage", "IXSCAN");
      w.append("keyPattern", d.key_pattern());
      w.append("indexName", d.name());
      w.append("isMultiKey", plan.index_plan->multikey);
      w.append("isUnique", d.unique());
      w.append("isSparse", d.sparse());
      w.append("isPartial", d.partial_filter().has_value());
      w.append("direction", plan.index_plan->reverse ? "backward" : "forward");
      w.append("indexBounds", plan.index_plan->bounds.view());
      w.close();
    } else {
      w.append("stage", "COLLSCAN");
      w.append("direction", "forward");
    }
    bson::Document winning = w.finish();
    if (!sort.empty() && !plan.provides_sort()) {
      winning =
          bson::make_document("stage", "SORT", "sortPattern", options.sort, "inputStage", winning);
    }
    bson::DocumentBuilder b;
    b.open_document("queryPlanner");
    b.append("namespace", ns_of(db, coll));
    b.append("parsedQuery", filter);
    b.append("winningPlan", winning.view());
    b.close();
    b.open_document("executionStats");
    b.append("executionSuccess", true);
    b.append("nReturned", stats.returned);
    b.append("totalKeysExamined", stats.keys_examined);
    b.append("totalDocsExamined", stats.docs_examined);
    b.close();
    return b.finish();
  }

  std::vector<bson::OwnedValue> distinct(std::string_view db, std::string_view coll,
                                         std::string_view field,
                                         bson::DocumentView filter) override {
    if (field.empty()) throw Error(ErrorCode::kBadValue, "distinct key cannot be empty");
    Matcher matcher = Matcher::compile(filter);
    auto entry = collection_for_read(db, coll);
    if (!entry) return {};
    PlannedQuery plan = plan_for(*entry, matcher, bson::DocumentView());
    // Keyed by the index key: equal values (1, 1.0) collapse and the map is in MongoDB order.
    std::map<std::string, bson::OwnedValue> seen;
    run_read([&](WT_SESSION* s) {
      seen.clear();
      // The values go back in one reply document, so they must fit in one, as in mongod.
      size_t bytes = 0;
      std::vector<bson::Value> values;
      scan(s, *entry, matcher, plan,
           [&](const std::string&, bson::DocumentView doc, const MatchDetails&) {
             values.clear();
             collect_path_values(doc, field, &values);
             for (const bson::Value& v : values) {
               std::string key = bson::encode_index_key(v);
               if (seen.count(key)) continue;
               bytes += v.size() + 16;  // the value and its array element's type and index
               if (bytes + 1024 >= kMaxDocumentSize) {
                 throw Error(17217, "distinct too big, 16mb cap");
               }
               seen.emplace(std::move(key), bson::OwnedValue(v));
             }
             return true;
           });
      return 0;
    });
    std::vector<bson::OwnedValue> out;
    for (auto& [key, v] : seen) out.push_back(std::move(v));
    return out;
  }

  std::unique_ptr<Cursor> aggregate(std::string_view db, std::string_view coll,
                                    const std::vector<bson::Document>& pipeline,
                                    const AggregateOptions& options) override {
    return run_aggregate(*this, db, coll, pipeline, options, spill_directory_);
  }

  int64_t estimated_document_count(std::string_view db, std::string_view coll) override {
    return collection_stats(db, coll).document_count;
  }

 private:
  bson::Document build_upsert(const Matcher& matcher, const Update& update) {
    // MongoDB seeds the new document with the filter's equality fields, then applies the
    // update (with $setOnInsert); a replacement keeps only the filter's _id.
    bson::DocumentBuilder seed;
    bool has_id = false;
    if (!update.is_replacement()) {
      for (const auto& [path, value] : matcher.equality_fields()) {
        if (path.find('.') != std::string::npos) continue;  // nested seeds come from the update
        if (path == "_id") has_id = true;
        seed.append(path, value);
      }
    } else if (auto id = matcher.id_equality()) {
      seed.append("_id", *id);
      has_id = true;
    }
    (void)has_id;
    bson::Document seeded = seed.finish();
    Update::Result r = update.apply(seeded.view(), std::nullopt, true);
    return prepare_for_insert(r.document.view());
  }

  UpdateResult update_impl(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView update, const UpdateOptions& options, bool multi) {
    NowScope now;  // the filter and an update pipeline share the command's $$NOW
    Matcher matcher = compile_filter(filter, options.let);
    std::vector<bson::DocumentView> filters;
    for (const auto& f : options.array_filters) filters.push_back(f.view());
    if (options.update_is_pipeline && !options.array_filters.empty()) {
      throw Error(ErrorCode::kFailedToParse,
                  "arrayFilters may not be specified for pipeline-style updates");
    }
    Update compiled = options.update_is_pipeline ? Update::compile_pipeline(update, options.let)
                                                 : Update::compile(update, filters);
    if (multi && compiled.is_replacement()) {
      throw Error(ErrorCode::kFailedToParse,
                  "multi update is not supported for replacement-style update");
    }
    if (multi && !options.sort.empty()) {
      throw Error(ErrorCode::kInvalidOptions, "Cannot specify sort with multi=true");
    }
    SortSpec sort = SortSpec::compile(options.sort.view());
    WriteTarget target = writable(db, coll, options.upsert);
    const std::shared_ptr<CollectionEntry>& entry = target.entry;
    if (!entry) return UpdateResult{};
    PlannedQuery plan = plan_for(*entry, matcher, options.sort.view(), options.hint);
    for (int attempt = 0;; ++attempt) {
      try {
        return run_write([&](WT_SESSION* s) {
          UpdateResult result;
          std::vector<Match> matches;
          if (!multi) {
            // The first match, in `sort` order when there is one (MongoDB 8.0's updateOne).
            if (std::optional<Match> m = first_match(s, *entry, matcher, plan, sort)) {
              matches.push_back(std::move(*m));
            }
          } else {
            scan(s, *entry, matcher, plan,
                 [&](const std::string& key, bson::DocumentView doc, const MatchDetails& d) {
                   matches.push_back(Match{key, bson::Document::copy_of(doc), d.array_index});
                   return true;
                 });
          }
          for (const Match& m : matches) {
            ++result.matched_count;
            Update::Result r = compiled.apply(m.document.view(), m.array_index, false);
            if (!r.modified) continue;  // an update that changes nothing writes nothing
            bson::DocumentView before = m.document.view();
            validate_write(*entry, r.document.view(), &before, options.bypass_document_validation);
            write_updated(s, *entry, m.key, m.document.view(), r.document.view());
            ++result.modified_count;
          }
          if (matches.empty() && options.upsert) {
            bson::Document inserted = build_upsert(matcher, compiled);
            validate_write(*entry, inserted.view(), nullptr, options.bypass_document_validation);
            bson::Value id = inserted.get("_id");
            insert_record(s, *entry, id_key(id), inserted.view(), id);
            result.upserted_id = bson::OwnedValue(id);
          }
          return result;
        });
      } catch (const DuplicateKeyError&) {
        if (!options.upsert || attempt >= 3) throw;
      }
    }
  }

  int64_t delete_impl(std::string_view db, std::string_view coll, bson::DocumentView filter,
                      bool multi, const DeleteOptions& options) {
    Matcher matcher = compile_filter(filter, options.let);
    WriteTarget target = writable(db, coll, /*create=*/false);
    const std::shared_ptr<CollectionEntry>& entry = target.entry;
    if (!entry) return 0;
    PlannedQuery plan = plan_for(*entry, matcher, bson::DocumentView(), options.hint);
    return run_write(
        [&](WT_SESSION* s) { return remove_matching(s, *entry, matcher, plan, multi); });
  }

  // Removes the first document `matcher` accepts (every one with `multi`), index entries
  // included, inside the caller's transaction; returns how many. The matches are collected
  // first so the scan never walks over its own removals.
  int64_t remove_matching(WT_SESSION* s, const CollectionEntry& entry, const Matcher& matcher,
                          PlannedQuery& plan, bool multi) {
    std::vector<std::pair<std::string, bson::Document>> victims;
    scan(s, entry, matcher, plan,
         [&](const std::string& key, bson::DocumentView doc, const MatchDetails&) {
           victims.emplace_back(key, bson::Document::copy_of(doc));
           return multi;
         });
    for (const auto& [key, doc] : victims) remove_record(s, entry, key, doc.view());
    return static_cast<int64_t>(victims.size());
  }

  std::shared_ptr<CollectionEntry> collection_for_read(std::string_view db, std::string_view coll) {
    std::shared_lock lock(catalog_mutex_);
    auto it = catalog_.find(ns_of(db, coll));
    return it == catalog_.end() ? nullptr : it->second;
  }

  // The collection a write goes to, with its write gate held shared for the write.
  struct WriteTarget {
    std::shared_ptr<CollectionEntry> entry;  // null: no such collection (and not `create`)
    std::shared_lock<WriteGate> gate;
  };
  // A writer that resolved the name just before a rename or drop waits at the gate, then
  // finds the entry retired and resolves the name again, instead of writing into the
  // renamed collection (the write goes to whatever has the name now, as on MongoDB).
  WriteTarget writable(std::string_view db, std::string_view coll, bool create) {
    for (;;) {
      WriteTarget t;
      t.entry = create ? collection_for_write(db, coll) : collection_for_read(db, coll);
      if (!t.entry) return t;
      t.gate = std::shared_lock<WriteGate>(t.entry->write_gate);
      if (!t.entry->retired.load()) return t;
    }
  }

  // The collection named so, created when missing; never null. The entry is the one the
  // catalog held (or got) under the catalog lock: looking the name up again after creating it
  // could find nothing, because a drop may have come in between (issue 18: an insert racing a
  // drop wrote through a null entry). The caller may still find it retired by the time it
  // holds its gate; writable() then resolves the name again.
  std::shared_ptr<CollectionEntry> collection_for_write(std::string_view db,
                                                        std::string_view coll) {
    if (auto e = collection_for_read(db, coll)) return e;
    return create_if_missing(db, coll).first;
  }

  // The collection's entry, and whether this call created it (false: it already existed).
  std::pair<std::shared_ptr<CollectionEntry>, bool> create_if_missing(
      std::string_view db, std::string_view coll,
      std::shared_ptr<const CollectionValidation> validation = nullptr) {
    validate_database_name(db);
    validate_collection_name(coll);
    std::string ns = ns_of(db, coll);
    std::unique_lock lock(catalog_mutex_);
    if (auto it = catalog_.find(ns); it != catalog_.end()) return {it->second, false};
    retry_pending_drops();
    auto entry = std::make_shared<CollectionEntry>();
    entry->db = std::string(db);
    entry->coll = std::string(coll);
    entry->table_uri = new_table_uri("collection");
    if (validation) entry->set_validation(std::move(validation));
    {
      auto s = pool_->acquire();
      check_wiredtiger(s->create(s.get(), entry->table_uri.c_str(), kCollectionTableConfig),
                       "create", s.get());
    }
    bson::Document record = catalog_record(*entry, IndexList{});
    run_catalog_write([&](WT_SESSION* s) {
      CursorHandle c(s, kCatalogUri);
      WT_ITEM v = item_of(record.data(), record.size());
      c->set_key(c.get(), ns.c_str());
      c->set_value(c.get(), &v);
      check_in_transaction(c->insert(c.get()), "catalog insert", s);
    });
    catalog_[ns] = entry;
    return {entry, true};
  }

  // A $out interrupted by a crash left its temporary collection; its target is untouched.
  void drop_temporary_collections() {
    std::vector<std::pair<std::string, std::string>> leftovers;
    {
      std::shared_lock lock(catalog_mutex_);
      for (const auto& [ns, entry] : catalog_) {
        if (entry->coll.rfind(kTemporaryOutPrefix, 0) == 0) {
          leftovers.emplace_back(entry->db, entry->coll);
        }
      }
    }
    for (const auto& [db, coll] : leftovers) drop_collection(db, coll);
  }

  void load_catalog() {
    auto s = pool_->acquire();
    check_wiredtiger(s->create(s.get(), kCatalogUri, "key_format=S,value_format=u"),
                     "create catalog", s.get());
    std::map<std::string, bool> referenced;
    {
      CursorHandle c(s.get(), kCatalogUri);
      while (c->next(c.get()) == 0) {
        const char* ns = nullptr;
        WT_ITEM v{};
        c->get_key(c.get(), &ns);
        c->get_value(c.get(), &v);
        bson::Document record = bson::Document::from_bytes(
            std::span<const uint8_t>(static_cast<const uint8_t*>(v.data), v.size));
        auto entry = std::make_shared<CollectionEntry>();
        entry->db = std::string(record.get("db").as_string());
        entry->coll = std::string(record.get("collection").as_string());
        entry->table_uri = std::string(record.get("table").as_string());
        if (bson::Value options = record.get("options"); options.is_document()) {
          entry->set_validation(std::make_shared<const CollectionValidation>(
              CollectionValidation::parse(options.as_document(), "create")));
        }
        referenced[entry->table_uri] = true;
        auto indexes = std::make_shared<IndexList>();
        for (const bson::Element& spec : record.get("indexes").as_array()) {
          bson::DocumentView d = spec.value.as_document();
          if (!d.get("table").is_string()) continue;  // the _id index lives in the table itself
          auto ix = std::make_shared<IndexEntry>();
          ix->descriptor = IndexDescriptor::from_catalog(d);
          ix->table_uri = std::string(d.get("table").as_string());
          ix->multikey.store(d.get("multikey").truthy());
          ix->multikey_persisted.store(ix->multikey.load());
          referenced[ix->table_uri] = true;
          indexes->push_back(std::move(ix));
        }
        entry->set_indexes(std::move(indexes));
        catalog_[ns] = entry;
      }
    }
    // Tables without a catalog entry are left over from a drop interrupted by a crash.
    std::vector<std::string> orphans;
    {
      WT_CURSOR* meta = nullptr;
      check_wiredtiger(s->open_cursor(s.get(), "metadata:", nullptr, nullptr, &meta), "metadata",
                       s.get());
      while (meta->next(meta) == 0) {
        const char* key = nullptr;
        meta->get_key(meta, &key);
        std::string uri(key);
        for (std::string_view prefix :
             {std::string_view("table:collection-"), std::string_view("table:index-")}) {
          if (uri.rfind(prefix, 0) != 0) continue;
          size_t dash = uri.find('-', prefix.size());
          long long n = std::stoll(uri.substr(prefix.size(), dash - prefix.size()));
          if (n + 1 > next_table_.load()) next_table_.store(n + 1);
          if (!referenced.count(uri)) orphans.push_back(uri);
        }
      }
      meta->close(meta);
    }
    for (const auto& uri : orphans) s->drop(s.get(), uri.c_str(), "force=true");
  }

  void drop_table(const std::string& uri) { connection_->drop_table(uri); }
  void retry_pending_drops() { connection_->retry_pending_drops(); }

  EngineOptions options_;
  std::unique_ptr<WiredTigerConnection> connection_;
  WiredTigerSessionPool* pool_ = nullptr;
  std::string spill_directory_;  // <home>/_tmp: aggregation spill files

  std::shared_mutex catalog_mutex_;
  std::map<std::string, std::shared_ptr<CollectionEntry>> catalog_;
  std::atomic<long long> next_table_{1};
  std::atomic<long long> next_temporary_{0};  // tmp.agg_out.<n>
};

std::vector<bson::Document> FindCursor::next_batch() {
  if (done_) return {};
  if (!started_) {
    index_cursor_ = engine_->start_index_cursor(db_, coll_, matcher_, sort_spec_.view(), hint_);
  }
  if (index_cursor_) {
    started_ = true;
    return engine_->read_index_batch(matcher_, projection_, &*index_cursor_, &skip_, &remaining_,
                                     batch_size_, &done_);
  }
  if (!started_ && !sort_.empty() && allow_disk_use_ && remaining_ < 0) {
    external_ =
        engine_->external_sort(db_, coll_, matcher_, sort_spec_.view(), hint_, memory_limit_);
    started_ = true;
  }
  if (external_) {
    std::vector<bson::Document> out;
    while (out.size() < batch_size_) {
      std::optional<bson::Document> d = external_->next();
      if (!d) {
        done_ = true;
        external_.reset();  // its spill files go now
        break;
      }
      if (skip_ > 0) {
        --skip_;
        continue;
      }
      out.push_back(projection_.is_identity() ? std::move(*d) : projection_.apply(*d));
    }
    return out;
  }
  if (!started_ && !sort_.empty()) {
    materialized_ = true;
    sorted_ = engine_->query_results(db_, coll_, matcher_, projection_, sort_spec_.view(), sort_,
                                     skip_, remaining_, hint_, allow_disk_use_, memory_limit_);
    for (const bson::Document& d : sorted_) sorted_bytes_ += d.size();
    started_ = true;
  }
  if (materialized_) {
    std::vector<bson::Document> out;
    while (sorted_next_ < sorted_.size() && out.size() < batch_size_) {
      sorted_bytes_ -= sorted_[sorted_next_].size();
      out.push_back(std::move(sorted_[sorted_next_++]));
    }
    if (sorted_next_ >= sorted_.size()) {
      done_ = true;
      sorted_.clear();
      sorted_bytes_ = 0;
    }
    return out;
  }
  return engine_->read_batch(db_, coll_, matcher_, projection_, &collection_, &last_key_, &started_,
                             &skip_, &remaining_, batch_size_, &done_);
}

}  // namespace

std::shared_ptr<Engine> Engine::open(const EngineOptions& options) {
  install_expr_in_find_filters();
  install_update_pipelines();
  return std::make_shared<WiredTigerEngine>(options);
}

}  // namespace mongostore::engine
