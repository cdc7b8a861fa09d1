// UnitOfWork: one WiredTiger snapshot transaction on a leased session (MongoDB's
// RecoveryUnit).
//
// It leases a WT_SESSION from the pool for its whole life. begin() starts the transaction;
// commit() commits it with the unit's sync config (a read-only unit rolls back instead: a
// snapshot has nothing to commit); abort() rolls it back. Hooks registered with on_commit /
// on_rollback run after the WiredTiger transaction's outcome is known, in registration
// order, so in-memory catalog state changes exactly when the durable change does. A unit
// destroyed while still open aborts.
//
// WT_ROLLBACK from the commit throws WriteConflictException (the transaction is rolled back
// by WiredTiger and the rollback hooks have run). One thread at a time; not reusable.
#pragma once

#include <wiredtiger.h>

#include <functional>
#include <vector>

#include "engine/wiredtiger_session_pool.h"

namespace mongostore::engine {

class UnitOfWork {
 public:
  enum class Mode { kReadOnly, kWrite };

  /// `commit_config` is the commit's WiredTiger config ("sync=on", "sync=off", or nullptr for
  /// the connection's default); ignored by a read-only unit.
  UnitOfWork(WiredTigerSessionPool& pool, Mode mode, const char* commit_config)
      : session_(pool.acquire()), mode_(mode), commit_config_(commit_config) {}
  ~UnitOfWork();
  UnitOfWork(const UnitOfWork&) = delete;
  UnitOfWork& operator=(const UnitOfWork&) = delete;

  WT_SESSION* session() const { return session_.get(); }
  bool active() const { return active_; }

  void begin();
  void commit();
  void abort();

  /// Runs `fn` if (and after) the transaction commits.
  void on_commit(std::function<void()> fn) { commit_hooks_.push_back(std::move(fn)); }
  /// Runs `fn` if the transaction rolls back (abort, a failed commit, destruction while open).
  void on_rollback(std::function<void()> fn) { rollback_hooks_.push_back(std::move(fn)); }

 private:
  void run_rollback_hooks();

  WiredTigerSessionPool::Lease session_;
  Mode mode_;
  const char* commit_config_;
  bool active_ = false;
  // Empty (no allocation) unless a catalog change registers a hook.
  std::vector<std::function<void()>> commit_hooks_;
  std::vector<std::function<void()>> rollback_hooks_;
};

}  // namespace mongostore::engine
