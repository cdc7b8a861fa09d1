// IndexTable: the table of one secondary index. Key: the index key bytes (plus the primary
// key for a non-unique index, so its entries are distinct); value: the primary key (the
// document's key in its RecordTable), after the document's stored fields (in its first
// entry; a zero length in the others) when the index has any (index_entry_value.h).
//
// Over (session, table uri, descriptor) like RecordTable, inside the caller's unit of work, on
// the session's thread. Its one cursor is opened at the first insert or remove and closed with
// it: the keys of one document (or of one build batch) are written through one cursor instead
// of opening one per key. Make one per unit of work (it must not outlive the session's
// transaction) and do not share it between threads. A unique index refuses a second
// entry with the same key: DuplicateKeyError (11000) with the key pattern and value. Conflicts
// throw WriteConflictException.
#pragma once

#include <wiredtiger.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/index_descriptor.h"
#include "engine/index_key_generator.h"
#include "engine/query_planner.h"
#include "engine/storage/record_key_set.h"
#include "engine/storage/wiredtiger_cursor.h"

namespace mongostore::engine {

/// Where an index scan stands, so a cursor can resume it in a later snapshot.
struct IndexScanPosition {
  size_t step = 0;        // the range being scanned (in scan order)
  std::string after_key;  // the last index key examined in it
  bool has_after_key = false;
  RecordKeySet seen;  // primary keys returned, for a multikey index
};

/// Throws the DuplicateKeyError of a unique index `d` of collection `ns` for key `values`.
[[noreturn]] void throw_duplicate_key(const std::string& ns, const IndexDescriptor& d,
                                      const std::vector<bson::Value>& values);

class IndexTable {
 public:
  IndexTable(WT_SESSION* s, const std::string& uri, const IndexDescriptor& descriptor)
      : s_(s), uri_(uri), d_(descriptor) {}
  IndexTable(const IndexTable&) = delete;
  IndexTable& operator=(const IndexTable&) = delete;

  /// Adds the entry of key `g` for the document under `primary_key`, carrying `stored`
  /// (IndexEntryValue::stored_at: the document's stored fields in its first entry,
  /// kNotStoredHere in the others; empty for an index without stored fields). `db`.`coll`
  /// names the collection in a DuplicateKeyError. NamespaceNotFound (26) when the table is
  /// gone. A unique index's entry already there fails DuplicateKeyError; another index's is
  /// overwritten with this value (its key holds the record id, so it is this document's own).
  void insert(std::string_view db, std::string_view coll, const GeneratedKey& g,
              const std::string& primary_key, std::string_view stored = {});
  /// Replaces the value of the existing entry of `index_key` for `primary_key` with
  /// `stored` + `primary_key` (the document's stored fields changed, its key did not).
  /// NamespaceNotFound (26) when the table is gone; for a unique index, InternalError when
  /// there is no such entry (another index's entry is written either way).
  void rewrite(const std::string& index_key, const std::string& primary_key,
               std::string_view stored);
  /// Removes the entry of `index_key` for `primary_key`; nothing when there is none.
  void remove(const std::string& index_key, const std::string& primary_key);

  /// Walks the plan's key ranges in plan order (backwards when the plan is reverse), from
  /// `pos` (which it advances, so a later snapshot resumes there), calling
  /// `on_entry(WT_CURSOR*)` on each entry; `on_entry` returns false to stop the walk. It may
  /// read the entry (get_key, get_value) but must not move the cursor.
  ///
  /// `prefix_free`: no key of the table is a proper prefix of another (the record table's
  /// keys, bson/index_key.h). A range of the keys that start with `k` (an equality's point)
  /// then holds `k` alone when `k` is there, and that key is read by one exact search instead
  /// of a walk on to the range's end: WiredTiger's cursor steps over deleted entries one by
  /// one, and in memory they stay until their page is reconciled, so the walk from a point to
  /// the next live key costs a step per key deleted in between (a RecordStore's released
  /// leases, docs/benchmarks.md).
  template <class OnEntry>
  static void scan_ranges(WT_SESSION* s, WT_CURSOR* ic, const IndexPlan& plan,
                          IndexScanPosition& pos, OnEntry&& on_entry, bool prefix_free = false) {
    // Each entry's key is read once: the range check and the resume position both use it.
    // The position is only read when a later snapshot resumes, which happens only after a
    // stop (a walk that runs on to its range's end moves to the next range, forgetting it):
    // the key is copied then, not for every entry. `key` still points at the cursor's key
    // when `on_entry` returns, as `on_entry` reads the entry without moving the cursor.
    auto visit = [&](WT_CURSOR* cursor, std::string_view key) -> bool {
      if (on_entry(cursor)) return true;
      pos.after_key.assign(key.data(), key.size());
      pos.has_after_key = true;
      return false;
    };
    auto key_of = [](WT_CURSOR* cursor) {
      WT_ITEM k{};
      cursor->get_key(cursor, &k);
      return std::string_view(static_cast<const char*>(k.data), k.size);
    };
    size_t n = plan.ranges.size();
    // Forward: where the walk of the last range ended. A walk that stops at a key at or past
    // its range's end leaves the cursor on the first key >= that end; when the next range
    // starts at or after that end and the key is in it, it is the first key of the next
    // range too (no key lies between), and the walk goes on from it without a search (a
    // sweep's null key, then [-inf, now]). A walk that ran off the table leaves nothing
    // after that end. Null: the cursor is not known to stand anywhere useful.
    const std::string* walked_past = nullptr;
    bool table_ended = false;
    for (; pos.step < n; ++pos.step, pos.has_after_key = false) {
      const KeyRange& r = plan.ranges[plan.reverse ? n - 1 - pos.step : pos.step];
      if (!r.end_unbounded && r.end <= r.start) continue;
      bool follows = walked_past != nullptr && *walked_past <= r.start;
      if (follows && table_ended) continue;  // and so are the later ranges, further on
      walked_past = nullptr;
      if (prefix_free && is_prefix_range(r)) {
        if (pos.has_after_key && pos.after_key == r.start) continue;  // read before a stop
        if (!pos.has_after_key) {
          follows = false;  // the search moves the cursor
          WT_ITEM k = item_of(r.start.data(), r.start.size());
          ic->set_key(ic, &k);
          int found = ic->search(ic);
          if (found == 0) {
            if (!visit(ic, key_of(ic))) return;
            continue;
          }
          if (found != WT_NOTFOUND) check_in_transaction(found, "index scan", s);
          // Not there: r.start may be the prefix of other keys rather than a key (a range the
          // planner made otherwise), so the walk below decides.
        }
      }
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
        if (follows && !(key_of(ic) < std::string_view(r.start))) {
          rc = 0;  // on the first key of r already
        } else {
          WT_ITEM k = item_of(r.start.data(), r.start.size());
          ic->set_key(ic, &k);
          int exact = 0;
          rc = ic->search_near(ic, &exact);
          if (rc == 0 && exact < 0) rc = ic->next(ic);
        }
      }
      if (!plan.reverse) {
        while (rc == 0) {
          const std::string_view key = key_of(ic);
          if (!r.end_unbounded && !(key < std::string_view(r.end))) break;
          if (!visit(ic, key)) return;
          rc = ic->next(ic);
        }
        if (!r.end_unbounded && (rc == 0 || rc == WT_NOTFOUND)) {
          walked_past = &r.end;
          table_ended = rc == WT_NOTFOUND;
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
        while (rc == 0) {
          const std::string_view key = key_of(ic);
          if (key < std::string_view(r.start)) break;
          if (!visit(ic, key)) return;
          rc = ic->prev(ic);
        }
      }
      if (rc != 0 && rc != WT_NOTFOUND) check_in_transaction(rc, "index scan", s);
    }
  }

  /// Whether `r` is the range of the keys that start with `r.start`: its end is the
  /// smallest string above all of them (the planner's point of an equality).
  static bool is_prefix_range(const KeyRange& r) {
    if (r.end_unbounded || r.end.empty() || r.end.size() > r.start.size()) return false;
    size_t last = r.end.size() - 1;
    if (r.start.compare(0, last, r.end, 0, last) != 0) return false;
    if (static_cast<uint8_t>(r.start[last]) + 1 != static_cast<uint8_t>(r.end[last])) {
      return false;
    }
    for (size_t i = last + 1; i < r.start.size(); ++i) {
      if (static_cast<uint8_t>(r.start[i]) != 0xFF) return false;
    }
    return true;
  }

 private:
  // Sets the cursor on the entry of `index_key` for `primary_key` with the value `stored` +
  // `primary_key`, and returns `write(cursor)` (insert or update), the bytes still alive.
  // NamespaceNotFound (26) when the table is gone.
  template <class Write>
  int write_entry(std::string_view index_key, const std::string& primary_key,
                  std::string_view stored, Write&& write);

  // The table's cursor, opened on first use; nullptr when the table is gone. A unique index's
  // is "overwrite=false": an insert of an existing key fails, which is the unique check. A
  // non-unique index's key holds the record id, so an existing key is this document's own
  // entry: its cursor keeps WiredTiger's default (an insert or update writes whether or not
  // the entry is there, a remove of a missing one succeeds), which spares parsing a
  // configuration string at every open from the session's cache (~1,700 instructions an
  // update, most of an index write's overhead outside WiredTiger's own insert).
  WT_CURSOR* cursor() {
    if (!cursor_) cursor_.emplace(s_, uri_, d_.unique() ? "overwrite=false" : nullptr);
    return cursor_->get();
  }

  WT_SESSION* s_;
  const std::string& uri_;
  const IndexDescriptor& d_;
  std::optional<CursorHandle> cursor_;
};

}  // namespace mongostore::engine
