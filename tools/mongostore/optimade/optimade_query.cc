#include "optimade/optimade_query.h"

namespace mongostore::tool::optimade {
namespace {

std::string percent_encode(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// `_<lowercase alphanumerics>_...`: another database's (or our own) custom parameter.
bool has_database_prefix(const std::string& name) {
  if (name.size() < 3 || name[0] != '_') return false;
  size_t end = name.find('_', 1);
  if (end == std::string::npos || end == 1) return false;
  for (size_t i = 1; i < end; ++i) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

}  // namespace

Query::Query(const Params& params) {
  for (const auto& [name, value] : params) {
    for (const Entry& e : entries_) {
      if (e.name == name && !repeated_) repeated_ = name;
    }
    entries_.push_back({name, value, false});
  }
}

std::optional<std::string> Query::take(const std::string& name) {
  std::optional<std::string> out;
  for (Entry& e : entries_) {
    if (e.name != name) continue;
    e.taken = true;
    if (!out) out = e.value;
  }
  return out;
}

std::optional<std::string> Query::unknown_standard_name() const {
  for (const Entry& e : entries_) {
    if (!e.taken && !has_database_prefix(e.name)) return e.name;
  }
  return std::nullopt;
}

std::string Query::representation() const {
  std::string out;
  for (const Entry& e : entries_) out += (out.empty() ? "?" : "&") + e.name + "=" + e.value;
  return out;
}

std::vector<std::string> Query::comma_list(const std::string& text) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t comma = text.find(',', begin);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(begin, comma - begin);
    size_t first = item.find_first_not_of(' ');
    size_t last = item.find_last_not_of(' ');
    if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
    begin = comma + 1;
  }
  return out;
}

bool Query::is_property_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

std::string Query::encode(const Params& params, const std::string& key, const std::string& value) {
  std::string out;
  bool replaced = false;
  for (const auto& [name, v] : params) {
    if (name == key) {
      if (replaced) continue;
      replaced = true;
      out += (out.empty() ? "" : "&") + percent_encode(name) + "=" + percent_encode(value);
      continue;
    }
    out += (out.empty() ? "" : "&") + percent_encode(name) + "=" + percent_encode(v);
  }
  if (!replaced)
    out += (out.empty() ? "" : "&") + percent_encode(key) + "=" + percent_encode(value);
  return out;
}

}  // namespace mongostore::tool::optimade
