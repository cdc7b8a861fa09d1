#include "engine/write/index_key_delta.h"

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bson/raw.h"

namespace mongostore::engine {

namespace {

std::string_view top_component(std::string_view path) {
  return path.substr(0, path.find('.'));
}

bool has_numeric_component(std::string_view path) {
  size_t start = 0;
  for (;;) {
    size_t dot = path.find('.', start);
    std::string_view part = path.substr(start, dot == std::string_view::npos ? dot : dot - start);
    bool digits = !part.empty();
    for (char c : part) digits = digits && c >= '0' && c <= '9';
    if (digits) return true;
    if (dot == std::string_view::npos) return false;
    start = dot + 1;
  }
}

size_t decimal_digits(size_t n) {
  size_t digits = 1;
  for (; n >= 10; n /= 10) ++digits;
  return digits;
}

void put_u32(uint8_t* p, size_t v) {
  const auto u = static_cast<uint32_t>(v);
  std::memcpy(p, &u, 4);  // BSON is little-endian, as every platform built for
}

// `after` is `before`'s elements, byte for byte, then at least one more: the added ones.
// Array bytes are an int32 length, the elements, and a 0 byte; parsing `after` from its start
// reads the same elements as `before` while the bytes are the same, so the boundary after
// `before`'s last element is an element boundary of `after` too: the added elements are read
// from there, without walking the old ones.
std::optional<bson::Document> appended_elements(std::string_view field, const bson::Value& before,
                                                const bson::Value& after) {
  if (!before.is_array() || !after.is_array()) return std::nullopt;
  const size_t old_elements = before.size() - 5;  // without the length and the final 0
  if (old_elements == 0 || after.size() <= before.size()) return std::nullopt;
  if (std::memcmp(before.data() + 4, after.data() + 4, old_elements) != 0) return std::nullopt;
  // The added elements' bytes, written straight into {field: [added]} (renumbered from "0"):
  // one allocation of the exact size, no builder.
  const uint8_t* const first = after.data() + 4 + old_elements;
  const uint8_t* const end = after.data() + after.size() - 1;  // the final 0
  if (first >= end) return std::nullopt;
  size_t array_size = 5, added = 0;
  for (const uint8_t* p = first; p < end; ++added) {
    const size_t key_len = std::strlen(reinterpret_cast<const char*>(p + 1));
    const uint8_t* payload = p + 2 + key_len;
    const size_t payload_size = bson::raw::payload_size(static_cast<bson::BsonType>(*p), payload);
    array_size += 2 + decimal_digits(added) + payload_size;
    p = payload + payload_size;
  }
  const size_t total = 4 + 1 + field.size() + 1 + array_size + 1;
  std::vector<uint8_t> out(total);
  uint8_t* w = out.data();
  put_u32(w, total);
  w[4] = static_cast<uint8_t>(bson::BsonType::kArray);
  std::memcpy(w + 5, field.data(), field.size());
  w += 5 + field.size() + 1;  // past the key's NUL (the vector is zeroed)
  put_u32(w, array_size);
  w += 4;
  size_t i = 0;
  for (const uint8_t* p = first; p < end; ++i) {
    const size_t key_len = std::strlen(reinterpret_cast<const char*>(p + 1));
    const uint8_t* payload = p + 2 + key_len;
    const size_t payload_size = bson::raw::payload_size(static_cast<bson::BsonType>(*p), payload);
    *w++ = *p;
    const std::string index = std::to_string(i);
    std::memcpy(w, index.data(), index.size());
    w += index.size() + 1;
    std::memcpy(w, payload, payload_size);
    w += payload_size;
    p = payload + payload_size;
  }
  // The array's and the document's final 0s are the vector's zeros.
  return bson::Document::adopt(std::move(out));
}

}  // namespace

IndexKeyDelta index_key_delta(const IndexDescriptor& index, bson::DocumentView before,
                              bson::DocumentView after) {
  return index_key_delta(index, TopLevelDiff(before, after));
}

IndexKeyDelta index_key_delta(const IndexDescriptor& index, const TopLevelDiff& diff) {
  IndexKeyDelta full;
  if (index.partial_filter()) return full;
  const auto& fields = index.fields();
  bool unchanged = true;
  bson::Value first_before, first_after;  // of the first field, looked up once
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& path = fields[i].path;
    if (path.empty() || path.find('$') != std::string::npos) return full;
    std::string_view top = top_component(path);
    bson::Value b = diff.before(top), a = diff.after(top);
    if (!b.identical(a)) unchanged = false;
    if (i == 0) first_before = b, first_after = a;
  }
  if (unchanged) return IndexKeyDelta{IndexKeyDelta::Kind::kUnchanged, std::nullopt};
  if (fields.size() != 1 || index.unique() || has_numeric_component(fields[0].path)) return full;
  std::string_view top = top_component(fields[0].path);
  std::optional<bson::Document> added = appended_elements(top, first_before, first_after);
  if (!added) return full;
  return IndexKeyDelta{IndexKeyDelta::Kind::kAppended, std::move(added)};
}

}  // namespace mongostore::engine
