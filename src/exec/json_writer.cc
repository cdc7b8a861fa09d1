#include "exec/json_writer.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bson/raw.h"
#include "mongostore/bson/types.h"
#include "mongostore/bson/value.h"

namespace mongostore::exec {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool needs_escape(unsigned char c) {
  return c == '"' || c == '\\' || c < 0x20;
}

// The escapes in the bytes of `w` (loaded from memory, first byte lowest on little-endian):
// the high bit of each byte that is a quote, a backslash or a control character, the lowest
// set bit always a true one. The classic "has a byte below n" test, for n = 0x20 and, after
// an xor, for a zero byte: borrows only make false hits above a true one.
template <class Word>
Word escape_bits(Word w) {
  constexpr Word kOnes = static_cast<Word>(0x0101010101010101ull);
  constexpr Word kHighs = static_cast<Word>(0x8080808080808080ull);
  const Word q = w ^ (kOnes * '"');
  const Word b = w ^ (kOnes * '\\');
  return (((w - kOnes * 0x20) & ~w) | ((q - kOnes) & ~q) | ((b - kOnes) & ~b)) & kHighs;
}

// Where the first escape of a word loaded from `at` is (bits from escape_bits, not zero).
template <class Word>
const char* first_escape(const char* at, Word bits) {
  if constexpr (std::endian::native == std::endian::little) {
    return at + (std::countr_zero(bits) >> 3);
  } else {
    return at + (std::countl_zero(bits) >> 3);
  }
}

// Checks the word at `at` (sizeof(Word) bytes, which must lie in the string); end if clean.
// ORs the word's bytes into `seen` (the caller tests their high bits: non-ASCII).
template <class Word>
const char* check_word(const char* at, const char* end, uint64_t& seen) {
  Word w;
  std::memcpy(&w, at, sizeof w);
  seen |= w;
  const Word bits = escape_bits(w);
  return bits != 0 ? first_escape(at, bits) : end;
}

// The first byte in [p, end) that JSON needs escaped (quote, backslash, control character),
// or end. Sixteen bytes a step where SSE2 is (every x86-64), else eight; the last partial
// block is checked as a whole block ending at `end`, overlapping bytes already found clean
// (so the first hit in it is still the first escape). Short names cost a word or two.
const char* find_escape(const char* p, const char* end, bool& non_ascii) {
  // Every byte of [p, end) the scan reads is ORed in here; a hit returns early, and the
  // caller scans on from the byte after it, so each byte of a string is seen (some twice).
  uint64_t seen = 0;
  const char* hit = end;
  const size_t n = static_cast<size_t>(end - p);
  if (n < 8) {
    if (n >= 4) {
      hit = check_word<uint32_t>(p, end, seen);
      if (hit == end) hit = check_word<uint32_t>(end - 4, end, seen);
    } else {
      for (; p != end; ++p) {
        seen |= static_cast<unsigned char>(*p);
        if (needs_escape(static_cast<unsigned char>(*p))) break;
      }
      hit = p;
    }
    non_ascii |= (seen & 0x8080808080808080ULL) != 0;
    return hit;
  }
#if defined(__SSE2__)
  if (n >= 16) {
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i last_control = _mm_set1_epi8(0x1f);
    __m128i all = _mm_setzero_si128();
    auto check_block = [&](const char* at) -> unsigned {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
      all = _mm_or_si128(all, x);
      // x <= 0x1f (unsigned) exactly when min(x, 0x1f) == x.
      const __m128i hits =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                       _mm_cmpeq_epi8(_mm_min_epu8(x, last_control), x));
      return static_cast<unsigned>(_mm_movemask_epi8(hits));
    };
    for (; end - p >= 16; p += 16) {
      if (const unsigned mask = check_block(p)) {
        hit = p + std::countr_zero(mask);
        break;
      }
    }
    if (hit == end && p != end) {
      const unsigned mask = check_block(end - 16);
      if (mask != 0) hit = end - 16 + std::countr_zero(mask);
    }
    // The high bit of a byte: set exactly for the bytes of non-ASCII characters.
    non_ascii |= _mm_movemask_epi8(all) != 0;
    return hit;
  }
#endif
  for (; end - p >= 8; p += 8) {
    hit = check_word<uint64_t>(p, end, seen);
    if (hit != end) break;
  }
  if (hit == end && p != end) hit = check_word<uint64_t>(end - 8, end, seen);
  non_ascii |= (seen & 0x8080808080808080ULL) != 0;
  return hit;
}

std::string base64(std::span<const uint8_t> bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i + 1 == bytes.size()) {
    uint32_t n = bytes[i] << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    uint32_t n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += '=';
  }
  return out;
}

// Longest python_float_repr: "-0.0001" then 17 digits, or "-d." 16 digits "e-308".
constexpr size_t kMaxFloatRepr = 32;

// Writes python_float_repr(v) of a finite v at out (kMaxFloatRepr bytes); returns its length.
size_t format_python_float(double v, char* out) {
  char* o = out;
  // Integral values below 2^53 are exact, so their shortest digits are the integer's own:
  // "3.0", "-0.0", "1700000000.0" without the general layout (1e15 keeps them under 16
  // digits, where repr switches to the exponent form).
  if (v == std::trunc(v) && std::fabs(v) < 1e15) {
    if (std::signbit(v)) *o++ = '-';
    o = std::to_chars(o, o + 20, static_cast<int64_t>(std::fabs(v))).ptr;
    *o++ = '.';
    *o++ = '0';
    return static_cast<size_t>(o - out);
  }
  // Shortest round-trip digits in scientific form ("1.2345e+17"), then laid out the way
  // CPython's float_repr does: positional when the exponent is in [-4, 16), else scientific.
  char sci[kMaxFloatRepr];
  const char* end = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific).ptr;
  const char* s = sci;
  if (*s == '-') {
    *o++ = '-';
    ++s;
  }
  const char* e = static_cast<const char*>(std::memchr(s, 'e', static_cast<size_t>(end - s)));
  char digits[20];
  size_t n = 0;
  digits[n++] = s[0];
  for (const char* d = s + 2; d < e; ++d) digits[n++] = *d;  // s[1] is the point, if any
  int exponent = 0;
  for (const char* d = e + 2; d < end; ++d) exponent = exponent * 10 + (*d - '0');
  if (e[1] == '-') exponent = -exponent;
  if (exponent >= -4 && exponent < 16) {
    const int point = exponent + 1;  // digits before the decimal point
    if (point <= 0) {
      *o++ = '0';
      *o++ = '.';
      o = std::fill_n(o, -point, '0');
      o = std::copy_n(digits, n, o);
    } else if (static_cast<size_t>(point) >= n) {
      o = std::copy_n(digits, n, o);
      o = std::fill_n(o, static_cast<size_t>(point) - n, '0');
      *o++ = '.';
      *o++ = '0';
    } else {
      o = std::copy_n(digits, point, o);
      *o++ = '.';
      o = std::copy_n(digits + point, n - static_cast<size_t>(point), o);
    }
    return static_cast<size_t>(o - out);
  }
  *o++ = digits[0];
  if (n > 1) {
    *o++ = '.';
    o = std::copy_n(digits + 1, n - 1, o);
  }
  *o++ = 'e';
  *o++ = exponent < 0 ? '-' : '+';
  const int magnitude = std::abs(exponent);
  if (magnitude < 10) *o++ = '0';
  o = std::to_chars(o, o + 3, magnitude).ptr;
  return static_cast<size_t>(o - out);
}

}  // namespace

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[kMaxFloatRepr];
  return std::string(buf, format_python_float(v, buf));
}

JsonWriter::JsonWriter(size_t expected_size) {
  own_.resize(expected_size);
}

JsonWriter::JsonWriter(std::string& buffer, size_t start, size_t expected_size)
    : buf_(&buffer), len_(start) {
  if (buffer.size() < start + expected_size) buffer.resize(start + expected_size);
}

void JsonWriter::grow(size_t n) {
  // Doubling keeps the appends amortised constant; 64 so a taken (emptied) writer restarts
  // with a useful buffer.
  buf_->resize(std::max({buf_->size() * 2, len_ + n, size_t{64}}));
}

void JsonWriter::put(std::string_view s) {
  if (s.empty()) return;  // its data() may be null, which memcpy must not see
  std::memcpy(room(s.size()), s.data(), s.size());
  len_ += s.size();
}

std::string JsonWriter::take() {
  if (buf_ != &own_) return std::string(text());  // the caller's buffer stays theirs
  own_.resize(len_);
  len_ = 0;
  comma_ = false;
  non_ascii_ = false;
  return std::move(own_);
}

void JsonWriter::put_string(std::string_view s, bool is_key) {
  const char* const end = s.data() + s.size();
  const char* const stop = find_escape(s.data(), end, non_ascii_);
  if (stop == end) return put_plain(s, is_key);  // nearly always
  before_value();
  put_escaped(s, stop);
  if (is_key) put(':');
  comma_ = !is_key;
}

void JsonWriter::put_plain(std::string_view s, bool is_key) {
  // Comma, quotes, colon and the bytes in one go.
  char* const start = room(s.size() + 4);
  char* o = start;
  if (comma_) *o++ = ',';
  *o++ = '"';
  if (!s.empty()) std::memcpy(o, s.data(), s.size());  // data() may be null when empty
  o += s.size();
  *o++ = '"';
  if (is_key) *o++ = ':';
  len_ += static_cast<size_t>(o - start);
  comma_ = !is_key;
}

void JsonWriter::put_escaped(std::string_view s, const char* stop) {
  put('"');
  const char* p = s.data();
  const char* const end = p + s.size();
  while (true) {
    // Runs that need no escape go in with one copy; UTF-8 stays as is (pydantic does not
    // escape it, U+2028 and U+2029 included).
    put(std::string_view(p, static_cast<size_t>(stop - p)));
    if (stop == end) break;
    const char c = *stop;
    p = stop + 1;
    switch (c) {
      case '"':
        put("\\\"");
        break;
      case '\\':
        put("\\\\");
        break;
      case '\b':
        put("\\b");
        break;
      case '\f':
        put("\\f");
        break;
      case '\n':
        put("\\n");
        break;
      case '\r':
        put("\\r");
        break;
      case '\t':
        put("\\t");
        break;
      default: {
        const char esc[6] = {'\\', 'u', '0', '0', kHex[(c >> 4) & 0xf], kHex[c & 0xf]};
        put(std::string_view(esc, 6));
      }
    }
    stop = find_escape(p, end, non_ascii_);
  }
  put('"');
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  put('{');
  comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  put('}');
  comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  put('[');
  comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  put(']');
  comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  put_string(name, true);
  return *this;
}

// The literals with their lengths known here, so the copy is a store, not a memcpy call:
// every unset optional field of every commit's snapshot and events is a null.
template <size_t N>
JsonWriter& JsonWriter::put_literal(const char (&literal)[N]) {
  char* const start = room(N);  // N - 1 bytes and a comma
  char* o = start;
  if (comma_) *o++ = ',';
  std::memcpy(o, literal, N - 1);
  len_ += static_cast<size_t>(o + (N - 1) - start);
  comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::null() {
  return put_literal("null");
}

JsonWriter& JsonWriter::boolean(bool v) {
  return v ? put_literal("true") : put_literal("false");
}

JsonWriter& JsonWriter::string(std::string_view v) {
  put_string(v, false);
  return *this;
}

JsonWriter& JsonWriter::optional_string(const std::optional<std::string>& v) {
  return v ? string(*v) : null();
}

JsonWriter& JsonWriter::integer(int64_t v) {
  char* const start = room(21);  // ",-9223372036854775808"
  char* o = start;
  if (comma_) *o++ = ',';
  o = std::to_chars(o, o + 20, v).ptr;
  len_ += static_cast<size_t>(o - start);
  comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::number(double v) {
  if (std::isnan(v)) return put_ascii(R"({"$numberDouble":"NaN"})");
  if (std::isinf(v)) {
    return put_ascii(v > 0 ? R"({"$numberDouble":"Infinity"})"
                           : R"({"$numberDouble":"-Infinity"})");
  }
  char* const start = room(kMaxFloatRepr + 1);
  char* o = start;
  if (comma_) *o++ = ',';
  o += format_python_float(v, o);
  len_ += static_cast<size_t>(o - start);
  comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  // Not scanned: whatever it holds is counted as non-ASCII (only the rare BSON types take
  // this path inside the writer).
  non_ascii_ = true;
  return put_ascii(json);
}

JsonWriter& JsonWriter::put_ascii(std::string_view json) {
  char* const start = room(json.size() + 1);
  char* o = start;
  if (comma_) *o++ = ',';
  if (!json.empty()) std::memcpy(o, json.data(), json.size());
  len_ += static_cast<size_t>(o + json.size() - start);
  comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::document(bson::DocumentView doc) {
  before_value();
  members(doc.data(), doc.size(), false);
  return *this;
}

JsonWriter& JsonWriter::array(bson::DocumentView array) {
  before_value();
  members(array.data(), array.size(), true);
  return *this;
}

void JsonWriter::members(const uint8_t* data, size_t size, bool is_array) {
  // Walks the (validated) BSON bytes directly: the common types are written from their
  // payload without a bson::Value or its type-checked accessors.
  using bson::BsonType;
  namespace raw = bson::raw;
  put(is_array ? '[' : '{');
  comma_ = false;
  const uint8_t* p = data + 4;
  const uint8_t* const end = data + size - 1;  // the trailing NUL
  while (p < end && *p != 0) {
    const auto type = static_cast<BsonType>(*p);
    const char* name = reinterpret_cast<const char*>(p + 1);
    const size_t name_len = std::strlen(name);
    const uint8_t* payload = p + 2 + name_len;
    if (is_array) {
      before_value();
    } else {
      key(std::string_view(name, name_len));
    }
    uint32_t payload_size;
    switch (type) {
      case BsonType::kDouble:
        number(raw::read_f64(payload));
        payload_size = 8;
        break;
      case BsonType::kInt32:
        integer(raw::read_i32(payload));
        payload_size = 4;
        break;
      case BsonType::kInt64:
        integer(raw::read_i64(payload));
        payload_size = 8;
        break;
      case BsonType::kBool:
        boolean(payload[0] != 0);
        payload_size = 1;
        break;
      case BsonType::kNull:
        null();
        payload_size = 0;
        break;
      case BsonType::kString: {
        const uint32_t len = raw::read_u32(payload);  // with its NUL
        string(std::string_view(reinterpret_cast<const char*>(payload + 4), len - 1));
        payload_size = 4 + len;
        break;
      }
      case BsonType::kDocument:
      case BsonType::kArray:
        payload_size = raw::read_u32(payload);
        members(payload, payload_size, type == BsonType::kArray);
        break;
      default:
        payload_size = raw::payload_size(type, payload);
        extended(bson::Value(type, payload, payload_size));
    }
    p = payload + payload_size;
  }
  put(is_array ? ']' : '}');
  comma_ = true;
}

JsonWriter& JsonWriter::value(const bson::Value& v) {
  using bson::BsonType;
  switch (v.type()) {
    case BsonType::kDouble:
      return number(v.as_double());
    case BsonType::kInt32:
      return integer(v.as_int32());
    case BsonType::kInt64:
      return integer(v.as_int64());
    case BsonType::kBool:
      return boolean(v.as_bool());
    case BsonType::kNull:
      return null();
    case BsonType::kString:
      return string(v.as_string());
    case BsonType::kDocument:
      return document(v.as_document());
    case BsonType::kArray:
      return array(v.as_array());
    default:
      before_value();
      extended(v);
      return *this;
  }
}

void JsonWriter::extended(const bson::Value& v) {
  // Rare types, written plainly.
  using bson::BsonType;
  switch (v.type()) {
    case BsonType::kObjectId:
      begin_object().field("$oid").string(v.as_object_id().to_hex());
      end_object();
      return;
    case BsonType::kDateTime:
      begin_object().field("$date").begin_object().field("$numberLong");
      string(std::to_string(v.as_datetime().millis)).end_object();
      end_object();
      return;
    case BsonType::kDecimal128:
      begin_object().field("$numberDecimal").string(v.as_decimal128().to_string());
      end_object();
      return;
    case BsonType::kBinary: {
      bson::BinaryView bin = v.as_binary();
      char subtype[3] = {kHex[bin.subtype >> 4], kHex[bin.subtype & 0xf], 0};
      begin_object().field("$binary").begin_object();
      field("base64").string(base64(bin.bytes)).field("subType").string(subtype);
      end_object();
      end_object();
      return;
    }
    case BsonType::kTimestamp: {
      bson::Timestamp ts = v.as_timestamp();
      begin_object().field("$timestamp").begin_object();
      field("t").integer(ts.seconds).field("i").integer(ts.increment).end_object();
      end_object();
      return;
    }
    case BsonType::kRegex: {
      bson::RegexView re = v.as_regex();
      begin_object().field("$regularExpression").begin_object();
      field("pattern").string(re.pattern).field("options").string(re.options).end_object();
      end_object();
      return;
    }
    case BsonType::kMinKey:
      begin_object().field("$minKey").integer(1).end_object();
      return;
    case BsonType::kMaxKey:
      begin_object().field("$maxKey").integer(1).end_object();
      return;
    case BsonType::kUndefined:
      begin_object().field("$undefined").boolean(true).end_object();
      return;
    case BsonType::kSymbol:
      begin_object().field("$symbol").string(v.as_string()).end_object();
      return;
    case BsonType::kCode:
      begin_object().field("$code").string(v.as_string()).end_object();
      return;
    default:
      // Code with scope and DBPointer: rare enough to take libbson's (spaced) rendering.
      raw(v.to_json());
      return;
  }
}

}  // namespace mongostore::exec
