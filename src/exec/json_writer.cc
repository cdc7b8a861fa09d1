#include "exec/json_writer.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#include "bson/raw.h"
#include "mongostore/bson/types.h"
#include "mongostore/bson/value.h"

namespace mongostore::exec {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool needs_escape(unsigned char c) {
  return c == '"' || c == '\\' || c < 0x20;
}

// The first byte in [p, end) that JSON needs escaped (quote, backslash, control character),
// or end. Eight bytes a step: the ~1 KB strings of a context are most of a commit's JSON.
const char* find_escape(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHighs = 0x8080808080808080ull;
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    // The classic "has a byte below n" test, for n = 0x20 and, after an xor, for a zero
    // byte (the quote and the backslash). Its lowest set high bit is always a true match:
    // borrows only make false matches above a true one, so the first escape is found.
    const uint64_t q = w ^ (kOnes * '"');
    const uint64_t b = w ^ (kOnes * '\\');
    const uint64_t hits =
        (((w - kOnes * 0x20) & ~w) | ((q - kOnes) & ~q) | ((b - kOnes) & ~b)) & kHighs;
    if (hits != 0) {
      if constexpr (std::endian::native == std::endian::little) {
        return p + (std::countr_zero(hits) >> 3);
      } else {
        return p + (std::countl_zero(hits) >> 3);
      }
    }
    p += 8;
  }
  while (p != end && !needs_escape(static_cast<unsigned char>(*p))) ++p;
  return p;
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
  buf_.resize(expected_size);
}

void JsonWriter::grow(size_t n) {
  buf_.resize(std::max(buf_.size() * 2, len_ + n));
}

void JsonWriter::put(std::string_view s) {
  std::memcpy(room(s.size()), s.data(), s.size());
  len_ += s.size();
}

std::string JsonWriter::take() {
  buf_.resize(len_);
  len_ = 0;
  comma_ = false;
  return std::move(buf_);
}

void JsonWriter::put_escaped(std::string_view s) {
  put('"');
  const char* p = s.data();
  const char* end = p + s.size();
  while (true) {
    // Runs that need no escape go in with one copy; UTF-8 stays as is (pydantic does not
    // escape it, U+2028 and U+2029 included).
    const char* stop = find_escape(p, end);
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
  before_value();
  put_escaped(name);
  put(':');
  comma_ = false;
  return *this;
}

JsonWriter& JsonWriter::null() {
  return raw("null");
}

JsonWriter& JsonWriter::boolean(bool v) {
  return raw(v ? "true" : "false");
}

JsonWriter& JsonWriter::string(std::string_view v) {
  before_value();
  put_escaped(v);
  comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::optional_string(const std::optional<std::string>& v) {
  return v ? string(*v) : null();
}

JsonWriter& JsonWriter::integer(int64_t v) {
  before_value();
  char* at = room(20);  // "-9223372036854775808"
  len_ += static_cast<size_t>(std::to_chars(at, at + 20, v).ptr - at);
  comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::number(double v) {
  if (std::isnan(v)) return raw(R"({"$numberDouble":"NaN"})");
  if (std::isinf(v)) {
    return raw(v > 0 ? R"({"$numberDouble":"Infinity"})" : R"({"$numberDouble":"-Infinity"})");
  }
  before_value();
  len_ += format_python_float(v, room(kMaxFloatRepr));
  comma_ = true;
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  put(json);
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
      begin_object().key("$oid").string(v.as_object_id().to_hex());
      end_object();
      return;
    case BsonType::kDateTime:
      begin_object().key("$date").begin_object().key("$numberLong");
      string(std::to_string(v.as_datetime().millis)).end_object();
      end_object();
      return;
    case BsonType::kDecimal128:
      begin_object().key("$numberDecimal").string(v.as_decimal128().to_string());
      end_object();
      return;
    case BsonType::kBinary: {
      bson::BinaryView bin = v.as_binary();
      char subtype[3] = {kHex[bin.subtype >> 4], kHex[bin.subtype & 0xf], 0};
      begin_object().key("$binary").begin_object();
      key("base64").string(base64(bin.bytes)).key("subType").string(subtype);
      end_object();
      end_object();
      return;
    }
    case BsonType::kTimestamp: {
      bson::Timestamp ts = v.as_timestamp();
      begin_object().key("$timestamp").begin_object();
      key("t").integer(ts.seconds).key("i").integer(ts.increment).end_object();
      end_object();
      return;
    }
    case BsonType::kRegex: {
      bson::RegexView re = v.as_regex();
      begin_object().key("$regularExpression").begin_object();
      key("pattern").string(re.pattern).key("options").string(re.options).end_object();
      end_object();
      return;
    }
    case BsonType::kMinKey:
      begin_object().key("$minKey").integer(1).end_object();
      return;
    case BsonType::kMaxKey:
      begin_object().key("$maxKey").integer(1).end_object();
      return;
    case BsonType::kUndefined:
      begin_object().key("$undefined").boolean(true).end_object();
      return;
    case BsonType::kSymbol:
      begin_object().key("$symbol").string(v.as_string()).end_object();
      return;
    case BsonType::kCode:
      begin_object().key("$code").string(v.as_string()).end_object();
      return;
    default:
      // Code with scope and DBPointer: rare enough to take libbson's (spaced) rendering.
      raw(v.to_json());
      return;
  }
}

}  // namespace mongostore::exec
