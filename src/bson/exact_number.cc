#include "bson/exact_number.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "bson/raw.h"

namespace mongostore::bson {
namespace {

// A little-endian big integer in base 10^9, just enough for m * 2^k and m * 5^k.
class DecimalBigInt {
 public:
  explicit DecimalBigInt(uint64_t v) {
    do {
      limbs_.push_back(static_cast<uint32_t>(v % kBase));
      v /= kBase;
    } while (v != 0);
  }

  void multiply(uint32_t factor) {
    uint64_t carry = 0;
    for (uint32_t& limb : limbs_) {
      uint64_t x = uint64_t(limb) * factor + carry;
      limb = static_cast<uint32_t>(x % kBase);
      carry = x / kBase;
    }
    while (carry != 0) {
      limbs_.push_back(static_cast<uint32_t>(carry % kBase));
      carry /= kBase;
    }
  }

  void multiply_by_power(uint32_t base, int exponent, int chunk_exponent) {
    uint32_t chunk = 1;
    for (int i = 0; i < chunk_exponent; ++i) chunk *= base;
    while (exponent >= chunk_exponent) {
      multiply(chunk);
      exponent -= chunk_exponent;
    }
    uint32_t rest = 1;
    for (int i = 0; i < exponent; ++i) rest *= base;
    if (rest != 1) multiply(rest);
  }

  std::string to_string() const {
    std::string out = std::to_string(limbs_.back());
    char buf[16];
    for (size_t i = limbs_.size() - 1; i-- > 0;) {
      std::snprintf(buf, sizeof buf, "%09u", limbs_[i]);
      out += buf;
    }
    return out;
  }

 private:
  static constexpr uint32_t kBase = 1000000000;
  std::vector<uint32_t> limbs_;
};

// Builds a finite non-zero form from a digit string D (no leading zeros) meaning D * 10^shift.
ExactNumber from_digits(bool negative, std::string digits, int32_t shift) {
  ExactNumber n;
  n.cls = negative ? ExactNumber::kNegative : ExactNumber::kPositive;
  n.exponent = static_cast<int32_t>(digits.size()) - 1 + shift;
  size_t last = digits.find_last_not_of('0');
  digits.resize(last + 1);
  n.digits = std::move(digits);
  return n;
}

std::string u128_to_string(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string out;
  while (v != 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return std::string(out.rbegin(), out.rend());
}

// 5^k for k = 0..55, every power of five below 2^128.
constexpr std::array<unsigned __int128, 56> kPowersOfFive = [] {
  std::array<unsigned __int128, 56> powers{};
  unsigned __int128 p = 1;
  for (auto& power : powers) {
    power = p;
    p *= 5;
  }
  return powers;
}();

int bit_width_u128(unsigned __int128 v) {
  uint64_t high = static_cast<uint64_t>(v >> 64);
  return high != 0 ? 64 + std::bit_width(high) : std::bit_width(static_cast<uint64_t>(v));
}

// The form of V * 10^shift for V != 0 (at most 39 digits), written without the digit-at-a-time
// 128-bit division of u128_to_string: two divisions by 10^19 at most, then 64-bit arithmetic.
ExactNumber from_u128(bool negative, unsigned __int128 v, int32_t shift) {
  constexpr uint64_t kTen19 = 10000000000000000000ULL;
  char buf[40];
  char* end = buf + sizeof buf;
  char* p = end;
  // Writes exactly `width` digits of `chunk` (or all of them when width is 0) before p.
  auto put = [&p](uint64_t chunk, int width) {
    char* stop = p - width;
    do {
      *--p = static_cast<char>('0' + chunk % 10);
      chunk /= 10;
    } while (chunk != 0 || p > stop);
  };
  if (static_cast<uint64_t>(v >> 64) == 0) {
    put(static_cast<uint64_t>(v), 0);
  } else {
    unsigned __int128 upper = v / kTen19;
    put(static_cast<uint64_t>(v - upper * kTen19), 19);
    if (static_cast<uint64_t>(upper >> 64) == 0) {
      put(static_cast<uint64_t>(upper), 0);
    } else {
      unsigned __int128 top = upper / kTen19;  // v < 2^128 < 10^39: top < 10
      put(static_cast<uint64_t>(upper - top * kTen19), 19);
      put(static_cast<uint64_t>(top), 0);
    }
  }
  ExactNumber n;
  n.cls = negative ? ExactNumber::kNegative : ExactNumber::kPositive;
  n.exponent = static_cast<int32_t>(end - p) - 1 + shift;
  while (end[-1] == '0') --end;
  n.digits.assign(p, end);
  return n;
}

ExactNumber of_decimal128(uint64_t low, uint64_t high) {
  ExactNumber n;
  bool negative = (high >> 63) != 0;
  uint64_t combination = (high >> 58) & 0x1F;
  if (combination == 0x1F) {
    n.cls = ExactNumber::kNaN;
    return n;
  }
  if (combination == 0x1E) {
    n.cls = negative ? ExactNumber::kNegativeInfinity : ExactNumber::kPositiveInfinity;
    return n;
  }
  int32_t biased_exponent;
  unsigned __int128 coefficient;
  if (((high >> 61) & 0x3) == 0x3) {
    // The "11" form implies a coefficient above 10^34 - 1: non-canonical, which IEEE 754
    // reads as zero.
    n.cls = ExactNumber::kZero;
    return n;
  }
  biased_exponent = static_cast<int32_t>((high >> 49) & 0x3FFF);
  coefficient = (static_cast<unsigned __int128>(high & 0x1FFFFFFFFFFFFULL) << 64) | low;
  static const unsigned __int128 kMaxCoefficient =
      static_cast<unsigned __int128>(10000000000000000ULL) * 1000000000000000000ULL;  // 10^34
  if (coefficient == 0 || coefficient >= kMaxCoefficient) {
    n.cls = ExactNumber::kZero;
    return n;
  }
  return from_digits(negative, u128_to_string(coefficient), biased_exponent - 6176);
}

}  // namespace

ExactNumber ExactNumber::of_int64(int64_t v) {
  if (v == 0) return ExactNumber{};
  bool negative = v < 0;
  uint64_t magnitude = negative ? (~static_cast<uint64_t>(v) + 1) : static_cast<uint64_t>(v);
  return from_digits(negative, std::to_string(magnitude), 0);
}

ExactNumber ExactNumber::of_double(double d) {
  ExactNumber n;
  if (std::isnan(d)) {
    n.cls = kNaN;
    return n;
  }
  if (std::isinf(d)) {
    n.cls = d < 0 ? kNegativeInfinity : kPositiveInfinity;
    return n;
  }
  if (d == 0) return n;  // -0 and 0 alike
  bool negative = std::signbit(d);
  uint64_t bits = std::bit_cast<uint64_t>(d);
  int exponent_bits = static_cast<int>((bits >> 52) & 0x7FF);
  uint64_t mantissa = bits & ((uint64_t(1) << 52) - 1);
  int e;
  if (exponent_bits == 0) {
    e = -1074;
  } else {
    mantissa |= uint64_t(1) << 52;
    e = exponent_bits - 1075;
  }
  while ((mantissa & 1) == 0) {
    mantissa >>= 1;
    ++e;
  }
  // Fast exact path: when m * 2^e (e >= 0) or m * 5^-e (e < 0) fits in 128 bits, one
  // multiplication or shift gives it, as it does for every fractional epoch-seconds time.
  // Same digits as the general path below, a fraction of its cost.
  if (e >= 0) {
    if (std::bit_width(mantissa) + e <= 128) {
      return from_u128(negative, static_cast<unsigned __int128>(mantissa) << e, 0);
    }
  } else if (-e < static_cast<int>(kPowersOfFive.size()) &&
             std::bit_width(mantissa) + bit_width_u128(kPowersOfFive[-e]) <= 128) {
    // m < 2^a and 5^k < 2^b, so the product < 2^(a+b) <= 2^128.
    return from_u128(negative, mantissa * kPowersOfFive[-e], e);
  }
  DecimalBigInt big(mantissa);
  int32_t shift = 0;
  if (e >= 0) {
    big.multiply_by_power(2, e, 29);
  } else {
    // m * 2^e == m * 5^-e / 10^-e.
    big.multiply_by_power(5, -e, 13);
    shift = e;
  }
  return from_digits(negative, big.to_string(), shift);
}

ExactNumber ExactNumber::of(const Value& v) {
  switch (v.type()) {
    case BsonType::kInt32:
      return of_int64(raw::read_i32(v.data()));
    case BsonType::kInt64:
      return of_int64(raw::read_i64(v.data()));
    case BsonType::kDouble: {
      double d = raw::read_f64(v.data());
      // Integral doubles within int64 take the cheap path.
      if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && std::trunc(d) == d) {
        return of_int64(static_cast<int64_t>(d));
      }
      return of_double(d);
    }
    case BsonType::kDecimal128:
      return of_decimal128(raw::read_u64(v.data()), raw::read_u64(v.data() + 8));
    default:
      return ExactNumber{};
  }
}

int compare_exact(const ExactNumber& a, const ExactNumber& b) {
  if (a.cls != b.cls) return a.cls < b.cls ? -1 : 1;
  if (a.cls != ExactNumber::kPositive && a.cls != ExactNumber::kNegative) return 0;
  int magnitude;
  if (a.exponent != b.exponent) {
    magnitude = a.exponent < b.exponent ? -1 : 1;
  } else {
    int c = a.digits.compare(b.digits);  // a shorter prefix is the smaller magnitude
    magnitude = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return a.cls == ExactNumber::kNegative ? -magnitude : magnitude;
}

}  // namespace mongostore::bson
