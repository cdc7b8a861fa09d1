#include "mongostore/bson/value.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "bson/exact_number.h"
#include "bson/raw.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/error.h"

namespace mongostore::bson {
namespace {

[[noreturn]] void mismatch(BsonType have, const char* want) {
  throw Error(ErrorCode::kTypeMismatch,
              std::string("expected a BSON ") + want + ", found " + std::string(type_alias(have)));
}

}  // namespace

double Value::as_double() const {
  if (type_ != BsonType::kDouble) mismatch(type_, "double");
  return raw::read_f64(data_);
}

int32_t Value::as_int32() const {
  if (type_ != BsonType::kInt32) mismatch(type_, "int");
  return raw::read_i32(data_);
}

int64_t Value::as_int64() const {
  if (type_ != BsonType::kInt64) mismatch(type_, "long");
  return raw::read_i64(data_);
}

bool Value::as_bool() const {
  if (type_ != BsonType::kBool) mismatch(type_, "bool");
  return data_[0] != 0;
}

std::string_view Value::as_string() const {
  if (type_ != BsonType::kString && type_ != BsonType::kSymbol && type_ != BsonType::kCode) {
    mismatch(type_, "string");
  }
  return std::string_view(reinterpret_cast<const char*>(data_ + 4), raw::read_u32(data_) - 1);
}

DocumentView Value::as_document() const {
  if (type_ != BsonType::kDocument) mismatch(type_, "object");
  return DocumentView(data_, size_);
}

DocumentView Value::as_array() const {
  if (type_ != BsonType::kArray) mismatch(type_, "array");
  return DocumentView(data_, size_);
}

ObjectId Value::as_object_id() const {
  if (type_ != BsonType::kObjectId) mismatch(type_, "objectId");
  ObjectId id;
  std::memcpy(id.bytes.data(), data_, 12);
  return id;
}

DateTime Value::as_datetime() const {
  if (type_ != BsonType::kDateTime) mismatch(type_, "date");
  return DateTime{raw::read_i64(data_)};
}

Timestamp Value::as_timestamp() const {
  if (type_ != BsonType::kTimestamp) mismatch(type_, "timestamp");
  // BSON stores the increment in the low word, the seconds in the high word.
  return Timestamp{raw::read_u32(data_ + 4), raw::read_u32(data_)};
}

Decimal128 Value::as_decimal128() const {
  if (type_ != BsonType::kDecimal128) mismatch(type_, "decimal");
  return Decimal128{raw::read_u64(data_), raw::read_u64(data_ + 8)};
}

BinaryView Value::as_binary() const {
  if (type_ != BsonType::kBinary) mismatch(type_, "binData");
  uint32_t n = raw::read_u32(data_);
  uint8_t subtype = data_[4];
  const uint8_t* bytes = data_ + 5;
  // The old binary subtype 2 nests a second length prefix.
  if (subtype == 0x02 && n >= 4) {
    bytes += 4;
    n -= 4;
  }
  return BinaryView{subtype, std::span<const uint8_t>(bytes, n)};
}

RegexView Value::as_regex() const {
  if (type_ != BsonType::kRegex) mismatch(type_, "regex");
  const char* p = reinterpret_cast<const char*>(data_);
  std::string_view pattern(p);
  std::string_view options(p + pattern.size() + 1);
  return RegexView{pattern, options};
}

std::string_view Value::code_with_scope_code() const {
  if (type_ != BsonType::kCodeWithScope) mismatch(type_, "javascriptWithScope");
  return std::string_view(reinterpret_cast<const char*>(data_ + 8), raw::read_u32(data_ + 4) - 1);
}

DocumentView Value::code_with_scope_scope() const {
  if (type_ != BsonType::kCodeWithScope) mismatch(type_, "javascriptWithScope");
  const uint8_t* scope = data_ + 8 + raw::read_u32(data_ + 4);
  return DocumentView(scope, raw::read_u32(scope));
}

double Value::number_as_double() const {
  switch (type_) {
    case BsonType::kDouble:
      return raw::read_f64(data_);
    case BsonType::kInt32:
      return raw::read_i32(data_);
    case BsonType::kInt64:
      return static_cast<double>(raw::read_i64(data_));
    case BsonType::kDecimal128:
      // strtod, unlike stod, rounds out-of-range values to +-inf or 0 instead of throwing.
      return std::strtod(as_decimal128().to_string().c_str(), nullptr);
    default:
      mismatch(type_, "number");
  }
}

bool Value::number_as_exact_int64(int64_t* out) const {
  switch (type_) {
    case BsonType::kInt32:
      *out = raw::read_i32(data_);
      return true;
    case BsonType::kInt64:
      *out = raw::read_i64(data_);
      return true;
    case BsonType::kDouble: {
      double d = raw::read_f64(data_);
      // 2^63 is exactly representable; anything >= it does not fit.
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
      if (std::trunc(d) != d) return false;
      *out = static_cast<int64_t>(d);
      return true;
    }
    case BsonType::kDecimal128: {
      // Exact value, so 1.00 and 1E+2 count as integers.
      ExactNumber n = ExactNumber::of(*this);
      if (n.cls == ExactNumber::kZero) {
        *out = 0;
        return true;
      }
      if (n.cls != ExactNumber::kPositive && n.cls != ExactNumber::kNegative) return false;
      // value = d1.d2d3... * 10^exponent: integral when no digit falls below 10^0.
      if (n.exponent < 0 || n.exponent > 18 || n.digits.size() > size_t(n.exponent) + 1) {
        return false;
      }
      uint64_t magnitude = 0;
      for (int32_t i = 0; i <= n.exponent; ++i) {
        size_t k = static_cast<size_t>(i);
        magnitude = magnitude * 10 + (k < n.digits.size() ? uint64_t(n.digits[k] - '0') : 0);
      }
      constexpr uint64_t kLimit = uint64_t(1) << 63;
      if (n.cls == ExactNumber::kNegative) {
        if (magnitude > kLimit) return false;
        *out = static_cast<int64_t>(~magnitude + 1);
      } else {
        if (magnitude >= kLimit) return false;
        *out = static_cast<int64_t>(magnitude);
      }
      return true;
    }
    default:
      return false;
  }
}

bool Value::truthy() const {
  switch (type_) {
    case BsonType::kEndOfDocument:
    case BsonType::kNull:
    case BsonType::kUndefined:
      return false;
    case BsonType::kBool:
      return data_[0] != 0;
    case BsonType::kInt32:
      return raw::read_i32(data_) != 0;
    case BsonType::kInt64:
      return raw::read_i64(data_) != 0;
    case BsonType::kDouble:
      return raw::read_f64(data_) != 0.0;
    case BsonType::kDecimal128: {
      Decimal128 d = as_decimal128();
      if (d.is_nan() || d.is_infinite()) return true;
      std::string s = d.to_string();
      for (char c : s) {
        if (c >= '1' && c <= '9') return true;
        if (c == 'E') break;
      }
      return false;
    }
    default:
      return true;
  }
}

std::string Value::to_json() const {
  if (is_missing()) return "<missing>";
  DocumentBuilder b;
  b.append("v", *this);
  Document d = b.finish();
  std::string json = d.to_json();
  // {"v" : X } -> X
  size_t colon = json.find(':');
  size_t start = colon + 2;
  size_t end = json.size() - 2;
  return json.substr(start, end - start);
}

}  // namespace mongostore::bson
