#include "engine/path_values.h"

#include <charconv>

namespace mongostore::engine {
namespace {

bool parse_index(std::string_view part, size_t* index) {
  if (part.empty() || part.size() > 9) return false;
  for (char c : part) {
    if (c < '0' || c > '9') return false;
  }
  std::from_chars(part.data(), part.data() + part.size(), *index);
  return true;
}

void collect(const bson::Value& v, std::string_view rest, std::vector<bson::Value>* out,
             bool* empty_array) {
  if (rest.empty()) {
    if (v.is_array()) {
      bool any = false;
      for (const bson::Element& e : v.as_array()) {
        out->push_back(e.value);
        any = true;
      }
      if (!any && empty_array) *empty_array = true;
    } else if (!v.is_missing()) {
      out->push_back(v);
    }
    return;
  }
  size_t dot = rest.find('.');
  std::string_view part = rest.substr(0, dot);
  std::string_view tail = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  if (v.is_document()) {
    collect(v.as_document().get(part), tail, out, empty_array);
  } else if (v.is_array()) {
    size_t index = 0;
    if (parse_index(part, &index)) {
      size_t i = 0;
      for (const bson::Element& e : v.as_array()) {
        if (i++ == index) {
          collect(e.value, tail, out, empty_array);
          return;
        }
      }
      return;
    }
    for (const bson::Element& e : v.as_array()) {
      if (e.value.is_document()) collect(e.value.as_document().get(part), tail, out, empty_array);
    }
  }
}

}  // namespace

void collect_path_values(bson::DocumentView doc, std::string_view path,
                         std::vector<bson::Value>* out) {
  bson::Value root(bson::BsonType::kDocument, doc.data(), static_cast<uint32_t>(doc.size()));
  collect(root, path, out, nullptr);
}

bool path_reaches_empty_array(bson::DocumentView doc, std::string_view path) {
  std::vector<bson::Value> ignored;
  bool empty = false;
  bson::Value root(bson::BsonType::kDocument, doc.data(), static_cast<uint32_t>(doc.size()));
  collect(root, path, &ignored, &empty);
  return empty;
}

}  // namespace mongostore::engine
