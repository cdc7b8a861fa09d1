// Decimal128 arithmetic on unpacked digit strings: decode the BID encoding, compute exactly,
// round to 34 significant digits (half even), encode again.
#include "engine/update/decimal_math.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mongostore::engine::update_detail {

using bson::Decimal128;

namespace {

constexpr int kPrecision = 34;
constexpr int kBias = 6176;
constexpr int kMinExponent = -6176;
constexpr int kMaxExponent = 6111;

struct Unpacked {
  bool negative = false;
  bool nan = false;
  bool infinite = false;
  std::vector<uint8_t> digits;  // most significant first; empty is zero
  int exponent = 0;
};

void strip_leading_zeros(std::vector<uint8_t>& d) {
  size_t i = 0;
  while (i < d.size() && d[i] == 0) ++i;
  d.erase(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(i));
}

Unpacked unpack(const Decimal128& v) {
  Unpacked u;
  u.negative = (v.high >> 63) != 0;
  uint64_t combination = (v.high >> 58) & 0x1F;
  if (combination == 0x1F) {
    u.nan = true;
    return u;
  }
  if (combination == 0x1E) {
    u.infinite = true;
    return u;
  }
  unsigned __int128 coefficient = 0;
  int biased = 0;
  if (((v.high >> 61) & 3) == 3) {
    biased = static_cast<int>((v.high >> 47) & 0x3FFF);  // non-canonical: coefficient is 0
  } else {
    biased = static_cast<int>((v.high >> 49) & 0x3FFF);
    coefficient =
        (static_cast<unsigned __int128>(v.high & ((uint64_t{1} << 49) - 1)) << 64) | v.low;
  }
  u.exponent = biased - kBias;
  while (coefficient > 0) {
    u.digits.push_back(static_cast<uint8_t>(coefficient % 10));
    coefficient /= 10;
  }
  std::reverse(u.digits.begin(), u.digits.end());
  return u;
}

Decimal128 special(bool nan, bool negative) {
  Decimal128 d;
  d.high = (nan ? uint64_t{0x1F} : uint64_t{0x1E}) << 58;
  if (negative) d.high |= uint64_t{1} << 63;
  return d;
}

/// Drops `count` trailing digits, rounding half to even.
void round_off(Unpacked& u, size_t count) {
  if (count == 0) return;
  if (count > u.digits.size()) {
    u.exponent += static_cast<int>(count);
    u.digits.clear();
    return;
  }
  size_t keep = u.digits.size() - count;
  uint8_t first = u.digits[keep];
  bool rest_nonzero = std::any_of(u.digits.begin() + static_cast<std::ptrdiff_t>(keep) + 1,
                                  u.digits.end(), [](uint8_t d) { return d != 0; });
  u.digits.resize(keep);
  u.exponent += static_cast<int>(count);
  bool last_odd = keep > 0 && (u.digits[keep - 1] & 1);
  bool up = first > 5 || (first == 5 && (rest_nonzero || last_odd));
  if (!up) return;
  size_t i = keep;
  while (i > 0) {
    --i;
    if (u.digits[i] < 9) {
      ++u.digits[i];
      return;
    }
    u.digits[i] = 0;
  }
  u.digits.insert(u.digits.begin(), 1);
}

Decimal128 pack(Unpacked u) {
  if (u.nan) return special(true, false);
  if (u.infinite) return special(false, u.negative);
  strip_leading_zeros(u.digits);
  if (u.digits.size() > static_cast<size_t>(kPrecision)) {
    round_off(u, u.digits.size() - kPrecision);
    if (u.digits.size() > static_cast<size_t>(kPrecision)) round_off(u, 1);
  }
  if (u.exponent < kMinExponent) {
    round_off(u, static_cast<size_t>(kMinExponent - u.exponent));
    strip_leading_zeros(u.digits);
    if (u.digits.size() > static_cast<size_t>(kPrecision)) round_off(u, 1);
  }
  if (u.digits.empty()) u.exponent = std::clamp(u.exponent, kMinExponent, kMaxExponent);
  while (u.exponent > kMaxExponent) {
    if (u.digits.empty()) {
      u.exponent = kMaxExponent;
      break;
    }
    if (u.digits.size() >= static_cast<size_t>(kPrecision)) return special(false, u.negative);
    u.digits.push_back(0);
    --u.exponent;
  }
  unsigned __int128 coefficient = 0;
  for (uint8_t d : u.digits) coefficient = coefficient * 10 + d;
  Decimal128 out;
  out.low = static_cast<uint64_t>(coefficient);
  out.high = static_cast<uint64_t>(coefficient >> 64);
  out.high |= static_cast<uint64_t>(u.exponent + kBias) << 49;
  if (u.negative) out.high |= uint64_t{1} << 63;
  return out;
}

int compare_magnitude(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

/// a + b, both aligned to one exponent, as magnitudes.
std::vector<uint8_t> add_magnitudes(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::vector<uint8_t> out(std::max(a.size(), b.size()) + 1, 0);
  int carry = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    int da = i < a.size() ? a[a.size() - 1 - i] : 0;
    int db = i < b.size() ? b[b.size() - 1 - i] : 0;
    int s = da + db + carry;
    out[out.size() - 1 - i] = static_cast<uint8_t>(s % 10);
    carry = s / 10;
  }
  return out;
}

/// a - b where |a| >= |b|.
std::vector<uint8_t> subtract_magnitudes(const std::vector<uint8_t>& a,
                                         const std::vector<uint8_t>& b) {
  std::vector<uint8_t> out(a.size(), 0);
  int borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int da = a[a.size() - 1 - i];
    int db = i < b.size() ? b[b.size() - 1 - i] : 0;
    int d = da - db - borrow;
    borrow = d < 0;
    if (d < 0) d += 10;
    out[out.size() - 1 - i] = static_cast<uint8_t>(d);
  }
  return out;
}

}  // namespace

Decimal128 to_decimal(const bson::Value& number) {
  switch (number.type()) {
    case bson::BsonType::kDecimal128:
      return number.as_decimal128();
    case bson::BsonType::kInt32:
    case bson::BsonType::kInt64: {
      int64_t v = number.type() == bson::BsonType::kInt32 ? number.as_int32() : number.as_int64();
      return Decimal128::from_string(std::to_string(v));
    }
    default: {
      double d = number.number_as_double();
      if (std::isnan(d)) return Decimal128::from_string("NaN");
      if (std::isinf(d)) return Decimal128::from_string(d > 0 ? "Infinity" : "-Infinity");
      char buf[64];
      // %.14E gives 15 significant digits, the precision MongoDB keeps.
      std::snprintf(buf, sizeof buf, "%.14E", d);
      return Decimal128::from_string(buf);
    }
  }
}

Decimal128 decimal_add(const Decimal128& x, const Decimal128& y) {
  Unpacked a = unpack(x), b = unpack(y);
  if (a.nan || b.nan) return special(true, false);
  if (a.infinite || b.infinite) {
    if (a.infinite && b.infinite && a.negative != b.negative) return special(true, false);
    return special(false, a.infinite ? a.negative : b.negative);
  }
  strip_leading_zeros(a.digits);
  strip_leading_zeros(b.digits);
  int exponent = std::min(a.exponent, b.exponent);
  // Align both on the smaller exponent (exact; at most ~12k digits for extreme exponents).
  auto align = [&](Unpacked& u) {
    if (!u.digits.empty())
      u.digits.insert(u.digits.end(), static_cast<size_t>(u.exponent - exponent), 0);
    u.exponent = exponent;
  };
  align(a);
  align(b);
  Unpacked r;
  r.exponent = exponent;
  if (a.negative == b.negative) {
    r.negative = a.negative;
    r.digits = add_magnitudes(a.digits, b.digits);
  } else {
    int c = compare_magnitude(a.digits, b.digits);
    if (c == 0) {
      r.negative = false;
    } else if (c > 0) {
      r.negative = a.negative;
      r.digits = subtract_magnitudes(a.digits, b.digits);
    } else {
      r.negative = b.negative;
      r.digits = subtract_magnitudes(b.digits, a.digits);
    }
  }
  return pack(std::move(r));
}

Decimal128 decimal_multiply(const Decimal128& x, const Decimal128& y) {
  Unpacked a = unpack(x), b = unpack(y);
  bool negative = a.negative != b.negative;
  if (a.nan || b.nan) return special(true, false);
  strip_leading_zeros(a.digits);
  strip_leading_zeros(b.digits);
  if (a.infinite || b.infinite) {
    if ((!a.infinite && a.digits.empty()) || (!b.infinite && b.digits.empty())) {
      return special(true, false);
    }
    return special(false, negative);
  }
  Unpacked r;
  r.negative = negative;
  r.exponent = a.exponent + b.exponent;
  std::vector<int> acc(a.digits.size() + b.digits.size(), 0);
  for (size_t i = 0; i < a.digits.size(); ++i) {
    for (size_t j = 0; j < b.digits.size(); ++j) {
      acc[i + j + 1] += a.digits[i] * b.digits[j];
    }
  }
  for (size_t k = acc.size(); k-- > 1;) {
    acc[k - 1] += acc[k] / 10;
    acc[k] %= 10;
  }
  for (int d : acc) r.digits.push_back(static_cast<uint8_t>(d));
  return pack(std::move(r));
}

}  // namespace mongostore::engine::update_detail
