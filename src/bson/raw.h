// Little-endian readers and per-type payload sizes for walking validated BSON bytes.
#pragma once

#include <cstdint>
#include <cstring>

#include "mongostore/bson/types.h"

namespace mongostore::bson::raw {

inline int32_t read_i32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint32_t read_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline int64_t read_i64(const uint8_t* p) {
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint64_t read_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline double read_f64(const uint8_t* p) {
  double v;
  std::memcpy(&v, p, 8);
  return v;
}

/// Size of the payload of a value of `type` starting at `p`. The bytes must be valid BSON.
inline uint32_t payload_size(BsonType type, const uint8_t* p) {
  switch (type) {
    case BsonType::kDouble:
    case BsonType::kDateTime:
    case BsonType::kTimestamp:
    case BsonType::kInt64:
      return 8;
    case BsonType::kString:
    case BsonType::kCode:
    case BsonType::kSymbol:
      return 4 + read_u32(p);
    case BsonType::kDocument:
    case BsonType::kArray:
    case BsonType::kCodeWithScope:
      return read_u32(p);
    case BsonType::kBinary:
      return 5 + read_u32(p);
    case BsonType::kUndefined:
    case BsonType::kNull:
    case BsonType::kMinKey:
    case BsonType::kMaxKey:
    case BsonType::kEndOfDocument:
      return 0;
    case BsonType::kObjectId:
      return 12;
    case BsonType::kBool:
      return 1;
    case BsonType::kRegex: {
      size_t a = std::strlen(reinterpret_cast<const char*>(p)) + 1;
      size_t b = std::strlen(reinterpret_cast<const char*>(p + a)) + 1;
      return static_cast<uint32_t>(a + b);
    }
    case BsonType::kDbPointer:
      return 4 + read_u32(p) + 12;
    case BsonType::kInt32:
      return 4;
    case BsonType::kDecimal128:
      return 16;
  }
  return 0;
}

}  // namespace mongostore::bson::raw
