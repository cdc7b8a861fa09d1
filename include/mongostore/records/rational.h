// An exact rational number of arbitrary size: the value of a `rational` field of a record.
//
// httk stores Python Fractions, whose numerator and denominator are unbounded integers; a
// RecordStore written in C++ must round-trip them exactly (the `<f>_exact` column holds the
// reduced "p/q" text) and must compute the same nearest double Python does for the `<f>`
// column (`float(Fraction)`, correctly rounded, round-half-even). The arithmetic is GMP's
// (mpq_t); the header keeps GMP out of the public interface by holding the mpq_t in opaque
// storage of the same size (checked at compile time in rational.cc), so a Rational costs no
// extra allocation and users of the header need not see gmp.h.
//
// Thread safety: a Rational is a value; distinct objects may be used from distinct threads,
// and const methods of one object may be called concurrently.
#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mongostore::records {

class Rational {
 public:
  /// Zero (0/1).
  Rational();
  /// The integer `value` (value/1).
  Rational(int64_t value);  // NOLINT: implicit on purpose, as an integer is a rational
  /// numerator/denominator, reduced. Throws mongostore::Error BadValue when denominator is 0.
  Rational(int64_t numerator, int64_t denominator);

  Rational(const Rational& other);
  Rational(Rational&& other) noexcept;
  Rational& operator=(const Rational& other);
  Rational& operator=(Rational&& other) noexcept;
  ~Rational();

  /// Parses "p/q" or "p": an optional '-', decimal digits, and for "p/q" a '/' and decimal
  /// digits of a non-zero denominator; nothing else (no '+', spaces, exponents or decimal
  /// points). The value is reduced, so "6/-4" is refused but "-6/4" gives -3/2.
  /// Throws mongostore::Error BadValue naming the text when it is not of that form.
  static Rational parse(std::string_view text);

  /// The exact value of a finite double (every double is a dyadic rational).
  /// Throws mongostore::Error BadValue for NaN and infinities.
  static Rational from_double(double value);

  /// Reduced "p/q" with q > 0, always with "/q": "3/1", "-1/2", "0/1" (httk's rational text).
  std::string to_string() const;
  /// Appends to_string() to `out` (the canonical-form writer's hot path).
  void append_to(std::string& out) const;

  /// The double nearest to the value, ties to even: Python's float(Fraction). Values whose
  /// magnitude rounds beyond the largest finite double throw mongostore::Error BadValue
  /// (Python raises OverflowError there); values below half the smallest subnormal round to
  /// a zero of the value's sign.
  double nearest_double() const;

  /// The numerator (carrying the sign) and the positive denominator, as decimal text.
  std::string numerator() const;
  std::string denominator() const;

  /// -1, 0 or 1.
  int sign() const;
  bool is_integer() const;

  /// The least common multiple of the denominators of `values` as decimal text ("1" for
  /// none): the shared denominator of a rational matrix (httk's `"d;n0,n1,…"` and
  /// `frac_vector` forms). With it, the numerators `value * d` are integers with no common
  /// factor shared by all of them and d.
  static std::string common_denominator(std::span<const Rational> values);
  /// value * d as decimal text, for a `d` returned by common_denominator (which it must
  /// divide exactly; otherwise mongostore::Error BadValue).
  std::string numerator_over(std::string_view d) const;

  /// Exact products and quotients (scaled comparisons); `a / b` throws mongostore::Error
  /// BadValue when b is zero.
  friend Rational operator*(const Rational& a, const Rational& b);
  friend Rational operator/(const Rational& a, const Rational& b);
  /// |value|.
  Rational abs() const;

  friend bool operator==(const Rational& a, const Rational& b);
  friend std::strong_ordering operator<=>(const Rational& a, const Rational& b);

 private:
  friend struct RationalAccess;
  // Storage of one mpq_t (two mpz structs: 2 × {int, int, pointer} on LP64).
  alignas(8) unsigned char storage_[32];
};

}  // namespace mongostore::records
