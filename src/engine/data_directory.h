// DataDirectory: the on-disk home of an engine, checked and locked before WiredTiger opens it.
//
// A mongostore directory holds WiredTiger's files plus `mongostore.meta` (a marker naming the
// format) and `mongostore.lock` (held with flock while an engine has it open). Opening checks
// that the directory exists or can be created, is writable, is ours (or empty), and is not in
// use by another process, and says which of these failed, naming the path.
#pragma once

#include <string>

namespace mongostore::engine {

class DataDirectory {
 public:
  /// Creates/validates and locks `path`. Throws Error(DataDirectoryInvalid).
  explicit DataDirectory(std::string path);
  ~DataDirectory();
  DataDirectory(const DataDirectory&) = delete;
  DataDirectory& operator=(const DataDirectory&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int lock_fd_ = -1;
};

}  // namespace mongostore::engine
