#include "engine/disk_space_guard.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <system_error>

#include "mongostore/error.h"

namespace mongostore::engine {

uint64_t filesystem_free_bytes(const std::string& path) {
  struct statvfs s {};
  if (::statvfs(path.c_str(), &s) != 0) {
    throw std::system_error(errno, std::generic_category(), "statvfs " + path);
  }
  return static_cast<uint64_t>(s.f_bavail) * static_cast<uint64_t>(s.f_frsize);
}

DiskSpaceGuard::DiskSpaceGuard(std::string path, uint64_t reserve_bytes, FreeSpaceProbe probe)
    : path_(std::move(path)),
      reserve_(reserve_bytes),
      probe_(probe ? std::move(probe) : FreeSpaceProbe(filesystem_free_bytes)) {}

void DiskSpaceGuard::check() {
  if (reserve_ == 0) return;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  if (now < next_look_ns_.load(std::memory_order_relaxed)) return;
  uint64_t free_bytes = 0;
  try {
    free_bytes = probe_(path_);
  } catch (const std::exception&) {
    return;
  }
  last_free_.store(free_bytes, std::memory_order_relaxed);
  // Far from the line, the next look can wait; near it (or past it), every write looks, so
  // writes resume as soon as space is freed and the crossing write is the one refused.
  const bool far = free_bytes / 4 > reserve_;
  next_look_ns_.store(far ? now + std::chrono::nanoseconds(kRecheckInterval).count() : 0,
                      std::memory_order_relaxed);
  if (free_bytes >= reserve_) return;
  auto mb = [](uint64_t bytes) { return std::to_string(bytes / (1024 * 1024)); };
  throw Error(ErrorCode::kOutOfDiskSpace,
              "the filesystem of data directory '" + path_ + "' has " + mb(free_bytes) +
                  " MB free, below the " + mb(reserve_) +
                  " MB reserve kept for checkpoints and recovery: writes are refused until "
                  "space is freed (reads go on; EngineOptions::disk_space_reserve_mb, serve "
                  "--disk-reserve-mb)");
}

}  // namespace mongostore::engine
