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

constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// The form of V * 10^shift for V != 0 (V < 2^128 < 10^39: at most 39 digits), written with at
// most two 128-bit divisions (by 10^19), then 64-bit arithmetic.
void put_u128(bool negative, unsigned __int128 v, int32_t shift, SmallExactNumber& out) {
  constexpr uint64_t kTen19 = 10000000000000000000ULL;
  char buf[SmallExactNumber::kCapacity];
  char* end = buf + sizeof buf;
  char* p = end;
  // Writes exactly `width` digits of `chunk` (all of them when width is 0) before p, two
  // digits per division: half the divisions of one digit at a time.
  auto put = [&p](uint64_t chunk, int width) {
    char* stop = p - width;
    while (chunk >= 100) {
      p -= 2;
      std::memcpy(p, kDigitPairs + 2 * (chunk % 100), 2);
      chunk /= 100;
    }
    if (chunk >= 10) {
      p -= 2;
      std::memcpy(p, kDigitPairs + 2 * chunk, 2);
    } else {
      *--p = static_cast<char>('0' + chunk);
    }
    while (p > stop) *--p = '0';
  };
  if (static_cast<uint64_t>(v >> 64) == 0) {
    put(static_cast<uint64_t>(v), 0);
  } else {
    unsigned __int128 upper = v / kTen19;
    put(static_cast<uint64_t>(v - upper * kTen19), 19);
    if (static_cast<uint64_t>(upper >> 64) == 0) {
      put(static_cast<uint64_t>(upper), 0);
    } else {
      unsigned __int128 top = upper / kTen19;  // below 10: v < 10^39
      put(static_cast<uint64_t>(upper - top * kTen19), 19);
      put(static_cast<uint64_t>(top), 0);
    }
  }
  out.cls = negative ? ExactNumber::kNegative : ExactNumber::kPositive;
  out.exponent = static_cast<int32_t>(end - p) - 1 + shift;
  while (end[-1] == '0') --end;
  out.size = static_cast<uint8_t>(end - p);
  std::memcpy(out.digits, p, out.size);
}

void small_int64(int64_t v, SmallExactNumber& out) {
  if (v == 0) {
    out.cls = ExactNumber::kZero;
    out.size = 0;
    return;
  }
  bool negative = v < 0;
  uint64_t magnitude = negative ? (~static_cast<uint64_t>(v) + 1) : static_cast<uint64_t>(v);
  put_u128(negative, magnitude, 0, out);
}

void small_decimal128(uint64_t low, uint64_t high, SmallExactNumber& out) {
  out.size = 0;
  bool negative = (high >> 63) != 0;
  uint64_t combination = (high >> 58) & 0x1F;
  if (combination == 0x1F) {
    out.cls = ExactNumber::kNaN;
    return;
  }
  if (combination == 0x1E) {
    out.cls = negative ? ExactNumber::kNegativeInfinity : ExactNumber::kPositiveInfinity;
    return;
  }
  if (((high >> 61) & 0x3) == 0x3) {
    // The "11" form implies a coefficient above 10^34 - 1: non-canonical, which IEEE 754
    // reads as zero.
    out.cls = ExactNumber::kZero;
    return;
  }
  int32_t biased_exponent = static_cast<int32_t>((high >> 49) & 0x3FFF);
  unsigned __int128 coefficient =
      (static_cast<unsigned __int128>(high & 0x1FFFFFFFFFFFFULL) << 64) | low;
  static const unsigned __int128 kMaxCoefficient =
      static_cast<unsigned __int128>(10000000000000000ULL) * 1000000000000000000ULL;  // 10^34
  if (coefficient == 0 || coefficient >= kMaxCoefficient) {
    out.cls = ExactNumber::kZero;
    return;
  }
  put_u128(negative, coefficient, biased_exponent - 6176, out);
}

// A finite non-zero double as +-m * 2^e with m odd.
struct DoubleParts {
  bool negative;
  uint64_t mantissa;
  int e;
};

DoubleParts split(double d) {
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
  int zeros = std::countr_zero(mantissa);
  return {std::signbit(d), mantissa >> zeros, e + zeros};
}

// The classes, and the finite values whose m * 2^e (e >= 0) or m * 5^-e (e < 0) fits in 128
// bits: one shift or multiplication instead of the big-number expansion. Integral doubles
// (e >= 0 once m is odd) within 2^128 all take it.
bool small_double(double d, SmallExactNumber& out) {
  out.size = 0;
  if (std::isnan(d)) {
    out.cls = ExactNumber::kNaN;
    return true;
  }
  if (std::isinf(d)) {
    out.cls = d < 0 ? ExactNumber::kNegativeInfinity : ExactNumber::kPositiveInfinity;
    return true;
  }
  if (d == 0) {  // -0 and 0 alike
    out.cls = ExactNumber::kZero;
    return true;
  }
  DoubleParts parts = split(d);
  if (parts.e >= 0) {
    if (std::bit_width(parts.mantissa) + parts.e > 128) return false;
    put_u128(parts.negative, static_cast<unsigned __int128>(parts.mantissa) << parts.e, 0, out);
    return true;
  }
  int k = -parts.e;
  // m < 2^a and 5^k < 2^b, so the product < 2^(a+b) <= 2^128.
  if (k >= static_cast<int>(kPowersOfFive.size()) ||
      std::bit_width(parts.mantissa) + bit_width_u128(kPowersOfFive[size_t(k)]) > 128) {
    return false;
  }
  // m * 2^-k == m * 5^k / 10^k.
  put_u128(parts.negative, parts.mantissa * kPowersOfFive[size_t(k)], parts.e, out);
  return true;
}

ExactNumber to_exact(const SmallExactNumber& small) {
  ExactNumber n;
  n.cls = small.cls;
  n.exponent = small.exponent;
  n.digits.assign(small.digits, small.size);
  return n;
}

// The big-number expansion for the doubles small_double refuses.
ExactNumber of_long_double(double d) {
  DoubleParts parts = split(d);
  DecimalBigInt big(parts.mantissa);
  int32_t shift = 0;
  if (parts.e >= 0) {
    big.multiply_by_power(2, parts.e, 29);
  } else {
    // m * 2^e == m * 5^-e / 10^-e.
    big.multiply_by_power(5, -parts.e, 13);
    shift = parts.e;
  }
  return from_digits(parts.negative, big.to_string(), shift);
}

}  // namespace

bool small_exact_of(const Value& v, SmallExactNumber& out) {
  switch (v.type()) {
    case BsonType::kInt32:
      small_int64(raw::read_i32(v.data()), out);
      return true;
    case BsonType::kInt64:
      small_int64(raw::read_i64(v.data()), out);
      return true;
    case BsonType::kDouble:
      return small_double(raw::read_f64(v.data()), out);
    case BsonType::kDecimal128:
      small_decimal128(raw::read_u64(v.data()), raw::read_u64(v.data() + 8), out);
      return true;
    default:
      out.cls = ExactNumber::kZero;
      out.size = 0;
      return true;
  }
}

ExactNumber ExactNumber::of_int64(int64_t v) {
  SmallExactNumber small;
  small_int64(v, small);
  return to_exact(small);
}

ExactNumber ExactNumber::of_double(double d) {
  SmallExactNumber small;
  if (small_double(d, small)) return to_exact(small);
  return of_long_double(d);
}

ExactNumber ExactNumber::of(const Value& v) {
  SmallExactNumber small;
  if (small_exact_of(v, small)) return to_exact(small);
  return of_long_double(raw::read_f64(v.data()));  // only a double is ever refused
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
