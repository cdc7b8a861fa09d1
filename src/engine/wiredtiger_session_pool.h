// WiredTigerSessionPool: reusable WiredTiger sessions, one per concurrent operation.
//
// A WT_SESSION is single-threaded; opening one per operation is costly, and a session keeps
// its closed cursors cached, which is what makes per-operation cursors cheap. The pool hands a
// session to one thread at a time and takes it back when the lease ends.
#pragma once

#include <wiredtiger.h>

#include <mutex>
#include <string>
#include <vector>

namespace mongostore::engine {

/// Throws mongostore::Error for a WiredTiger error code (`what` names the call).
void check_wiredtiger(int rc, const char* what, WT_SESSION* session = nullptr);

class WiredTigerSessionPool {
 public:
  explicit WiredTigerSessionPool(WT_CONNECTION* connection) : connection_(connection) {}
  ~WiredTigerSessionPool();

  class Lease {
   public:
    Lease(WiredTigerSessionPool* pool, WT_SESSION* session) : pool_(pool), session_(session) {}
    Lease(Lease&& other) noexcept : pool_(other.pool_), session_(other.session_) {
      other.session_ = nullptr;
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (session_ != nullptr) pool_->release(session_);
    }
    WT_SESSION* get() const { return session_; }
    WT_SESSION* operator->() const { return session_; }

   private:
    WiredTigerSessionPool* pool_;
    WT_SESSION* session_;
  };

  Lease acquire();
  /// Resets every idle session, closing their cached cursors (needed before a table drop).
  void reset_idle();
  /// Closes every idle session (before the connection closes).
  void close_all();

 private:
  void release(WT_SESSION* session);

  WT_CONNECTION* connection_;
  std::mutex mutex_;
  std::vector<WT_SESSION*> idle_;
};

}  // namespace mongostore::engine
