#include "records/save_operation.h"

#include <set>

#include "mongostore/bson/builder.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/records/errors.h"
#include "records/leases.h"
#include "records/stored_form.h"

namespace mongostore::records {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;
using bson::make_document;

const FieldType& value_type(const FieldSchema& f) {
  return f.type.kind == FieldKind::kList ? *f.type.element : f.type;
}

// True when `schema` or a record type it reaches holds an IdentitySkip field: a content id
// hit must then look inside the stored graph to compare them.
bool has_metadata(const RecordSchema& schema, std::set<const RecordSchema*>& seen) {
  if (!seen.insert(&schema).second) return false;
  for (const FieldSchema& f : schema.fields()) {
    if (f.identity == Identity::kIdentitySkip) return true;
    const FieldType& t = value_type(f);
    if (f.stored() && t.kind == FieldKind::kReference && has_metadata(*t.target_schema(), seen)) {
      return true;
    }
  }
  return false;
}

bool has_metadata(const RecordSchema& schema) {
  std::set<const RecordSchema*> seen;
  return has_metadata(schema, seen);
}

std::string json_or_none(const bson::Value& v) {
  return v.is_missing() ? "None" : v.to_json();
}

// The records a reference or list-of-records field holds, in order.
std::vector<Value::RecordPtr> records_in(const FieldSchema& f, const Value& v) {
  std::vector<Value::RecordPtr> out;
  if (v.is_null()) return out;
  if (f.type.kind == FieldKind::kList) {
    for (const Value& item : v.as<Value::List>()) out.push_back(item.as<Value::RecordPtr>());
  } else {
    out.push_back(v.as<Value::RecordPtr>());
  }
  return out;
}

// The sids a stored reference or list-of-records field holds, in order.
std::vector<int64_t> stored_sids(const FieldSchema& f, DocumentView stored_f) {
  std::vector<int64_t> out;
  std::string key = f.name + "_sid";
  auto one = [&](DocumentView doc) {
    int64_t sid = 0;
    if (doc.get(key).number_as_exact_int64(&sid)) out.push_back(sid);
  };
  if (f.type.kind == FieldKind::kList) {
    bson::Value arr = stored_f.get(f.name);
    if (arr.is_array()) {
      for (const bson::Element& e : arr.as_array()) {
        if (e.value.is_document()) one(e.value.as_document());
      }
    }
  } else {
    one(stored_f);
  }
  return out;
}

}  // namespace

int64_t SaveOperation::save_top(const Value::RecordPtr& record, TopSave top) {
  top_ = std::move(top);
  return save_node(record, true, record->schema().identity_name());
}

void SaveOperation::check_lineage(const DynamicRecord& record, const Document& hit) {
  int64_t found = 0;
  if (hit.get("logical_id").number_as_exact_int64(&found) && found == *top_.lineage) return;
  throw EntryReplacementError(record.schema().storage_name(), std::to_string(*top_.lineage),
                              hit.get("logical_id").to_json());
}

int64_t SaveOperation::save_node(const Value::RecordPtr& record, bool top,
                                 const std::string& path) {
  if (!record) throw SchemaError(path + ": a record reference is None");
  const DynamicRecord* key = record.get();
  if (auto it = memo_.find(key); it != memo_.end()) {
    if (top) promote(record->schema().storage_name(), it->second);
    return it->second;
  }
  if (active_.count(key)) throw StorageProjectionCycleError(path);
  if (lease_ != nullptr) lease_->refresh();  // at most once a second
  active_.insert(key);
  const RecordSchema& schema = record->schema();
  client::Collection coll = store_.collection(schema.storage_name());

  std::string content_id;
  const TopSave::Alternative* alternative = top && top_.alternative ? &*top_.alternative : nullptr;
  if (schema.dedup() == Dedup::kContentId) {
    if (alternative) {
      // The group's main and the kind are folded into the identity: an alternative never
      // dedups onto its main, nor onto an alternative of another main or kind.
      std::vector<IdentityNode::Entry> extras;
      extras.emplace_back("kind", IdentityNode::string(alternative->kind));
      extras.emplace_back("main", IdentityNode::string(alternative->main));
      content_id = identity_.content_id(*record, extras);
    } else {
      content_id = identity_.content_id(*record);
    }
    if (std::optional<Document> hit = coll.find_one(make_document("content_id", content_id))) {
      int64_t sid = reuse(*record, *hit, top, path, true);
      active_.erase(key);
      return memo_[key] = sid;
    }
  }

  Document f = encode_fields(*record, [&](const Value::RecordPtr& child) {
    return save_node(child, false, path + "." + child->schema().identity_name());
  });

  if (schema.dedup() == Dedup::kByValue) {
    if (std::optional<Document> hit = find_by_value(*record, f)) {
      int64_t sid = reuse(*record, *hit, top, path, false);
      active_.erase(key);
      return memo_[key] = sid;
    }
  }

  // Sized before the sid is taken: the placeholder is an int64 like the sid.
  auto build = [&](int64_t sid) {
    DocumentBuilder doc;
    doc.append("_id", sid).append("_httk_role", top ? "main" : "dep").append("f", f);
    // A fresh record starts its own lineage; the top of a replace joins its predecessor's.
    int64_t logical_id = top && top_.lineage ? *top_.lineage : sid;
    doc.append("logical_id", logical_id);
    // The alternatives group: a record's own lineage, or its main's for an alternative.
    doc.append("alt_id", alternative ? alternative->alt_id : logical_id);
    if (alternative) doc.append("alt_kind", alternative->kind);
    if (store_.options.store_timestamps) doc.append("store_timestamp", timestamp_);
    if (!content_id.empty()) doc.append("content_id", content_id);
    return doc.finish();
  };
  size_t size = build(0).size();
  if (static_cast<int64_t>(size) > store_.max_bson_size) {
    throw RecordTooLargeError(schema.storage_name(), static_cast<int64_t>(size),
                              store_.max_bson_size);
  }
  int64_t sid = store_.sids.next(schema.storage_name());
  try {
    coll.insert_one(build(sid));
  } catch (const DuplicateKeyError& e) {
    // Another writer stored the same content first: its document is the record.
    if (content_id.empty() || !e.key_pattern().has("content_id")) throw;
    // In a transaction the failed insert aborted it: the winner is read by the retry (§3).
    if (store_.in_transaction()) throw DuplicateKeyError(e).add_label("TransientTransactionError");
    std::optional<Document> winner = coll.find_one(make_document("content_id", content_id));
    if (!winner) throw;
    sid = reuse(*record, *winner, top, path, true);
  }
  active_.erase(key);
  return memo_[key] = sid;
}

std::optional<Document> SaveOperation::find_by_value(const DynamicRecord& record,
                                                     const Document& f) {
  // Every non-child column equal (a missing optional one null), and a child array where the
  // record has one. Children's contents are not compared (httk's rule, reference §2).
  DocumentBuilder filter;
  for (const FieldSchema& field : record.schema().fields()) {
    if (!field.stored()) continue;
    if (field.role() == FieldRole::kChild) {
      filter.append("f." + field.name, make_document("$type", "array"));
      continue;
    }
    for (const Column& c : field.columns()) {
      bson::Value v = f.get(c.name);
      if (v.is_missing()) {
        filter.append("f." + c.name, bson::Null{});
      } else {
        filter.append("f." + c.name, make_document("$eq", v));
      }
    }
  }
  client::FindOptions options;
  options.sort = make_document("_id", 1);
  return store_.collection(record.schema().storage_name()).find_one(filter.finish(), options);
}

int64_t SaveOperation::reuse(const DynamicRecord& record, const Document& hit, bool top,
                             const std::string& path, bool metadata) {
  int64_t sid = 0;
  if (!hit.get("_id").number_as_exact_int64(&sid)) {
    throw Error(ErrorCode::kInternalError,
                record.schema().storage_name() + ": a stored record has a non-integer _id");
  }
  if (top && top_.lineage) check_lineage(record, hit);
  bson::Value f = hit.get("f");
  if (metadata && f.is_document()) check_metadata(record, f.as_document(), path);
  bson::Value role = hit.get("_httk_role");
  if (top && !(role.is_string() && role.as_string() == "main")) {
    promote(record.schema().storage_name(), sid);
  }
  return sid;
}

void SaveOperation::check_metadata(const DynamicRecord& record, DocumentView stored_f,
                                   const std::string& path) {
  const RecordSchema& schema = record.schema();
  if (!has_metadata(schema)) return;
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    const FieldSchema& field = schema.fields()[i];
    if (!field.stored()) continue;
    const Value& received = record.fields()[i];
    std::string where = path + "." + field.name;
    const FieldType& t = value_type(field);
    if (t.kind == FieldKind::kReference) {
      const bool skipped = field.identity == Identity::kIdentitySkip;
      if (!skipped && !has_metadata(*t.target_schema())) continue;
      std::vector<Value::RecordPtr> records = records_in(field, received);
      std::vector<int64_t> sids = stored_sids(field, stored_f);
      if (records.size() != sids.size()) {
        throw EntryMetadataConflictError(where, std::to_string(sids.size()) + " records",
                                         std::to_string(records.size()) + " records");
      }
      client::Collection target = store_.collection(t.target_schema()->storage_name());
      for (size_t k = 0; k < records.size(); ++k) {
        std::optional<Document> stored = target.find_one(make_document("_id", sids[k]));
        if (!stored) {
          throw EntryMetadataConflictError(where, "missing sid " + std::to_string(sids[k]),
                                           "a record");
        }
        if (skipped && t.target_schema()->dedup() == Dedup::kContentId) {
          std::string want = identity_.content_id(*records[k]);
          bson::Value have = stored->get("content_id");
          if (!have.is_string() || have.as_string() != want) {
            throw EntryMetadataConflictError(where, "content_id " + json_or_none(have),
                                             "content_id \"" + want + "\"");
          }
        }
        bson::Value sf = stored->get("f");
        if (sf.is_document()) check_metadata(*records[k], sf.as_document(), where);
      }
      continue;
    }
    if (field.identity != Identity::kIdentitySkip) continue;
    // Compare the stored columns with the received value's encoding, column by column.
    DocumentBuilder b;
    encode_field(b, field, received, [](const Value::RecordPtr&) -> int64_t {
      throw Error(ErrorCode::kInternalError, "metadata check: unexpected reference");
    });
    Document mine = b.finish();
    std::vector<std::string> keys;
    if (field.role() == FieldRole::kChild) {
      keys.push_back(field.name);
    } else {
      for (const Column& c : field.columns()) keys.push_back(c.name);
    }
    for (const std::string& k : keys) {
      bson::Value have = stored_f.get(k), want = mine.get(k);
      if (!have.identical(want)) {
        throw EntryMetadataConflictError(where, json_or_none(have), json_or_none(want));
      }
    }
  }
}

void SaveOperation::promote(const std::string& collection, int64_t sid) {
  store_.collection(collection)
      .update_one(make_document("_id", sid, "_httk_role", "dep"),
                  make_document("$set", make_document("_httk_role", "main")));
}

void write_dispatch(StoreContext& store, const FamilyBinding& family,
                    const std::string& record_name, int64_t sid, const std::string& content_id) {
  client::Collection dispatch = store.collection(family.dispatch);
  auto check = [&](const Document& existing) {
    bson::Value r = existing.get("record");
    int64_t s = 0;
    if (!(r.is_string() && r.as_string() == record_name &&
          existing.get("sid").number_as_exact_int64(&s) && s == sid)) {
      throw EntryDispatchIntegrityError(
          "entry " + content_id + " of family '" + family.declaration.name + "' is dispatched to " +
          existing.to_json() + ", not to " + record_name + " sid " + std::to_string(sid));
    }
  };
  if (std::optional<Document> existing = dispatch.find_one(make_document("_id", content_id))) {
    check(*existing);
    return;
  }
  try {
    dispatch.insert_one(make_document("_id", content_id, "record", record_name, "sid", sid));
  } catch (const DuplicateKeyError& e) {
    // In a transaction the failed insert aborted it: the retry compares with the winner.
    if (store.in_transaction()) throw DuplicateKeyError(e).add_label("TransientTransactionError");
    if (std::optional<Document> existing = dispatch.find_one(make_document("_id", content_id))) {
      check(*existing);
      return;
    }
    if (std::optional<Document> other =
            dispatch.find_one(make_document("record", record_name, "sid", sid))) {
      throw EntryDispatchIntegrityError(
          record_name + " sid " + std::to_string(sid) + " of family '" + family.declaration.name +
          "' is already dispatched under content id " + json_or_none(other->get("_id")));
    }
    throw EntryDispatchIntegrityError("the dispatch of entry " + content_id + " of family '" +
                                      family.declaration.name + "' was declined");
  }
}

}  // namespace mongostore::records
