// Order-preserving binary keys for indexes.
//
// encode_index_key(v) turns a BSON value into bytes such that, for any two values a and b,
// memcmp-order of their keys equals compare_values(a, b) (equal values, such as int32 1,
// double 1.0 and decimal 1.00, get identical keys). Keys are prefix-free, so a compound key
// is just the concatenation of its parts and still sorts field by field. A descending part
// is the bitwise complement of its ascending key.
//
// Layout: one bracket byte (the type bracket), then a body:
//   numbers   class byte (NaN, -inf, negative, zero, positive, +inf); for finite non-zero
//             values the decimal exponent (16 bits) and the significant digits as nibbles,
//             all complemented for negatives; exact for every double, int and decimal128
//   strings   bytes with 0x00 escaped as 00 FF, terminated by 00 00
//   objects   per element: bracket byte, escaped field name, body; then a 00 terminator
//   arrays    per element: bracket byte, body; then a 00 terminator
//   binary    length (32-bit big-endian), subtype, bytes
//   others    fixed-width big-endian fields in comparison order
#pragma once

#include <string>

#include "mongostore/bson/value.h"

namespace mongostore::bson {

/// Appends the key of `v` to `out`; complemented when `descending`.
void append_index_key(std::string& out, const Value& v, bool descending = false);

/// The key of `v` alone.
inline std::string encode_index_key(const Value& v) {
  std::string out;
  append_index_key(out, v);
  return out;
}

}  // namespace mongostore::bson
