// $jsonSchema's multipleOf, computed in decimal as mongod does: it converts both numbers to
// Decimal128 (a double to 15 significant digits) and tests that the remainder is zero, so
// {multipleOf: 0.1} accepts 0.3 although 0.3 is not a multiple of 0.1 in binary floating point.
//
// A number here is an exact decimal coefficient * 10^exponent; coefficients have at most 34
// digits and fit unsigned __int128, so the remainder needs no big-number arithmetic.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/matcher/json_schema.h"

namespace mongostore::engine::matcher_detail {

namespace {

using bson::BsonType;
using bson::Value;
using U128 = unsigned __int128;

struct Decimal {
  U128 coefficient = 0;  // absolute value
  int exponent = 0;
};

// Parses decimal text ("-1.25E+3", "0.1", "1.00000000000000e-01"); false for NaN, Infinity.
bool parse_decimal(const std::string& text, Decimal* out) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  U128 c = 0;
  int exponent = 0;
  int digits = 0;
  bool seen_digit = false;
  bool fraction = false;
  for (; i < text.size(); ++i) {
    char ch = text[i];
    if (ch >= '0' && ch <= '9') {
      seen_digit = true;
      if (digits < 36) {
        c = c * 10 + static_cast<unsigned>(ch - '0');
        if (c != 0) ++digits;
        if (fraction) --exponent;
      } else if (!fraction) {
        ++exponent;  // not reached for Decimal128's 34 digits or %.15e's 16
      }
    } else if (ch == '.') {
      fraction = true;
    } else if (ch == 'e' || ch == 'E') {
      exponent += std::atoi(text.c_str() + i + 1);
      break;
    } else {
      return false;
    }
  }
  if (!seen_digit) return false;
  out->coefficient = c;
  out->exponent = exponent;
  return true;
}

bool to_decimal(const Value& v, Decimal* out) {
  switch (v.type()) {
    case BsonType::kInt32:
    case BsonType::kInt64: {
      int64_t n = v.type() == BsonType::kInt32 ? v.as_int32() : v.as_int64();
      out->coefficient =
          n < 0 ? U128(0) - static_cast<U128>(static_cast<__int128>(n)) : static_cast<U128>(n);
      out->exponent = 0;
      return true;
    }
    case BsonType::kDouble: {
      double d = v.as_double();
      if (!std::isfinite(d)) return false;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.14e", d);  // 15 significant digits
      return parse_decimal(buf, out);
    }
    case BsonType::kDecimal128: {
      bson::Decimal128 dec = v.as_decimal128();
      if (dec.is_nan() || dec.is_infinite()) return false;
      return parse_decimal(dec.to_string(), out);
    }
    default:
      return false;
  }
}

constexpr U128 kLimit = static_cast<U128>(1) << 120;  // room for one more *10

bool is_infinite(const Value& v) {
  if (v.type() == BsonType::kDouble) return std::isinf(v.as_double());
  if (v.type() == BsonType::kDecimal128) return v.as_decimal128().is_infinite();
  return false;
}

}  // namespace

bool is_multiple_of(const Value& value, const Value& divisor) {
  Decimal a;
  Decimal b;
  if (is_infinite(divisor)) {
    // fmod(x, infinity) is x for a finite x: only zero is a multiple.
    return to_decimal(value, &a) && a.coefficient == 0;
  }
  if (!to_decimal(value, &a) || !to_decimal(divisor, &b) || b.coefficient == 0) return false;
  if (a.coefficient == 0) return true;
  if (a.exponent >= b.exponent) {
    // a.coefficient * 10^(a.exponent - b.exponent) mod b.coefficient, one power at a time.
    U128 r = a.coefficient % b.coefficient;
    for (long long k = static_cast<long long>(a.exponent) - b.exponent; k > 0 && r != 0; --k) {
      r = (r * 10) % b.coefficient;
    }
    return r == 0;
  }
  // a.coefficient mod (b.coefficient * 10^(b.exponent - a.exponent)).
  U128 m = b.coefficient;
  for (long long k = static_cast<long long>(b.exponent) - a.exponent; k > 0; --k) {
    if (m >= kLimit) return false;  // m exceeds every coefficient: the remainder is a itself
    m *= 10;
  }
  return a.coefficient % m == 0;
}

}  // namespace mongostore::engine::matcher_detail
