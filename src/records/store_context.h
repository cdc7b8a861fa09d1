// StoreContext: what every operation of one open RecordStore shares: the database, the options,
// the transaction mode found at open, collection setup, sid allocation, the identity cache,
// the entry families and their dispatch collections.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/client/client.h"
#include "mongostore/client/client_session.h"
#include "mongostore/records/record_store.h"
#include "records/collection_setup.h"
#include "records/identity_cache.h"
#include "records/sid_allocator.h"
#include "records/store_clock.h"

namespace mongostore::records {

class WriterLease;

/// One family as the store uses it: its declaration and, with two or more backing records, its
/// dispatch collection.
struct FamilyBinding {
  EntryFamily declaration;
  std::string dispatch;  // empty for a single-record family

  /// The names of the family's records (what its dispatch documents may name).
  std::vector<std::string> record_names() const {
    std::vector<std::string> out;
    for (const EntryRecord& r : declaration.records) out.push_back(r.name);
    return out;
  }
};

/// `_httk_entry_dispatch_<safe>_<h8>` (reference §1.2): safe = the lowercased family name with
/// every non-alphanumeric character as '_', stripped of '_' ("entry" when nothing is left);
/// h8 = the first 8 hex digits of the name's SHA-256; a name over 63 characters keeps its
/// first 54 and appends "_" + h8.
std::string dispatch_collection_name(const std::string& family);

struct StoreContext {
  StoreContext(std::shared_ptr<client::Client> c, RecordStoreOptions o);

  std::shared_ptr<client::Client> client;
  RecordStoreOptions options;
  client::Database db;
  bool transactions = false;
  int64_t max_bson_size = 16 * 1024 * 1024;
  CollectionSetup setup;
  SidAllocator sids;
  IdentityCache cache;
  std::vector<FamilyBinding> families;
  /// Timestamps and their regression guard (store_clock.h).
  StoreClock clock;
  /// This store's owner id in writer leases (leases.h).
  std::string lease_owner;
  /// The layout generation this store last saw (read at open, then at each writer lease); a
  /// different one means an fsck ran and the identity caches are cleared. Under write_mutex.
  int64_t seen_generation = -1;
  /// Saves are serialised per store (httk's process write mutex): a save reads what earlier
  /// saves wrote, and dedup races are then only between processes, which the unique content
  /// id index settles. Recursive: a transaction scope holds it while the saves inside take it
  /// again.
  std::recursive_mutex write_mutex;

  /// The transaction in progress (transaction mode only; under write_mutex, touched only by
  /// the thread in txn_thread): its session, the database as seen through it, and, for an
  /// explicit scope, its timestamp (captured at its first save) and writer lease.
  struct ActiveTransaction {
    std::shared_ptr<client::ClientSession> session;
    client::Database db;
    std::optional<int64_t> timestamp;
    WriterLease* lease = nullptr;
  };
  std::optional<ActiveTransaction> txn;
  /// The thread running `txn` (none: no transaction). Atomic because reads from other
  /// threads ask it without the write mutex; they never match, so they never touch `txn`.
  std::atomic<std::thread::id> txn_thread{};

  /// Whether the calling thread runs inside this store's transaction.
  bool in_transaction() const { return txn_thread.load() == std::this_thread::get_id(); }
  /// A collection as the calling thread sees it: inside its transaction when it runs one.
  /// Leases, sid counters and collection setup use `db` directly: they are never part of a
  /// transaction (a lease must be seen by fsck at once; DDL is refused in transactions).
  client::Collection collection(const std::string& name) const {
    return in_transaction() ? txn->db.collection(name) : db.collection(name);
  }
  /// The family bindings `schema` backs with a dispatch collection (a type may back several).
  std::vector<const FamilyBinding*> dispatching_families(const RecordSchema& schema) const;
  /// The store_timestamp of a save starting now (clock ns // resolution).
  int64_t timestamp_now() const;
};

}  // namespace mongostore::records
