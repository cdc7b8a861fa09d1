// UTF-8 decoding for the identity form: validation of node text and the code points the
// canonical JSON writer escapes.
#pragma once

#include <cstdint>
#include <string_view>

namespace mongostore::records::utf8 {

/// Decodes the code point starting at s[i] and advances i past it. Returns -1 (and leaves i
/// unspecified) for anything that is not well-formed UTF-8: a stray continuation byte, a
/// truncated sequence, an overlong form, a surrogate (U+D800…U+DFFF) or a value above U+10FFFF.
inline int32_t next(std::string_view s, size_t& i) {
  auto byte = [&](size_t at) { return static_cast<uint8_t>(s[at]); };
  uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int len;
  int32_t cp;
  int32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return -1;
  }
  if (s.size() - i < static_cast<size_t>(len)) return -1;
  for (int k = 1; k < len; ++k) {
    uint8_t b = byte(i + k);
    if ((b & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  i += len;
  return cp;
}

/// Whether s is well-formed UTF-8 (see next()).
inline bool valid(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<uint8_t>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    if (next(s, i) < 0) return false;
  }
  return true;
}

}  // namespace mongostore::records::utf8
