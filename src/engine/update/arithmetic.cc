// Arithmetic for $inc, $mul and $bit with MongoDB's numeric type rules: int32 results that
// overflow widen to int64; int64 overflow is an error (nullopt here); any double makes the
// result a double; any decimal makes it a decimal.
#include <cstdint>
#include <optional>

#include "engine/update/decimal_math.h"
#include "engine/update/internal.h"

namespace mongostore::engine::update_detail {

using bson::BsonType;
using bson::Value;

void Number::append_to(bson::DocumentBuilder& b, std::string_view key) const {
  switch (type) {
    case BsonType::kInt32:
      b.append(key, i32);
      break;
    case BsonType::kInt64:
      b.append(key, i64);
      break;
    case BsonType::kDouble:
      b.append(key, d);
      break;
    default:
      b.append(key, dec);
      break;
  }
}

namespace {

Number of_int64(int64_t v) {
  Number n;
  n.type = BsonType::kInt64;
  n.i64 = v;
  return n;
}
Number of_int32(int32_t v) {
  Number n;
  n.type = BsonType::kInt32;
  n.i32 = v;
  return n;
}
Number of_double(double v) {
  Number n;
  n.type = BsonType::kDouble;
  n.d = v;
  return n;
}
Number of_decimal(bson::Decimal128 v) {
  Number n;
  n.type = BsonType::kDecimal128;
  n.dec = v;
  return n;
}

enum class Kind { kInt32, kInt64, kDouble, kDecimal };
Kind widest(const Value& a, const Value& b) {
  auto rank = [](BsonType t) {
    switch (t) {
      case BsonType::kInt32:
        return Kind::kInt32;
      case BsonType::kInt64:
        return Kind::kInt64;
      case BsonType::kDouble:
        return Kind::kDouble;
      default:
        return Kind::kDecimal;
    }
  };
  Kind ka = rank(a.type()), kb = rank(b.type());
  return ka > kb ? ka : kb;
}

int64_t int_of(const Value& v) {
  return v.type() == BsonType::kInt32 ? v.as_int32() : v.as_int64();
}

}  // namespace

std::optional<Number> add_numbers(const Value& a, const Value& b) {
  switch (widest(a, b)) {
    case Kind::kInt32: {
      int64_t sum = int64_t{a.as_int32()} + b.as_int32();
      if (sum >= INT32_MIN && sum <= INT32_MAX) return of_int32(static_cast<int32_t>(sum));
      return of_int64(sum);
    }
    case Kind::kInt64: {
      int64_t sum = 0;
      if (__builtin_add_overflow(int_of(a), int_of(b), &sum)) return std::nullopt;
      return of_int64(sum);
    }
    case Kind::kDouble:
      return of_double(a.number_as_double() + b.number_as_double());
    case Kind::kDecimal:
      return of_decimal(decimal_add(to_decimal(a), to_decimal(b)));
  }
  return std::nullopt;
}

std::optional<Number> multiply_numbers(const Value& a, const Value& b) {
  switch (widest(a, b)) {
    case Kind::kInt32: {
      int64_t product = int64_t{a.as_int32()} * b.as_int32();
      if (product >= INT32_MIN && product <= INT32_MAX) {
        return of_int32(static_cast<int32_t>(product));
      }
      return of_int64(product);
    }
    case Kind::kInt64: {
      int64_t product = 0;
      if (__builtin_mul_overflow(int_of(a), int_of(b), &product)) return std::nullopt;
      return of_int64(product);
    }
    case Kind::kDouble:
      return of_double(a.number_as_double() * b.number_as_double());
    case Kind::kDecimal:
      return of_decimal(decimal_multiply(to_decimal(a), to_decimal(b)));
  }
  return std::nullopt;
}

Number zero_like(const Value& like) {
  switch (like.type()) {
    case BsonType::kInt32:
      return of_int32(0);
    case BsonType::kInt64:
      return of_int64(0);
    case BsonType::kDouble:
      return of_double(0);
    default:
      return of_decimal(bson::Decimal128::from_string("0"));
  }
}

Number apply_bits(const Value& target, const std::vector<BitOp>& bits) {
  bool wide = target.type() == BsonType::kInt64;
  int64_t v = target.is_missing() ? 0 : int_of(target);
  for (const BitOp& bit : bits) {
    int64_t operand = int_of(bit.operand);
    if (bit.operand.type() == BsonType::kInt64) wide = true;
    switch (bit.kind) {
      case BitOp::kAnd:
        v &= operand;
        break;
      case BitOp::kOr:
        v |= operand;
        break;
      case BitOp::kXor:
        v ^= operand;
        break;
    }
    if (!wide) v = static_cast<int32_t>(v);
  }
  return wide ? of_int64(v) : of_int32(static_cast<int32_t>(v));
}

}  // namespace mongostore::engine::update_detail
