// Property tests: encode_index_key's memcmp order must equal compare_values (MongoDB's total
// order) for values of every BSON type, and the descending encoding must reverse it.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/index_key.h"

namespace mongostore::bson {
namespace {

int sgn(int v) {
  return v < 0 ? -1 : (v > 0 ? 1 : 0);
}

int key_cmp(const std::string& a, const std::string& b) {
  size_t n = std::min(a.size(), b.size());
  int c = std::memcmp(a.data(), b.data(), n);
  if (c != 0) return sgn(c);
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

std::string desc_key(const Value& v) {
  std::string out;
  append_index_key(out, v, true);
  return out;
}

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void put_cstring(std::vector<uint8_t>& out, std::string_view s) {
  out.insert(out.end(), s.begin(), s.end());
  out.push_back(0);
}

// Keeps every generated value's document alive (a deque never moves its elements).
class Pool {
 public:
  Value add(Document d) {
    docs_.push_back(std::move(d));
    Value v = docs_.back().get("v");
    EXPECT_FALSE(v.is_missing());
    return v;
  }
  template <class T>
  Value of(T&& v) {
    DocumentBuilder b;
    b.append("v", std::forward<T>(v));
    return add(b.finish());
  }
  // A value of `type` from its raw payload bytes, validated through Document::from_bytes.
  Value raw(BsonType type, const std::vector<uint8_t>& payload) {
    std::vector<uint8_t> doc;
    put_u32(doc, 0);
    doc.push_back(static_cast<uint8_t>(type));
    put_cstring(doc, "v");
    doc.insert(doc.end(), payload.begin(), payload.end());
    doc.push_back(0);
    uint32_t len = static_cast<uint32_t>(doc.size());
    std::memcpy(doc.data(), &len, 4);
    return add(Document::from_bytes(doc));
  }
  Value json(std::string_view value_json) {
    return add(Document::from_json("{\"v\": " + std::string(value_json) + "}"));
  }
  Value string_like(BsonType type, std::string_view s) {
    std::vector<uint8_t> p;
    put_u32(p, static_cast<uint32_t>(s.size() + 1));
    put_cstring(p, s);
    return raw(type, p);
  }
  Value symbol(std::string_view s) { return string_like(BsonType::kSymbol, s); }
  Value code(std::string_view s) { return string_like(BsonType::kCode, s); }
  Value code_with_scope(std::string_view code, DocumentView scope) {
    std::vector<uint8_t> p;
    put_u32(p, 0);
    put_u32(p, static_cast<uint32_t>(code.size() + 1));
    put_cstring(p, code);
    p.insert(p.end(), scope.data(), scope.data() + scope.size());
    uint32_t len = static_cast<uint32_t>(p.size());
    std::memcpy(p.data(), &len, 4);
    return raw(BsonType::kCodeWithScope, p);
  }
  Value db_pointer(std::string_view ns, const ObjectId& id) {
    std::vector<uint8_t> p;
    put_u32(p, static_cast<uint32_t>(ns.size() + 1));
    put_cstring(p, ns);
    p.insert(p.end(), id.bytes.begin(), id.bytes.end());
    return raw(BsonType::kDbPointer, p);
  }
  Value binary(uint8_t subtype, const std::vector<uint8_t>& bytes) {
    std::vector<uint8_t> p;
    bool old = subtype == 0x02;
    put_u32(p, static_cast<uint32_t>(bytes.size() + (old ? 4 : 0)));
    p.push_back(subtype);
    if (old) put_u32(p, static_cast<uint32_t>(bytes.size()));
    p.insert(p.end(), bytes.begin(), bytes.end());
    return raw(BsonType::kBinary, p);
  }
  Value undefined() { return of(Undefined{}); }

 private:
  std::deque<Document> docs_;
};

// ---------------------------------------------------------------------------------------------
// Random generation
// ---------------------------------------------------------------------------------------------

class Generator {
 public:
  Generator(Pool& pool, uint64_t seed) : pool_(pool), rng_(seed) {}

  uint64_t u64() { return rng_(); }
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool coin() { return (rng_() & 1) != 0; }

  int32_t random_int32() {
    static const int32_t kSpecial[] = {0,
                                       1,
                                       -1,
                                       2,
                                       -2,
                                       10,
                                       100,
                                       std::numeric_limits<int32_t>::min(),
                                       std::numeric_limits<int32_t>::max(),
                                       16777216,
                                       -16777217};
    switch (pick(3)) {
      case 0:
        return kSpecial[pick(std::size(kSpecial))];
      case 1:
        return static_cast<int32_t>(pick(21)) - 10;
      default:
        return static_cast<int32_t>(u64());
    }
  }

  int64_t random_int64() {
    static const int64_t kSpecial[] = {0,
                                       1,
                                       -1,
                                       3,
                                       std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::max() - 1,
                                       std::numeric_limits<int64_t>::min() + 1,
                                       int64_t(1) << 53,
                                       (int64_t(1) << 53) + 1,
                                       (int64_t(1) << 53) - 1,
                                       -(int64_t(1) << 53) - 1,
                                       int64_t(1) << 62,
                                       1000000000000000000LL};
    switch (pick(4)) {
      case 0:
        return kSpecial[pick(std::size(kSpecial))];
      case 1:
        return static_cast<int64_t>(pick(21)) - 10;
      case 2:
        return static_cast<int64_t>(u64()) >> pick(64);
      default:
        return static_cast<int64_t>(u64());
    }
  }

  double random_double() {
    static const double kSpecial[] = {
        std::numeric_limits<double>::quiet_NaN(),
        -std::numeric_limits<double>::quiet_NaN(),
        std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(),
        0.0,
        -0.0,
        std::numeric_limits<double>::denorm_min(),
        -std::numeric_limits<double>::denorm_min(),
        std::numeric_limits<double>::min(),
        std::numeric_limits<double>::max(),
        std::numeric_limits<double>::lowest(),
        0.1,
        -0.1,
        0.5,
        1.0,
        -1.0,
        1.5,
        1.0 / 3.0,
        9223372036854775808.0,   // 2^63
        9223372036854774784.0,   // 2^63 - 1024, the largest double below 2^63
        -9223372036854775808.0,  // -2^63
        9007199254740992.0,      // 2^53
        9007199254740994.0,
        1e300,
        1e-300,
        123456789.125,
        2.2250738585072009e-308,  // largest subnormal
    };
    switch (pick(6)) {
      case 0:
      case 1:
        return kSpecial[pick(std::size(kSpecial))];
      case 2:
        return static_cast<double>(pick(41) - 20) / 4.0;  // small, exact fractions
      case 3:
        return static_cast<double>(random_int64());
      case 4:
        return std::ldexp(static_cast<double>(u64() >> 11), pick(200) - 100);
      default:
        return std::bit_cast<double>(u64());  // every bit pattern, NaN payloads too
    }
  }

  Decimal128 random_decimal() {
    static const char* kSpecial[] = {"NaN",
                                     "-NaN",
                                     "Infinity",
                                     "-Infinity",
                                     "0",
                                     "-0",
                                     "0E+10",
                                     "0E-10",
                                     "1",
                                     "1.0",
                                     "1.00",
                                     "-1",
                                     "-1.00",
                                     "0.1",
                                     "0.10",
                                     "0.5",
                                     "0.25",
                                     "-0.25",
                                     "2.5",
                                     "1E+2",
                                     "100",
                                     "1.5E+3",
                                     "1500",
                                     "1E+6144",
                                     "1E-6176",
                                     "-1E-6176",
                                     "9999999999999999999999999999999999E+6111",
                                     "-9999999999999999999999999999999999E+6111",
                                     "9223372036854775807",
                                     "9223372036854775808",
                                     "-9223372036854775808",
                                     "9007199254740993",
                                     "0.1000000000000000055511151231257827",
                                     "123456789.125",
                                     "1.7976931348623157E+308",
                                     "4.9E-324",
                                     "3"};
    switch (pick(6)) {
      case 0:
      case 1:
        return Decimal128::from_string(kSpecial[pick(std::size(kSpecial))]);
      case 2:
        return Decimal128::from_string(std::to_string(random_int64()));
      case 3: {
        // A random coefficient (up to 34 digits) and exponent.
        int n = 1 + pick(34);
        std::string digits;
        for (int i = 0; i < n; ++i) digits.push_back(static_cast<char>('0' + pick(10)));
        int exponent = pick(3) == 0 ? pick(12288) - 6176 : pick(61) - 30;
        std::string s = (coin() ? "-" : "") + digits + "E" + std::to_string(exponent);
        return Decimal128::from_string(s);
      }
      case 4: {
        // Small values with trailing zeros that also exist as ints and doubles.
        int whole = pick(21) - 10;
        std::string s = std::to_string(whole) + "." + std::string(pick(4), '0');
        if (s.back() == '.') s.pop_back();
        return Decimal128::from_string(s);
      }
      default:
        return Decimal128{u64(), u64()};  // any bit pattern, non-canonical too
    }
  }

  std::string random_string(int max_len = 5) {
    static const char* kPieces[] = {"",         "\0",           "a", "b", "\x01", "\x7f",
                                    "\xc3\xa9", "\xe2\x82\xac", "ab"};
    std::string s;
    int n = pick(max_len + 1);
    for (int i = 0; i < n; ++i) {
      int p = pick(std::size(kPieces));
      if (p == 1) {
        s.push_back('\0');
      } else {
        s += kPieces[p];
      }
    }
    return s;
  }

  std::string random_key() {
    static const char* kKeys[] = {"", "a", "b", "ab", "a0", "c"};
    return kKeys[pick(std::size(kKeys))];
  }

  ObjectId random_oid() {
    ObjectId id;
    static const uint8_t kBytes[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    bool sparse = coin();
    for (auto& b : id.bytes) {
      b = sparse ? kBytes[pick(std::size(kBytes))] : static_cast<uint8_t>(u64());
    }
    if (sparse && coin()) std::fill(id.bytes.begin() + 2, id.bytes.end(), 0);
    return id;
  }

  std::vector<uint8_t> random_bytes(int max_len) {
    std::vector<uint8_t> out(pick(max_len + 1));
    for (auto& b : out) b = coin() ? static_cast<uint8_t>(pick(3) == 0 ? 0xff : pick(2)) : u64();
    return out;
  }

  // Appends a random value under `key` (depth limits nesting).
  void append_random(DocumentBuilder& b, const std::string& key, int depth) {
    Value v = random_value(depth);
    b.append(key, v);
  }

  Document random_document(int depth) {
    DocumentBuilder b;
    int n = pick(4);
    for (int i = 0; i < n; ++i) append_random(b, random_key(), depth + 1);
    return b.finish();
  }

  Array random_array(int depth) {
    DocumentBuilder b;
    int n = pick(4);
    for (int i = 0; i < n; ++i) b.push(random_value(depth + 1));
    return b.finish_array();
  }

  Value random_value(int depth = 0) {
    // Deeper levels favour scalars so documents stay shallow.
    int kinds = depth >= 2 ? 20 : 24;
    int k = pick(kinds);
    switch (k) {
      case 0:
        return pool_.of(random_int32());
      case 1:
        return pool_.of(random_int64());
      case 2:
        return pool_.of(random_double());
      case 3:
        return pool_.of(random_decimal());
      case 4:
        return pool_.of(std::string_view(random_string()));
      case 5:
        return pool_.symbol(random_string());
      case 6: {
        static const uint8_t kSubtypes[] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x80, 0x81};
        return pool_.binary(kSubtypes[pick(std::size(kSubtypes))], random_bytes(5));
      }
      case 7:
        return pool_.of(random_oid());
      case 8:
        return pool_.of(coin());
      case 9: {
        static const int64_t kDates[] = {0,
                                         -1,
                                         1,
                                         std::numeric_limits<int64_t>::min(),
                                         std::numeric_limits<int64_t>::max(),
                                         -62135596800000LL,
                                         1700000000000LL};
        int64_t ms =
            coin() ? kDates[pick(std::size(kDates))] : static_cast<int64_t>(u64()) >> pick(40);
        return pool_.of(DateTime{ms});
      }
      case 10: {
        static const uint32_t kParts[] = {0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff};
        uint32_t s = coin() ? kParts[pick(std::size(kParts))] : static_cast<uint32_t>(u64());
        uint32_t i = coin() ? kParts[pick(std::size(kParts))] : static_cast<uint32_t>(u64());
        return pool_.of(Timestamp{s, i});
      }
      case 11: {
        static const char* kPatterns[] = {"", "a", "ab", "b", "^x.*", "a\xc3\xa9"};
        static const char* kOptions[] = {"", "i", "im", "s", "x"};
        return pool_.of(
            RegexView{kPatterns[pick(std::size(kPatterns))], kOptions[pick(std::size(kOptions))]});
      }
      case 12:
        return pool_.of(Null{});
      case 13:
        return pool_.undefined();
      case 14:
        return pool_.of(MinKey{});
      case 15:
        return pool_.of(MaxKey{});
      case 16:
        return pool_.code(random_string(3));
      case 17: {
        Document scope = depth >= 2 ? Document() : random_document(depth + 1);
        return pool_.code_with_scope(random_string(3), scope);
      }
      case 18: {
        static const char* kNs[] = {"", "db.a", "db.b", "db.ab"};
        return pool_.db_pointer(kNs[pick(std::size(kNs))], random_oid());
      }
      case 19:
        return pool_.of(static_cast<double>(pick(7) - 3));  // numbers collide often
      case 20:
      case 21:
        return pool_.of(random_document(depth));
      default:
        return pool_.of(random_array(depth));
    }
  }

 private:
  Pool& pool_;
  std::mt19937_64 rng_;
};

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

TEST(IndexKeyProperty, EveryPairAgreesWithCompareValues) {
  Pool pool;
  Generator gen(pool, 0x5eed1234abcdULL);
  std::vector<Value> values;
  for (int i = 0; i < 1400; ++i) values.push_back(gen.random_value());

  // Every type must be represented.
  std::vector<BsonType> seen;
  for (const Value& v : values) seen.push_back(v.type());
  for (BsonType t :
       {BsonType::kDouble,    BsonType::kString,    BsonType::kDocument,      BsonType::kArray,
        BsonType::kBinary,    BsonType::kUndefined, BsonType::kObjectId,      BsonType::kBool,
        BsonType::kDateTime,  BsonType::kNull,      BsonType::kRegex,         BsonType::kDbPointer,
        BsonType::kCode,      BsonType::kSymbol,    BsonType::kCodeWithScope, BsonType::kInt32,
        BsonType::kTimestamp, BsonType::kInt64,     BsonType::kDecimal128,    BsonType::kMinKey,
        BsonType::kMaxKey}) {
    EXPECT_NE(std::find(seen.begin(), seen.end(), t), seen.end()) << type_alias(t);
  }

  std::vector<std::string> asc, desc;
  for (const Value& v : values) {
    asc.push_back(encode_index_key(v));
    desc.push_back(desc_key(v));
    ASSERT_EQ(compare_values(v, v), 0) << v.to_json();
  }
  size_t equal_pairs = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = i + 1; j < values.size(); ++j) {
      int c = sgn(compare_values(values[i], values[j]));
      ASSERT_EQ(c, key_cmp(asc[i], asc[j]))
          << values[i].to_json() << " vs " << values[j].to_json() << " ("
          << type_alias(values[i].type()) << ", " << type_alias(values[j].type()) << ")";
      ASSERT_EQ(-c, key_cmp(desc[i], desc[j]))
          << values[i].to_json() << " vs " << values[j].to_json();
      ASSERT_EQ(-c, sgn(compare_values(values[j], values[i])))
          << values[i].to_json() << " vs " << values[j].to_json();
      if (c == 0) {
        ++equal_pairs;
        ASSERT_EQ(asc[i], asc[j]) << "equal values must have identical keys: "
                                  << values[i].to_json() << " vs " << values[j].to_json();
      }
    }
  }
  // The generator is tuned so that equal values of different representations occur.
  EXPECT_GT(equal_pairs, 100u);
}

TEST(IndexKeyProperty, NumbersOnlyDense) {
  // Many numbers of all four types, so that cross-type ties and near-ties are common.
  Pool pool;
  Generator gen(pool, 42);
  std::vector<Value> values;
  for (int i = 0; i < 1200; ++i) {
    switch (gen.pick(4)) {
      case 0:
        values.push_back(pool.of(gen.random_int32()));
        break;
      case 1:
        values.push_back(pool.of(gen.random_int64()));
        break;
      case 2:
        values.push_back(pool.of(gen.random_double()));
        break;
      default:
        values.push_back(pool.of(gen.random_decimal()));
        break;
    }
  }
  std::vector<std::string> keys;
  for (const Value& v : values) keys.push_back(encode_index_key(v));
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = 0; j < values.size(); ++j) {
      ASSERT_EQ(sgn(compare_values(values[i], values[j])), key_cmp(keys[i], keys[j]))
          << values[i].to_json() << " vs " << values[j].to_json();
    }
  }
}

TEST(IndexKeyProperty, SortedSampleIsTransitiveAndConsistent) {
  Pool pool;
  Generator gen(pool, 7);
  std::vector<Value> values;
  for (int i = 0; i < 400; ++i) values.push_back(gen.random_value());

  // Sorting with compare_values must give a sequence whose keys are non-decreasing.
  std::vector<Value> sorted = values;
  std::sort(sorted.begin(), sorted.end(), ValueLess{});
  for (size_t i = 0; i + 1 < sorted.size(); ++i) {
    ASSERT_LE(key_cmp(encode_index_key(sorted[i]), encode_index_key(sorted[i + 1])), 0)
        << sorted[i].to_json() << " then " << sorted[i + 1].to_json();
  }
  // Every earlier element is <= every later one, and equal runs are contiguous.
  for (size_t i = 0; i < sorted.size(); ++i) {
    for (size_t j = i + 1; j < sorted.size(); ++j) {
      int c = compare_values(sorted[i], sorted[j]);
      ASSERT_LE(c, 0) << sorted[i].to_json() << " vs " << sorted[j].to_json();
      if (c == 0) {
        for (size_t k = i + 1; k < j; ++k) {
          ASSERT_EQ(compare_values(sorted[i], sorted[k]), 0);
        }
      }
    }
  }
  // Random triples: a <= b and b <= c imply a <= c; a == b and b == c imply a == c.
  for (int n = 0; n < 200000; ++n) {
    const Value& a = values[gen.pick(values.size())];
    const Value& b = values[gen.pick(values.size())];
    const Value& c = values[gen.pick(values.size())];
    int ab = compare_values(a, b), bc = compare_values(b, c), ac = compare_values(a, c);
    if (ab <= 0 && bc <= 0) {
      ASSERT_LE(ac, 0) << a.to_json() << " " << b.to_json() << " " << c.to_json();
    }
    if (ab == 0 && bc == 0) {
      ASSERT_EQ(ac, 0) << a.to_json() << " " << b.to_json() << " " << c.to_json();
    }
    if (ab < 0 && bc <= 0) {
      ASSERT_LT(ac, 0) << a.to_json() << " " << b.to_json() << " " << c.to_json();
    }
  }
}

TEST(IndexKeyProperty, CompoundKeysSortFieldByField) {
  // Keys are prefix-free: concatenated parts (mixed directions) sort lexicographically.
  Pool pool;
  Generator gen(pool, 99);
  struct Row {
    Value a, b;
    std::string key;
  };
  std::vector<Row> rows;
  for (int i = 0; i < 300; ++i) {
    Row r{gen.random_value(1), gen.random_value(1), {}};
    append_index_key(r.key, r.a, false);
    append_index_key(r.key, r.b, true);
    rows.push_back(r);
  }
  for (const Row& x : rows) {
    for (const Row& y : rows) {
      int c = sgn(compare_values(x.a, y.a));
      if (c == 0) c = -sgn(compare_values(x.b, y.b));
      ASSERT_EQ(c, key_cmp(x.key, y.key))
          << "(" << x.a.to_json() << ", " << x.b.to_json() << ") vs (" << y.a.to_json() << ", "
          << y.b.to_json() << ")";
    }
  }
}

TEST(IndexKeyProperty, NoKeyIsAPrefixOfAnother) {
  Pool pool;
  Generator gen(pool, 2024);
  std::vector<std::string> keys;
  for (int i = 0; i < 600; ++i) keys.push_back(encode_index_key(gen.random_value()));
  for (const auto& a : keys) {
    for (const auto& b : keys) {
      if (a.size() < b.size()) {
        ASSERT_NE(0, std::memcmp(a.data(), b.data(), a.size())) << "a key is a prefix of another";
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-written cases with MongoDB's known answers
// ---------------------------------------------------------------------------------------------

class KnownOrder : public ::testing::Test {
 protected:
  // Asserts a < b in both the comparison and the keys (and the reverse for descending).
  void expect_less(const Value& a, const Value& b) {
    EXPECT_LT(compare_values(a, b), 0) << a.to_json() << " < " << b.to_json();
    EXPECT_GT(compare_values(b, a), 0) << b.to_json() << " > " << a.to_json();
    EXPECT_LT(key_cmp(encode_index_key(a), encode_index_key(b)), 0)
        << a.to_json() << " < " << b.to_json();
    EXPECT_GT(key_cmp(desc_key(a), desc_key(b)), 0) << a.to_json() << " < " << b.to_json();
  }
  void expect_equal(const Value& a, const Value& b) {
    EXPECT_EQ(compare_values(a, b), 0) << a.to_json() << " == " << b.to_json();
    EXPECT_EQ(compare_values(b, a), 0) << a.to_json() << " == " << b.to_json();
    EXPECT_TRUE(values_equal(a, b));
    EXPECT_EQ(encode_index_key(a), encode_index_key(b)) << a.to_json() << " == " << b.to_json();
    EXPECT_EQ(desc_key(a), desc_key(b));
  }
  void expect_chain(const std::vector<Value>& chain) {
    for (size_t i = 0; i < chain.size(); ++i) {
      for (size_t j = i + 1; j < chain.size(); ++j) expect_less(chain[i], chain[j]);
    }
  }
  Value dec(const char* s) { return pool.of(Decimal128::from_string(s)); }
  Value str(std::string_view s) { return pool.of(s); }
  Value js(const char* json) { return pool.json(json); }

  Pool pool;
};

TEST_F(KnownOrder, TypeBrackets) {
  ObjectId id = ObjectId::from_hex("000000000000000000000000");
  std::vector<Value> chain = {
      pool.of(MinKey{}),
      pool.undefined(),
      pool.of(Null{}),
      pool.of(std::numeric_limits<double>::quiet_NaN()),
      pool.of(-std::numeric_limits<double>::infinity()),
      pool.of(int32_t{-5}),
      pool.of(int64_t{0}),
      pool.of(std::numeric_limits<double>::infinity()),
      str(""),
      str("zzz"),
      pool.of(Document()),
      pool.of(make_document("a", 1)),
      pool.of(Array()),
      pool.of(make_array(1)),
      pool.binary(0, {}),
      pool.of(id),
      pool.of(false),
      pool.of(true),
      pool.of(DateTime{std::numeric_limits<int64_t>::min()}),
      pool.of(DateTime{std::numeric_limits<int64_t>::max()}),
      pool.of(Timestamp{0, 0}),
      pool.of(Timestamp{0xffffffff, 0xffffffff}),
      pool.of(RegexView{"", ""}),
      pool.db_pointer("", id),
      pool.code(""),
      pool.code_with_scope("", Document()),
      pool.of(MaxKey{}),
  };
  expect_chain(chain);
  // The brackets themselves, in MongoDB's order.
  std::vector<BsonType> order = {BsonType::kMinKey,   BsonType::kNull,      BsonType::kDouble,
                                 BsonType::kString,   BsonType::kDocument,  BsonType::kArray,
                                 BsonType::kBinary,   BsonType::kObjectId,  BsonType::kBool,
                                 BsonType::kDateTime, BsonType::kTimestamp, BsonType::kRegex,
                                 BsonType::kMaxKey};
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    EXPECT_LT(type_bracket(order[i]), type_bracket(order[i + 1])) << type_alias(order[i]);
  }
  EXPECT_EQ(type_bracket(BsonType::kInt32), type_bracket(BsonType::kDouble));
  EXPECT_EQ(type_bracket(BsonType::kInt64), type_bracket(BsonType::kDecimal128));
  EXPECT_EQ(type_bracket(BsonType::kString), type_bracket(BsonType::kSymbol));
  EXPECT_EQ(type_bracket(BsonType::kEndOfDocument), type_bracket(BsonType::kUndefined));
}

TEST_F(KnownOrder, OneInEveryNumericType) {
  std::vector<Value> ones = {pool.of(int32_t{1}),
                             pool.of(1.0),
                             pool.of(int64_t{1}),
                             dec("1"),
                             dec("1.0"),
                             dec("1.00"),
                             dec("100E-2"),
                             dec("0.001E+3"),
                             js("{\"$numberLong\": \"1\"}"),
                             js("{\"$numberDecimal\": \"1.00\"}")};
  for (const Value& a : ones) {
    for (const Value& b : ones) expect_equal(a, b);
  }
  EXPECT_EQ(ones[5].type(), BsonType::kDecimal128);
  EXPECT_EQ(ones[5].as_decimal128().to_string(), "1.00");
}

TEST_F(KnownOrder, ZerosAndNaN) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  std::vector<Value> zeros = {pool.of(0.0), pool.of(-0.0), pool.of(int32_t{0}), pool.of(int64_t{0}),
                              dec("0"),     dec("-0"),     dec("0E+300"),       dec("-0.000")};
  for (const Value& a : zeros) {
    for (const Value& b : zeros) expect_equal(a, b);
  }
  std::vector<Value> nans = {pool.of(nan), pool.of(-nan), dec("NaN"), dec("-NaN"),
                             pool.of(std::bit_cast<double>(uint64_t{0x7ff0000000000001ULL}))};
  for (const Value& a : nans) {
    for (const Value& b : nans) expect_equal(a, b);
  }
  for (const Value& n : nans) {
    expect_less(n, pool.of(-inf));
    expect_less(n, dec("-Infinity"));
    expect_less(n, pool.of(std::numeric_limits<int64_t>::min()));
    expect_less(pool.of(Null{}), n);
  }
  expect_equal(pool.of(inf), dec("Infinity"));
  expect_equal(pool.of(-inf), dec("-Infinity"));
  expect_less(pool.of(-inf), pool.of(std::numeric_limits<double>::lowest()));
  expect_less(dec("-9999999999999999999999999999999999E+6111"),
              pool.of(std::numeric_limits<double>::lowest()));
  expect_less(pool.of(std::numeric_limits<double>::max()), dec("1E+309"));
  expect_less(dec("1E+6144"), pool.of(inf));
}

TEST_F(KnownOrder, LargeIntegersAgainstDoubles) {
  int64_t max = std::numeric_limits<int64_t>::max();
  int64_t min = std::numeric_limits<int64_t>::min();
  // 9223372036854775807.0 rounds to 2^63, which is greater than every int64.
  expect_less(pool.of(max), pool.of(9223372036854775807.0));
  expect_less(pool.of(max), pool.of(9223372036854775808.0));
  expect_equal(pool.of(min), pool.of(-9223372036854775808.0));
  expect_less(pool.of(-9223372036854777856.0), pool.of(min));
  // 2^53 + 1 is not a double: the long is greater than the double 2^53.
  expect_less(pool.of(9007199254740992.0), pool.of(int64_t{9007199254740993}));
  expect_less(pool.of(int64_t{9007199254740993}), pool.of(9007199254740994.0));
  expect_equal(pool.of(int64_t{9007199254740992}), pool.of(9007199254740992.0));
  expect_equal(pool.of(max), dec("9223372036854775807"));
  expect_less(pool.of(max), dec("9223372036854775808"));
  expect_equal(dec("9223372036854775808"), pool.of(9223372036854775808.0));
  expect_less(pool.of(int64_t{(int64_t(1) << 62) + 1}), pool.of(std::ldexp(1.0, 62) + 1024.0));
  expect_equal(pool.of(int32_t{-2147483647 - 1}), pool.of(int64_t{-2147483648LL}));
}

TEST_F(KnownOrder, DecimalAgainstDouble) {
  // The double nearest 0.1 is 0.1000000000000000055511151231257827...: above decimal 0.1.
  expect_less(dec("0.1"), pool.of(0.1));
  expect_less(pool.of(0.1), dec("0.1000000000000000055511151231257828"));
  expect_less(dec("0.1000000000000000055511151231257827"), pool.of(0.1));
  expect_equal(dec("0.5"), pool.of(0.5));
  expect_equal(dec("0.50"), pool.of(0.5));
  expect_equal(dec("-2.5E-1"), pool.of(-0.25));
  expect_equal(dec("123456789.125"), pool.of(123456789.125));
}

TEST_F(KnownOrder, NegativeDecimalAgainstDouble) {
  // Negating reverses: double -0.1 is slightly below decimal -0.1.
  expect_less(pool.of(-0.1), dec("-0.1"));
  expect_less(dec("-1.5"), dec("-1.25"));
  expect_less(dec("-100"), dec("-99.99"));
  expect_less(dec("-1E+10"), pool.of(-9999999999.0));
  expect_less(pool.of(-std::numeric_limits<double>::denorm_min()), dec("-1E-6176"));
  expect_less(dec("-1E-6176"), pool.of(0.0));
  expect_less(pool.of(0.0), dec("1E-6176"));
  expect_less(dec("1E-6176"), pool.of(std::numeric_limits<double>::denorm_min()));
}

TEST_F(KnownOrder, Strings) {
  using namespace std::string_literals;
  expect_chain({str(""), str("\0"s), str("\0\0"s), str("\x01"), str("A"), str("a"), str("a\0"s),
                str("a\0b"s), str("a\x01"), str("ab"), str("b"), str("\x7f"), str("\xc3\xa9")});
  expect_equal(str("abc"), pool.symbol("abc"));
  expect_less(pool.symbol("a"), str("ab"));
  expect_less(str("b"), pool.symbol("ba"));
  // Code has its own bracket, above DBPointer.
  expect_less(str("zzz"), pool.code("a"));
  expect_chain({pool.code(""), pool.code("a"), pool.code("a\0"s), pool.code("b")});
}

TEST_F(KnownOrder, Objects) {
  expect_chain(
      {pool.of(Document()), js("{\"a\": 1}"), js("{\"a\": 1, \"b\": 1}"), js("{\"b\": 0}")});
  expect_equal(js("{\"a\": 1}"), js("{\"a\": 1.0}"));
  expect_equal(js("{\"a\": {\"$numberLong\": \"2\"}}"),
               js("{\"a\": {\"$numberDecimal\": \"2.0\"}}"));
  // Type bracket of the element is compared before the field name.
  expect_less(js("{\"b\": 1}"), js("{\"a\": \"x\"}"));
  expect_less(js("{\"a\": null}"), js("{\"a\": 0}"));
  expect_less(js("{\"a\": 5}"), js("{\"ab\": 1}"));
  expect_less(js("{\"\": 9}"), js("{\"a\": 1}"));
  expect_less(js("{\"a\": {\"b\": 1}}"), js("{\"a\": {\"b\": 2}}"));
  expect_less(js("{\"a\": {\"b\": 1}}"), js("{\"a\": []}"));
  // Field order matters.
  expect_less(js("{\"a\": 1, \"b\": 2}"), js("{\"b\": 2, \"a\": 1}"));
}

TEST_F(KnownOrder, Arrays) {
  expect_chain({pool.of(Array()), pool.of(make_array(1)), pool.of(make_array(1, 1)),
                pool.of(make_array(2))});
  expect_chain({pool.of(make_array(MinKey{})), pool.of(make_array(Null{})), pool.of(make_array(5)),
                pool.of(make_array("a")), pool.of(make_array(make_document())),
                pool.of(make_array(make_array()))});
  expect_equal(pool.of(make_array(1, 2.0)),
               pool.of(make_array(int64_t{1}, Decimal128::from_string("2.00"))));
  expect_less(pool.of(make_array(1, "x")), pool.of(make_array(1.5)));
  // An array sorts after any object, even an empty array after a large object.
  expect_less(js("{\"z\": {\"$maxKey\": 1}}"), pool.of(Array()));
}

TEST_F(KnownOrder, Binary) {
  // Length first, then subtype, then bytes.
  expect_less(pool.binary(0x80, {0xff}), pool.binary(0x00, {0x00, 0x00}));
  expect_less(pool.binary(0x00, {0xff, 0xff}), pool.binary(0x01, {0x00, 0x00}));
  expect_less(pool.binary(0x00, {0x01, 0x02}), pool.binary(0x00, {0x01, 0x03}));
  expect_less(pool.binary(0x00, {}), pool.binary(0x00, {0x00}));
  expect_equal(pool.binary(0x04, {1, 2, 3}), pool.binary(0x04, {1, 2, 3}));
  // The old subtype 2 carries an inner length, which counts towards the length.
  expect_less(pool.binary(0x05, {1, 2, 3, 4, 5}), pool.binary(0x02, {1, 2}));
  expect_equal(js("{\"$binary\": {\"base64\": \"AQID\", \"subType\": \"00\"}}"),
               pool.binary(0, {1, 2, 3}));
}

TEST_F(KnownOrder, ScalarsWithinTheirBrackets) {
  expect_chain({pool.of(ObjectId::from_hex("000000000000000000000000")),
                pool.of(ObjectId::from_hex("0000000000000000000000ff")),
                pool.of(ObjectId::from_hex("ff0000000000000000000000"))});
  expect_chain({pool.of(DateTime{std::numeric_limits<int64_t>::min()}), pool.of(DateTime{-1}),
                pool.of(DateTime{0}), pool.of(DateTime{1}),
                js("{\"$date\": \"2020-01-01T00:00:00Z\"}")});
  // Timestamps compare unsigned, seconds first.
  expect_chain({pool.of(Timestamp{0, 0}), pool.of(Timestamp{0, 0xffffffff}),
                pool.of(Timestamp{1, 0}), pool.of(Timestamp{0x80000000, 0}),
                js("{\"$timestamp\": {\"t\": 4294967295, \"i\": 1}}")});
  expect_chain({pool.of(RegexView{"a", "i"}), pool.of(RegexView{"a", "im"}),
                pool.of(RegexView{"ab", ""}), pool.of(RegexView{"b", ""})});
  expect_chain({pool.db_pointer("a", ObjectId::from_hex("ffffffffffffffffffffffff")),
                pool.db_pointer("b", ObjectId::from_hex("000000000000000000000000")),
                pool.db_pointer("ab", ObjectId::from_hex("000000000000000000000000"))});
  expect_chain({pool.code_with_scope("a", make_document("x", 2)),
                pool.code_with_scope("b", Document()),
                pool.code_with_scope("b", make_document("x", 1))});
  expect_equal(pool.of(Null{}), pool.of(Null{}));
  expect_equal(pool.of(MinKey{}), js("{\"$minKey\": 1}"));
  expect_equal(pool.of(MaxKey{}), js("{\"$maxKey\": 1}"));
  expect_equal(pool.undefined(), js("{\"$undefined\": true}"));
}

TEST_F(KnownOrder, MissingSortsWithUndefined) {
  Value missing;
  EXPECT_EQ(compare_values(missing, pool.undefined()), 0);
  EXPECT_LT(compare_values(missing, pool.of(Null{})), 0);
  EXPECT_GT(compare_values(missing, pool.of(MinKey{})), 0);
  EXPECT_EQ(encode_index_key(missing), encode_index_key(pool.undefined()));
}

TEST_F(KnownOrder, ExtendedJsonTypesParse) {
  EXPECT_EQ(js("{\"$symbol\": \"s\"}").type(), BsonType::kSymbol);
  EXPECT_EQ(js("{\"$code\": \"c\"}").type(), BsonType::kCode);
  EXPECT_EQ(js("{\"$code\": \"c\", \"$scope\": {\"x\": 1}}").type(), BsonType::kCodeWithScope);
  EXPECT_EQ(js("{\"$dbPointer\": {\"$ref\": \"db.c\", \"$id\": {\"$oid\": "
               "\"000000000000000000000001\"}}}")
                .type(),
            BsonType::kDbPointer);
  expect_equal(js("{\"$symbol\": \"s\"}"), pool.symbol("s"));
  expect_equal(js("{\"$code\": \"c\"}"), pool.code("c"));
  expect_equal(js("{\"$code\": \"c\", \"$scope\": {\"x\": 1}}"),
               pool.code_with_scope("c", make_document("x", 1)));
  expect_equal(js("{\"$dbPointer\": {\"$ref\": \"db.c\", \"$id\": {\"$oid\": "
                  "\"000000000000000000000001\"}}}"),
               pool.db_pointer("db.c", ObjectId::from_hex("000000000000000000000001")));
}

TEST(IndexKeyLayout, DescendingIsComplement) {
  Pool pool;
  Value v = pool.of(make_document("a", 1, "b", "x"));
  std::string asc = encode_index_key(v), desc = desc_key(v);
  ASSERT_EQ(asc.size(), desc.size());
  for (size_t i = 0; i < asc.size(); ++i) EXPECT_EQ(static_cast<char>(~asc[i]), desc[i]);
  // append_index_key appends without touching what is already there.
  std::string out = "prefix";
  append_index_key(out, v, true);
  EXPECT_EQ(out, "prefix" + desc);
}

}  // namespace
}  // namespace mongostore::bson
