// The plain-JSON fast path of Document::from_json (src/bson/json_parser.h): what it accepts is
// byte for byte what libbson's reader gives, what it declines reaches libbson (errors included).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bson/json_parser.h"
#include "mongostore/bson/document.h"
#include "mongostore/error.h"
#include "support/error_code.h"

namespace mongostore::bson {
namespace {

using testing::code_of;

// libbson's answer: the document's bytes, or nullopt when it refuses the text.
std::optional<std::vector<uint8_t>> libbson_bytes(const std::string& json) {
  try {
    Document d = parse_extended_json(json);
    return std::vector<uint8_t>(d.data(), d.data() + d.size());
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 9) << json;
    return std::nullopt;
  }
}

// The differential check: when the fast path answers, libbson accepts the text and gives the
// same bytes; either way from_json answers as libbson does. Returns whether the fast path
// answered.
bool agrees_with_libbson(const std::string& json) {
  std::optional<Document> fast = parse_plain_json(json);
  std::optional<std::vector<uint8_t>> lib = libbson_bytes(json);
  if (fast) {
    EXPECT_TRUE(lib.has_value()) << "fast path accepted what libbson refuses: " << json;
    if (lib) {
      EXPECT_EQ(std::vector<uint8_t>(fast->data(), fast->data() + fast->size()), *lib) << json;
    }
  }
  if (lib) {
    Document d = Document::from_json(json);
    EXPECT_EQ(std::vector<uint8_t>(d.data(), d.data() + d.size()), *lib) << json;
  } else {
    EXPECT_EQ(code_of([&] { Document::from_json(json); }), 9) << json;
  }
  return fast.has_value();
}

struct Case {
  std::string json;
  bool fast;  // whether the fast path answers (else it must decline, leaving it to libbson)
};

TEST(PlainJsonParser, AnswersPlainJsonAsLibbsonDoes) {
  const std::vector<Case> cases = {
      {"{}", true},
      {" \t\r\n{ \t\r\n} \t\r\n", true},
      {R"({"a":1,"b":"x","c":true,"d":false,"e":null})", true},
      {R"({"a":{"b":{"c":[1,[2,[3,{}]],[]]}}})", true},
      {R"({"a":[{"x":1},{"y":[true,false,null]}]})", true},
      {R"({"":1})", true},
      {R"({"a":1,"a":2,"a":{"a":3}})", true},  // duplicates kept, in order
      // Integers at the int32 and int64 boundaries.
      {R"({"a":2147483647,"b":2147483648,"c":-2147483648,"d":-2147483649})", true},
      {R"({"a":9223372036854775807,"b":-9223372036854775808})", true},
      {R"({"a":0,"b":-0,"c":0.0,"d":-0.0,"e":-0e0})", true},
      // Doubles.
      {R"({"a":1.0,"b":1e2,"c":1E+2,"d":1e-2,"e":-1.5e-3,"f":0.1,"g":3.141592653589793})", true},
      {R"({"a":1.7976931348623157e308,"b":2.2250738585072014e-308,"c":5e-324})", true},
      {R"({"a":123456789012345678901234567890.5,"b":0.30000000000000004})", true},
      // Strings: every escape, \u in all ranges, surrogate pairs, raw UTF-8.
      {R"({"a":"\"\\\/\b\f\n\r\t"})", true},
      {R"({"a":"\u0041\u00e9\u00E9\u20ac\uffff\ud83d\ude00\uD834\uDD1E"})", true},
      {R"({"a":"x\u0000y"})", true},  // NUL inside a string value: libbson keeps it
      {"{\"a\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f\"}", true},
      {"{\"\xc3\xa9\\n\":\"k\"}", true},
      {R"({"a\"b":1,"\u00e9":2})", true},
      {R"({"a$":1,"b":{"c$d":"$x"}})", true},  // '$' not first is plain
      // Declined: libbson answers, sometimes with what no strict JSON parser would.
      {R"({"$a":1})", false},
      {R"({"a":{"$numberLong":"1"}})", false},
      {R"({"a":{"$oid":"000000000000000000000000"}})", false},
      {R"({"a":9223372036854775808})", false},   // out of range: libbson refuses
      {R"({"a":-9223372036854775809})", false},  // out of range: libbson refuses
      {R"({"a":18446744073709551616})", false},  // libbson wraps it to 0
      {R"({"a":123456789012345678901})", false},
      {R"({"a":1e400})", false},   // libbson: out of range
      {R"({"a":-1e400})", false},  // libbson: out of range
      {R"({"a":1e-400})", false},  // libbson: 0.0
      {R"({"a":01})", false},
      {R"({"a":-05})", false},  // libbson reads 0
      {R"({"a":+1})", false},
      {R"({"a":1.})", false},
      {R"({"a":.5})", false},
      {R"({"a":1e})", false},
      {R"({"a":-})", false},
      {R"({"a":NaN,"b":Infinity,"c":-Infinity})", false},
      {R"({"a":"\ud83d"})", false},         // lone high surrogate
      {R"({"a":"\ude00"})", false},         // lone low surrogate
      {R"({"a":"\ud83dx\ude00"})", false},  // a pair split: libbson joins it anyway
      {R"({"a":"\ud83d\u0041"})", false},
      {R"({"a":"\u12"})", false},
      {R"({"a":"\u12G4"})", false},
      {R"({"a":"\x"})", false},
      {R"({"\u0000":1})", false},
      {"{\"a\":\"\x01\"}", false},
      {"{\"a\":\"\t\"}", false},
      {"{\"a\":\"\xc0\x80\"}", false},      // overlong NUL: libbson accepts it in values
      {"{\"a\":\"\xed\xa0\x80\"}", false},  // an encoded surrogate
      {"{\"a\":\"\xf4\x90\x80\x80\"}", false},
      {"{\"a\":\"\xff\"}", false},
      {"{\"a\":\"\xc3\"}", false},
      {"{\"\xe2\x82\":1}", false},
      {R"({"a":1,})", false},
      {R"({"a":[1,]})", false},
      {R"({,})", false},
      {R"({"a" 1})", false},
      {R"({"a":1 "b":2})", false},
      {R"({"a":tru})", false},
      {R"({"a":truex})", false},
      {R"({"a":nul})", false},
      {R"({"a":1])", false},
      {R"({"a":[1})", false},
      {R"({"a":1)", false},
      {R"({"a")", false},
      {R"({"a)", false},
      {"{\"a\":1}\f", false},
      {"\xef\xbb\xbf{}", false},
      {"{}x", false},
      {"{}{}", false},
      {"{} {}", false},
      {"[1,2]", false},
      {"1", false},
      {"", false},
      {"   ", false},
      {"{", false},
      {"}", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    EXPECT_EQ(agrees_with_libbson(c.json), c.fast);
  }
}

TEST(PlainJsonParser, NumbersTakeLibbsonsTypes) {
  Document d = Document::from_json(
      R"({"i":2147483647,"l":2147483648,"n":-2147483648,"m":-2147483649,"z":-0,"d":-0.0,)"
      R"("e":1e2})");
  EXPECT_EQ(d.get("i").type(), BsonType::kInt32);
  EXPECT_EQ(d.get("l").type(), BsonType::kInt64);
  EXPECT_EQ(d.get("n").type(), BsonType::kInt32);
  EXPECT_EQ(d.get("m").type(), BsonType::kInt64);
  EXPECT_EQ(d.get("z").type(), BsonType::kInt32);
  EXPECT_EQ(d.get("z").as_int32(), 0);
  ASSERT_EQ(d.get("d").type(), BsonType::kDouble);
  EXPECT_TRUE(std::signbit(d.get("d").as_double()));
  EXPECT_EQ(d.get("e").as_double(), 100.0);
  EXPECT_EQ(code_of([] { Document::from_json(R"({"a":1e400})"); }), 9);
  EXPECT_EQ(code_of([] { Document::from_json(R"({"a":9223372036854775808})"); }), 9);
}

TEST(PlainJsonParser, StringsAreUnescaped) {
  Document d = Document::from_json(R"({"s":"a\u00e9\ud83d\ude00\n\u0000b"})");
  EXPECT_EQ(d.get("s").as_string(), std::string("a\xc3\xa9\xf0\x9f\x98\x80\n\0b", 10));
  EXPECT_EQ(code_of([] { Document::from_json(R"({"a":"\ud83d"})"); }), 9);
  EXPECT_EQ(code_of([] { Document::from_json("{\"a\":\"\xff\"}"); }), 9);
}

std::string nested(size_t levels) {
  // `levels` containers in all, the top-level object included.
  std::string s = "{\"a\":";
  for (size_t i = 2; i < levels; ++i) s += "[";
  s += levels > 1 ? "[1" : "1";
  for (size_t i = 2; i < levels; ++i) s += "]";
  s += levels > 1 ? "]}" : "}";
  return s;
}

TEST(PlainJsonParser, DepthBeyondItsCapIsLeftToLibbson) {
  EXPECT_TRUE(agrees_with_libbson(nested(kMaxPlainJsonDepth)));
  EXPECT_FALSE(agrees_with_libbson(nested(kMaxPlainJsonDepth + 1)));
  // libbson's own limit still answers past the cap.
  EXPECT_FALSE(agrees_with_libbson(nested(98)));
  EXPECT_EQ(code_of([] { Document::from_json(nested(99)); }), 9);
  // Unbounded nesting neither recurses nor crashes.
  std::string deep(200000, '[');
  EXPECT_FALSE(parse_plain_json("{\"a\":" + deep).has_value());
  EXPECT_EQ(code_of([&] { Document::from_json("{\"a\":" + deep); }), 9);
}

// Random JSON documents: nesting, every escape, raw UTF-8, numbers around the int32 and int64
// boundaries, doubles in several spellings, assorted whitespace.
class JsonGenerator {
 public:
  explicit JsonGenerator(uint32_t seed) : rng_(seed) {}

  std::string document() {
    std::string out;
    object(out, 0);
    ws(out);
    return out;
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  void ws(std::string& out) {
    static const char kWs[] = {' ', '\t', '\n', '\r'};
    while (pick(4) == 0) out += kWs[pick(4)];
  }

  void object(std::string& out, int depth) {
    ws(out);
    out += '{';
    size_t n = pick(depth == 0 ? 6 : 4);
    for (size_t i = 0; i < n; ++i) {
      if (i) out += ',';
      ws(out);
      string(out, true);
      ws(out);
      out += ':';
      value(out, depth + 1);
    }
    ws(out);
    out += '}';
  }

  void array(std::string& out, int depth) {
    ws(out);
    out += '[';
    size_t n = pick(5);
    for (size_t i = 0; i < n; ++i) {
      if (i) out += ',';
      value(out, depth + 1);
    }
    ws(out);
    out += ']';
  }

  void value(std::string& out, int depth) {
    ws(out);
    switch (pick(depth < 6 ? 8 : 6)) {
      case 0:
        out += pick(2) ? "true" : "false";
        break;
      case 1:
        out += "null";
        break;
      case 2:
        integer(out);
        break;
      case 3:
        real(out);
        break;
      case 4:
      case 5:
        string(out, false);
        break;
      case 6:
        object(out, depth);
        break;
      default:
        array(out, depth);
        break;
    }
    ws(out);
  }

  void integer(std::string& out) {
    static const int64_t kEdges[] = {0,
                                     1,
                                     -1,
                                     std::numeric_limits<int32_t>::max(),
                                     std::numeric_limits<int32_t>::min(),
                                     std::numeric_limits<int64_t>::max(),
                                     std::numeric_limits<int64_t>::min()};
    int64_t v;
    switch (pick(4)) {
      case 0:  // may wrap past an int64 edge: any value will do
        v = static_cast<int64_t>(static_cast<uint64_t>(kEdges[pick(7)]) + pick(5) - 2);
        break;
      case 1:
        v = static_cast<int64_t>(rng_());
        break;
      case 2:
        v = static_cast<int64_t>((uint64_t{rng_()} << 32) | rng_());
        break;
      default:
        v = static_cast<int64_t>(pick(1000)) - 500;
        break;
    }
    out += std::to_string(v);
  }

  void real(std::string& out) {
    char buf[512];
    double d;
    static const char* kFormats[] = {"%.17g", "%.6e", "%.3f", "%.20E", "%.1f"};
    const char* format = kFormats[pick(5)];
    switch (pick(4)) {
      case 0: {  // any finite bit pattern, printed exactly (rounding could overflow it)
        format = "%.17g";
        uint64_t bits = (uint64_t{rng_()} << 32) | rng_();
        std::memcpy(&d, &bits, sizeof d);
        if (!std::isfinite(d)) d = 0.5;
        break;
      }
      case 1:
        d = std::uniform_real_distribution<double>(-1e6, 1e6)(rng_);
        break;
      case 2:
        d = static_cast<double>(pick(100)) / 8;
        break;
      default:
        d = std::ldexp(1.0, static_cast<int>(pick(2098)) - 1074);
        break;
    }
    std::snprintf(buf, sizeof buf, format, d);
    std::string s = buf;
    // %g may print an integer ("100"), which would be an integer literal: make it a double.
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    out += s;
  }

  void string(std::string& out, bool key) {
    out += '"';
    const size_t start = out.size();
    size_t n = pick(10);
    for (size_t i = 0; i < n; ++i) {
      // A key may not begin with '$' (that would mean extended JSON), escaped or not.
      const bool no_dollar = key && out.size() == start;
      switch (pick(12)) {
        case 0: {
          static const char* kEscapes[] = {"\\\"", "\\\\", "\\/", "\\b",
                                           "\\f",  "\\n",  "\\r", "\\t"};
          out += kEscapes[pick(8)];
          break;
        }
        case 1: {  // \u of a BMP code point (no surrogate, no NUL in keys)
          uint32_t cp;
          do {
            cp = static_cast<uint32_t>(pick(0x10000));
          } while ((cp >= 0xD800 && cp <= 0xDFFF) || (key && cp == 0) || (no_dollar && cp == '$'));
          char buf[8];
          std::snprintf(buf, sizeof buf, pick(2) ? "\\u%04x" : "\\u%04X", cp);
          out += buf;
          break;
        }
        case 2: {  // a surrogate pair
          uint32_t cp = 0x10000 + static_cast<uint32_t>(pick(0x100000));
          char buf[16];
          std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + ((cp - 0x10000) >> 10),
                        0xDC00 + ((cp - 0x10000) & 0x3FF));
          out += buf;
          break;
        }
        case 3: {  // raw UTF-8
          static const char* kRaw[] = {"\xc3\xa9",     "\xe2\x82\xac",     "\xf0\x9f\x98\x80",
                                       "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf", "\x7f"};
          out += kRaw[pick(6)];
          break;
        }
        case 4:
          if (!no_dollar) out += '$';
          break;
        default:
          out += static_cast<char>('a' + pick(26));
          break;
      }
    }
    out += '"';
  }

  std::mt19937 rng_;
};

// One random byte-level damage: what comes out may be anything, JSON or not.
std::string mutate(std::string s, std::mt19937& rng) {
  static const char kBytes[] = "{}[]\":,\\u0-+.eE1 \x01\xc3\xa9\xff$tfn";
  std::uniform_int_distribution<size_t> at(0, s.size());
  size_t pos = at(rng);
  switch (rng() % 3) {
    case 0:
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(pos), kBytes[rng() % (sizeof kBytes - 1)]);
      break;
    case 1:
      if (pos < s.size()) s.erase(pos, 1);
      break;
    default:
      if (pos < s.size()) s[pos] = kBytes[rng() % (sizeof kBytes - 1)];
      break;
  }
  return s;
}

TEST(PlainJsonParser, DifferentialAgainstLibbson) {
  constexpr uint32_t kSeed = 20261205;
  JsonGenerator gen(kSeed);
  std::mt19937 rng(kSeed + 1);
  size_t fast_on_damaged = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string json = gen.document();
    // Every generated document is plain JSON: the fast path must answer it (else this test
    // would pass by declining everything).
    ASSERT_TRUE(agrees_with_libbson(json))
        << "seed " << kSeed << ", document " << i << ": " << json;
    for (int m = 0; m < 3; ++m) {
      json = mutate(json, rng);
      if (agrees_with_libbson(json)) ++fast_on_damaged;
    }
    if (HasFailure()) break;
  }
  // Some damage leaves valid JSON (a digit or letter changed): those still take the fast path.
  EXPECT_GT(fast_on_damaged, 0u);
}

}  // namespace
}  // namespace mongostore::bson
