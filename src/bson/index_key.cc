#include "mongostore/bson/index_key.h"

#include "bson/exact_number.h"
#include "bson/raw.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/document.h"

namespace mongostore::bson {
namespace {

void put_be32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void put_be64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

// Escaped, terminated bytes: NUL becomes 00 FF, the end is 00 00, so a shorter string that is
// a prefix of a longer one sorts first and the encoding is prefix-free.
void put_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    out.push_back(c);
    if (c == '\0') out.push_back(static_cast<char>(0xFF));
  }
  out.push_back('\0');
  out.push_back('\0');
}

// One exact number (see ExactNumber), appended with one resize and no allocation of its own.
void put_exact(std::string& out, ExactNumber::Class cls, int32_t exponent,
               std::string_view digits) {
  if (cls != ExactNumber::kPositive && cls != ExactNumber::kNegative) {
    out.push_back(static_cast<char>(cls));
    return;
  }
  // Class, two exponent bytes, then the digits as nibbles (digit + 1) ended by a 0 nibble and
  // padded with 0 to a whole byte: prefix-free and in magnitude order.
  size_t digit_bytes = (digits.size() + 2) / 2;
  size_t at = out.size();
  out.resize(at + 3 + digit_bytes);
  char* p = out.data() + at;
  // A larger magnitude is larger for positives and smaller for negatives: negatives store
  // the complement of the magnitude's bytes (every nibble complemented).
  uint8_t flip = cls == ExactNumber::kNegative ? 0xFF : 0x00;
  uint16_t biased = static_cast<uint16_t>(exponent + 0x8000);
  p[0] = static_cast<char>(cls);
  p[1] = static_cast<char>((biased >> 8) ^ flip);
  p[2] = static_cast<char>((biased & 0xFF) ^ flip);
  p += 3;
  size_t i = 0;
  for (; i + 1 < digits.size(); i += 2) {
    uint8_t hi = static_cast<uint8_t>(digits[i] - '0' + 1);
    uint8_t lo = static_cast<uint8_t>(digits[i + 1] - '0' + 1);
    *p++ = static_cast<char>(((hi << 4) | lo) ^ flip);
  }
  // The last byte: the odd digit and the end nibble, or the end nibble and padding.
  uint8_t hi = i < digits.size() ? static_cast<uint8_t>(digits[i] - '0' + 1) : 0;
  *p = static_cast<char>((hi << 4) ^ flip);
}

void put_number(std::string& out, const Value& v) {
  // Every number but a double with a long exact expansion fits the fixed buffer.
  SmallExactNumber small;
  if (small_exact_of(v, small)) {
    put_exact(out, small.cls, small.exponent, small.digit_view());
    return;
  }
  ExactNumber n = ExactNumber::of(v);
  put_exact(out, n.cls, n.exponent, n.digits);
}

void put_body(std::string& out, const Value& v);

void put_document_body(std::string& out, DocumentView d, bool with_names) {
  for (const Element& e : d) {
    out.push_back(static_cast<char>(type_bracket(e.value.type())));
    if (with_names) put_escaped(out, e.key);
    put_body(out, e.value);
  }
  out.push_back('\0');
}

void put_body(std::string& out, const Value& v) {
  switch (v.type()) {
    case BsonType::kEndOfDocument:
    case BsonType::kUndefined:
    case BsonType::kNull:
    case BsonType::kMinKey:
    case BsonType::kMaxKey:
      return;
    case BsonType::kDouble:
    case BsonType::kInt32:
    case BsonType::kInt64:
    case BsonType::kDecimal128:
      put_number(out, v);
      return;
    case BsonType::kString:
    case BsonType::kSymbol:
    case BsonType::kCode:
      put_escaped(out, v.as_string());
      return;
    case BsonType::kDocument:
      put_document_body(out, v.as_document(), true);
      return;
    case BsonType::kArray:
      put_document_body(out, v.as_array(), false);
      return;
    case BsonType::kBinary: {
      uint32_t len = raw::read_u32(v.data());
      put_be32(out, len);
      out.append(reinterpret_cast<const char*>(v.data() + 4), len + 1);  // subtype + bytes
      return;
    }
    case BsonType::kObjectId:
      out.append(reinterpret_cast<const char*>(v.data()), 12);
      return;
    case BsonType::kBool:
      out.push_back(v.data()[0] != 0 ? 1 : 0);
      return;
    case BsonType::kDateTime:
      put_be64(out, static_cast<uint64_t>(raw::read_i64(v.data())) ^ (uint64_t(1) << 63));
      return;
    case BsonType::kTimestamp:
      put_be64(out, raw::read_u64(v.data()));
      return;
    case BsonType::kRegex: {
      RegexView r = v.as_regex();
      put_escaped(out, r.pattern);
      put_escaped(out, r.options);
      return;
    }
    case BsonType::kDbPointer:
      put_be32(out, v.size());
      out.append(reinterpret_cast<const char*>(v.data()), v.size());
      return;
    case BsonType::kCodeWithScope:
      put_escaped(out, v.code_with_scope_code());
      put_document_body(out, v.code_with_scope_scope(), true);
      return;
  }
}

}  // namespace

void append_index_key(std::string& out, const Value& v, bool descending) {
  size_t start = out.size();
  out.push_back(static_cast<char>(type_bracket(v.type())));
  put_body(out, v);
  if (descending) {
    for (size_t i = start; i < out.size(); ++i) out[i] = static_cast<char>(~out[i]);
  }
}

}  // namespace mongostore::bson
