#include "records/collection_setup.h"

#include "mongostore/bson/builder.h"
#include "mongostore/records/content_id.h"
#include "records/keyset_segments.h"
#include "records/record_validator.h"
#include "records/store_layout.h"

namespace mongostore::records {
namespace {

using bson::make_document;

// The $type names a unique index on a nullable column admits (its partial filter).
bson::Array type_names(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kInt:
      return bson::make_array("int", "long");
    case ColumnKind::kString:
      return bson::make_array("string");
    case ColumnKind::kBool:
      return bson::make_array("bool");
    case ColumnKind::kBytes:
      return bson::make_array("binData");
    case ColumnKind::kDouble:
      return bson::make_array("double");
  }
  return bson::make_array();
}

}  // namespace

std::string bounded_name(const std::string& name) {
  if (name.size() <= 63) return name;
  return name.substr(0, 54) + "_" + sha256_hex(name).substr(0, 8);
}

void CollectionSetup::create_collection(const std::string& name, const bson::Document& validator) {
  client::CollectionOptions options;
  options.validator = validator;
  options.validation_level = "strict";
  options.validation_action = "error";
  try {
    db_.create_collection(name, options);
  } catch (const Error& e) {
    if (e.error_code() != ErrorCode::kNamespaceExists) throw;
    db_.modify_collection(name, options);  // idempotent: the same validator again
  }
}

void CollectionSetup::ensure(const std::shared_ptr<const RecordSchema>& schema) {
  std::map<std::string, std::shared_ptr<const RecordSchema>> closure = reference_closure({schema});
  std::lock_guard lock(mu_);
  for (const auto& [name, s] : closure) {
    if (done_.count(name)) continue;
    create(*s);
    done_.insert(name);
  }
}

void CollectionSetup::create(const RecordSchema& schema) {
  const std::string& c = schema.storage_name();
  create_collection(c, record_validator(schema, store_timestamps_));
  client::Collection coll = db_.collection(c);
  auto index = [&](const std::string& name, const bson::Document& keys, bool unique,
                   const bson::Document& partial = bson::Document()) {
    bson::DocumentBuilder options;
    options.append("name", bounded_name(name));
    if (unique) options.append("unique", true);
    if (!partial.empty()) options.append("partialFilterExpression", partial);
    coll.create_index(keys, options.finish());
  };
  if (schema.dedup() == Dedup::kContentId) {
    index("uq_" + c + "_content_id", make_document("content_id", 1), true);
  }
  index("ix_" + c + "__httk_role", make_document("_httk_role", 1), false);
  index("ix_" + c + "_logical_id", make_document("logical_id", 1), false);
  if (store_timestamps_) {
    index("ix_" + c + "_store_timestamp", make_document("store_timestamp", 1), false);
  }
  for (const FieldSchema& f : schema.fields()) {
    if (!f.stored() || f.role() == FieldRole::kChild || !(f.indexed || f.unique)) continue;
    for (const Column& col : f.columns()) {
      std::string path = "f." + col.name;
      bson::Document partial;
      if (f.unique && f.optional) {
        partial =
            make_document(path, make_document("$exists", true, "$type", type_names(col.kind)));
      }
      index((f.unique ? "uq_" : "ix_") + c + "_" + col.name, make_document(path, 1), f.unique,
            partial);
    }
  }
  for (const auto& fields : schema.indexes()) {
    std::string name = "ix_" + c;
    bson::DocumentBuilder keys;
    for (const std::string& field : fields) {
      const FieldSchema& f = schema.fields()[*schema.field_index(field)];
      const std::string col = f.columns().front().name;  // the query column
      name += "_" + col;
      keys.append("f." + col, 1);
    }
    index(name, keys.finish(), false);
  }
  // Declared page orders: the index ensure_page_index makes for the same order.
  for (const auto& order : schema.page_indexes()) {
    std::vector<KeysetKey> keys;
    for (const PageIndexKey& key : order) {
      const FieldSchema& f = schema.fields()[*schema.field_index(key.field)];
      keys.push_back(
          KeysetKey{"f." + f.columns().front().name, key.descending, 1, AnchorKind::kInt});
    }
    bson::Document index_keys = keyset_index_keys(keys);
    coll.create_index(index_keys, make_document("name", keyset_index_name(c, index_keys)));
  }
}

void CollectionSetup::ensure_dispatch(const std::string& collection,
                                      const std::vector<std::string>& records) {
  std::lock_guard lock(mu_);
  if (done_.count(collection)) return;
  create_collection(collection, dispatch_validator(records));
  db_.collection(collection)
      .create_index(
          make_document("record", 1, "sid", 1),
          make_document("name", bounded_name("uq_" + collection + "_record_sid"), "unique", true));
  done_.insert(collection);
}

}  // namespace mongostore::records
