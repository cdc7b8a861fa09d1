#include "mongostore/bson/types.h"

#include <bson/bson.h>

#include <cstring>

#include "mongostore/error.h"

namespace mongostore::bson {

std::string_view type_alias(BsonType type) {
  switch (type) {
    case BsonType::kEndOfDocument:
      return "missing";
    case BsonType::kDouble:
      return "double";
    case BsonType::kString:
      return "string";
    case BsonType::kDocument:
      return "object";
    case BsonType::kArray:
      return "array";
    case BsonType::kBinary:
      return "binData";
    case BsonType::kUndefined:
      return "undefined";
    case BsonType::kObjectId:
      return "objectId";
    case BsonType::kBool:
      return "bool";
    case BsonType::kDateTime:
      return "date";
    case BsonType::kNull:
      return "null";
    case BsonType::kRegex:
      return "regex";
    case BsonType::kDbPointer:
      return "dbPointer";
    case BsonType::kCode:
      return "javascript";
    case BsonType::kSymbol:
      return "symbol";
    case BsonType::kCodeWithScope:
      return "javascriptWithScope";
    case BsonType::kInt32:
      return "int";
    case BsonType::kTimestamp:
      return "timestamp";
    case BsonType::kInt64:
      return "long";
    case BsonType::kDecimal128:
      return "decimal";
    case BsonType::kMinKey:
      return "minKey";
    case BsonType::kMaxKey:
      return "maxKey";
  }
  return "unknown";
}

ObjectId ObjectId::generate() {
  bson_oid_t oid;
  // libbson's default context is thread-safe and fork-aware.
  bson_oid_init(&oid, nullptr);
  ObjectId out;
  std::memcpy(out.bytes.data(), oid.bytes, 12);
  return out;
}

ObjectId ObjectId::from_hex(std::string_view hex) {
  std::string s(hex);
  if (s.size() != 24 || !bson_oid_is_valid(s.c_str(), s.size())) {
    throw Error(ErrorCode::kBadValue, "invalid ObjectId hex string: '" + s + "'");
  }
  bson_oid_t oid;
  bson_oid_init_from_string(&oid, s.c_str());
  ObjectId out;
  std::memcpy(out.bytes.data(), oid.bytes, 12);
  return out;
}

std::string ObjectId::to_hex() const {
  bson_oid_t oid;
  std::memcpy(oid.bytes, bytes.data(), 12);
  char buf[25];
  bson_oid_to_string(&oid, buf);
  return std::string(buf, 24);
}

uint32_t ObjectId::timestamp() const {
  return (uint32_t(bytes[0]) << 24) | (uint32_t(bytes[1]) << 16) | (uint32_t(bytes[2]) << 8) |
         uint32_t(bytes[3]);
}

Decimal128 Decimal128::from_string(std::string_view text) {
  std::string s(text);
  bson_decimal128_t d;
  if (!bson_decimal128_from_string(s.c_str(), &d)) {
    throw Error(ErrorCode::kBadValue, "invalid decimal128 string: '" + s + "'");
  }
  return Decimal128{d.low, d.high};
}

std::string Decimal128::to_string() const {
  bson_decimal128_t d{low, high};
  char buf[BSON_DECIMAL128_STRING];
  bson_decimal128_to_string(&d, buf);
  return buf;
}

bool Decimal128::is_nan() const {
  return ((high >> 58) & 0x1F) == 0x1F;
}
bool Decimal128::is_infinite() const {
  return ((high >> 58) & 0x1F) == 0x1E;
}

}  // namespace mongostore::bson
