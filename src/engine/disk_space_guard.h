// DiskSpaceGuard: refuses writes while the data directory's filesystem has less free space
// than a reserve, so the storage engine never runs out of space in the middle of a write.
//
// Why a reserve: WiredTiger that hits ENOSPC in its log or a checkpoint panics, and a panicked
// connection serves nothing until a restart; a restart on a still-full disk then fails in
// recovery (it needs space to replay the log and checkpoint). Refusing new writes below a
// reserve keeps the space recovery and checkpoints need, while reads go on; writes resume by
// themselves once space is freed (the guard looks again).
//
// check() costs a clock read while the last look found plenty of space (it looks again at
// most every kRecheckInterval) and a statvfs() per write once free space is within a few
// reserves of the limit, so the write that crosses the line is the one refused. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace mongostore::engine {

class DiskSpaceGuard {
 public:
  /// Free bytes available to the process on the filesystem holding a path (statvfs's
  /// f_bavail * f_frsize); throws std::system_error when it cannot be read.
  using FreeSpaceProbe = std::function<uint64_t(const std::string& path)>;

  static constexpr std::chrono::milliseconds kRecheckInterval{250};

  /// `reserve_bytes` 0 disables the guard. `probe` defaults to statvfs.
  DiskSpaceGuard(std::string path, uint64_t reserve_bytes, FreeSpaceProbe probe = {});

  /// Throws Error(OutOfDiskSpace, 14031) naming the free space and the reserve when a write
  /// must be refused. A probe failure lets the write through (the engine's own error then
  /// says what went wrong).
  void check();

  uint64_t reserve_bytes() const { return reserve_; }

 private:
  const std::string path_;
  const uint64_t reserve_;
  const FreeSpaceProbe probe_;
  std::atomic<int64_t> next_look_ns_{0};  // steady clock; 0: look at the next check
  std::atomic<uint64_t> last_free_{UINT64_MAX};
};

/// statvfs(path): f_bavail * f_frsize.
uint64_t filesystem_free_bytes(const std::string& path);

}  // namespace mongostore::engine
