// Leases: how writers and fsck keep out of each other's way, across processes (reference §7).
//
// Both live in `_httk_store_metadata` and their heartbeats are on the server's clock
// ($$NOW), so processes with skewed clocks agree on what is stale.
//
// - A writer lease `{_id: "lease/<uuid4>", kind: "writer", owner, heartbeat}` covers one
//   top-level save. After writing it, the writer reads the fsck lease and the layout: any fsck
//   lease, fresh or stale, means fsck runs or died running (its sweep may be half done), and
//   the writer withdraws with StoreLockedError. The layout's `generation` tells the writer
//   whether an fsck ran since it last looked; if so its identity caches may name swept
//   records, and are cleared. The lease is released when the save ends, however it ends.
//   While the save runs the writer renews its heartbeat at most once a second (the save
//   calls refresh() for every record it visits), so a long save stays fresh and fsck waits
//   for it. A renewal that finds the lease gone fails with LeaseLostError: a forced fsck
//   took it for a dead writer's and may be sweeping, so the save stops rather than go on
//   writing records the sweep cannot see.
// - The fsck lease `{_id: "lease/fsck", owner, heartbeat}` is a singleton: inserted with a
//   null heartbeat (stale until the first refresh), refreshed while fsck runs; `force` takes
//   over only a stale one. A refresh or release that finds the lease gone or owned by another
//   process fails with LeaseLostError: its holder was displaced and must not go on sweeping.
//
// There is no fencing: a writer that stalls longer than the stale threshold after checking
// the fsck lease can still write while a forced fsck sweeps (as in httk).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "mongostore/bson/document.h"
#include "mongostore/client/client.h"

namespace mongostore::records {

struct StoreContext;

inline constexpr const char* kFsckLeaseId = "lease/fsck";
inline constexpr std::chrono::milliseconds kDefaultLeaseStaleAfter{8000};
/// How often a running save renews its writer lease at most (reference §7: at most 1/s).
inline constexpr std::chrono::milliseconds kWriterRefreshEvery{1000};

/// A random (version 4) UUID, as text.
std::string uuid4();

/// The filter part `{$expr: heartbeat <= $$NOW - stale_after}` (a null or missing heartbeat
/// is stale), on the server's clock.
bson::Document stale_heartbeat_expr(std::chrono::milliseconds stale_after);
bson::Document fresh_heartbeat_expr(std::chrono::milliseconds stale_after);

/// One top-level save's writer lease (RAII). The constructor takes the lease and checks the
/// fsck lease and the generation (clearing the store's identity caches when it changed);
/// StoreLockedError when an fsck lease exists. The destructor releases it. Not thread-safe:
/// one save uses it (saves are serialised per store).
class WriterLease {
 public:
  explicit WriterLease(StoreContext& store);
  ~WriterLease();
  WriterLease(const WriterLease&) = delete;
  WriterLease& operator=(const WriterLease&) = delete;

  /// Renews the heartbeat when the last renewal is older than `kWriterRefreshEvery`, or a
  /// quarter of the store's lease_stale_after when that is shorter (`now`:
  /// always). LeaseLostError when the lease document is gone (a forced fsck removed it as a
  /// dead writer's).
  void refresh(bool now = false);
  const std::string& id() const { return id_; }

 private:
  void release() noexcept;
  StoreContext& store_;
  std::string id_;
  std::chrono::steady_clock::time_point refreshed_;
};

/// The singleton fsck lease (RAII). The constructor takes it (StoreLockedError when held: a
/// fresh one always, a stale one unless `force`); refresh() renews the heartbeat at most
/// every `refresh_every` (LeaseLostError when displaced); the destructor releases it.
class FsckLease {
 public:
  FsckLease(StoreContext& store, bool force, std::chrono::milliseconds stale_after);
  ~FsckLease();
  FsckLease(const FsckLease&) = delete;
  FsckLease& operator=(const FsckLease&) = delete;

  /// Renews the heartbeat when the last renewal is older than 2 s, or a quarter of the stale
  /// threshold when that is shorter (`now`: always).
  void refresh(bool now = false);
  const std::string& owner() const { return owner_; }

 private:
  StoreContext& store_;
  std::string owner_;
  std::chrono::milliseconds stale_after_;
  std::chrono::steady_clock::time_point refreshed_;
};

/// Deletes the fsck lease when it is stale; returns whether it did.
bool clear_stale_fsck_lease(StoreContext& store, std::chrono::milliseconds stale_after);

}  // namespace mongostore::records
