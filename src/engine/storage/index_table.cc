#include "engine/storage/index_table.h"

#include "mongostore/bson/builder.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/error.h"

namespace mongostore::engine {

void throw_duplicate_key(const std::string& ns, const IndexDescriptor& d,
                         const std::vector<bson::Value>& values) {
  bson::DocumentBuilder kv;
  for (size_t i = 0; i < d.fields().size() && i < values.size(); ++i) {
    kv.append(d.fields()[i].path, values[i]);
  }
  throw DuplicateKeyError("E11000 duplicate key error collection: " + ns + " index: " + d.name() +
                              " dup key: " + describe_key(d, values),
                          bson::Document::copy_of(d.key_pattern()), kv.finish());
}

void IndexTable::insert(std::string_view db, std::string_view coll, const GeneratedKey& g,
                        const std::string& primary_key) {
  CursorHandle c(s_, uri_, "overwrite=false");
  if (!c) {
    throw Error(ErrorCode::kNamespaceNotFound,
                "index " + d_.name() + " was dropped during the write");
  }
  std::string key = g.bytes;
  if (!d_.unique()) key += primary_key;
  WT_ITEM k = item_of(key.data(), key.size());
  WT_ITEM v = item_of(primary_key.data(), primary_key.size());
  c->set_key(c.get(), &k);
  c->set_value(c.get(), &v);
  int rc = c->insert(c.get());
  if (rc == WT_DUPLICATE_KEY && d_.unique()) {
    std::string ns;
    ns.append(db).append(".").append(coll);
    throw_duplicate_key(ns, d_, g.values);
  }
  if (rc == WT_DUPLICATE_KEY) return;
  check_in_transaction(rc, "index insert", s_);
}

void IndexTable::remove(const std::string& index_key, const std::string& primary_key) {
  CursorHandle c(s_, uri_);
  if (!c) return;
  std::string key = index_key;
  if (!d_.unique()) key += primary_key;
  WT_ITEM k = item_of(key.data(), key.size());
  c->set_key(c.get(), &k);
  int rc = c->remove(c.get());
  if (rc == WT_NOTFOUND) return;
  check_in_transaction(rc, "index remove", s_);
}

}  // namespace mongostore::engine
