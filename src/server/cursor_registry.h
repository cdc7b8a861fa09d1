// CursorRegistry: the server-side cursors of find, aggregate and the listing commands
// (id -> engine cursor plus what it produced and no reply has carried yet). They are shared
// by every connection, as mongod's are: a getMore names the cursor's id and namespace, not
// the connection that opened it.
//
// A cursor unused for `idle_timeout` is closed (unless opened with noCursorTimeout); the
// check runs whenever a cursor is kept or checked out, so no thread is needed. Together the
// open cursors hold at most `memory_limit` bytes: keeping one past it closes the least
// recently used others until the total fits (the one just kept always stays). Each closing
// is reported through `log` when one is given.
//
// A getMore checks its cursor out (it leaves the registry) and keeps it again when it may
// have more, so two getMores on one id never run at once: the second finds nothing
// (CursorNotFound, 43).
//
// Thread safety: every member may be called from any thread at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/engine.h"

namespace mongostore::server {

// A server-side cursor: the engine cursor plus the documents it has produced and no reply
// has carried yet (the engine hands out fixed-size batches; getMore asks for any size).
struct OpenCursor {
  std::unique_ptr<engine::Cursor> cursor;
  std::string ns;
  std::chrono::steady_clock::time_point last_used;
  std::deque<bson::Document> pending;
  bool no_timeout = false;  // noCursorTimeout: kept until exhausted or killed
  /// The users ("user@db", sorted) authenticated on the connection that opened it: under
  /// --auth only a connection sharing one of them may getMore or kill it (mongod's cursor
  /// ownership). Empty without authentication.
  std::vector<std::string> owners;
  bool exhausted() const { return pending.empty() && cursor->exhausted(); }
  size_t memory() const {
    size_t bytes = cursor->memory_bytes();
    for (const bson::Document& d : pending) bytes += d.size();
    return bytes;
  }
};

class CursorRegistry {
 public:
  CursorRegistry(std::chrono::milliseconds idle_timeout, size_t memory_limit,
                 std::function<void(const std::string&)> log);

  /// Keeps `open` under `id`, or under a new random positive id when `id` is 0, and returns
  /// the id. Closes idle cursors first and the least recently used others after, past the
  /// memory limit.
  int64_t keep(OpenCursor open, int64_t id = 0);

  /// Takes cursor `id` out of the registry for a getMore on namespace `ns` (the caller keeps
  /// it again when it may have more). Fails CursorNotFound (43) when there is no such cursor
  /// (never opened, exhausted, killed, expired or in use) and Unauthorized (13) when it
  /// belongs to another namespace or, when `owners` is given, was opened by other users
  /// (the cursor then stays).
  OpenCursor check_out(int64_t id, const std::string& ns,
                       const std::vector<std::string>* owners = nullptr);

  /// Closes cursor `id`; false when there was none.
  bool kill(int64_t id);

  /// False when cursor `id` exists and was opened by users none of `owners` is among
  /// (killCursors then fails Unauthorized); true for an unknown id.
  bool may_kill(int64_t id, const std::vector<std::string>& owners) const;

  /// The number of open cursors (checked-out ones not included).
  size_t size() const;

 private:
  void expire_idle_locked();
  void limit_memory_locked(int64_t keep);

  const std::chrono::milliseconds idle_timeout_;
  const size_t memory_limit_;
  const std::function<void(const std::string&)> log_;
  mutable std::mutex mutex_;
  std::unordered_map<int64_t, OpenCursor> cursors_;
  std::mt19937_64 random_;
};

}  // namespace mongostore::server
