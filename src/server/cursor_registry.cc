#include "server/cursor_registry.h"

#include <fmt/core.h>

#include "mongostore/error.h"
#include "server/auth/auth_session.h"

namespace mongostore::server {

using Clock = std::chrono::steady_clock;

CursorRegistry::CursorRegistry(std::chrono::milliseconds idle_timeout, size_t memory_limit,
                               std::function<void(const std::string&)> log)
    : idle_timeout_(idle_timeout),
      memory_limit_(memory_limit),
      log_(std::move(log)),
      random_(std::random_device{}()) {}

int64_t CursorRegistry::keep(OpenCursor open, int64_t id) {
  std::lock_guard lock(mutex_);
  bool fresh = id == 0;
  expire_idle_locked();
  while (id == 0 || (fresh && cursors_.count(id) != 0)) {
    id = static_cast<int64_t>(random_() & 0x7FFFFFFFFFFFFFFFull);
  }
  open.last_used = Clock::now();
  cursors_[id] = std::move(open);
  limit_memory_locked(id);
  return id;
}

OpenCursor CursorRegistry::check_out(int64_t id, const std::string& ns,
                                     const std::vector<std::string>* owners) {
  std::lock_guard lock(mutex_);
  expire_idle_locked();
  auto it = cursors_.find(id);
  if (it == cursors_.end()) {
    throw Error(ErrorCode::kCursorNotFound, "cursor id " + std::to_string(id) + " not found");
  }
  if (it->second.ns != ns) {
    throw Error(13 /* Unauthorized */, "Requested getMore on namespace '" + ns +
                                           "', but cursor belongs to '" + it->second.ns + "'");
  }
  if (owners != nullptr && !auth::coauthorized(*owners, it->second.owners)) {
    throw Error(13 /* Unauthorized */,
                "cursor id " + std::to_string(id) + " was not created by the authenticated user");
  }
  OpenCursor open = std::move(it->second);
  cursors_.erase(it);  // in use: a concurrent getMore on the same id finds nothing
  return open;
}

bool CursorRegistry::kill(int64_t id) {
  std::lock_guard lock(mutex_);
  return cursors_.erase(id) != 0;
}

bool CursorRegistry::may_kill(int64_t id, const std::vector<std::string>& owners) const {
  std::lock_guard lock(mutex_);
  auto it = cursors_.find(id);
  return it == cursors_.end() || auth::coauthorized(owners, it->second.owners);
}

size_t CursorRegistry::size() const {
  std::lock_guard lock(mutex_);
  return cursors_.size();
}

// Abandoned cursors must not pile up results without bound: past the limit, the least
// recently used ones (never `keep`, the one just stored) are closed.
void CursorRegistry::limit_memory_locked(int64_t keep) {
  size_t total = 0;
  for (const auto& [id, open] : cursors_) total += open.memory();
  while (total > memory_limit_) {
    auto oldest = cursors_.end();
    for (auto it = cursors_.begin(); it != cursors_.end(); ++it) {
      if (it->first != keep &&
          (oldest == cursors_.end() || it->second.last_used < oldest->second.last_used)) {
        oldest = it;
      }
    }
    if (oldest == cursors_.end()) return;
    if (log_) {
      log_(fmt::format("cursor {} on {} closed: open cursors hold more than {} bytes",
                       oldest->first, oldest->second.ns, memory_limit_));
    }
    total -= oldest->second.memory();
    cursors_.erase(oldest);
  }
}

void CursorRegistry::expire_idle_locked() {
  auto now = Clock::now();
  for (auto it = cursors_.begin(); it != cursors_.end();) {
    if (!it->second.no_timeout && now - it->second.last_used > idle_timeout_) {
      if (log_) {
        log_(fmt::format("cursor {} on {} timed out after {} ms idle", it->first, it->second.ns,
                         idle_timeout_.count()));
      }
      it = cursors_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace mongostore::server
