// ExactNumber::of_double must give a double's exact decimal expansion, on its 128-bit fast
// path and on its big-number path alike. The oracle is glibc's printf, which prints a double's
// exact decimal digits at any precision.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bson/exact_number.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/index_key.h"

namespace mongostore::bson {
namespace {

// The exact form of a finite non-zero double from "%.*e" printed with enough precision to
// hold every significant digit: m * 2^e (m odd) has its last non-zero digit at 10^e when e <
// 0, and is an integer of at most (scientific exponent + 1) digits when e >= 0.
ExactNumber oracle(double d) {
  int e;
  std::frexp(d, &e);    // |d| = f * 2^e with f in [0.5, 1)
  int lowest = e - 53;  // the lowest bit a double with this exponent can hold (or below it)
  if (lowest < -1074) lowest = -1074;
  char head[64];
  std::snprintf(head, sizeof head, "%.0e", std::fabs(d));
  int scientific = std::atoi(std::strchr(head, 'e') + 1) + 1;  // rounding may have added 1
  int precision = lowest < 0 ? scientific - lowest + 1 : scientific + 1;
  std::vector<char> buf(static_cast<size_t>(precision) + 32);
  std::snprintf(buf.data(), buf.size(), "%.*e", precision, std::fabs(d));
  std::string text(buf.data());
  size_t e_at = text.find('e');
  ExactNumber n;
  n.cls = std::signbit(d) ? ExactNumber::kNegative : ExactNumber::kPositive;
  n.exponent = std::atoi(text.c_str() + e_at + 1);
  std::string digits = text.substr(0, 1) + text.substr(2, e_at - 2);
  digits.resize(digits.find_last_not_of('0') + 1);
  n.digits = digits;
  return n;
}

void expect_exact(double d) {
  ExactNumber got = ExactNumber::of_double(d);
  ExactNumber want = oracle(d);
  ASSERT_EQ(got.cls, want.cls) << d;
  ASSERT_EQ(got.exponent, want.exponent) << std::hexfloat << d;
  ASSERT_EQ(got.digits, want.digits) << std::hexfloat << d;
}

double from_parts(uint64_t mantissa, int exponent) {
  return std::ldexp(static_cast<double>(mantissa), exponent);
}

TEST(ExactNumberDouble, EdgeCases) {
  std::vector<double> cases = {
      0.1,
      0.5,
      1.5,
      -0.1,
      1e-300,
      1e300,
      std::numeric_limits<double>::denorm_min(),                // 2^-1074
      std::nextafter(std::numeric_limits<double>::min(), 0.0),  // largest subnormal
      std::numeric_limits<double>::min(),
      std::numeric_limits<double>::max(),
      -std::numeric_limits<double>::max(),
      std::numeric_limits<double>::epsilon(),
      1700000000.123456,  // a fractional epoch-seconds time
      1764962912.5,
  };
  for (int k = -1074; k <= 1023; ++k) cases.push_back(std::ldexp(1.0, k));
  for (int k = -323; k <= 308; ++k)
    cases.push_back(std::strtod(("1e" + std::to_string(k)).c_str(), nullptr));
  // The 128-bit boundary of m * 2^e: bit widths 127, 128 and 129, with the widest mantissa.
  const uint64_t kWide = (uint64_t(1) << 53) - 1;
  for (int e = 72; e <= 78; ++e) cases.push_back(from_parts(kWide, e));
  for (int e = 125; e <= 130; ++e) cases.push_back(std::ldexp(1.0, e));
  // The boundary of m * 5^k: 5^55 < 2^128 < 5^56, and the widest m with k around 32.
  for (int k = 28; k <= 40; ++k) cases.push_back(from_parts(kWide, -k));
  for (int k = 50; k <= 60; ++k) cases.push_back(std::ldexp(3.0, -k));
  for (double d : cases) {
    expect_exact(d);
    expect_exact(-d);
  }
}

// Random bit patterns cover every exponent, subnormals included; most take the big-number path.
TEST(ExactNumberDouble, RandomBitPatternsMatchPrintf) {
  std::mt19937_64 rng(29);
  for (int i = 0; i < 100000; ++i) {
    double d = std::bit_cast<double>(rng());
    if (!std::isfinite(d) || d == 0) continue;
    expect_exact(d);
  }
}

// Doubles whose exponent puts them on or near the 128-bit fast path, with mantissas of every
// width, including fractional times like time.time() + delay.
TEST(ExactNumberDouble, RandomNearFastPathMatchPrintf) {
  std::mt19937_64 rng(2929);
  std::uniform_int_distribution<int> exponent(-120, 140);
  std::uniform_int_distribution<int> width(1, 53);
  for (int i = 0; i < 2000000; ++i) {
    uint64_t mantissa = rng() >> (64 - width(rng));
    if (mantissa == 0) continue;
    expect_exact(from_parts(mantissa, exponent(rng) - 53));
  }
  std::uniform_real_distribution<double> epoch(1.6e9, 1.9e9);
  for (int i = 0; i < 200000; ++i) expect_exact(epoch(rng));
}

std::string key_of(const Document& doc) {
  std::string out;
  append_index_key(out, doc.view().begin()->value, false);
  return out;
}

// The index key layout of a number, as written before the fixed-buffer encoder (keys are
// stored on disk, so the bytes must not change): type bracket, class, biased exponent, digit
// nibbles (digit + 1) ended by a 0 nibble, negatives complemented.
std::string reference_key(const Value& v) {
  std::string out;
  out.push_back(static_cast<char>(type_bracket(v.type())));
  ExactNumber n = ExactNumber::of(v);
  out.push_back(static_cast<char>(n.cls));
  if (n.cls != ExactNumber::kPositive && n.cls != ExactNumber::kNegative) return out;
  uint8_t flip = n.cls == ExactNumber::kNegative ? 0xFF : 0x00;
  uint16_t biased = static_cast<uint16_t>(n.exponent + 0x8000);
  out.push_back(static_cast<char>((biased >> 8) ^ flip));
  out.push_back(static_cast<char>((biased & 0xFF) ^ flip));
  uint8_t nibble_flip = flip & 0x0F;
  for (size_t i = 0; i < n.digits.size() + 1; i += 2) {
    auto nibble = [&](size_t k) -> uint8_t {
      return k < n.digits.size() ? static_cast<uint8_t>(n.digits[k] - '0' + 1) : 0;
    };
    out.push_back(
        static_cast<char>(((nibble(i) ^ nibble_flip) << 4) | (nibble(i + 1) ^ nibble_flip)));
  }
  return out;
}

TEST(ExactNumberDouble, IndexKeyBytesMatchTheReferenceLayout) {
  std::mt19937_64 rng(290);
  std::vector<Document> docs;
  for (int i = 0; i < 20000; ++i) {
    uint64_t r = rng();
    switch (i % 5) {
      case 0:
        docs.push_back(DocumentBuilder().append("v", std::bit_cast<double>(r)).finish());
        break;
      case 1:
        docs.push_back(DocumentBuilder()
                           .append("v", std::ldexp(double(r >> 11), int(rng() % 200) - 150))
                           .finish());
        break;
      case 2:
        docs.push_back(DocumentBuilder().append("v", int64_t(r) >> (r % 64)).finish());
        break;
      case 3:
        docs.push_back(DocumentBuilder().append("v", int32_t(r)).finish());
        break;
      default: {
        std::string text =
            std::to_string(int64_t(r) >> (r % 64)) + "E" + std::to_string(int(rng() % 120) - 60);
        docs.push_back(DocumentBuilder().append("v", Decimal128::from_string(text)).finish());
      }
    }
  }
  for (int64_t v : {int64_t(0), std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max(), int64_t(-1), int64_t(10)}) {
    docs.push_back(DocumentBuilder().append("v", v).finish());
  }
  for (const char* text : {"0", "-0", "NaN", "Infinity", "-Infinity", "1E-6176",
                           "9999999999999999999999999999999999E6111", "-1.000"}) {
    docs.push_back(DocumentBuilder().append("v", Decimal128::from_string(text)).finish());
  }
  for (const Document& d : docs) {
    Value v = d.view().begin()->value;
    ASSERT_EQ(key_of(d), reference_key(v)) << d.to_json();
  }
}

// A double's index key equals the key of the same value as decimal128 or int64 on both paths.
TEST(ExactNumberDouble, IndexKeysOfEqualValuesAcrossTypesAreEqual) {
  auto dbl = [](double d) { return DocumentBuilder().append("v", d).finish(); };
  auto i64 = [](int64_t v) { return DocumentBuilder().append("v", v).finish(); };
  EXPECT_EQ(key_of(dbl(1ll << 62)), key_of(i64(1ll << 62)));
  EXPECT_EQ(key_of(dbl(-1e15)), key_of(i64(-1000000000000000ll)));
  auto dec = [](const char* text) {
    return DocumentBuilder().append("v", Decimal128::from_string(text)).finish();
  };
  EXPECT_EQ(key_of(dbl(0.5)), key_of(dec("0.5")));
  EXPECT_EQ(key_of(dbl(-0.375)), key_of(dec("-0.3750")));
  EXPECT_EQ(key_of(dbl(1700000000.25)), key_of(dec("1700000000.25")));
  // The fast path's widest product: 2^53 - 1 times 5^22, and a subnormal on the slow path.
  EXPECT_EQ(key_of(dbl(std::ldexp(9007199254740991.0, -22))),
            key_of(dec("2147483647.999999761581420898437500")));
  EXPECT_NE(key_of(dbl(0.1)), key_of(dec("0.1")));
  EXPECT_LT(key_of(dbl(0.1)), key_of(dbl(std::nextafter(0.1, 1.0))));
  EXPECT_LT(key_of(dbl(1700000000.25)), key_of(i64(1700000001)));
  EXPECT_GT(key_of(dbl(1700000000.25)), key_of(i64(1700000000)));
}

}  // namespace
}  // namespace mongostore::bson
