#include "exec/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "mongostore/bson/types.h"
#include "mongostore/bson/value.h"

namespace mongostore::exec {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool needs_escape(char c) {
  return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
}

void append_escaped(std::string& out, std::string_view s) {
  out += '"';
  // Runs of characters that need no escape go in with one append: the ~1 KB strings of a
  // context were a push_back per byte, the largest single cost of Execution::to_json.
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (!needs_escape(c)) continue;  // UTF-8 stays as is (pydantic does not escape it)
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += kHex[(c >> 4) & 0xf];
        out += kHex[c & 0xf];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
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

}  // namespace

std::string python_float_repr(double v) {
  // Shortest round-trip digits in scientific form ("1.2345e+17"), then laid out the way
  // CPython's float_repr does: positional when the exponent is in [-4, 16), else scientific.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.remove_prefix(1);
  }
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  if (exponent >= -4 && exponent < 16) {
    std::string out = sign;
    int point = exponent + 1;  // digits before the decimal point
    if (point <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-point), '0');
      out += digits;
    } else if (static_cast<size_t>(point) >= digits.size()) {
      out += digits;
      out.append(static_cast<size_t>(point) - digits.size(), '0');
      out += ".0";
    } else {
      out += digits.substr(0, point);
      out += '.';
      out += digits.substr(point);
    }
    return out;
  }
  std::string out = sign + digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char exp[16];
  std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out + exp;
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_member_.empty()) {
    if (has_member_.back()) out_ += ',';
    has_member_.back() = true;
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  has_member_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  has_member_.pop_back();
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  has_member_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  has_member_.pop_back();
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  append_escaped(out_, name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::null() { return raw("null"); }

JsonWriter& JsonWriter::boolean(bool v) { return raw(v ? "true" : "false"); }

JsonWriter& JsonWriter::string(std::string_view v) {
  before_value();
  append_escaped(out_, v);
  return *this;
}

JsonWriter& JsonWriter::optional_string(const std::optional<std::string>& v) {
  return v ? string(*v) : null();
}

JsonWriter& JsonWriter::integer(int64_t v) { return raw(std::to_string(v)); }

JsonWriter& JsonWriter::number(double v) {
  if (std::isnan(v)) return raw(R"({"$numberDouble":"NaN"})");
  if (std::isinf(v)) {
    return raw(v > 0 ? R"({"$numberDouble":"Infinity"})" : R"({"$numberDouble":"-Infinity"})");
  }
  return raw(python_float_repr(v));
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::document(bson::DocumentView doc) {
  begin_object();
  for (const bson::Element& e : doc) {
    key(e.key);
    value(e.value);
  }
  return end_object();
}

JsonWriter& JsonWriter::array(bson::DocumentView array) {
  begin_array();
  for (const bson::Element& e : array) value(e.value);
  return end_array();
}

JsonWriter& JsonWriter::value(const bson::Value& v) {
  using bson::BsonType;
  switch (v.type()) {
    case BsonType::kDouble: return number(v.as_double());
    case BsonType::kInt32: return integer(v.as_int32());
    case BsonType::kInt64: return integer(v.as_int64());
    case BsonType::kBool: return boolean(v.as_bool());
    case BsonType::kNull: return null();
    case BsonType::kString: return string(v.as_string());
    case BsonType::kDocument: return document(v.as_document());
    case BsonType::kArray: return array(v.as_array());
    case BsonType::kObjectId:
      begin_object().key("$oid").string(v.as_object_id().to_hex());
      return end_object();
    case BsonType::kDateTime:
      begin_object().key("$date").begin_object().key("$numberLong");
      string(std::to_string(v.as_datetime().millis)).end_object();
      return end_object();
    case BsonType::kDecimal128:
      begin_object().key("$numberDecimal").string(v.as_decimal128().to_string());
      return end_object();
    case BsonType::kBinary: {
      bson::BinaryView bin = v.as_binary();
      char subtype[3] = {kHex[bin.subtype >> 4], kHex[bin.subtype & 0xf], 0};
      begin_object().key("$binary").begin_object();
      key("base64").string(base64(bin.bytes)).key("subType").string(subtype);
      end_object();
      return end_object();
    }
    case BsonType::kTimestamp: {
      bson::Timestamp ts = v.as_timestamp();
      begin_object().key("$timestamp").begin_object();
      key("t").integer(ts.seconds).key("i").integer(ts.increment).end_object();
      return end_object();
    }
    case BsonType::kRegex: {
      bson::RegexView re = v.as_regex();
      begin_object().key("$regularExpression").begin_object();
      key("pattern").string(re.pattern).key("options").string(re.options).end_object();
      return end_object();
    }
    case BsonType::kMinKey: return begin_object().key("$minKey").integer(1).end_object();
    case BsonType::kMaxKey: return begin_object().key("$maxKey").integer(1).end_object();
    case BsonType::kUndefined: return begin_object().key("$undefined").boolean(true).end_object();
    case BsonType::kSymbol: return begin_object().key("$symbol").string(v.as_string()).end_object();
    case BsonType::kCode: return begin_object().key("$code").string(v.as_string()).end_object();
    default:
      // Code with scope and DBPointer: rare enough to take libbson's (spaced) rendering.
      return raw(v.to_json());
  }
}

}  // namespace mongostore::exec
