// Making text safe to put in a BSON string: error messages echo user input, and a reply whose
// errmsg is not UTF-8 cannot be decoded by drivers.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mongostore::bson {

/// `s` with every byte that does not start a well-formed UTF-8 sequence (truncated, overlong,
/// surrogate, above U+10FFFF, stray continuation) replaced by U+FFFD. Valid text is returned
/// unchanged. Thread-safe (pure).
std::string to_valid_utf8(std::string_view s);

/// The bytes of the character that starts at `pos` in `s`: the whole UTF-8 sequence when it is
/// well formed, else the one byte at `pos`. `pos` must be less than s.size().
std::string_view utf8_char_at(std::string_view s, size_t pos);

}  // namespace mongostore::bson
