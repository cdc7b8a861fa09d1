#include "mongostore/records/rational.h"

#include <gmp.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <new>

#include "mongostore/error.h"

namespace mongostore::records {

struct RationalAccess {
  static mpq_ptr q(Rational& r) { return reinterpret_cast<mpq_ptr>(r.storage_); }
  static mpq_srcptr q(const Rational& r) { return reinterpret_cast<mpq_srcptr>(r.storage_); }
};

namespace {

static_assert(sizeof(__mpq_struct) <= 32 && alignof(__mpq_struct) <= 8,
              "an mpq_t must fit the opaque storage of Rational");
static_assert(sizeof(long) == sizeof(int64_t), "mpz_set_si must take an int64_t whole");

mpq_ptr Q(Rational& r) {
  return RationalAccess::q(r);
}
mpq_srcptr Q(const Rational& r) {
  return RationalAccess::q(r);
}

/// A scoped mpz_t.
struct Z {
  mpz_t v;
  Z() { mpz_init(v); }
  ~Z() { mpz_clear(v); }
  Z(const Z&) = delete;
  Z& operator=(const Z&) = delete;
};

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

[[noreturn]] void bad_text(std::string_view text) {
  constexpr size_t kShown = 200;  // an error names the text, but not megabytes of it
  std::string shown(text.substr(0, kShown));
  if (text.size() > kShown) shown += "...";
  throw Error(ErrorCode::kBadValue, "invalid rational text '" + shown +
                                        "': expected \"p\" or \"p/q\" in decimal digits "
                                        "with an optional leading '-' and a non-zero q");
}

void append_mpz(std::string& out, mpz_srcptr z) {
  size_t at = out.size();
  // mpz_sizeinbase may overshoot by one; +2 for the sign and the terminating NUL.
  out.resize(at + mpz_sizeinbase(z, 10) + 2);
  mpz_get_str(out.data() + at, 10, z);
  out.resize(at + std::strlen(out.data() + at));
}

std::string mpz_text(mpz_srcptr z) {
  std::string out;
  append_mpz(out, z);
  return out;
}

}  // namespace

Rational::Rational() {
  mpq_init(Q(*this));
}

Rational::Rational(int64_t value) {
  mpq_init(Q(*this));
  mpz_set_si(mpq_numref(Q(*this)), static_cast<long>(value));
}

Rational::Rational(int64_t numerator, int64_t denominator) {
  if (denominator == 0) {
    throw Error(ErrorCode::kBadValue,
                "rational with a zero denominator: " + std::to_string(numerator) + "/0");
  }
  mpq_init(Q(*this));
  mpz_set_si(mpq_numref(Q(*this)), static_cast<long>(numerator));
  mpz_set_si(mpq_denref(Q(*this)), static_cast<long>(denominator));
  mpq_canonicalize(Q(*this));
}

Rational::Rational(const Rational& other) {
  mpq_init(Q(*this));
  mpq_set(Q(*this), Q(other));
}

Rational::Rational(Rational&& other) noexcept {
  // mpq_init does not allocate (GMP >= 6.2), so a move is a swap with a fresh zero.
  mpq_init(Q(*this));
  mpq_swap(Q(*this), Q(other));
}

Rational& Rational::operator=(const Rational& other) {
  if (this != &other) mpq_set(Q(*this), Q(other));
  return *this;
}

Rational& Rational::operator=(Rational&& other) noexcept {
  if (this != &other) mpq_swap(Q(*this), Q(other));
  return *this;
}

Rational::~Rational() {
  mpq_clear(Q(*this));
}

Rational Rational::parse(std::string_view text) {
  std::string_view num = text;
  std::string_view den;
  if (size_t slash = text.find('/'); slash != std::string_view::npos) {
    num = text.substr(0, slash);
    den = text.substr(slash + 1);
    if (!all_digits(den)) bad_text(text);
  }
  std::string_view num_digits = num.starts_with('-') ? num.substr(1) : num;
  if (!all_digits(num_digits)) bad_text(text);

  Rational r;
  // mpz_set_str needs NUL-terminated text; the validated digits are copied once.
  if (mpz_set_str(mpq_numref(Q(r)), std::string(num).c_str(), 10) != 0) bad_text(text);
  if (!den.empty()) {
    if (mpz_set_str(mpq_denref(Q(r)), std::string(den).c_str(), 10) != 0) bad_text(text);
    if (mpz_sgn(mpq_denref(Q(r))) == 0) bad_text(text);
    mpq_canonicalize(Q(r));
  }
  return r;
}

Rational Rational::from_double(double value) {
  if (!std::isfinite(value)) {
    throw Error(ErrorCode::kBadValue, "a non-finite double has no exact rational value");
  }
  Rational r;
  mpq_set_d(Q(r), value);  // exact
  return r;
}

std::string Rational::to_string() const {
  std::string out;
  append_to(out);
  return out;
}

void Rational::append_to(std::string& out) const {
  mpz_srcptr num = mpq_numref(Q(*this));
  mpz_srcptr den = mpq_denref(Q(*this));
  if (mpz_fits_slong_p(num) && mpz_fits_slong_p(den)) {
    // The common case of small values, without GMP's general base conversion.
    char buf[48];
    char* end = std::to_chars(buf, buf + 20, mpz_get_si(num)).ptr;
    *end++ = '/';
    end = std::to_chars(end, buf + sizeof buf, mpz_get_si(den)).ptr;
    out.append(buf, end);
    return;
  }
  append_mpz(out, num);
  out += '/';
  append_mpz(out, den);
}

double Rational::nearest_double() const {
  // mpq_get_d truncates, so the rounding is done here. With a = |p| and b = q, a/b lies in
  // [2^(e-1), 2^(e+1)) for e = bitlen(a) - bitlen(b). Scale by 2^-k so the integer quotient
  // m = floor(a / (b 2^k)) has at least 56 bits (k = e - 56), or, deep in the subnormal
  // range, so that its unit is 2^-1076 (two bits below the smallest subnormal). Then keep the
  // bits of m down to the unit of the result (2^-1074 for subnormals, else 53 significant
  // bits), and round half to even with the dropped bits and the remainder as sticky bits.
  int s = mpq_sgn(Q(*this));
  if (s == 0) return 0.0;
  mpz_srcptr num = mpq_numref(Q(*this));
  mpz_srcptr den = mpq_denref(Q(*this));
  Z a, m, r;
  mpz_abs(a.v, num);
  long e = static_cast<long>(mpz_sizeinbase(a.v, 2)) - static_cast<long>(mpz_sizeinbase(den, 2));
  // Beyond 2^1025 the value overflows whatever the rounding; beyond 2^-1078 below, it is 0.
  if (e > 1026) {
    throw Error(ErrorCode::kBadValue,
                "rational " + to_string().substr(0, 200) + " is too large for a double");
  }
  if (e < -1080) return s < 0 ? -0.0 : 0.0;
  long k = std::max(e - 56, -1076L);
  if (k >= 0) {
    Z scaled;
    mpz_mul_2exp(scaled.v, den, static_cast<unsigned long>(k));
    mpz_tdiv_qr(m.v, r.v, a.v, scaled.v);
  } else {
    Z scaled;
    mpz_mul_2exp(scaled.v, a.v, static_cast<unsigned long>(-k));
    mpz_tdiv_qr(m.v, r.v, scaled.v, den);
  }
  bool sticky = mpz_sgn(r.v) != 0;
  long bits = static_cast<long>(mpz_sizeinbase(m.v, 2));
  long top = k + bits - 1;  // exponent of the leading bit of the value
  long drop = top < -1022 ? -1074 - k : bits - 53;
  // drop >= 2 by the choice of k (see above).
  bool half = mpz_tstbit(m.v, static_cast<mp_bitcnt_t>(drop - 1));
  if (!sticky && drop >= 2) {
    sticky = mpz_scan1(m.v, 0) < static_cast<mp_bitcnt_t>(drop - 1);
  }
  mpz_tdiv_q_2exp(m.v, m.v, static_cast<mp_bitcnt_t>(drop));
  if (half && (sticky || mpz_odd_p(m.v))) mpz_add_ui(m.v, m.v, 1);
  // m < 2^54 here, so it converts to a double exactly (2^53 after a carry is exact too).
  double mantissa = static_cast<double>(mpz_get_ui(m.v));
  double result = std::ldexp(mantissa, static_cast<int>(k + drop));
  if (std::isinf(result)) {
    throw Error(ErrorCode::kBadValue,
                "rational " + to_string().substr(0, 200) + " is too large for a double");
  }
  return s < 0 ? -result : result;
}

std::string Rational::numerator() const {
  return mpz_text(mpq_numref(Q(*this)));
}

std::string Rational::denominator() const {
  return mpz_text(mpq_denref(Q(*this)));
}

int Rational::sign() const {
  return mpq_sgn(Q(*this));
}

bool Rational::is_integer() const {
  return mpz_cmp_ui(mpq_denref(Q(*this)), 1) == 0;
}

std::string Rational::common_denominator(std::span<const Rational> values) {
  Z d;
  mpz_set_ui(d.v, 1);
  for (const Rational& v : values) mpz_lcm(d.v, d.v, mpq_denref(Q(v)));
  return mpz_text(d.v);
}

std::string Rational::numerator_over(std::string_view d) const {
  if (!all_digits(d)) bad_text(d);
  Z dz, prod, rem;
  mpz_set_str(dz.v, std::string(d).c_str(), 10);
  if (mpz_sgn(dz.v) == 0) bad_text(d);
  mpz_mul(prod.v, mpq_numref(Q(*this)), dz.v);
  mpz_tdiv_qr(prod.v, rem.v, prod.v, mpq_denref(Q(*this)));
  if (mpz_sgn(rem.v) != 0) {
    throw Error(ErrorCode::kBadValue, "denominator " + std::string(d.substr(0, 200)) +
                                          " is not a multiple of the denominator of " +
                                          to_string().substr(0, 200));
  }
  return mpz_text(prod.v);
}

Rational operator*(const Rational& a, const Rational& b) {
  Rational r;
  mpq_mul(Q(r), Q(a), Q(b));
  return r;
}

Rational operator/(const Rational& a, const Rational& b) {
  if (b.sign() == 0) throw Error(ErrorCode::kBadValue, "a rational divided by zero");
  Rational r;
  mpq_div(Q(r), Q(a), Q(b));
  return r;
}

Rational Rational::abs() const {
  Rational r;
  mpq_abs(Q(r), Q(*this));
  return r;
}

bool operator==(const Rational& a, const Rational& b) {
  return mpq_equal(Q(a), Q(b)) != 0;
}

std::strong_ordering operator<=>(const Rational& a, const Rational& b) {
  int c = mpq_cmp(Q(a), Q(b));
  return c < 0 ? std::strong_ordering::less
               : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
}

}  // namespace mongostore::records
