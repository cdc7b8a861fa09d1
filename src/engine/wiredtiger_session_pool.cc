#include "engine/wiredtiger_session_pool.h"

#include <cerrno>
#include <string>

#include "mongostore/error.h"

namespace mongostore::engine {

void check_wiredtiger(int rc, const char* what, WT_SESSION* session) {
  if (rc == 0) return;
  const char* text = session != nullptr ? session->strerror(session, rc) : wiredtiger_strerror(rc);
  if (rc == ENOSPC) {
    throw Error(ErrorCode::kOutOfDiskSpace, std::string("WiredTiger ") + what +
                                                " failed: the data directory's filesystem is "
                                                "full (" +
                                                text + ")");
  }
  if (rc == WT_PANIC) {
    throw Error(ErrorCode::kInternalError,
                std::string("WiredTiger ") + what +
                    " failed: the storage engine panicked earlier (its first error is in the "
                    "log) and serves nothing until the process restarts; recovery replays the "
                    "journal, so nothing acknowledged is lost");
  }
  ErrorCode code = rc == WT_ROLLBACK ? ErrorCode::kWriteConflict : ErrorCode::kInternalError;
  throw Error(code, std::string("WiredTiger ") + what + " failed: " + text);
}

WiredTigerSessionPool::~WiredTigerSessionPool() = default;

WiredTigerSessionPool::Lease WiredTigerSessionPool::acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      WT_SESSION* s = idle_.back();
      idle_.pop_back();
      return Lease(this, s);
    }
  }
  WT_SESSION* s = nullptr;
  check_wiredtiger(connection_->open_session(connection_, nullptr, "isolation=snapshot", &s),
                   "open_session");
  return Lease(this, s);
}

void WiredTigerSessionPool::release(WT_SESSION* session) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(session);
}

void WiredTigerSessionPool::reset_idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (WT_SESSION* s : idle_) s->reset(s);
}

void WiredTigerSessionPool::close_all() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (WT_SESSION* s : idle_) s->close(s, nullptr);
  idle_.clear();
}

}  // namespace mongostore::engine
