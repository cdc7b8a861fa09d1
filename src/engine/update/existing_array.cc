#include "engine/update/existing_array.h"

#include <charconv>
#include <cstring>

#include "bson/raw.h"

namespace mongostore::engine::update_detail {

ExistingArray ExistingArray::scan(bson::DocumentView array) {
  ExistingArray out;
  out.array_ = array;
  out.present_ = true;
  const uint8_t* p = array.data() + 4;
  const uint8_t* const end = array.data() + array.size() - 1;  // the terminating NUL
  // The canonical key of the element at out.count_, kept in decimal as it is incremented.
  char expected[24] = {'0'};
  size_t expected_len = 1;
  while (p < end) {
    const auto type = static_cast<bson::BsonType>(*p++);
    const size_t key_len = std::strlen(reinterpret_cast<const char*>(p));
    if (out.canonical_ && (key_len != expected_len || std::memcmp(p, expected, key_len) != 0)) {
      out.canonical_ = false;
    }
    p += key_len + 1;
    p += bson::raw::payload_size(type, p);
    ++out.count_;
    if (out.canonical_) {
      // expected += 1, in decimal.
      size_t i = expected_len;
      while (i > 0 && expected[i - 1] == '9') expected[--i] = '0';
      if (i > 0) {
        ++expected[i - 1];
      } else {
        std::memmove(expected + 1, expected, expected_len);
        expected[0] = '1';
        ++expected_len;
      }
    }
  }
  return out;
}

size_t ExistingArray::write_elements(bson::DocumentBuilder& b) const {
  if (!present_ || count_ == 0) return 0;
  if (canonical_) {
    b.append_elements(array_);
    return count_;
  }
  ArrayKeys keys(0);
  for (const bson::Element& e : array_) b.append(keys.next(), e.value);
  return count_;
}

std::string_view ArrayKeys::next() {
  auto [end, ec] = std::to_chars(buf_, buf_ + sizeof buf_, next_++);
  (void)ec;  // a size_t always fits in 24 characters
  return {buf_, static_cast<size_t>(end - buf_)};
}

}  // namespace mongostore::engine::update_detail
