// ExactNumber: any BSON number as an exact decimal (class, scientific exponent, digits).
//
// int32, int64, double and decimal128 values all map onto one exact form, so numbers of
// different types compare by true value and equal values get identical index keys. A
// double's exact decimal expansion can be long (0.1 has 55 significant digits); that cost is
// paid only when types mix or a double is indexed, never for int-vs-int or double-vs-double.
#pragma once

#include <cstdint>
#include <string>

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

/// Exact comparison of two forms: negative, zero, positive.
int compare_exact(const ExactNumber& a, const ExactNumber& b);

}  // namespace mongostore::bson
