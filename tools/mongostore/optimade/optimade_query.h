// Query: the URL query parameters of one OPTIMADE request, taken one by one by the route that
// understands them, so that what is left over can be refused (the specification: an
// unrecognized parameter without a database-specific prefix is 400 Bad Request).
//
// Thread safety: a value used by one request.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mongostore::tool::optimade {

/// `text` with every byte that is not part of well-formed UTF-8 written as "\\xNN", so that
/// untrusted text (a decoded path or parameter) can go into a JSON string.
std::string utf8_safe(std::string_view text);

class Query {
 public:
  using Params = std::vector<std::pair<std::string, std::string>>;

  explicit Query(const Params& params);

  /// The value of `name` (nullopt when absent), now counted as understood.
  std::optional<std::string> take(const std::string& name);
  /// A parameter given more than once, if any (the first such name).
  const std::optional<std::string>& repeated() const { return repeated_; }
  /// The first parameter not taken whose name has no database-specific prefix (`_name_...`).
  std::optional<std::string> unknown_standard_name() const;
  /// "?k=v&..." as received (decoded), "" without parameters: meta.query.representation.
  std::string representation() const;

  /// The items of a comma-separated list, trimmed of spaces; empty items dropped.
  static std::vector<std::string> comma_list(const std::string& text);
  /// An OPTIMADE property name: [a-z_][a-z_0-9]*.
  static bool is_property_name(const std::string& name);
  /// `params` as a URL query string (percent-encoded), with `key` set to `value` (replacing
  /// it, or added at the end).
  static std::string encode(const Params& params, const std::string& key, const std::string& value);

 private:
  struct Entry {
    std::string name, value;
    bool taken = false;
  };
  std::vector<Entry> entries_;
  std::optional<std::string> repeated_;
};

}  // namespace mongostore::tool::optimade
