// Path helpers shared by the update compiler and applier: splitting, array indexes, field
// order, and the way MongoDB's messages describe elements and documents.
#include <string>
#include <string_view>
#include <vector>

#include "engine/update/internal.h"

namespace mongostore::engine::update_detail {

bool parse_index(std::string_view s, size_t* out) {
  if (s.empty() || s.size() > 15) return false;
  if (s.size() > 1 && s[0] == '0') return false;
  size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  *out = v;
  return true;
}

bool is_array_wildcard(std::string_view s) {
  return s.size() >= 3 && s.substr(0, 2) == "$[" && s.back() == ']';
}

bool FieldLess::operator()(std::string_view a, std::string_view b) const {
  // Most names start with a letter: no index to parse (a third of an update's apply went to
  // parsing both names on every comparison of its path tree's lookups).
  auto digit = [](std::string_view s) { return !s.empty() && s[0] >= '0' && s[0] <= '9'; };
  if (!digit(a) && !digit(b)) return a < b;
  size_t ia = 0, ib = 0;
  bool na = parse_index(a, &ia), nb = parse_index(b, &ib);
  if (na && nb) return ia < ib;
  if (na != nb) return na;
  return a < b;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    if (dot == std::string_view::npos) {
      parts.emplace_back(path.substr(start));
      break;
    }
    parts.emplace_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  return parts;
}

std::string describe_element(std::string_view key, const bson::Value& v) {
  std::string out(key);
  out += ": ";
  out += v.to_json();
  return out;
}

std::string describe_id(bson::DocumentView doc) {
  bson::Value id = doc.get("_id");
  if (id.is_missing()) return "{}";
  return "{" + describe_element("_id", id) + "}";
}

}  // namespace mongostore::engine::update_detail
