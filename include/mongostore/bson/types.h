// BSON's value types and the small value structs that carry them.
//
// mongostore keeps documents as BSON bytes from the wire to the disk; these types are how C++
// code names a BSON type or builds a value of it. None of them allocate except where noted.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mongostore::bson {

/// The type byte of a BSON element (bsonspec.org). Values are the on-disk bytes.
enum class BsonType : uint8_t {
  kEndOfDocument = 0x00,
  kDouble = 0x01,
  kString = 0x02,
  kDocument = 0x03,
  kArray = 0x04,
  kBinary = 0x05,
  kUndefined = 0x06,  // deprecated by BSON; readable, never produced by mongostore
  kObjectId = 0x07,
  kBool = 0x08,
  kDateTime = 0x09,
  kNull = 0x0A,
  kRegex = 0x0B,
  kDbPointer = 0x0C,  // deprecated
  kCode = 0x0D,
  kSymbol = 0x0E,  // deprecated
  kCodeWithScope = 0x0F,
  kInt32 = 0x10,
  kTimestamp = 0x11,
  kInt64 = 0x12,
  kDecimal128 = 0x13,
  kMinKey = 0xFF,
  kMaxKey = 0x7F,
};

/// MongoDB's alias of a type, as `$type` and `$convert` spell it: "double", "string",
/// "object", "array", "binData", "undefined", "objectId", "bool", "date", "null", "regex",
/// "dbPointer", "javascript", "symbol", "javascriptWithScope", "int", "timestamp", "long",
/// "decimal", "minKey", "maxKey". "missing" for kEndOfDocument (a missing value).
std::string_view type_alias(BsonType type);

/// True for the four numeric types (int32, int64, double, decimal128).
constexpr bool is_number(BsonType t) {
  return t == BsonType::kInt32 || t == BsonType::kInt64 || t == BsonType::kDouble ||
         t == BsonType::kDecimal128;
}

/// A 12-byte ObjectId.
struct ObjectId {
  std::array<uint8_t, 12> bytes{};

  /// A new, process-unique ObjectId (timestamp, random process value, counter).
  static ObjectId generate();
  /// Parses 24 hex digits; throws Error(BadValue) otherwise.
  static ObjectId from_hex(std::string_view hex);
  std::string to_hex() const;
  /// Seconds since the epoch stored in the first four bytes.
  uint32_t timestamp() const;

  friend bool operator==(const ObjectId&, const ObjectId&) = default;
  friend auto operator<=>(const ObjectId&, const ObjectId&) = default;
};

/// An IEEE 754-2008 128-bit decimal, stored as BSON stores it (two little-endian words).
struct Decimal128 {
  uint64_t low = 0;
  uint64_t high = 0;

  /// Parses a decimal string ("1.5", "-0", "NaN", "Infinity", "1E+10"); throws
  /// Error(BadValue) for text that is not a decimal.
  static Decimal128 from_string(std::string_view text);
  /// The decimal as MongoDB prints it ("1.5", "1.50E+3", "NaN").
  std::string to_string() const;

  bool is_nan() const;
  bool is_infinite() const;
  bool is_negative() const { return (high >> 63) != 0; }

  friend bool operator==(const Decimal128&, const Decimal128&) = default;
};

/// Milliseconds since the Unix epoch (BSON's UTC datetime).
struct DateTime {
  int64_t millis = 0;
  friend auto operator<=>(const DateTime&, const DateTime&) = default;
};

/// BSON's internal timestamp: seconds and an ordinal within the second.
struct Timestamp {
  uint32_t seconds = 0;
  uint32_t increment = 0;
  friend auto operator<=>(const Timestamp&, const Timestamp&) = default;
};

/// A view of binary data with its BSON subtype.
struct BinaryView {
  uint8_t subtype = 0;
  std::span<const uint8_t> bytes;
};

/// A view of a regular expression: its pattern and option letters.
struct RegexView {
  std::string_view pattern;
  std::string_view options;
};

/// Tag values for the types that carry no payload.
struct Null {};
struct Undefined {};
struct MinKey {};
struct MaxKey {};

}  // namespace mongostore::bson
