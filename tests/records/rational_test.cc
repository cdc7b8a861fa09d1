// records::Rational: parsing, reduction, text, exact doubles and correctly rounded
// nearest_double (Python's float(Fraction): round half to even, subnormals, overflow).
#include "mongostore/records/rational.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mongostore/error.h"

namespace mongostore::records {
namespace {

std::string pow2(int n) {
  // 2^n as decimal text, by repeated doubling of a digit string.
  std::string digits = "1";
  for (int i = 0; i < n; ++i) {
    int carry = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
      int d = (*it - '0') * 2 + carry;
      *it = static_cast<char>('0' + d % 10);
      carry = d / 10;
    }
    if (carry) digits.insert(digits.begin(), static_cast<char>('0' + carry));
  }
  return digits;
}

// a - b for decimal texts with a >= b >= 0.
std::string minus(std::string a, const std::string& b) {
  int borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    size_t ai = a.size() - 1 - i;
    int d = (a[ai] - '0') - borrow - (i < b.size() ? b[b.size() - 1 - i] - '0' : 0);
    borrow = d < 0;
    a[ai] = static_cast<char>('0' + (d + 10) % 10);
  }
  a.erase(0, std::min(a.find_first_not_of('0'), a.size() - 1));
  return a;
}

TEST(Rational, ConstructsAndReduces) {
  EXPECT_EQ(Rational().to_string(), "0/1");
  EXPECT_EQ(Rational(5).to_string(), "5/1");
  EXPECT_EQ(Rational(-7).to_string(), "-7/1");
  EXPECT_EQ(Rational(6, 4).to_string(), "3/2");
  EXPECT_EQ(Rational(6, -4).to_string(), "-3/2");
  EXPECT_EQ(Rational(-6, -4).to_string(), "3/2");
  EXPECT_EQ(Rational(0, -5).to_string(), "0/1");
  EXPECT_EQ(Rational(INT64_MIN).to_string(), "-9223372036854775808/1");
  EXPECT_EQ(Rational(INT64_MIN, INT64_MIN).to_string(), "1/1");
  EXPECT_THROW(Rational(1, 0), Error);
}

TEST(Rational, ParsesStrictText) {
  EXPECT_EQ(Rational::parse("3").to_string(), "3/1");
  EXPECT_EQ(Rational::parse("-0").to_string(), "0/1");
  EXPECT_EQ(Rational::parse("-6/4").to_string(), "-3/2");
  EXPECT_EQ(Rational::parse("0/7").to_string(), "0/1");
  EXPECT_EQ(Rational::parse("007/014").to_string(), "1/2");
  std::string big = "123456789012345678901234567890123456789/" + pow2(200);
  EXPECT_EQ(Rational::parse(big).to_string(), big);  // odd numerator: already reduced
  EXPECT_EQ(Rational::parse(big).numerator(), "123456789012345678901234567890123456789");
  EXPECT_EQ(Rational::parse(big).denominator(), pow2(200));
  for (const char* bad : {"", "-", "/", "1/", "/2", "1/0", "-1/-2", "1/-2", "+1", " 1", "1 ", "1.5",
                          "1e3", "0x10", "1/2/3", "--1", "1/0000", "½"}) {
    try {
      Rational::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.error_code(), ErrorCode::kBadValue) << bad;
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Rational, ComparesExactly) {
  EXPECT_EQ(Rational(1, 2), Rational::parse("2/4"));
  EXPECT_NE(Rational(1, 3), Rational(1, 2));
  EXPECT_LT(Rational(-1, 2), Rational(1, 3));
  EXPECT_LT(Rational(1, 3), Rational(1, 2));
  EXPECT_GT(Rational::parse(pow2(100)), Rational(INT64_MAX));
  EXPECT_EQ(Rational(3).sign(), 1);
  EXPECT_EQ(Rational().sign(), 0);
  EXPECT_EQ(Rational(-1, 9).sign(), -1);
  EXPECT_TRUE(Rational(4, 2).is_integer());
  EXPECT_FALSE(Rational(1, 2).is_integer());
}

TEST(Rational, CopiesAndMoves) {
  Rational a = Rational::parse("-22/7");
  Rational b = a;
  Rational c = std::move(a);
  EXPECT_EQ(b.to_string(), "-22/7");
  EXPECT_EQ(c.to_string(), "-22/7");
  a = b;  // a moved-from Rational is assignable
  EXPECT_EQ(a, b);
  b = std::move(c);
  EXPECT_EQ(b.to_string(), "-22/7");
  std::vector<Rational> v(100, Rational(1, 3));
  v.emplace_back(5);
  EXPECT_EQ(v.back().to_string(), "5/1");
  EXPECT_EQ(v.front().to_string(), "1/3");
}

TEST(Rational, FromDoubleIsExact) {
  EXPECT_EQ(Rational::from_double(0.5).to_string(), "1/2");
  EXPECT_EQ(Rational::from_double(-0.0).to_string(), "0/1");
  EXPECT_EQ(Rational::from_double(0.1).to_string(), "3602879701896397/36028797018963968");
  EXPECT_EQ(Rational::from_double(1e300).denominator(), "1");
  EXPECT_EQ(Rational::from_double(std::ldexp(1.0, -1074)).to_string(), "1/" + pow2(1074));
  EXPECT_THROW(Rational::from_double(std::numeric_limits<double>::quiet_NaN()), Error);
  EXPECT_THROW(Rational::from_double(std::numeric_limits<double>::infinity()), Error);
  for (double d : {0.1, -1.5, 3.141592653589793, 1e-310, DBL_MAX, DBL_MIN, 1e22, -7e-300}) {
    EXPECT_EQ(Rational::from_double(d).nearest_double(), d) << d;
  }
}

TEST(Rational, NearestDoubleIsCorrectlyRounded) {
  // Values checked against Python's float(Fraction(...)).
  EXPECT_EQ(Rational(1, 3).nearest_double(), 1.0 / 3.0);
  EXPECT_EQ(Rational(-2, 3).nearest_double(), -2.0 / 3.0);
  EXPECT_EQ(Rational(1, 10).nearest_double(), 0.1);
  EXPECT_EQ(Rational().nearest_double(), 0.0);
  EXPECT_FALSE(std::signbit(Rational().nearest_double()));
  // 5/3 truncated (mpq_get_d) would be 0x1.aaaaaaaaaaaaap+0; correctly rounded it is ...abp+0.
  EXPECT_EQ(Rational(5, 3).nearest_double(), 0x1.aaaaaaaaaaaabp+0);
  // Integers beyond 2^53: ties go to even.
  EXPECT_EQ(Rational::parse("9007199254740993").nearest_double(), 9007199254740992.0);  // 2^53+1
  EXPECT_EQ(Rational::parse("9007199254740995").nearest_double(), 9007199254740996.0);  // 2^53+3
  EXPECT_EQ(Rational::parse("9007199254740994").nearest_double(), 9007199254740994.0);
  // Just above a tie rounds up: (2^53 + 1) + 2^-60.
  EXPECT_EQ(Rational::parse("10384593717069656409982497265287169/" + pow2(60)).nearest_double(),
            9007199254740994.0);
  // A tie at 1 + 2^-53 (exactly half an ulp above 1) goes to even (1.0); 1 + 3*2^-53 is a
  // tie between 1 + 2^-52 (odd) and 1 + 2^-51 (even).
  std::string one_plus_half_ulp = "9007199254740993/" + pow2(53);  // (2^53+1)/2^53
  EXPECT_EQ(Rational::parse(one_plus_half_ulp).nearest_double(), 1.0);
  std::string three_half_ulps = "9007199254740995/" + pow2(53);  // 1 + 3*2^-53 → 1 + 4*2^-53
  EXPECT_EQ(Rational::parse(three_half_ulps).nearest_double(), 1.0 + 4 * 0x1p-53);
  // The subnormal range: 2^-1074 exactly, half of it (a tie to even: 0), a hair above half
  // (up to 2^-1074), 3/2 of it (tie: to even, 2^-1073), and the boundary to normal numbers.
  EXPECT_EQ(Rational::parse("1/" + pow2(1074)).nearest_double(), 0x1p-1074);
  EXPECT_EQ(Rational::parse("1/" + pow2(1075)).nearest_double(), 0.0);
  EXPECT_TRUE(std::signbit(Rational::parse("-1/" + pow2(1075)).nearest_double()));
  EXPECT_EQ(Rational::parse("3/" + pow2(1076)).nearest_double(), 0x1p-1074);  // 0.75 ulp
  EXPECT_EQ(Rational::parse("3/" + pow2(1075)).nearest_double(), 0x1p-1073);  // 1.5 → 2
  EXPECT_EQ(Rational::parse("5/" + pow2(1075)).nearest_double(), 0x1p-1073);  // 2.5 → 2
  EXPECT_EQ(Rational::parse("7/" + pow2(1075)).nearest_double(), 0x1p-1072);  // 3.5 → 4
  EXPECT_EQ(Rational::parse("1/" + pow2(2000)).nearest_double(), 0.0);
  EXPECT_EQ(Rational::parse("1/" + pow2(1022)).nearest_double(), DBL_MIN);
  EXPECT_EQ(Rational::from_double(DBL_MIN - 0x1p-1074).nearest_double(), DBL_MIN - 0x1p-1074);
  // 1/3 scaled into the subnormals: Python gives 0x0.5555555555555p-1022 for 2^-1022/3.
  EXPECT_EQ(Rational::parse("1/" + pow2(1022) + "0").nearest_double(), DBL_MIN / 10);
  // Huge values: the largest double, the halfway point to 2^1024 (DBL_MAX + half an ulp, a
  // tie that goes to the even 2^1024: overflow, as Python's OverflowError), and one below it.
  EXPECT_EQ(Rational::from_double(DBL_MAX).nearest_double(), DBL_MAX);
  EXPECT_EQ(Rational::parse(pow2(1023)).nearest_double(), 0x1p1023);
  std::string halfway = minus(pow2(1024), pow2(970));
  EXPECT_THROW(Rational::parse(halfway).nearest_double(), Error);
  EXPECT_EQ(Rational::parse(minus(halfway, "1")).nearest_double(), DBL_MAX);
  EXPECT_EQ(Rational::parse("-" + minus(halfway, "1")).nearest_double(), -DBL_MAX);
  EXPECT_THROW(Rational::parse(pow2(1024)).nearest_double(), Error);
  EXPECT_THROW(Rational::parse("-" + pow2(5000) + "/3").nearest_double(), Error);
  EXPECT_EQ(Rational::parse(pow2(2000) + "/" + pow2(1990)).nearest_double(), 1024.0);
  EXPECT_EQ(Rational::parse("-1" + std::string(300, '0')).nearest_double(), -1e300);
  EXPECT_EQ(Rational::parse("1/1" + std::string(300, '0')).nearest_double(), 1e-300);
}

TEST(Rational, NearestDoubleAgreesWithStrtodOnDecimals) {
  // strtod is correctly rounded (glibc), so decimal fractions n/10^k must agree with it.
  const char* samples[] = {"1",
                           "123456789",
                           "7",
                           "2225073858507201",
                           "17976931348623157",
                           "4940656458412465",
                           "9007199254740993",
                           "1000000000000000000001"};
  for (const char* digits : samples) {
    for (int k : {0, 1, 5, 17, 22, 23, 100, 300, 308, 320, 323, 330}) {
      std::string text = std::string(digits) + "e-" + std::to_string(k);
      double want = std::strtod(text.c_str(), nullptr);
      Rational r = Rational::parse(std::string(digits) + "/1" + std::string(k, '0'));
      EXPECT_EQ(r.nearest_double(), want) << text;
    }
  }
}

TEST(Rational, CommonDenominatorAndNumerators) {
  std::vector<Rational> m = {Rational(1, 2), Rational(-1, 3), Rational(5), Rational(0),
                             Rational(3, 4)};
  std::string d = Rational::common_denominator(m);
  EXPECT_EQ(d, "12");
  std::vector<std::string> noms;
  for (const auto& r : m) noms.push_back(r.numerator_over(d));
  EXPECT_EQ(noms, (std::vector<std::string>{"6", "-4", "60", "0", "9"}));
  EXPECT_EQ(Rational::common_denominator({}), "1");
  EXPECT_THROW(Rational(1, 3).numerator_over("4"), Error);
}

}  // namespace
}  // namespace mongostore::records
