#include "mongostore/records/record_store.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <set>
#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/records/content_id.h"
#include "records/fsck.h"
#include "records/leases.h"
#include "records/record_identity.h"
#include "records/record_reader.h"
#include "records/save_operation.h"
#include "records/store_context.h"
#include "records/store_layout.h"

namespace mongostore::records {
namespace {

using bson::Document;
using bson::make_document;

constexpr const char* kDynamicType = "dynamic";

bool is_replica_set(const Document& hello) {
  bson::Value set_name = hello.get("setName");
  return set_name.is_string() && !set_name.as_string().empty();
}

void validate_families(const std::vector<EntryFamily>& families) {
  std::set<std::string> names;
  for (const EntryFamily& f : families) {
    if (f.name.empty()) throw SchemaError("an entry family needs a name");
    if (!names.insert(f.name).second)
      throw SchemaError("entry family '" + f.name + "' declared twice");
    if (f.records.empty()) throw SchemaError("entry family '" + f.name + "' has no record");
    std::set<std::string> records;
    std::set<const RecordSchema*> schemas;
    for (const EntryRecord& r : f.records) {
      if (!r.schema)
        throw SchemaError("entry family '" + f.name + "': record '" + r.name + "' has no schema");
      if (r.name.empty() || !records.insert(r.name).second) {
        throw SchemaError("entry family '" + f.name + "': record name '" + r.name +
                          "' is empty or declared twice");
      }
      if (!schemas.insert(r.schema.get()).second) {
        throw SchemaError("entry family '" + f.name + "': " + r.schema->identity_name() +
                          " backs it twice");
      }
      if (r.schema->dedup() != Dedup::kContentId) {
        throw SchemaError("entry family '" + f.name + "': backing " + r.schema->identity_name() +
                          " must use content_id dedup");
      }
    }
  }
}

std::vector<std::string> declared_family_names(bson::DocumentView layout) {
  std::vector<std::string> out;
  bson::Value decl = layout.get("entry_declaration");
  if (!decl.is_string()) return out;
  Document parsed = Document::from_json(decl.as_string());
  bson::Value families = parsed.get("families");
  if (!families.is_array()) return out;
  for (const bson::Element& e : families.as_array()) {
    if (e.value.is_document() && e.value.as_document().get("family").is_string()) {
      out.emplace_back(e.value.as_document().get("family").as_string());
    }
  }
  return out;
}

}  // namespace

std::string dispatch_collection_name(const std::string& family) {
  std::string safe;
  for (char c : family) {
    unsigned char u = static_cast<unsigned char>(c);
    safe += std::isalnum(u) && u < 0x80 ? static_cast<char>(std::tolower(u)) : '_';
  }
  size_t b = safe.find_first_not_of('_'), e = safe.find_last_not_of('_');
  safe = b == std::string::npos ? "entry" : safe.substr(b, e - b + 1);
  std::string h8 = sha256_hex(family).substr(0, 8);
  std::string body = "_httk_entry_dispatch_" + safe;
  std::string name = body + "_" + h8;
  if (name.size() > 63) name = body.substr(0, 54) + "_" + h8;
  return name;
}

StoreContext::StoreContext(std::shared_ptr<client::Client> c, RecordStoreOptions o)
    : client(std::move(c)),
      options(std::move(o)),
      db(client->database(options.database)),
      setup(db, options.store_timestamps),
      sids(db.collection(kCountersCollection)),
      clock(StoreClock::Options{options.store_timestamp_resolution,
                                options.store_timestamps && !options.allow_clock_regression,
                                options.clock_regression_grace, options.clock_ns}),
      lease_owner(uuid4()) {}

std::vector<const FamilyBinding*> StoreContext::dispatching_families(
    const RecordSchema& schema) const {
  std::vector<const FamilyBinding*> out;
  for (const FamilyBinding& f : families) {
    if (f.dispatch.empty()) continue;
    for (const EntryRecord& r : f.declaration.records) {
      if (r.schema.get() == &schema) out.push_back(&f);
    }
  }
  return out;
}

int64_t StoreContext::timestamp_now() const {
  return clock.now_ns() / options.store_timestamp_resolution;
}

// --- the store --------------------------------------------------------------------------------

class RecordStore::Impl : public StoreContext {
 public:
  using StoreContext::StoreContext;

  void open();
  // Fingerprints and collections of `schema`'s closure, before its first save in this process.
  void prepare(const std::shared_ptr<const RecordSchema>& schema);
  // Every record type this process prepared (saved), for fsck's attribution.
  // Runs `body` as one transaction on a new session (reference §3): committed, the commit
  // retried while UnknownTransactionCommitResult (bounded); on any error aborted, the identity
  // caches cleared (they may name records the abort removed), and, up to `attempts` times,
  // retried when the error is a TransientTransactionError (the save operation labels a
  // protocol duplicate so), sleeping min(10 ms * 2^attempt, 100 ms) in between. Under
  // write_mutex; `lease` is the scope's writer lease. Returns how many attempts ran.
  int run_transaction(const std::function<void()>& body, int attempts, WriterLease* lease);
  std::vector<std::shared_ptr<const RecordSchema>> prepared() {
    std::lock_guard lock(prepare_mu_);
    return prepared_;
  }

 private:
  void open_layout(const std::vector<EntryFamily>* declared);
  void check_fingerprint(const RecordSchema& schema);

  std::set<std::string> family_tables_;
  std::set<std::string> fingerprinted_;
  std::set<std::string> prepared_tables_;
  std::vector<std::shared_ptr<const RecordSchema>> prepared_;
  std::mutex prepare_mu_;
};

void RecordStore::Impl::open() {
  const RecordStoreOptions& o = options;
  if (o.store_timestamp_resolution <= 0) {
    throw Error(ErrorCode::kBadValue, "store_timestamp_resolution must be a positive integer");
  }
  Document hello = client->hello();
  if (hello.get("maxBsonObjectSize").is_number()) {
    max_bson_size = static_cast<int64_t>(hello.get("maxBsonObjectSize").number_as_double());
  }
  // The one place the store decides its mode (reference §11). The embedded client always has
  // multi-document transactions (the engine's); a remote deployment has them when it is a
  // replica set (hello's setName), as drivers decide.
  const bool embedded = client->backend_name() == "embedded";
  const bool available = embedded || is_replica_set(hello);
  if (o.transactions == TransactionMode::kRequire && !available) {
    throw TransactionsUnavailableError(
        "transactions=require: the server is not a replica set (hello has no setName)");
  }
  transactions = available && o.transactions != TransactionMode::kNever;
  if (!transactions) {
    std::string why = o.transactions == TransactionMode::kNever ? "transactions=never"
                                                                : "the server is not a replica set";
    std::string warning = "RecordStore: database '" + o.database +
                          "' runs in degraded mode without multi-document transactions (" + why +
                          "): writes are durable per document, bottom-up; a crash can leave "
                          "unreachable documents for fsck";
    if (o.warn) {
      o.warn(warning);
    } else {
      std::fprintf(stderr, "%s\n", warning.c_str());
    }
  }

  const std::vector<EntryFamily>* declared = o.families ? &*o.families : nullptr;
  if (declared) validate_families(*declared);
  open_layout(declared);
  if (declared) {
    std::vector<std::shared_ptr<const RecordSchema>> roots;
    for (const EntryFamily& f : *declared) {
      FamilyBinding binding{f, f.records.size() >= 2 ? dispatch_collection_name(f.name) : ""};
      families.push_back(std::move(binding));
      for (const EntryRecord& r : f.records) roots.push_back(r.schema);
    }
    for (const auto& [name, schema] : reference_closure(roots)) family_tables_.insert(name);
  }
  // The generation as of open: a later fsck (a different one at a writer lease) clears caches.
  std::optional<Document> layout =
      db.collection(kMetadataCollection).find_one(make_document("_id", kLayoutId));
  if (layout) layout->get("generation").number_as_exact_int64(&seen_generation);
  // The clock guard's mark starts at the newest timestamp the family collections hold; other
  // collections add theirs when a save first prepares their type (prepare()).
  for (const std::string& table : family_tables_) clock.seed_from(db.collection(table));
}

void RecordStore::Impl::open_layout(const std::vector<EntryFamily>* declared) {
  client::Collection metadata = db.collection(kMetadataCollection);
  std::optional<Document> stored = metadata.find_one(make_document("_id", kLayoutId));
  std::vector<std::string> collections;
  if (!stored) {
    // The metadata collection alone is what a concurrent first open makes just before it
    // writes the layout: it does not make the database someone else's. The layout is read
    // again after the listing, so an opener that finished in between is seen.
    for (std::string& c : db.list_collection_names()) {
      if (c != kMetadataCollection) collections.push_back(std::move(c));
    }
    stored = metadata.find_one(make_document("_id", kLayoutId));
  }
  if (!stored) {
    if (!collections.empty()) {
      bson::DocumentBuilder unversioned;
      unversioned.open_array("unversioned");
      for (const std::string& c : collections) {
        if (c.rfind("_httk_", 0) != 0) unversioned.push(c);
      }
      unversioned.close().open_array("reserved");
      for (const std::string& c : collections) {
        if (c.rfind("_httk_", 0) == 0) unversioned.push(c);
      }
      unversioned.close().append("protocol", "missing");
      throw StorageLayoutUpgradeRequiredError(
          "database '" + options.database + "' holds collections but no RecordStore layout",
          unversioned.finish().to_json(), "open an empty database, or the store that wrote it");
    }
    if (!declared) {
      throw Error(ErrorCode::kBadValue,
                  "the first open of a RecordStore must declare its entry families "
                  "(RecordStoreOptions::families, possibly empty)");
    }
    try {
      metadata.insert_one(layout_document(options, *declared));
      return;
    } catch (const DuplicateKeyError&) {
      stored = metadata.find_one(make_document("_id", kLayoutId));  // a concurrent opener won
      if (!stored) throw;
    }
  }
  if (!declared) {
    std::vector<std::string> names = declared_family_names(*stored);
    if (!names.empty()) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      throw EntryLayoutBindingError("the store declares entry families (" + list +
                                    "): supply their declarations on every open");
    }
  }
  const std::vector<EntryFamily> none;
  bool additive = false;
  std::string diff = layout_diff(*stored, options, declared ? *declared : none, &additive);
  if (!declared && !diff.empty()) {
    // A bare reopen trusts the stored declaration and schemas: only the rest must agree.
    Document d = Document::from_json(diff);
    bson::DocumentBuilder rest;
    for (const bson::Element& e : d) {
      if (e.key != "schema") rest.append(e.key, e.value);
    }
    Document r = rest.finish();
    bson::Value decl = r.get("declaration");
    if (decl.is_document() && !decl.as_document().has("store_timestamps")) {
      bson::DocumentBuilder trimmed;
      for (const bson::Element& e : r) {
        if (e.key != "declaration") trimmed.append(e.key, e.value);
      }
      r = trimmed.finish();
    }
    diff = r.empty() ? "" : r.to_json();
    additive = false;
  }
  if (diff.empty()) return;
  if (additive && options.upgrade) {
    metadata.update_one(
        make_document("_id", kLayoutId),
        make_document("$set", make_document("entry_schemas", entry_schemas_json(*declared))));
    return;
  }
  throw StorageLayoutUpgradeRequiredError(
      "the stored layout of database '" + options.database + "' differs from the declarations",
      diff,
      additive ? "the change is purely additive: open with upgrade = true to accept it"
               : "the change is not additive: it needs a new store (or a migration)");
}

void RecordStore::Impl::check_fingerprint(const RecordSchema& schema) {
  // Family tables were checked against the layout at open; other tables are fingerprinted in
  // our own metadata document the first time any process prepares them.
  const std::string& table = schema.storage_name();
  if (family_tables_.count(table) || fingerprinted_.count(table)) return;
  std::string declared = table_fingerprint(schema).dump();
  client::Collection metadata = db.collection(kMetadataCollection);
  std::string path = "tables." + table;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::optional<Document> doc = metadata.find_one(make_document("_id", kExtraSchemasId));
    bson::Value stored = doc ? doc->get_path(path) : bson::Value();
    if (stored.is_missing()) {
      // First preparation: stamp it, unless another process just did (then compare).
      client::UpdateOptions upsert;
      upsert.upsert = true;
      try {
        auto result = metadata.update_one(
            make_document("_id", kExtraSchemasId, path, make_document("$exists", false)),
            make_document("$set", make_document(path, declared)), upsert);
        (void)result;
        fingerprinted_.insert(table);
        return;
      } catch (const DuplicateKeyError&) {
        continue;  // the document exists and holds the table now: read it again
      }
    }
    if (!stored.is_string()) {
      throw StorageLayoutUpgradeRequiredError("the fingerprint of '" + table + "' is unreadable",
                                              "{}", "repair _httk_store_metadata");
    }
    bool additive = false;
    std::string diff = table_diff(table, std::string(stored.as_string()), declared, &additive);
    if (diff.empty()) {
      fingerprinted_.insert(table);
      return;
    }
    if (additive && options.upgrade) {
      metadata.update_one(make_document("_id", kExtraSchemasId),
                          make_document("$set", make_document(path, declared)));
      fingerprinted_.insert(table);
      return;
    }
    throw StorageLayoutUpgradeRequiredError(
        "the stored shape of collection '" + table + "' differs from " + schema.identity_name(),
        diff,
        additive ? "the change is purely additive: open with upgrade = true to accept it"
                 : "the change is not additive: it needs a new store (or a migration)");
  }
}

void RecordStore::Impl::prepare(const std::shared_ptr<const RecordSchema>& schema) {
  {
    std::lock_guard lock(prepare_mu_);
    // A type prepared before in this process had its closure checked and seeded then; one
    // that failed its check is checked again at its next save.
    if (!prepared_tables_.count(schema->storage_name())) {
      for (const auto& [name, s] : reference_closure({schema})) {
        check_fingerprint(*s);
        clock.seed_from(db.collection(name));  // the clock guard's mark (store_clock.h)
      }
      prepared_tables_.insert(schema->storage_name());
      prepared_.push_back(schema);
    }
  }
  setup.ensure(schema);
  for (const FamilyBinding* f : dispatching_families(*schema))
    setup.ensure_dispatch(f->dispatch, f->record_names());
}

int RecordStore::Impl::run_transaction(const std::function<void()>& body, int attempts,
                                       WriterLease* lease) {
  constexpr int kCommitAttempts = 5;
  for (int attempt = 1;; ++attempt) {
    std::shared_ptr<client::ClientSession> session = client->start_session();
    session->start_transaction();
    // The session's client, kept alive by the session (the handles need a shared owner).
    std::shared_ptr<client::Client> in_session(session, &session->client());
    txn = ActiveTransaction{session, client::Database(in_session, options.database), std::nullopt,
                            lease};
    txn_thread.store(std::this_thread::get_id());
    auto end = [this] {
      txn_thread.store(std::thread::id{});
      txn.reset();
    };
    try {
      body();
      for (int commit = 1;; ++commit) {
        try {
          session->commit_transaction();
          break;
        } catch (const Error& e) {
          if (!e.has_label("UnknownTransactionCommitResult") || commit >= kCommitAttempts) throw;
        }
      }
      end();
      return attempt;
    } catch (const Error& e) {
      end();
      try {
        if (session->in_transaction()) session->abort_transaction();
      } catch (const Error&) {
        // The transaction is gone either way (aborted by the failure, or reaped).
      }
      cache.clear();
      if (!e.has_label("TransientTransactionError") || attempt >= attempts) throw;
    } catch (...) {
      end();
      try {
        if (session->in_transaction()) session->abort_transaction();
      } catch (const Error&) {
      }
      cache.clear();
      throw;
    }
    std::this_thread::sleep_for(
        std::min(std::chrono::milliseconds(10) * (1 << attempt), std::chrono::milliseconds(100)));
  }
}

// --- facade -----------------------------------------------------------------------------------

RecordStore::RecordStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RecordStore::RecordStore(RecordStore&&) noexcept = default;
RecordStore& RecordStore::operator=(RecordStore&&) noexcept = default;
RecordStore::~RecordStore() = default;

RecordStore RecordStore::open(std::shared_ptr<client::Client> client, RecordStoreOptions options) {
  if (!client) throw Error(ErrorCode::kBadValue, "RecordStore: no client");
  if (options.database.empty())
    throw Error(ErrorCode::kBadValue, "RecordStore: empty database name");
  auto impl = std::make_unique<Impl>(std::move(client), std::move(options));
  impl->open();
  return RecordStore(std::move(impl));
}

RecordStore RecordStore::connect(std::string_view uri, RecordStoreOptions options) {
  return open(client::connect(uri), std::move(options));
}

bool RecordStore::transactions_enabled() const {
  return impl_->transactions;
}
client::Database RecordStore::database() const {
  return impl_->db;
}
const RecordStoreOptions& RecordStore::options() const {
  return impl_->options;
}

int64_t RecordStore::save(const std::shared_ptr<const DynamicRecord>& record, const void* source,
                          std::shared_ptr<const void> keep_alive, const TopSave* top) {
  if (!record) throw SchemaError("save: no record");
  Impl& s = *impl_;
  std::lock_guard lock(s.write_mutex);
  // One save of the graph, in the transaction when there is one; the identity caches learn
  // the sids only once they are committed (or, inside a scope, until the scope aborts).
  auto save_once = [&](int64_t timestamp, WriterLease* lease) {
    SaveOperation op(s, timestamp, lease);
    int64_t sid = op.save_top(record, top ? *top : TopSave{});
    const RecordSchema& schema = record->schema();
    for (const FamilyBinding* family : s.dispatching_families(schema)) {
      for (const EntryRecord& r : family->declaration.records) {
        if (r.schema.get() == &schema) {
          write_dispatch(s, *family, r.name, sid, op.identity().content_id(*record));
        }
      }
    }
    return sid;
  };
  auto remember = [&](int64_t sid) {
    if (keep_alive) s.cache.note_sid(source, keep_alive, sid);
    if (source == record.get()) s.cache.note_sid(source, record, sid);
  };
  if (s.in_transaction()) {
    // Inside an explicit scope: its lease, its one timestamp, its transaction. Collections
    // are set up outside it (DDL is refused in a transaction).
    s.prepare(record->schema_ptr());
    if (!s.txn->timestamp) s.txn->timestamp = s.clock.capture();
    int64_t sid = save_once(*s.txn->timestamp, s.txn->lease);
    remember(sid);
    return sid;
  }
  WriterLease lease(s);
  s.prepare(record->schema_ptr());
  const int64_t timestamp = s.clock.capture();
  int64_t sid = 0;
  if (s.transactions) {
    constexpr int kSaveAttempts = 5;  // reference §3
    s.run_transaction([&] { sid = save_once(timestamp, &lease); }, kSaveAttempts, &lease);
  } else {
    sid = save_once(timestamp, &lease);
  }
  s.clock.advance(timestamp);
  remember(sid);
  return sid;
}

Document RecordStore::stored_document(const DynamicRecord& record, std::optional<int64_t> sid,
                                      std::string_view what) {
  if (!sid) sid = sid_of(record);
  std::optional<Document> doc;
  if (sid) {
    doc = impl_->collection(record.schema().storage_name()).find_one(make_document("_id", *sid));
  }
  if (!doc) {
    throw Error(ErrorCode::kBadValue, std::string(what) + ": this " +
                                          record.schema().identity_name() +
                                          " has not been stored or fetched through this store");
  }
  return *doc;
}

int64_t RecordStore::replace(const DynamicRecord& predecessor,
                             const std::shared_ptr<const DynamicRecord>& record) {
  return replace(std::shared_ptr<const DynamicRecord>(&predecessor, [](const DynamicRecord*) {}),
                 std::nullopt, record, record.get());
}

int64_t RecordStore::replace(const Value::RecordPtr& predecessor,
                             std::optional<int64_t> predecessor_sid, const Value::RecordPtr& record,
                             const void* source) {
  if (!predecessor || !record) throw SchemaError("replace: no record");
  if (predecessor->schema().storage_name() != record->schema().storage_name()) {
    throw Error(ErrorCode::kBadValue, "cannot replace a record of collection '" +
                                          predecessor->schema().storage_name() + "' with one of '" +
                                          record->schema().storage_name() + "'");
  }
  Document pred = stored_document(*predecessor, predecessor_sid, "replace");
  int64_t lineage = 0;
  if (!pred.get("logical_id").number_as_exact_int64(&lineage)) {
    throw Error(ErrorCode::kBadValue, "replace: the predecessor's document has no logical_id");
  }
  TopSave top;
  top.lineage = lineage;
  bson::Value kind = pred.get("alt_kind");
  if (kind.is_string()) {
    // A replace of an alternative stays an alternative of the same main and kind.
    int64_t alt_id = 0;
    pred.get("alt_id").number_as_exact_int64(&alt_id);
    top.alternative =
        TopSave::Alternative{alt_id, std::string(kind.as_string()), std::to_string(alt_id)};
  }
  return save(record, source, nullptr, &top);
}

int64_t RecordStore::save_alternative(const Value::RecordPtr& record, int64_t main_sid,
                                      std::string_view kind, const void* source) {
  if (!record) throw SchemaError("save_alternative: no record");
  if (kind.empty() || kind.find('~') != std::string_view::npos) {
    throw Error(
        ErrorCode::kBadValue,
        "an alternative kind must be non-empty and hold no '~' (got '" + std::string(kind) + "')");
  }
  const std::string& table = record->schema().storage_name();
  client::Collection coll = impl_->collection(table);
  std::optional<Document> main = coll.find_one(make_document("_id", main_sid));
  if (!main) {
    throw Error(ErrorCode::kBadValue, "save_alternative: '" + table + "' has no main record sid " +
                                          std::to_string(main_sid));
  }
  if (main->has("alt_kind")) {
    throw Error(ErrorCode::kBadValue, "save_alternative: " + table + " sid " +
                                          std::to_string(main_sid) +
                                          " is itself an alternative, not a main");
  }
  int64_t alt_id = 0;
  if (!main->get("alt_id").number_as_exact_int64(&alt_id)) {
    throw StorageLayoutUpgradeRequiredError(
        "'" + table + "' was written before alternatives existed (its documents have no alt_id)",
        R"({"alternatives": {"missing": "alt_id"}})",
        "rebuild the store (save its records into a new database) to use alternatives");
  }
  TopSave top;
  top.alternative = TopSave::Alternative{alt_id, std::string(kind), std::to_string(alt_id)};
  // One lineage per (main, kind): a further alternative of a kind succeeds the first.
  client::FindOptions first;
  first.sort = make_document("_id", 1);
  first.projection = make_document("logical_id", 1);
  if (std::optional<Document> existing =
          coll.find_one(make_document("alt_id", alt_id, "alt_kind", kind), first)) {
    int64_t lineage = 0;
    if (existing->get("logical_id").number_as_exact_int64(&lineage)) top.lineage = lineage;
  }
  return save(record, source, nullptr, &top);
}

std::shared_ptr<const DynamicRecord> RecordStore::fetch_alternative(const SchemaPtr& schema,
                                                                    int64_t main_sid,
                                                                    std::string_view kind) {
  client::Collection coll = impl_->collection(schema->storage_name());
  std::optional<Document> main = coll.find_one(make_document("_id", main_sid));
  int64_t alt_id = 0;
  if (!main || !main->get("alt_id").number_as_exact_int64(&alt_id)) return nullptr;
  client::FindOptions latest;
  latest.sort = make_document("_id", -1);
  latest.projection = make_document("_id", 1);
  std::optional<Document> doc =
      coll.find_one(make_document("alt_id", alt_id, "alt_kind", kind), latest);
  int64_t sid = 0;
  if (!doc || !doc->get("_id").number_as_exact_int64(&sid)) return nullptr;
  return fetch(schema, sid);
}

std::vector<std::shared_ptr<const DynamicRecord>> RecordStore::history(const DynamicRecord& record,
                                                                       std::optional<int64_t> sid) {
  Document doc = stored_document(record, sid, "history");
  return RecordReader(*impl_).fetch_matching(record.schema_ptr(),
                                             make_document("logical_id", doc.get("logical_id")));
}

std::optional<int64_t> RecordStore::cached_sid(const void* source) {
  return impl_->cache.sid_of(source);
}

FromDynamic RecordStore::converter() {
  FromDynamic ctx;
  Impl* impl = impl_.get();
  ctx.share = [impl](const DynamicRecord& record, const char* type,
                     const FromDynamic::Make& make) -> std::shared_ptr<const void> {
    if (!record.sid()) return make();
    const std::string& table = record.schema().storage_name();
    if (auto live = impl->cache.find(table, *record.sid(), type)) return live;
    std::shared_ptr<const void> object = make();
    impl->cache.put(table, *record.sid(), type, object);
    return object;
  };
  return ctx;
}

std::shared_ptr<const DynamicRecord> RecordStore::fetch(const SchemaPtr& schema, int64_t sid) {
  return RecordReader(*impl_).fetch(schema, sid);
}

std::vector<std::shared_ptr<const DynamicRecord>> RecordStore::fetch_many(
    const SchemaPtr& schema, std::vector<int64_t> sids) {
  return RecordReader(*impl_).fetch_many(schema, std::move(sids));
}

std::shared_ptr<const DynamicRecord> RecordStore::fetch_by_content_id(const SchemaPtr& schema,
                                                                      std::string_view content_id) {
  if (schema->dedup() != Dedup::kContentId) {
    throw SchemaError(schema->identity_name() + " does not dedup by content id (dedup = " +
                      std::string(dedup_name(schema->dedup())) + ")");
  }
  client::FindOptions options;
  options.projection = make_document("_id", 1);
  std::optional<Document> doc = impl_->collection(schema->storage_name())
                                    .find_one(make_document("content_id", content_id), options);
  int64_t sid = 0;
  if (!doc || !doc->get("_id").number_as_exact_int64(&sid)) return nullptr;
  return fetch(schema, sid);
}

std::optional<int64_t> RecordStore::sid_of(const DynamicRecord& record) {
  if (record.sid()) return record.sid();
  if (auto sid = impl_->cache.sid_of(&record)) return sid;
  if (record.schema().dedup() != Dedup::kContentId) return std::nullopt;
  std::string cid;
  try {
    cid = RecordIdentity().content_id(record);
  } catch (const SchemaError&) {
    return std::nullopt;  // a record with no identity was never stored
  }
  client::FindOptions options;
  options.projection = make_document("_id", 1);
  std::optional<Document> doc = impl_->collection(record.schema().storage_name())
                                    .find_one(make_document("content_id", cid), options);
  int64_t sid = 0;
  if (!doc || !doc->get("_id").number_as_exact_int64(&sid)) return std::nullopt;
  return sid;
}

std::vector<std::shared_ptr<const DynamicRecord>> RecordStore::referring(const SchemaPtr& schema,
                                                                         std::string_view field,
                                                                         int64_t sid) {
  std::optional<size_t> i = schema->field_index(field);
  const FieldSchema* f = i ? &schema->fields()[*i] : nullptr;
  const FieldType* t =
      f ? (f->type.kind == FieldKind::kList ? f->type.element.get() : &f->type) : nullptr;
  if (!f || !f->stored() || t->kind != FieldKind::kReference) {
    throw SchemaError(schema->identity_name() + "." + std::string(field) +
                      " is not a reference to a record");
  }
  std::string path = f->type.kind == FieldKind::kList ? "f." + f->name + "." + f->name + "_sid"
                                                      : "f." + f->name + "_sid";
  return RecordReader(*impl_).fetch_matching(schema, make_document(path, sid));
}

std::string RecordStore::content_id(const DynamicRecord& record) {
  return RecordIdentity().content_id(record);
}

std::optional<FetchedEntry> RecordStore::fetch_entry(std::string_view family,
                                                     std::string_view content_id) {
  const FamilyBinding* binding = nullptr;
  for (const FamilyBinding& f : impl_->families) {
    if (f.declaration.name == family) binding = &f;
  }
  if (!binding) {
    throw Error(ErrorCode::kBadValue, "unknown entry family '" + std::string(family) + "'");
  }
  const auto& records = binding->declaration.records;
  if (binding->dispatch.empty()) {
    auto r = fetch_by_content_id(records.front().schema, content_id);
    if (!r) return std::nullopt;
    return FetchedEntry{records.front().name, *r->sid(), r};
  }
  std::optional<Document> dispatch =
      impl_->collection(binding->dispatch).find_one(make_document("_id", content_id));
  if (!dispatch) {
    for (const EntryRecord& r : records) {
      if (impl_->collection(r.schema->storage_name())
              .find_one(make_document("content_id", content_id))) {
        throw EntryDispatchIntegrityError("entry " + std::string(content_id) + " of family '" +
                                          binding->declaration.name + "' is stored as a " + r.name +
                                          " but has no dispatch document (re-save it or run fsck)");
      }
    }
    return std::nullopt;
  }
  bson::Value name = dispatch->get("record");
  int64_t sid = 0;
  const EntryRecord* backing = nullptr;
  for (const EntryRecord& r : records) {
    if (name.is_string() && name.as_string() == r.name) backing = &r;
  }
  if (!backing || !dispatch->get("sid").number_as_exact_int64(&sid)) {
    throw EntryDispatchIntegrityError("the dispatch of entry " + std::string(content_id) +
                                      " of family '" + binding->declaration.name +
                                      "' is malformed: " + dispatch->to_json());
  }
  std::optional<Document> stored =
      impl_->collection(backing->schema->storage_name()).find_one(make_document("_id", sid));
  bson::Value cid = stored ? stored->get("content_id") : bson::Value();
  if (!cid.is_string() || cid.as_string() != content_id) {
    throw EntryDispatchIntegrityError("the dispatch of entry " + std::string(content_id) +
                                      " names " + backing->name + " sid " + std::to_string(sid) +
                                      ", which " +
                                      (stored ? "holds another content id" : "does not exist"));
  }
  return FetchedEntry{backing->name, sid, fetch(backing->schema, sid)};
}

void RecordStore::ensure_collections() {
  std::lock_guard lock(impl_->write_mutex);
  for (const FamilyBinding& f : impl_->families) {
    for (const EntryRecord& r : f.declaration.records) impl_->prepare(r.schema);
  }
}

FsckSummary RecordStore::fsck(const FsckOptions& options) {
  std::lock_guard lock(impl_->write_mutex);
  return run_fsck(*impl_, impl_->prepared(), options);
}

bool RecordStore::clear_stale_lock() {
  return clear_stale_fsck_lease(*impl_, impl_->options.lease_stale_after);
}

void RecordStore::transaction(const std::function<void(RecordStore&)>& body) {
  Impl& s = *impl_;
  if (!s.transactions) {
    throw TransactionsUnavailableError(
        "transaction(): database '" + s.options.database +
        "' runs in degraded mode without multi-document transactions");
  }
  std::lock_guard lock(s.write_mutex);
  if (s.in_transaction()) {
    body(*this);  // flat nesting: an inner scope is part of the outer one
    return;
  }
  WriterLease lease(s);
  // Every type a family declares is set up now: DDL cannot run once the transaction began.
  for (const FamilyBinding& f : s.families) {
    for (const EntryRecord& r : f.declaration.records) s.prepare(r.schema);
  }
  std::optional<int64_t> timestamp;
  // No automatic retry (reference §11): `body` is the caller's and may not be repeatable.
  s.run_transaction(
      [&] {
        body(*this);
        timestamp = s.txn->timestamp;
      },
      1, &lease);
  if (timestamp) s.clock.advance(*timestamp);
}

}  // namespace mongostore::records
