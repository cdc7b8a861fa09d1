#include "engine/data_directory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

constexpr const char* kMarkerName = "mongostore.meta";
constexpr const char* kMarkerText = "mongostore data directory, format 1\n";

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kDataDirectoryInvalid, "data directory '" + path + "': " + why);
}

}  // namespace

DataDirectory::DataDirectory(std::string path) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path_.empty()) fail(path_, "no path given");
  if (fs::exists(path_, ec) && !fs::is_directory(path_, ec))
    fail(path_, "exists and is not a directory");
  if (!fs::exists(path_, ec)) {
    fs::create_directories(path_, ec);
    if (ec) fail(path_, "cannot be created: " + ec.message());
  }
  if (::access(path_.c_str(), W_OK | X_OK) != 0) {
    fail(path_, std::string("is not writable: ") + std::strerror(errno));
  }
  fs::path marker = fs::path(path_) / kMarkerName;
  if (!fs::exists(marker, ec)) {
    bool empty = fs::is_empty(path_, ec);
    if (!empty) {
      fail(path_, "is not empty and is not a mongostore data directory (no " +
                      std::string(kMarkerName) + ")");
    }
    std::ofstream out(marker);
    out << kMarkerText;
    out.close();
    if (!out) fail(path_, "cannot write " + marker.string());
  } else {
    std::ifstream in(marker);
    std::string line;
    std::getline(in, line);
    if (line + "\n" != kMarkerText) {
      fail(path_, "has an unknown format marker '" + line + "'");
    }
  }
  std::string lock_path = (fs::path(path_) / "mongostore.lock").string();
  lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) fail(path_, "cannot open " + lock_path + ": " + std::strerror(errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
    fail(path_,
         "is locked by another process (mongostore.lock is held); is a mongostore "
         "server or program already using it?");
  }
}

DataDirectory::~DataDirectory() {
  if (lock_fd_ >= 0) {
    ::flock(lock_fd_, LOCK_UN);
    ::close(lock_fd_);
  }
}

}  // namespace mongostore::engine
