#include "engine/catalog/collection_catalog.h"

#include <iterator>

#include "engine/document_validation.h"
#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_connection.h"
#include "engine/write_conflict_retry.h"
#include "mongostore/error.h"

namespace mongostore::engine {

namespace {
constexpr UnitOfWork::Mode kWrite = UnitOfWork::Mode::kWrite;
}  // namespace

void CollectionCatalog::open(OperationContext& op) {
  {
    std::unique_lock lock(catalog_mutex_);
    auto loaded = durable_.load();
    catalog_.clear();
    catalog_.insert(std::make_move_iterator(loaded.begin()), std::make_move_iterator(loaded.end()));
  }
  drop_temporary_collections(op);
}

std::vector<std::string> CollectionCatalog::list_databases() {
  std::shared_lock lock(catalog_mutex_);
  std::vector<std::string> out;
  for (const auto& [ns, entry] : catalog_) {
    if (out.empty() || out.back() != entry->db) out.push_back(entry->db);
  }
  return out;
}

std::vector<std::string> CollectionCatalog::list_collections(std::string_view db) {
  std::shared_lock lock(catalog_mutex_);
  std::vector<std::string> out;
  for (const auto& [ns, entry] : catalog_) {
    if (entry->db == db) out.push_back(entry->coll);
  }
  return out;
}

bool CollectionCatalog::exists(std::string_view db, std::string_view coll) {
  std::shared_lock lock(catalog_mutex_);
  return catalog_.count(ns_of(db, coll)) != 0;
}

void CollectionCatalog::create(OperationContext& op, std::string_view db, std::string_view coll,
                               bson::DocumentView options) {
  bson::DocumentBuilder validation_options;
  std::shared_ptr<const Collation> collation;
  for (const bson::Element& e : options) {
    if (e.key == "collation") {
      collation = Collation::parse_option(e.value);  // null for {locale: "simple"}
      continue;
    }
    if (e.key != "validator" && e.key != "validationLevel" && e.key != "validationAction") {
      throw Error(ErrorCode::kUnknownField,
                  "BSON field 'create." + std::string(e.key) + "' is an unknown field.");
    }
    validation_options.append(e.key, e.value);
  }
  bson::Document validation_spec = validation_options.finish();
  CollectionValidation::refuse_on_namespace(validation_spec.view(), db, coll);
  auto validation = std::make_shared<const CollectionValidation>(
      CollectionValidation::parse(validation_spec.view(), "create", collation));
  if (!create_if_missing(op, db, coll, std::move(validation), std::move(collation)).second) {
    throw Error(ErrorCode::kNamespaceExists, "Collection " + ns_of(db, coll) + " already exists.");
  }
}

void CollectionCatalog::modify(OperationContext& op, std::string_view db, std::string_view coll,
                               bson::DocumentView options) {
  for (const bson::Element& e : options) {
    if (e.key != "validator" && e.key != "validationLevel" && e.key != "validationAction") {
      throw Error(ErrorCode::kUnknownField,
                  "BSON field 'collMod." + std::string(e.key) + "' is an unknown field.");
    }
  }
  CollectionValidation::refuse_on_namespace(options, db, coll);
  CollectionValidation::parse(options, "collMod");  // errors before waiting for writers
  for (;;) {
    std::shared_ptr<CollectionEntry> entry = lookup(db, coll);
    if (!entry) {
      throw Error(ErrorCode::kNamespaceNotFound, "ns does not exist: " + ns_of(db, coll));
    }
    // Writers in progress finish under the old options; later ones see the new ones.
    std::unique_lock<WriteGate> gate(entry->write_gate);
    if (entry->retired.load()) continue;  // renamed or dropped meanwhile: look again
    write_conflict_retry(op, kWrite, [&] {
      // The record is made from the entry, so the new options go in first; a rollback puts
      // the old ones back.
      std::shared_ptr<const CollectionValidation> before = entry->validation();
      entry->set_validation(
          std::make_shared<const CollectionValidation>(before->modified(options)));
      op.unit_of_work().on_rollback([&entry, before] { entry->set_validation(before); });
      durable_.put(op, ns_of(db, coll), DurableCatalog::record(*entry, *entry->indexes()));
    });
    return;
  }
}

bson::Document CollectionCatalog::options(std::string_view db, std::string_view coll) {
  std::shared_ptr<CollectionEntry> entry = lookup(db, coll);
  if (!entry) {
    throw Error(ErrorCode::kNamespaceNotFound, "ns does not exist: " + ns_of(db, coll));
  }
  return entry->options();
}

bool CollectionCatalog::drop(OperationContext& op, std::string_view db, std::string_view coll) {
  std::string ns = ns_of(db, coll);
  std::shared_ptr<CollectionEntry> entry = lookup(db, coll);
  if (!entry) return false;
  // Writers finish first (the gate is taken before the catalog lock, as index builds do).
  std::unique_lock gate(entry->write_gate);
  {
    std::unique_lock lock(catalog_mutex_);
    auto it = catalog_.find(ns);
    if (it == catalog_.end() || it->second != entry) return false;
    // The catalog entry goes first: after a crash between the two steps the table is an
    // orphan, removed at the next open, never a collection without storage.
    write_conflict_retry(op, kWrite, [&] {
      durable_.remove(op, ns);
      op.unit_of_work().on_commit([&] {
        catalog_.erase(it);
        entry->dropped.store(true);
        entry->retired.store(true);
      });
    });
  }
  connection_.drop_table(entry->table_uri);
  const auto dropped_indexes = entry->indexes();  // held: see IndexCatalog::list
  for (const auto& ix : *dropped_indexes) connection_.drop_table(ix->table_uri);
  return true;
}

void CollectionCatalog::rename(OperationContext& op, std::string_view from_db,
                               std::string_view from, std::string_view to_db, std::string_view to,
                               bool drop_target) {
  validate_database_name(to_db);
  validate_collection_name(to);
  const std::string from_ns = ns_of(from_db, from), to_ns = ns_of(to_db, to);
  if (from_ns == to_ns) {
    throw Error(ErrorCode::kIllegalOperation, "Can't rename a collection to itself");
  }
  for (;;) {
    std::shared_ptr<CollectionEntry> source = lookup(from_db, from);
    if (!source) {
      throw Error(ErrorCode::kNamespaceNotFound,
                  "Source collection " + from_ns + " does not exist");
    }
    std::shared_ptr<CollectionEntry> target = lookup(to_db, to);
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
      renamed->default_collation = source->default_collation;
      bson::Document record = DurableCatalog::record(*renamed, *renamed->indexes());
      // One catalog transaction: after a crash the collection has one name or the other,
      // and a replaced target is gone exactly when the rename happened.
      write_conflict_retry(op, kWrite, [&] {
        durable_.rename(op, from_ns, to_ns, record);
        op.unit_of_work().on_commit([&] {
          source->retired.store(true);
          if (target) {
            target->dropped.store(true);
            target->retired.store(true);
          }
          catalog_.erase(from_ns);
          catalog_[to_ns] = renamed;
        });
      });
    }
    if (target) {
      // The replaced target's tables are orphans now (removed at the next open if this
      // does not get to it).
      connection_.drop_table(target->table_uri);
      const auto target_indexes = target->indexes();  // held: see IndexCatalog::list
      for (const auto& ix : *target_indexes) connection_.drop_table(ix->table_uri);
    }
    return;
  }
}

void CollectionCatalog::drop_database(OperationContext& op, std::string_view db) {
  for (const std::string& coll : list_collections(db)) drop(op, db, coll);
}

std::shared_ptr<CollectionEntry> CollectionCatalog::lookup(std::string_view db,
                                                           std::string_view coll) {
  std::shared_lock lock(catalog_mutex_);
  auto it = catalog_.find(NamespaceParts{db, coll});  // no "db.coll" string built
  return it == catalog_.end() ? nullptr : it->second;
}

std::shared_ptr<CollectionEntry> CollectionCatalog::lookup_or_create(OperationContext& op,
                                                                     std::string_view db,
                                                                     std::string_view coll) {
  if (auto e = lookup(db, coll)) return e;
  return create_if_missing(op, db, coll).first;
}

std::pair<std::shared_ptr<CollectionEntry>, bool> CollectionCatalog::create_if_missing(
    OperationContext& op, std::string_view db, std::string_view coll,
    std::shared_ptr<const CollectionValidation> validation,
    std::shared_ptr<const Collation> default_collation) {
  validate_database_name(db);
  validate_collection_name(coll);
  std::string ns = ns_of(db, coll);
  std::unique_lock lock(catalog_mutex_);
  if (auto it = catalog_.find(ns); it != catalog_.end()) return {it->second, false};
  connection_.retry_pending_drops();
  auto entry = std::make_shared<CollectionEntry>();
  entry->db = std::string(db);
  entry->coll = std::string(coll);
  entry->table_uri = durable_.new_table_uri("collection");
  if (validation) entry->set_validation(std::move(validation));
  entry->default_collation = std::move(default_collation);
  connection_.create_record_table(entry->table_uri);
  if (entry->default_collation) {
    // As mongod, the `_id` index has the collection's default collation: the record table is
    // keyed by the plain `_id`, so a unique `_id_` index of that collation is kept beside it
    // (`_id` values the collation finds equal collide; `_id` queries under it read it).
    auto id_index = std::make_shared<IndexEntry>();
    id_index->descriptor = IndexDescriptor::parse(
        bson::make_document("_id", 1).view(),
        bson::make_document("name", "_id_", "unique", true).view(), entry->default_collation);
    id_index->table_uri = durable_.new_table_uri("index");
    connection_.create_record_table(id_index->table_uri);
    entry->set_indexes(std::make_shared<const IndexList>(IndexList{id_index}));
  }
  bson::Document record = DurableCatalog::record(*entry, *entry->indexes());
  // Always in a unit of work of its own, even when the caller runs in a multi-document
  // transaction: the table exists from here on (WiredTiger's create is not transactional),
  // so its catalog record commits now too, and the map changes with it.
  OperationContext own(op.connection());
  write_conflict_retry(own, kWrite, [&] {
    durable_.put(own, ns, record, "catalog insert");
    own.unit_of_work().on_commit([&] { catalog_[ns] = entry; });
  });
  return {entry, true};
}

CollectionCatalog::WriteTarget CollectionCatalog::writable(OperationContext& op,
                                                           std::string_view db,
                                                           std::string_view coll, bool create) {
  for (;;) {
    WriteTarget t;
    t.entry = create ? lookup_or_create(op, db, coll) : lookup(db, coll);
    if (!t.entry) return t;
    t.gate = std::shared_lock<WriteGate>(t.entry->write_gate);
    if (!t.entry->retired.load()) return t;
  }
}

std::string CollectionCatalog::next_temporary_name() {
  return std::string(kTemporaryOutPrefix) + std::to_string(next_temporary_++);
}

// A $out interrupted by a crash left its temporary collection; its target is untouched.
void CollectionCatalog::drop_temporary_collections(OperationContext& op) {
  std::vector<std::pair<std::string, std::string>> leftovers;
  {
    std::shared_lock lock(catalog_mutex_);
    for (const auto& [ns, entry] : catalog_) {
      if (entry->coll.rfind(kTemporaryOutPrefix, 0) == 0) {
        leftovers.emplace_back(entry->db, entry->coll);
      }
    }
  }
  for (const auto& [db, coll] : leftovers) drop(op, db, coll);
}

}  // namespace mongostore::engine
