// SmallFilesystem: a real, small filesystem (a tmpfs of a given size mounted on a fresh
// directory) that a test can fill up, for what a full disk does to the engine and the server.
// Needs root (mount); without it mounted() is false and why() says so, and the test skips.
#pragma once

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace mongostore::testing {

class SmallFilesystem {
 public:
  explicit SmallFilesystem(uint64_t size_mb) {
    char pattern[] = "/tmp/mongostore-smallfs-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) {
      why_ = "mkdtemp failed";
      return;
    }
    path_ = pattern;
    const std::string options = "size=" + std::to_string(size_mb) + "m";
    if (::mount("tmpfs", path_.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      why_ = "cannot mount a tmpfs (needs root): " + std::string(std::strerror(errno));
      return;
    }
    mounted_ = true;
  }
  ~SmallFilesystem() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  SmallFilesystem(const SmallFilesystem&) = delete;
  SmallFilesystem& operator=(const SmallFilesystem&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }
  const std::string& path() const { return path_; }

  uint64_t free_bytes() const {
    struct statvfs s {};
    ::statvfs(path_.c_str(), &s);
    return static_cast<uint64_t>(s.f_bavail) * s.f_frsize;
  }
  /// Takes space with a filler file until at most `leave` bytes are free. In chunks, as other
  /// writers (the engine's log preallocation) may take space meanwhile. Returns whether it
  /// got there.
  bool fill_leaving(uint64_t leave) {
    int fd = ::open(filler().c_str(), O_CREAT | O_WRONLY, 0600);
    if (fd < 0) return false;
    off_t size = ::lseek(fd, 0, SEEK_END);
    bool done = false;
    for (int attempt = 0; attempt < 100000 && !done; ++attempt) {
      const uint64_t free_now = free_bytes();
      if (free_now <= leave) {
        done = true;
        break;
      }
      const off_t chunk = static_cast<off_t>(std::min<uint64_t>(free_now - leave, 16u << 20));
      if (::posix_fallocate(fd, size, chunk) == 0) size += chunk;
    }
    ::close(fd);
    return done;
  }
  /// Gives the filler's space back.
  void remove_filler() { ::unlink(filler().c_str()); }

 private:
  std::string filler() const { return path_ + "/filler"; }

  std::string path_;
  std::string why_;
  bool mounted_ = false;
};

}  // namespace mongostore::testing
