#include "engine/catalog/index_catalog.h"

#include <algorithm>

#include "engine/index_key_generator.h"
#include "engine/storage/index_entry_value.h"
#include "engine/storage/index_table.h"
#include "engine/storage/record_table.h"
#include "engine/storage/wiredtiger_connection.h"
#include "engine/write_conflict_retry.h"
#include "mongostore/error.h"

namespace mongostore::engine {

namespace {
constexpr UnitOfWork::Mode kWrite = UnitOfWork::Mode::kWrite;
}  // namespace

std::string IndexCatalog::create(OperationContext& op, std::string_view db, std::string_view coll,
                                 bson::DocumentView keys, bson::DocumentView options) {
  // Without its own collation an index takes the collection's default.
  auto existing = collections_.lookup(db, coll);
  IndexDescriptor d =
      IndexDescriptor::parse(keys, options, existing ? existing->default_collation : nullptr);
  bool id_key_pattern =
      d.fields().size() == 1 && d.fields()[0].path == "_id" && !d.fields()[0].descending;
  // {_id: 1} under another collation than the collection's is an index of its own, as in
  // MongoDB (whose `_id` index has the collection's default collation).
  bool id_collation =
      d.collation() == nullptr ||
      Collation::same(d.collation(), existing ? existing->default_collation.get() : nullptr);
  if (d.is_id_index() ||
      (id_key_pattern && id_collation && !d.unique() && !d.sparse() && !d.partial_filter())) {
    // The _id index always exists.
    collections_.lookup_or_create(op, db, coll);
    return "_id_";
  }
  for (;;) {
    auto entry = collections_.lookup_or_create(op, db, coll);
    std::unique_lock gate(entry->write_gate);
    if (collections_.lookup(db, coll) != entry) continue;  // dropped meanwhile: retry
    if (entry != existing) d = IndexDescriptor::parse(keys, options, entry->default_collation);
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
    ix->table_uri = durable_.new_table_uri("index");
    connection_.create_record_table(ix->table_uri);
    try {
      build(op, *entry, *ix);
      auto next = std::make_shared<IndexList>(*current);
      next->push_back(ix);
      bson::Document record = DurableCatalog::record(*entry, *next);
      write_conflict_retry(op, kWrite, [&] {
        durable_.put(op, ns_of(db, coll), record);
        op.unit_of_work().on_commit([&] {
          ix->multikey_persisted.store(ix->multikey.load());
          entry->set_indexes(std::move(next));
        });
      });
    } catch (...) {
      connection_.drop_table(ix->table_uri);
      throw;
    }
    return d.name();
  }
}

std::vector<bson::Document> IndexCatalog::list(std::string_view db, std::string_view coll) {
  auto entry = collections_.lookup(db, coll);
  if (!entry) {
    throw Error(ErrorCode::kNamespaceNotFound, "ns does not exist: " + ns_of(db, coll));
  }
  std::vector<bson::Document> out;
  // Hold the list: a range-for over *entry->indexes() would outlive the temporary pointer,
  // and a concurrent index build or drop replaces the list (a use-after-free ASan caught).
  const auto indexes = entry->indexes();
  for (const auto& ix : *indexes) {
    if (!ix->descriptor.is_id_index()) {
      out.push_back(ix->descriptor.to_document());
      continue;
    }
    // The `_id_` index of a default collation: as mongod lists it (no `unique`).
    bson::DocumentBuilder b;
    b.append_elements(DurableCatalog::id_index_spec().view());
    b.append("collation", ix->descriptor.to_document().view().get("collation"));
    out.push_back(b.finish());
  }
  if (indexes->empty() || !indexes->front()->descriptor.is_id_index()) {
    out.insert(out.begin(), DurableCatalog::id_index_spec());
  }
  return out;
}

void IndexCatalog::drop(OperationContext& op, std::string_view db, std::string_view coll,
                        std::string_view name) {
  if (name == "*") {  // dropIndexes("*"): every index but _id_
    auto entry = collections_.lookup(db, coll);
    while (entry) {
      const auto indexes = entry->indexes();
      auto it = std::find_if(indexes->begin(), indexes->end(),
                             [](const auto& ix) { return !ix->descriptor.is_id_index(); });
      if (it == indexes->end()) break;
      drop(op, db, coll, (*it)->descriptor.name());
    }
    if (!entry) {
      throw Error(ErrorCode::kNamespaceNotFound, "ns not found " + ns_of(db, coll));
    }
    return;
  }
  drop_where(op, db, coll, "index not found with name [" + std::string(name) + "]", name == "_id_",
             [&](const IndexDescriptor& d) { return d.name() == name; });
}

void IndexCatalog::drop(OperationContext& op, std::string_view db, std::string_view coll,
                        bson::DocumentView keys) {
  IndexDescriptor wanted = IndexDescriptor::parse(keys, bson::DocumentView());
  bool is_id = wanted.fields().size() == 1 && wanted.fields()[0].path == "_id";
  drop_where(op, db, coll, "can't find index with key: " + keys.to_json(), is_id,
             [&](const IndexDescriptor& d) { return d.same_key_pattern(wanted); });
}

template <class Pred>
void IndexCatalog::drop_where(OperationContext& op, std::string_view db, std::string_view coll,
                              const std::string& not_found, bool is_id, Pred&& pred) {
  if (is_id) throw Error(ErrorCode::kInvalidOptions, "cannot drop _id index");
  auto entry = collections_.lookup(db, coll);
  if (!entry) {
    throw Error(ErrorCode::kNamespaceNotFound, "ns not found " + ns_of(db, coll));
  }
  std::unique_lock gate(entry->write_gate);
  if (entry->retired.load()) {
    // Renamed or dropped while this waited: the name means another collection now.
    gate.unlock();
    drop_where(op, db, coll, not_found, is_id, std::forward<Pred>(pred));
    return;
  }
  auto current = entry->indexes();
  auto next = std::make_shared<IndexList>();
  std::shared_ptr<IndexEntry> dropped;
  for (const auto& ix : *current) {
    if (!pred(ix->descriptor)) {
      next->push_back(ix);
    } else if (!dropped) {
      dropped = ix;
    } else {
      // As mongod: a key pattern two indexes share (under different collations) names
      // neither (names are unique, so only a key pattern gets here).
      throw Error(ErrorCode::kAmbiguousIndexKeyPattern,
                  "index keyPattern " + dropped->descriptor.key_pattern().to_json() +
                      " matches more than one index, identify it by name instead. Conflicting "
                      "indexes: " +
                      dropped->descriptor.to_document().to_json() + ", " +
                      ix->descriptor.to_document().to_json());
    }
  }
  if (!dropped) throw Error(ErrorCode::kIndexNotFound, not_found);
  bson::Document record = DurableCatalog::record(*entry, *next);
  write_conflict_retry(op, kWrite, [&] {
    durable_.put(op, ns_of(db, coll), record);
    op.unit_of_work().on_commit([&] { entry->set_indexes(std::move(next)); });
  });
  connection_.drop_table(dropped->table_uri);
}

// Fills a new index from a scan of the collection, in units of work of a bounded number of
// documents (writers are held off by the write gate, so the batches see a stable
// collection). A unique violation throws DuplicateKeyError; the caller drops the table.
void IndexCatalog::build(OperationContext& op, const CollectionEntry& entry, IndexEntry& ix) {
  constexpr size_t kBatch = 5000;
  std::string last;
  bool started = false, done = false;
  while (!done) {
    write_conflict_retry(op, kWrite, [&] {
      WT_SESSION* s = op.session();
      CursorHandle c(s, entry.table_uri);
      done = false;
      std::string batch_last = last;
      int rc = RecordTable::seek_after(c.get(), last, started);
      size_t n = 0;
      IndexKeyGenerator generator(ix.descriptor);
      std::vector<GeneratedKey> keys;
      IndexTable table(s, ix.table_uri, ix.descriptor);
      while (rc == 0 && n < kBatch) {
        batch_last = current_key(c.get());
        bson::DocumentView doc = current_value(c.get());
        keys.clear();
        bool multikey = false;
        generator.generate(doc, &keys, &multikey);
        if (multikey) ix.multikey.store(true);
        const std::string stored = IndexEntryValue::stored_fields_of(ix.descriptor, doc);
        for (size_t i = 0; i < keys.size(); ++i) {
          table.insert(entry.db, entry.coll, keys[i], batch_last,
                       IndexEntryValue::stored_at(ix.descriptor, i, stored));
        }
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

}  // namespace mongostore::engine
