// RecordTable: the table of one collection, keyed by the order-preserving key of `_id`
// (bson::encode_index_key), the value the document's BSON. A find by `_id` is one B-tree
// lookup; a scan in key order is a scan in `_id` order.
//
// A RecordTable is a view over (session, table uri): it owns nothing, costs nothing to make,
// and works inside the caller's unit of work (its WiredTiger transaction). Same thread as
// the session. Conflicts throw WriteConflictException; other WiredTiger failures Error.
// (Not to be confused with src/records/'s RecordStore, a store built on top of the engine.)
#pragma once

#include <wiredtiger.h>

#include <optional>
#include <string>

#include "engine/storage/wiredtiger_cursor.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/engine/durability.h"

namespace mongostore::engine {

/// The key of the document with `_id` equal to `id` in its collection's table.
inline std::string record_key(const bson::Value& id) {
  return bson::encode_index_key(id);
}

/// The table config of collection and index tables (both map bytes to bytes).
inline constexpr const char* kRecordTableConfig = "key_format=u,value_format=u";

/// The same tables in an in-memory engine (WiredTigerConnection::create_record_table): a
/// page whose updates outgrow 32 KB (`memory_page_max`, 5 MB by default; 32 KB is the least
/// WiredTiger takes, the leaf page size) is reconciled in memory when next read or written.
///
/// Why: WiredTiger keeps every version of a value until no transaction can still read it,
/// and learns that only when something moves its oldest transaction id forward. Without
/// cache pressure only its eviction server does, waking every 10 ms to 1 s as it finds no
/// work; an update moves it only on a page where it found a key with over 20 versions
/// (WiredTiger 3.2.1). So a store that updates each of many documents now and then keeps
/// each version it wrote: the heap grows by every update's bytes, each new page of it
/// faulted in, until the server next wakes or the cache fills.
/// A page over the limit is reconciled after moving the oldest id forward, keeping only the
/// versions a reader still needs, and the memory is reused. Measured in docs/benchmarks.md
/// (issue 29): a typical ExecutionStore commit faults in 0.1 pages instead of 0.5 and costs
/// ~25% less CPU. The price is paid by inserts, whose pages split and are reconciled more
/// often: +28% instructions per in-memory insert (256 KB would cost ~1%, but leaves the
/// commit ~18% slower than 32 KB). A journaled or durable engine keeps the default: there
/// eviction writes the page to its file.
inline constexpr const char* kInMemoryRecordTableConfig =
    "key_format=u,value_format=u,memory_page_max=32KB";

/// The config of a collection or index table of an engine of durability `d`; the benchmarks'
/// raw WiredTiger tables take it too, so they stay configured as the engine's.
inline const char* record_table_config(Durability d) {
  return d == Durability::kInMemory ? kInMemoryRecordTableConfig : kRecordTableConfig;
}

class RecordTable {
 public:
  enum class InsertStatus { kInserted, kDuplicateKey, kNoTable };

  RecordTable(WT_SESSION* s, const std::string& uri) : s_(s), uri_(uri) {}

  /// Inserts a new record. overwrite=false makes the insert fail on an existing key: the
  /// `_id` uniqueness check and the write are one B-tree operation. kNoTable: the table is
  /// gone (the collection was dropped).
  InsertStatus insert(const std::string& key, bson::DocumentView doc) {
    CursorHandle c(s_, uri_, "overwrite=false");
    if (!c) return InsertStatus::kNoTable;
    WT_ITEM k = item_of(key.data(), key.size());
    WT_ITEM v = item_of(doc.data(), doc.size());
    c->set_key(c.get(), &k);
    c->set_value(c.get(), &v);
    int rc = c->insert(c.get());
    if (rc == WT_DUPLICATE_KEY) return InsertStatus::kDuplicateKey;
    check_in_transaction(rc, "insert", s_);
    return InsertStatus::kInserted;
  }

  /// Overwrites the record under `key` (which the caller read in this unit of work).
  void update(const std::string& key, bson::DocumentView doc) {
    CursorHandle c(s_, uri_);
    update(c.get(), s_, key, doc);
  }
  /// The same through `c`, a cursor of this table on session `s` (the one the caller read the
  /// record with: no second cursor opened).
  static void update(WT_CURSOR* c, WT_SESSION* s, const std::string& key, bson::DocumentView doc) {
    WT_ITEM k = item_of(key.data(), key.size());
    WT_ITEM v = item_of(doc.data(), doc.size());
    c->set_key(c, &k);
    c->set_value(c, &v);
    check_in_transaction(c->update(c), "update", s);
  }

  /// Removes the record under `key` (which the caller read in this unit of work).
  void remove(const std::string& key) {
    CursorHandle c(s_, uri_);
    WT_ITEM k = item_of(key.data(), key.size());
    c->set_key(c.get(), &k);
    check_in_transaction(c->remove(c.get()), "remove", s_);
  }

  /// A copy of the record under `key`; nullopt when there is none or no table.
  std::optional<bson::Document> get(const std::string& key) {
    CursorHandle c(s_, uri_);
    if (!c) return std::nullopt;
    int rc = search(c.get(), key);
    if (rc == WT_NOTFOUND) return std::nullopt;
    check_in_transaction(rc, "search", s_);
    return bson::Document::copy_of(current_value(c.get()));
  }

  /// Positions `c` on `key`: 0, WT_NOTFOUND or a WiredTiger error.
  static int search(WT_CURSOR* c, const std::string& key) {
    WT_ITEM k = item_of(key.data(), key.size());
    c->set_key(c, &k);
    return c->search(c);
  }

  /// A resumable scan: positions `c` on the first record after `after` (the last key a
  /// previous snapshot returned), or on the first record when `started` is false. Returns 0,
  /// WT_NOTFOUND (nothing left) or a WiredTiger error.
  static int seek_after(WT_CURSOR* c, const std::string& after, bool started) {
    if (!started) return c->next(c);
    WT_ITEM k = item_of(after.data(), after.size());
    c->set_key(c, &k);
    int exact = 0;
    int rc = c->search_near(c, &exact);
    if (rc == 0 && exact <= 0) rc = c->next(c);
    return rc;
  }

 private:
  WT_SESSION* s_;
  const std::string& uri_;
};

}  // namespace mongostore::engine
