// SaveOperation: one top-level save of a record graph (reference §3, SAVE-ONCE / SAVE-NODE).
//
// Bottom-up: a record's references and child records are saved before the record, so a stored
// document never points at a sid that is not there, whatever moment a crash picks. Each record
// of the graph is visited once per save (memoised by object); a record met again while its own
// fields are being saved is a cycle (StorageProjectionCycleError).
//
// Per record, by its type's dedup policy:
// - content_id: a stored record with the same content id is reused, without visiting its
//   children, after the metadata check of IdentitySkip fields; else the record is inserted and
//   the unique content id index settles a race (the loser re-reads the winner).
// - by_value: its fields are encoded (children saved first), then a stored document with the
//   same non-child columns and a child array where it has one is reused.
// - none: always inserted.
// A reused `dep` record saved at the top is promoted to `main`. The inserted document is sized
// before anything of it is written (RecordTooLargeError).
//
// Degraded mode (no transactions): every write is a durable single-document write; what a
// failure leaves behind is unreachable `dep` documents and sid gaps, which fsck collects.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mongostore/bson/document.h"
#include "records/record_identity.h"
#include "records/store_context.h"

namespace mongostore::records {

/// What makes a top-level save special: a replace joins a lineage; an alternative joins its
/// main's group (reference §5 and seed 003's alternatives).
struct TopSave {
  /// The logical_id the top record's document takes (a replace, or a further alternative of
  /// one kind); nullopt starts a lineage of its own.
  std::optional<int64_t> lineage;
  struct Alternative {
    int64_t alt_id = 0;  // the group: the main's logical_id
    std::string kind;    // alt_kind
    std::string main;    // the main's public id, folded into the content id
  };
  std::optional<Alternative> alternative;
};

class WriterLease;

class SaveOperation {
 public:
  /// `lease` (may be null) is the save's writer lease: renewed as records are visited, so a
  /// long save stays fresh for fsck (leases.h).
  SaveOperation(StoreContext& store, int64_t timestamp, WriterLease* lease = nullptr)
      : store_(store), timestamp_(timestamp), lease_(lease) {}

  /// Saves `record` (top level: its role is `main`) and returns its sid. With `lineage`, the
  /// record is a replacement (reference §5): inserted with that logical_id, and a dedup hit
  /// must already belong to that lineage (then the save is an idempotent no-op) or the save
  /// fails with EntryReplacementError.
  int64_t save_top(const Value::RecordPtr& record, TopSave top = {});
  /// Every record this save stored or found, with its sid.
  const std::unordered_map<const DynamicRecord*, int64_t>& saved() const { return memo_; }
  RecordIdentity& identity() { return identity_; }

 private:
  int64_t save_node(const Value::RecordPtr& record, bool top, const std::string& path);
  // The stored record found by content id or by value, or nullopt.
  std::optional<bson::Document> find_by_value(const DynamicRecord& record, const bson::Document& f);
  // A dedup hit: checks IdentitySkip values (content_id policy) and promotes a `dep` reused at
  // the top. Returns the hit's sid.
  int64_t reuse(const DynamicRecord& record, const bson::Document& hit, bool top,
                const std::string& path, bool check_metadata);
  void check_metadata(const DynamicRecord& record, bson::DocumentView stored_f,
                      const std::string& path);
  void promote(const std::string& collection, int64_t sid);

  // A dedup hit of the top record of a replace must be in the predecessor's lineage.
  void check_lineage(const DynamicRecord& record, const bson::Document& hit);

  StoreContext& store_;
  int64_t timestamp_;
  WriterLease* lease_;
  TopSave top_;
  RecordIdentity identity_;
  std::unordered_map<const DynamicRecord*, int64_t> memo_;
  std::unordered_set<const DynamicRecord*> active_;
};

/// Writes (or checks) the dispatch document of a family backing saved at the top
/// (reference §3, WRITE-DISPATCH). EntryDispatchIntegrityError when the content id is
/// dispatched to another record, or the record to another content id.
void write_dispatch(StoreContext& store, const FamilyBinding& family,
                    const std::string& record_name, int64_t sid, const std::string& content_id);

}  // namespace mongostore::records
