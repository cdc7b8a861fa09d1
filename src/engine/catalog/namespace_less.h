// NamespaceLess: the catalog map's order ("db.coll" strings by bytes, as std::less orders
// them), transparent so that a lookup by (db, coll) compares the parts in place instead of
// building the "db.coll" string: a write resolves its collection by name on every statement
// (twice for an update: its default collation, then its write target), and the string cost
// an allocation and a free each time.
//
// Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace mongostore::engine {

/// A namespace given as its two parts, compared as "db.coll" would be.
struct NamespaceParts {
  std::string_view db;
  std::string_view coll;
};

struct NamespaceLess {
  using is_transparent = void;

  /// <0, 0 or >0 as `ns` orders before, equal to or after "<db>.<coll>", by bytes.
  static int compare(std::string_view ns, NamespaceParts parts) {
    if (int r = ns.substr(0, parts.db.size()).compare(parts.db); r != 0) return r;
    std::string_view rest = ns.substr(parts.db.size());  // `ns` starts with the db here
    if (int r = rest.substr(0, 1).compare("."); r != 0) return r;
    return rest.substr(1).compare(parts.coll);
  }

  bool operator()(const std::string& a, const std::string& b) const { return a < b; }
  bool operator()(const std::string& ns, NamespaceParts parts) const {
    return compare(ns, parts) < 0;
  }
  bool operator()(NamespaceParts parts, const std::string& ns) const {
    return compare(ns, parts) > 0;
  }
};

}  // namespace mongostore::engine
