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

std::string utf8_safe(std::string_view text) {
  std::string out;
  size_t i = 0;
  auto byte = [&text](size_t at) { return static_cast<unsigned char>(text[at]); };
  while (i < text.size()) {
    unsigned char c = byte(i);
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
    if (c < 0x80) {
      length = 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;   // no overlong forms
      if (c == 0xED) high = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;  // nothing above U+10FFFF
    }
    bool ok = length > 0 && i + length <= text.size();
    for (size_t k = 1; ok && k < length; ++k) {
      unsigned char next = byte(i + k);
      ok = k == 1 ? next >= low && next <= high : next >= 0x80 && next <= 0xBF;
    }
    if (ok) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    }
  }
  return out;
}

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
