// CanonicalJson: a small JSON value written the way httk writes its metadata (Python's
// json.dumps with sort_keys, compact separators and ensure_ascii): the layout document's
// entry declaration and schema fingerprints, whose bytes are compared on every reopen.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace mongostore::records {

class CanonicalJson {
 public:
  using Array = std::vector<CanonicalJson>;
  using Object = std::map<std::string, CanonicalJson>;  // sorted by key (code-point order)

  CanonicalJson() = default;                                // null
  CanonicalJson(bool v) : v_(v) {}                          // NOLINT
  CanonicalJson(int64_t v) : v_(v) {}                       // NOLINT
  CanonicalJson(int v) : v_(int64_t{v}) {}                  // NOLINT
  CanonicalJson(size_t v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  CanonicalJson(std::string v) : v_(std::move(v)) {}        // NOLINT
  CanonicalJson(const char* v) : v_(std::string(v)) {}      // NOLINT
  CanonicalJson(Array v) : v_(std::move(v)) {}              // NOLINT
  CanonicalJson(Object v) : v_(std::move(v)) {}             // NOLINT

  /// Compact, sorted, ASCII-only text.
  std::string dump() const;
  void append_to(std::string& out) const;

 private:
  std::variant<std::monostate, bool, int64_t, std::string, Array, Object> v_;
};

}  // namespace mongostore::records
