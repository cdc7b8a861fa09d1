#include "engine/write/collection_write_path.h"

#include <vector>

#include "engine/document_validation.h"
#include "engine/index_key_generator.h"
#include "engine/storage/index_entry_value.h"
#include "engine/storage/index_table.h"
#include "engine/storage/record_table.h"
#include "engine/write/index_key_delta.h"
#include "engine/write/top_level_diff.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/engine/limits.h"
#include "mongostore/error.h"

namespace mongostore::engine {

namespace {

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

// The keys of `doc` for `ix`; the first array key marks the index multikey, in memory at
// once (the planner must stop trusting tight bounds before the document is visible) and in
// the catalog record within this same unit of work.
void generate_keys(OperationContext& op, DurableCatalog& durable, const CollectionEntry& entry,
                   IndexEntry& ix, bson::DocumentView doc, std::vector<GeneratedKey>* keys) {
  bool multikey = false;
  IndexKeyGenerator(ix.descriptor).generate(doc, keys, &multikey);
  if (!multikey || ix.multikey_persisted.load(std::memory_order_relaxed)) return;
  ix.multikey.store(true);
  durable.persist_multikey(op, entry, ix);
}

// check_stored_depth for an update's result, walking only what the update changed: the old
// version was stored, so it nests at most kMaxStoredDocumentDepth levels (every insert,
// update and replacement is checked), and a top-level value of the new version that is byte
// for byte a top-level value of the old one nests exactly as deep as it did there. The other
// values are walked as nesting_exceeds walks the whole document: a value's elements sit one
// level below the top, so the value is checked against one level less. (mongod too checks
// only the updated elements' depth.)
void check_updated_depth(const TopLevelDiff& diff) {
  static_assert(kMaxStoredDocumentDepth > 1);
  diff.for_each_changed([](const bson::Value& v) {
    if ((!v.is_document() && !v.is_array()) || v.size() <= 5) return;
    if (bson::nesting_exceeds(bson::DocumentView(v.data(), v.size()),
                              kMaxStoredDocumentDepth - 1)) {
      throw Error(ErrorCode::kOverflow, "Document exceeds maximum nesting depth of " +
                                            std::to_string(kMaxStoredDocumentDepth));
    }
  });
}

// The stored fields the first entry of `d` carries for the new version of an updated document
// (IndexEntryValue::stored_at), from the fields `diff` has read: nothing for an ordinary index.
std::string stored_fields(const IndexDescriptor& d, const TopLevelDiff& diff) {
  return IndexEntryValue::stored_fields_from(d, [&](std::string_view f) { return diff.after(f); });
}

// Whether the update changes a field whose value `d`'s entries carry.
bool stored_fields_changed(const IndexDescriptor& d, const TopLevelDiff& diff) {
  for (const std::string& f : d.stored_fields()) {
    if (!diff.before(f).identical(diff.after(f))) return true;
  }
  return false;
}

}  // namespace

void validate_write(const CollectionEntry& entry, bson::DocumentView document,
                    const bson::DocumentView* before, bool bypass) {
  if (bypass) return;
  const std::shared_ptr<const CollectionValidation> validation = entry.validation();
  // Most collections have no validator: no namespace string is built for them.
  if (!validation->has_validator()) return;
  validation->check(document, before, ns_of(entry.db, entry.coll));
}

void insert_document(OperationContext& op, DurableCatalog& durable, const CollectionEntry& entry,
                     const std::string& key, bson::DocumentView doc, const bson::Value& id) {
  WT_SESSION* s = op.session();
  switch (RecordTable(s, entry.table_uri).insert(key, doc)) {
    case RecordTable::InsertStatus::kInserted:
      break;
    case RecordTable::InsertStatus::kDuplicateKey:
      throw_duplicate_id(ns_of(entry.db, entry.coll), id);
    case RecordTable::InsertStatus::kNoTable:
      throw Error(ErrorCode::kNamespaceNotFound,
                  "collection " + ns_of(entry.db, entry.coll) + " was dropped during the write");
  }
  auto indexes = entry.indexes();
  for (const auto& ix : *indexes) {
    std::vector<GeneratedKey> keys;
    generate_keys(op, durable, entry, *ix, doc, &keys);
    IndexTable table(s, ix->table_uri, ix->descriptor);
    const std::string stored = IndexEntryValue::stored_fields_of(ix->descriptor, doc);
    for (size_t i = 0; i < keys.size(); ++i) {
      table.insert(entry.db, entry.coll, keys[i], key,
                   IndexEntryValue::stored_at(ix->descriptor, i, stored));
    }
  }
}

void update_document(OperationContext& op, DurableCatalog& durable, const CollectionEntry& entry,
                     const std::string& key, bson::DocumentView before, bson::DocumentView after,
                     const UpdateIndexData* index_data, WT_CURSOR* record_cursor) {
  validate_document_size(after.size(),
                         "Resulting document after update is larger than 16MB; object");
  // Both versions are walked once for _id, every affected index's top-level field and the
  // depth of what changed.
  const TopLevelDiff diff(before, after);
  check_updated_depth(diff);
  bson::Value old_id = diff.before("_id");
  bson::Value new_id = diff.after("_id");
  if (!bson::values_equal(old_id, new_id) || old_id.type() != new_id.type()) {
    throw Error(ErrorCode::kImmutableField,
                "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
  WT_SESSION* s = op.session();
  // Index entries: remove the keys only the old version had, add the ones only the new
  // version has (both lists are sorted by bytes). An index with stored fields keeps them in
  // the document's first entry alone (index_entry_value.h): that entry is rewritten when a
  // stored field changed, and when the first key changed the new first entry takes them and
  // the old one, if it stays, gives them up.
  auto indexes = entry.indexes();
  for (const auto& ix : *indexes) {
    const IndexDescriptor& d = ix->descriptor;
    if (index_data != nullptr && !index_data->affects(d)) continue;
    const bool stores = !d.stored_fields().empty();
    const bool restore = stores && stored_fields_changed(d, diff);
    IndexKeyDelta delta = index_key_delta(d, diff);
    if (delta.kind == IndexKeyDelta::Kind::kUnchanged) {
      if (!restore) continue;
      // The same keys, new stored fields: the first entry's value is rewritten in place.
      const std::optional<std::string> first = IndexKeyGenerator(d).first_key_from(
          after, [&](std::string_view f) { return diff.after(f); });
      if (!first) continue;
      IndexTable table(s, ix->table_uri, d);
      table.rewrite(*first, key, stored_fields(d, diff));
      continue;
    }
    if (delta.kind == IndexKeyDelta::Kind::kAppended) {
      // Only the added elements' keys are new; the index is non-unique, so one the old
      // elements already had is a no-op insert.
      std::vector<GeneratedKey> added;
      generate_keys(op, durable, entry, *ix, delta.appended->view(), &added);
      IndexTable table(s, ix->table_uri, d);
      if (!stores) {
        for (const GeneratedKey& g : added) table.insert(entry.db, entry.coll, g, key);
        continue;
      }
      // The new version's keys are the old ones and the added ones: its first is the smaller
      // of the two firsts. Of the old keys only the first is needed.
      const std::optional<std::string> old_key = IndexKeyGenerator(d).first_key_from(
          before, [&](std::string_view f) { return diff.before(f); });
      const std::string* old_first = old_key ? &*old_key : nullptr;
      const bool added_first =
          !added.empty() && (old_first == nullptr || added.front().bytes < *old_first);
      const std::string stored = stored_fields(d, diff);
      if (old_first != nullptr && (added_first || restore)) {
        table.rewrite(*old_first, key, added_first ? IndexEntryValue::kNotStoredHere : stored);
      }
      for (size_t a = 0; a < added.size(); ++a) {
        if (old_first != nullptr && added[a].bytes == *old_first) continue;  // written above
        table.insert(
            entry.db, entry.coll, added[a], key,
            a == 0 && added_first ? std::string_view(stored) : IndexEntryValue::kNotStoredHere);
      }
      continue;
    }
    std::vector<GeneratedKey> old_keys, new_keys;
    bool ignored = false;
    IndexKeyGenerator(d).generate(before, &old_keys, &ignored);
    generate_keys(op, durable, entry, *ix, after, &new_keys);
    IndexTable table(s, ix->table_uri, d);
    const std::string stored = stored_fields(d, diff);
    size_t i = 0, j = 0;
    while (i < old_keys.size() || j < new_keys.size()) {
      if (j == new_keys.size() || (i < old_keys.size() && old_keys[i].bytes < new_keys[j].bytes)) {
        table.remove(old_keys[i++].bytes, key);
      } else if (i == old_keys.size() || new_keys[j].bytes < old_keys[i].bytes) {
        table.insert(entry.db, entry.coll, new_keys[j], key,
                     IndexEntryValue::stored_at(d, j, stored));
        ++j;
      } else {
        // A key both versions have: its entry changes only if it is, or was, the first one.
        if (stores && (j == 0 || i == 0) && (j != 0 || i != 0 || restore)) {
          table.rewrite(new_keys[j].bytes, key, IndexEntryValue::stored_at(d, j, stored));
        }
        ++i;
        ++j;
      }
    }
  }
  // The record last: `before` may be a view of `record_cursor`'s value, which WiredTiger
  // keeps valid only until the cursor's next operation that modifies the data (its documented
  // memory scoping), and nothing above writes through that cursor. One transaction holds
  // every write, so their order changes nothing that commits (a conflict on any of them
  // rolls back all).
  if (record_cursor != nullptr) {
    RecordTable::update(record_cursor, s, key, after);
  } else {
    RecordTable(s, entry.table_uri).update(key, after);
  }
}

void delete_document(OperationContext& op, const CollectionEntry& entry, const std::string& key,
                     bson::DocumentView doc) {
  WT_SESSION* s = op.session();
  RecordTable(s, entry.table_uri).remove(key);
  auto indexes = entry.indexes();
  for (const auto& ix : *indexes) {
    std::vector<GeneratedKey> keys;
    bool ignored = false;
    IndexKeyGenerator(ix->descriptor).generate(doc, &keys, &ignored);
    IndexTable table(s, ix->table_uri, ix->descriptor);
    for (const GeneratedKey& g : keys) table.remove(g.bytes, key);
  }
}

}  // namespace mongostore::engine
