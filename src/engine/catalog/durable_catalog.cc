#include "engine/catalog/durable_catalog.h"

#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "engine/storage/wiredtiger_connection.h"
#include "engine/storage/wiredtiger_cursor.h"
#include "mongostore/bson/builder.h"

namespace mongostore::engine {

std::map<std::string, std::shared_ptr<CollectionEntry>> DurableCatalog::load() {
  std::map<std::string, std::shared_ptr<CollectionEntry>> catalog;
  auto s = connection_.pool().acquire();
  check_wiredtiger(s->create(s.get(), kUri, "key_format=S,value_format=u"), "create catalog",
                   s.get());
  std::map<std::string, bool> referenced;
  {
    CursorHandle c(s.get(), kUri);
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
        // Records written before default collations have no `collation`: simple.
        bson::DocumentBuilder validation;
        for (const bson::Element& o : options.as_document()) {
          if (o.key == "collation") {
            entry->default_collation = Collation::parse_option(o.value);
          } else {
            validation.append(o.key, o.value);
          }
        }
        bson::Document v = validation.finish();
        entry->set_validation(std::make_shared<const CollectionValidation>(
            CollectionValidation::parse(v.view(), "create", entry->default_collation)));
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
      catalog[ns] = entry;
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
  return catalog;
}

std::string DurableCatalog::new_table_uri(const char* kind) {
  static std::atomic<uint32_t> salt{0};
  uint32_t r = std::random_device{}() ^ (salt.fetch_add(0x9E3779B9u));
  return std::string("table:") + kind + "-" + std::to_string(next_table_++) + "-" +
         std::to_string(r & 0xFFFFFF);
}

bson::Document DurableCatalog::id_index_spec() {
  return bson::make_document("v", 2, "key", bson::make_document("_id", 1), "name", "_id_");
}

bson::Document DurableCatalog::record(const CollectionEntry& entry, const IndexList& indexes) {
  bson::DocumentBuilder b;
  b.append("ns", ns_of(entry.db, entry.coll));
  b.append("db", entry.db);
  b.append("collection", entry.coll);
  b.append("table", entry.table_uri);
  b.append("options", entry.options());
  b.open_array("indexes");
  // A collection with a default collation keeps its `_id_` index (of that collation) among
  // the indexes; records from before, and collections without one, have only this spec.
  if (indexes.empty() || !indexes.front()->descriptor.is_id_index()) b.push(id_index_spec());
  for (const auto& ix : indexes) {
    b.push(ix->descriptor.to_catalog(ix->table_uri, ix->multikey.load()));
  }
  b.close();
  return b.finish();
}

void DurableCatalog::put(OperationContext& op, const std::string& ns, const bson::Document& record,
                         const char* what) {
  WT_SESSION* s = op.session();
  CursorHandle c(s, kUri);
  WT_ITEM v = item_of(record.data(), record.size());
  c->set_key(c.get(), ns.c_str());
  c->set_value(c.get(), &v);
  check_in_transaction(c->insert(c.get()), what, s);
}

void DurableCatalog::remove(OperationContext& op, const std::string& ns) {
  WT_SESSION* s = op.session();
  CursorHandle c(s, kUri);
  c->set_key(c.get(), ns.c_str());
  check_in_transaction(c->remove(c.get()), "catalog remove", s);
}

void DurableCatalog::rename(OperationContext& op, const std::string& from_ns,
                            const std::string& to_ns, const bson::Document& record) {
  WT_SESSION* s = op.session();
  CursorHandle c(s, kUri);
  c->set_key(c.get(), from_ns.c_str());
  check_in_transaction(c->remove(c.get()), "catalog remove", s);
  WT_ITEM v = item_of(record.data(), record.size());
  c->set_key(c.get(), to_ns.c_str());
  c->set_value(c.get(), &v);
  check_in_transaction(c->insert(c.get()), "catalog insert", s);
}

void DurableCatalog::persist_multikey(OperationContext& op, const CollectionEntry& entry,
                                      IndexEntry& ix) {
  WT_SESSION* s = op.session();
  std::string ns = ns_of(entry.db, entry.coll);
  CursorHandle c(s, kUri, "overwrite=false");
  c->set_key(c.get(), ns.c_str());
  int rc = c->search(c.get());
  if (rc == WT_NOTFOUND) return;  // the collection is being dropped
  check_in_transaction(rc, "catalog search", s);
  bson::DocumentView stored = current_value(c.get());
  for (const bson::Element& spec : stored.get("indexes").as_array()) {
    bson::DocumentView d = spec.value.as_document();
    if (d.get("name").is_string() && d.get("name").as_string() == ix.descriptor.name() &&
        d.get("multikey").truthy()) {
      ix.multikey_persisted.store(true);
      return;
    }
  }
  bson::Document updated = record(entry, *entry.indexes());
  WT_ITEM v = item_of(updated.data(), updated.size());
  c->set_key(c.get(), ns.c_str());
  c->set_value(c.get(), &v);
  check_in_transaction(c->update(c.get()), "catalog update", s);
}

}  // namespace mongostore::engine
