// RecordKeySet: the record keys a multikey index scan has returned, so each document is
// returned once. A scan usually returns a handful of documents (a sweep's ten), for which a
// std::set's node per key (and a heap string per key longer than the small-string buffer)
// costs more than the search: the first keys are kept end to end in one byte string, searched
// linearly, and only a scan past kFlatKeys documents moves them into a hash set (constant
// time per key, so a large scan stays linear overall).
//
// Not thread-safe: one scan's state (IndexScanPosition).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace mongostore::engine {

class RecordKeySet {
 public:
  /// Past this many keys the set is hashed.
  static constexpr size_t kFlatKeys = 16;
  /// The flat keys' room is made at the first key when it is at most this long.
  static constexpr size_t kReservedKeyBytes = 64;

  /// Adds `key`; false when it was already there.
  bool insert(std::string_view key) {
    if (hashed_.empty()) {
      size_t begin = 0;
      for (size_t end : ends_) {
        // The length, then the bytes in place (no substr and its bounds check per key).
        if (end - begin == key.size() &&
            std::char_traits<char>::compare(bytes_.data() + begin, key.data(), key.size()) == 0) {
          return false;
        }
        begin = end;
      }
      if (ends_.size() < kFlatKeys) {
        if (ends_.empty()) {
          // Room for every flat key the length of the first (a short one: an `_id` may be
          // long), made once: the string would otherwise regrow (and copy) at every doubling
          // past its small buffer.
          ends_.reserve(kFlatKeys);
          if (key.size() <= kReservedKeyBytes) bytes_.reserve(kFlatKeys * key.size());
        }
        bytes_.append(key);
        ends_.push_back(bytes_.size());
        return true;
      }
      hashed_.reserve(2 * kFlatKeys);
      begin = 0;
      for (size_t end : ends_) {
        hashed_.emplace(bytes_, begin, end - begin);
        begin = end;
      }
      bytes_.clear();
      ends_.clear();
    }
    return hashed_.emplace(key).second;
  }

  size_t size() const { return hashed_.empty() ? ends_.size() : hashed_.size(); }

 private:
  std::string bytes_;         // the flat keys, end to end
  std::vector<size_t> ends_;  // where each flat key ends in bytes_
  std::unordered_set<std::string> hashed_;
};

}  // namespace mongostore::engine
