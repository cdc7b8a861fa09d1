#include "engine/index_key_generator.h"

#include <algorithm>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

constexpr int32_t kCannotIndexParallelArrays = 171;

const bson::Document& null_holder() {
  static const bson::Document d = bson::make_document("v", bson::Null{});
  return d;
}
const bson::Document& undefined_holder() {
  static const bson::Document d = bson::make_document("v", bson::Undefined{});
  return d;
}
bson::Value null_value() {
  return null_holder().get("v");
}
bson::Value undefined_value() {
  return undefined_holder().get("v");
}

bool is_index_part(std::string_view part, size_t* index) {
  if (part.empty() || part.size() > 9) return false;
  size_t n = 0;
  for (char c : part) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  *index = n;
  return true;
}

struct FieldValues {
  std::vector<bson::Value> values;
  std::string array_path;  // the first array the path went through, empty if none
  bool present = false;    // some value was really there (not a null stand-in)
};

// `rest` is the unwalked end of `path` (a view into it, empty at its end): the path walked so
// far, named in CannotIndexParallelArrays, is what precedes it, built only when needed.
std::string walked(std::string_view path, std::string_view rest) {
  if (rest.empty()) return std::string(path);
  size_t consumed = path.size() - rest.size();
  return std::string(path.substr(0, consumed == 0 ? 0 : consumed - 1));
}

void walk(const bson::Value& v, std::string_view path, std::string_view rest, FieldValues* out) {
  if (rest.empty()) {
    if (v.is_array()) {
      if (out->array_path.empty()) out->array_path = walked(path, rest);
      out->present = true;
      bool any = false;
      for (const bson::Element& e : v.as_array()) {
        out->values.push_back(e.value);
        any = true;
      }
      if (!any) out->values.push_back(undefined_value());
    } else if (v.is_missing()) {
      out->values.push_back(null_value());
    } else {
      out->present = true;
      out->values.push_back(v);
    }
    return;
  }
  size_t dot = rest.find('.');
  std::string_view part = rest.substr(0, dot);
  std::string_view tail =
      dot == std::string_view::npos ? rest.substr(rest.size()) : rest.substr(dot + 1);
  if (v.is_document()) {
    walk(v.as_document().get(part), path, tail, out);
    return;
  }
  if (v.is_array()) {
    if (out->array_path.empty()) out->array_path = walked(path, rest);
    size_t index = 0;
    bool positional = is_index_part(part, &index);
    size_t i = 0;
    bool any = false;
    for (const bson::Element& e : v.as_array()) {
      any = true;
      if (positional && i == index) walk(e.value, path, tail, out);
      if (e.value.is_document()) {
        walk(e.value.as_document().get(part), path, tail, out);
      } else if (!positional) {
        out->values.push_back(null_value());
      }
      ++i;
    }
    if (!any) out->values.push_back(null_value());
    return;
  }
  out->values.push_back(null_value());
}

// One field's value with its key part (in the field's direction).
struct KeyPart {
  std::string bytes;
  bson::Value value;
};

}  // namespace

std::string index_key_of(const IndexDescriptor& d, const bson::Value& v, bool descending) {
  std::string out;
  if (d.collation() != nullptr && Collation::collation_sensitive(v)) {
    bson::append_index_key(out, d.collation()->comparison_key(v).view(), descending);
  } else {
    bson::append_index_key(out, v, descending);
  }
  return out;
}

void IndexKeyGenerator::generate(bson::DocumentView doc, std::vector<GeneratedKey>* out,
                                 bool* multikey) const {
  const IndexDescriptor& d = *descriptor_;
  if (d.partial_filter() && !d.partial_filter()->matches(doc)) return;
  const auto& fields = d.fields();
  bson::Value root(bson::BsonType::kDocument, doc.data(), static_cast<uint32_t>(doc.size()));
  if (fields.size() == 1) {
    // One field (most indexes): its keys straight into `out`, without the per-field vectors
    // and key parts a compound key needs; the same keys in the same order as below.
    FieldValues fv;
    walk(root, fields[0].path, fields[0].path, &fv);
    if (!fv.array_path.empty()) *multikey = true;
    if (d.sparse() && !fv.present) return;
    const size_t first = out->size();
    for (const bson::Value& v : fv.values) {
      out->push_back(GeneratedKey{index_key_of(d, v, fields[0].descending), {v}});
    }
    if (out->size() - first > 1) {
      auto by_bytes = [](const GeneratedKey& a, const GeneratedKey& b) {
        return a.bytes < b.bytes;
      };
      std::stable_sort(out->begin() + first, out->end(), by_bytes);
      out->erase(std::unique(out->begin() + first, out->end(),
                             [](const GeneratedKey& a, const GeneratedKey& b) {
                               return a.bytes == b.bytes;
                             }),
                 out->end());
    }
    return;
  }
  std::vector<FieldValues> per_field(fields.size());
  std::vector<std::vector<KeyPart>> parts(fields.size());
  bool any_present = false;
  const FieldValues* array_field = nullptr;
  auto by_bytes = [](const KeyPart& a, const KeyPart& b) { return a.bytes < b.bytes; };
  for (size_t i = 0; i < fields.size(); ++i) {
    walk(root, fields[i].path, fields[i].path, &per_field[i]);
    FieldValues& fv = per_field[i];
    any_present = any_present || fv.present;
    if (!fv.array_path.empty()) {
      *multikey = true;
      if (array_field != nullptr && array_field->array_path != fv.array_path) {
        throw Error(kCannotIndexParallelArrays, "cannot index parallel arrays [" + fv.array_path +
                                                    "] [" + array_field->array_path + "]");
      }
      if (array_field == nullptr) array_field = &fv;
    }
    // Each value's key part, encoded once. Equal values (1 and 1.0, a repeated element, or
    // strings the collation finds equal) give one entry, the first one's value: the descending
    // encoding is the bitwise complement of the ascending one, so equal in either.
    std::vector<KeyPart>& ps = parts[i];
    ps.reserve(fv.values.size());
    for (const bson::Value& v : fv.values) {
      ps.push_back(KeyPart{index_key_of(d, v, fields[i].descending), v});
    }
    if (ps.size() > 1) {
      std::stable_sort(ps.begin(), ps.end(), by_bytes);
      ps.erase(std::unique(ps.begin(), ps.end(),
                           [](const KeyPart& a, const KeyPart& b) { return a.bytes == b.bytes; }),
               ps.end());
    }
  }
  if (d.sparse() && !any_present) return;
  // Cartesian product of the fields' values.
  std::vector<GeneratedKey> keys(1);
  for (size_t i = 0; i < fields.size(); ++i) {
    std::vector<GeneratedKey> next;
    next.reserve(keys.size() * parts[i].size());
    for (const GeneratedKey& k : keys) {
      for (const KeyPart& p : parts[i]) {
        GeneratedKey g = k;
        g.bytes += p.bytes;
        g.values.push_back(p.value);
        next.push_back(std::move(g));
      }
    }
    keys = std::move(next);
  }
  std::sort(keys.begin(), keys.end(),
            [](const GeneratedKey& a, const GeneratedKey& b) { return a.bytes < b.bytes; });
  keys.erase(
      std::unique(keys.begin(), keys.end(),
                  [](const GeneratedKey& a, const GeneratedKey& b) { return a.bytes == b.bytes; }),
      keys.end());
  for (auto& k : keys) out->push_back(std::move(k));
}

std::string_view IndexKeyGenerator::key_path_head() const {
  const std::string_view path = descriptor_->fields().front().path;
  return path.substr(0, path.find('.'));
}

std::optional<std::string> IndexKeyGenerator::first_key_at(bson::DocumentView doc,
                                                           const bson::Value& top_level) const {
  const IndexDescriptor& d = *descriptor_;
  const auto& fields = d.fields();
  if (fields.size() != 1) {
    std::vector<GeneratedKey> keys;
    bool ignored = false;
    generate(doc, &keys, &ignored);
    if (keys.empty()) return std::nullopt;
    return std::move(keys.front().bytes);
  }
  if (d.partial_filter() && !d.partial_filter()->matches(doc)) return std::nullopt;
  // The walk from the root would look the first component up in `doc` and go on from its
  // value with the rest of the path: the caller has looked it up.
  const std::string_view path = fields[0].path;
  const size_t head = key_path_head().size();
  FieldValues fv;
  walk(top_level, path, path.substr(head == path.size() ? head : head + 1), &fv);
  if (d.sparse() && !fv.present) return std::nullopt;
  if (fv.values.empty()) return std::nullopt;
  const bool descending = fields[0].descending;
  if (d.collation() != nullptr) {
    // Strings are keyed by their collation key: the values' keys compared as encoded.
    std::optional<std::string> first;
    for (const bson::Value& v : fv.values) {
      std::string key = index_key_of(d, v, descending);
      if (!first || key < *first) first = std::move(key);
    }
    return first;
  }
  // Without a collation the keys' byte order is compare_values' order, and values that
  // compare equal have the same key (bson/index_key.h): the smallest value (the largest for a
  // descending field) is found by comparing values, and only its key is encoded.
  const bson::Value* best = &fv.values.front();
  for (const bson::Value& v : fv.values) {
    const int c = bson::compare_values(v, *best);
    if (descending ? c > 0 : c < 0) best = &v;
  }
  return index_key_of(d, *best, descending);
}

std::string describe_key(const IndexDescriptor& descriptor,
                         const std::vector<bson::Value>& values) {
  std::string out = "{ ";
  const auto& fields = descriptor.fields();
  for (size_t i = 0; i < fields.size() && i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += fields[i].path + ": " + values[i].to_json();
  }
  out += " }";
  return out;
}

}  // namespace mongostore::engine
