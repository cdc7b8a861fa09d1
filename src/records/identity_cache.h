// IdentityCache: the objects a store has handed out, so that a fetch of a live sid returns the
// same object and sid_of() knows what was saved or fetched (reference §4).
//
// Entries hold weak references: an object no caller keeps alive leaves the cache by itself.
// The cache is per store and per process; another process's fsck is only noticed at the next
// writer lease (issue 23). Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

namespace mongostore::records {

class IdentityCache {
 public:
  /// The live object of type `type` for (table, sid), or null.
  std::shared_ptr<const void> find(const std::string& table, int64_t sid, const std::string& type);
  void put(const std::string& table, int64_t sid, const std::string& type,
           const std::shared_ptr<const void>& object);
  /// Remembers that the object at `address` (kept alive by `owner`) is stored as `sid`.
  void note_sid(const void* address, const std::shared_ptr<const void>& owner, int64_t sid);
  std::optional<int64_t> sid_of(const void* address);
  void clear();

 private:
  void sweep_locked();

  std::mutex mu_;
  std::map<std::tuple<std::string, int64_t, std::string>, std::weak_ptr<const void>> objects_;
  std::unordered_map<const void*, std::pair<std::weak_ptr<const void>, int64_t>> sids_;
  size_t puts_since_sweep_ = 0;
};

}  // namespace mongostore::records
