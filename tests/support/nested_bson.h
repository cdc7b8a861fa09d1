// Deeply nested BSON for the limit tests, written byte by byte: building it level by level
// with a DocumentBuilder would copy O(depth^2) bytes, and validating it would reject it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::testing {

/// One level of nesting: the field holding the next level, and whether it is an array.
struct NestLevel {
  std::string key;
  bool array = false;
};

/// A document whose top level starts with `prefix`'s fields (one per level), then repeats
/// `repeat` until `levels` containers are nested below the top; the innermost holds
/// {leaf_key: 1}. nested_bytes({}, {{"a"}}, 3) is {a: {a: {a: {x: 1}}}}: nesting 3.
inline std::vector<uint8_t> nested_bytes(const std::vector<NestLevel>& prefix,
                                         const std::vector<NestLevel>& repeat, size_t levels,
                                         const std::string& leaf_key = "x") {
  auto level = [&](size_t k) -> const NestLevel& {
    return k < prefix.size() ? prefix[k] : repeat[(k - prefix.size()) % repeat.size()];
  };
  // sizes[k]: the size of the document at depth k (0 is the top).
  std::vector<uint32_t> sizes(levels + 1);
  sizes[levels] = static_cast<uint32_t>(4 + 1 + leaf_key.size() + 1 + 4 + 1);
  for (size_t k = levels; k-- > 0;) {
    sizes[k] = static_cast<uint32_t>(4 + 1 + level(k).key.size() + 1 + sizes[k + 1] + 1);
  }
  std::vector<uint8_t> out;
  out.reserve(sizes[0]);
  auto put32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  for (size_t k = 0; k < levels; ++k) {
    put32(sizes[k]);
    out.push_back(level(k).array ? 0x04 : 0x03);
    out.insert(out.end(), level(k).key.begin(), level(k).key.end());
    out.push_back(0);
  }
  put32(sizes[levels]);
  out.push_back(0x10);
  out.insert(out.end(), leaf_key.begin(), leaf_key.end());
  out.push_back(0);
  put32(1);
  out.push_back(0);
  out.insert(out.end(), levels, uint8_t{0});
  return out;
}

/// nested_bytes as a Document, unvalidated (the point is often that it is too deep).
inline bson::Document nested_document(const std::vector<NestLevel>& prefix,
                                      const std::vector<NestLevel>& repeat, size_t levels,
                                      const std::string& leaf_key = "x") {
  return bson::Document::adopt(nested_bytes(prefix, repeat, levels, leaf_key));
}

}  // namespace mongostore::testing
