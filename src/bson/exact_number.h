// ExactNumber: any BSON number as an exact decimal (class, scientific exponent, digits).
//
// int32, int64, double and decimal128 values all map onto one exact form, so numbers of
// different types compare by true value and equal values get identical index keys. A
// double's exact decimal expansion can be long (0.1 has 55 significant digits); that cost is
// paid only when types mix or a double is indexed, never for int-vs-int or double-vs-double.
// A double whose expansion m * 2^e or m * 5^-e fits in 128 bits (every fractional epoch-seconds
// time, for one) is expanded with one 128-bit multiplication; longer ones with a big integer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mongostore/bson/value.h"

namespace mongostore::bson {

struct ExactNumber {
  enum Class : uint8_t {
    kNaN = 1,
    kNegativeInfinity = 2,
    kNegative = 3,
    kZero = 4,
    kPositive = 5,
    kPositiveInfinity = 6,
  };
  Class cls = kZero;
  /// For finite non-zero values: value = 0.d1d2d3... * 10^(exponent + 1), i.e. `exponent` is
  /// the scientific exponent of the leading digit.
  int32_t exponent = 0;
  /// Significant decimal digits ('1'..'9' first, no trailing zeros) for finite non-zero.
  std::string digits;

  static ExactNumber of(const Value& number);
  static ExactNumber of_int64(int64_t v);
  static ExactNumber of_double(double v);
};

/// The same form with its digits in a fixed buffer, for hot paths that must not allocate
/// (index keys). Holds every int32, int64 and decimal128 (at most 34 digits) and every double
/// whose exact expansion m * 2^e or m * 5^-e fits in 128 bits (at most 39 digits): all
/// fractional epoch-seconds times, for one.
struct SmallExactNumber {
  static constexpr size_t kCapacity = 39;
  ExactNumber::Class cls = ExactNumber::kZero;
  int32_t exponent = 0;  // as ExactNumber::exponent
  uint8_t size = 0;      // digits used
  char digits[kCapacity];

  std::string_view digit_view() const { return {digits, size}; }
};

/// Fills `out` with the exact form of a number Value and returns true, or returns false (out
/// unspecified) for a double whose exact expansion is longer: then use ExactNumber::of.
/// Non-number Values give kZero, as ExactNumber::of does. Pure: safe from any thread.
bool small_exact_of(const Value& number, SmallExactNumber& out);

/// Exact comparison of two forms: negative, zero, positive.
int compare_exact(const ExactNumber& a, const ExactNumber& b);

}  // namespace mongostore::bson
