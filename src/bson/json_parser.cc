#include "bson/json_parser.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <system_error>

#include "mongostore/bson/builder.h"

namespace mongostore::bson {
namespace {

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The length of the well-formed UTF-8 sequence (RFC 3629: shortest form, no surrogates, at most
// U+10FFFF) of two to four bytes starting at `p`, or 0. libbson's bson_utf8_validate accepts
// every such sequence.
size_t utf8_sequence(const unsigned char* p, const unsigned char* end) {
  const unsigned char c = p[0];
  auto cont = [&](size_t i, unsigned char lo, unsigned char hi) {
    return p + i < end && p[i] >= lo && p[i] <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(1, 0x80, 0xBF) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned char hi = c == 0xED ? 0x9F : 0xBF;
    return cont(1, lo, hi) && cont(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;
    return cont(1, lo, hi) && cont(2, 0x80, 0xBF) && cont(3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

void put_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// One pass over the text, writing into a DocumentBuilder. Every method returns false to decline;
// the builder's partial output is then dropped by the caller.
class PlainJsonParser {
 public:
  explicit PlainJsonParser(std::string_view json)
      : p_(json.data()), end_(json.data() + json.size()) {}

  std::optional<Document> run() {
    builder_.reserve(static_cast<size_t>(end_ - p_) + 16);
    skip_ws();
    if (p_ == end_ || *p_ != '{') return std::nullopt;
    ++p_;
    // One entry per open container: whether it is an array, and the next array index.
    std::array<bool, kMaxPlainJsonDepth> is_array{};
    std::array<uint32_t, kMaxPlainJsonDepth> next_index{};
    size_t depth = 1;
    bool first = true;  // no member read yet in the innermost container
    char index_key[16];
    while (true) {
      skip_ws();
      if (p_ == end_) return std::nullopt;
      const bool in_array = is_array[depth - 1];
      // The end of an empty container.
      if (first && *p_ == (in_array ? ']' : '}')) {
        ++p_;
        close_level(depth);
        if (depth == 0) break;
        if (!after_value(depth, is_array)) return std::nullopt;
        if (depth == 0) break;
        first = false;
        continue;
      }
      std::string_view key;
      if (in_array) {
        auto [e, ec] =
            std::to_chars(index_key, index_key + sizeof index_key, next_index[depth - 1]++);
        (void)ec;
        key = std::string_view(index_key, static_cast<size_t>(e - index_key));
      } else {
        if (*p_ != '"') return std::nullopt;
        ++p_;
        if (!read_string(key_scratch_, &key)) return std::nullopt;
        // '$' may start extended JSON; NUL libbson refuses in keys (and BSON cannot hold).
        if (!key.empty() && key[0] == '$') return std::nullopt;
        if (key.find('\0') != std::string_view::npos) return std::nullopt;
        skip_ws();
        if (p_ == end_ || *p_ != ':') return std::nullopt;
        ++p_;
        skip_ws();
        if (p_ == end_) return std::nullopt;
      }
      const char c = *p_;
      if (c == '{' || c == '[') {
        if (depth >= kMaxPlainJsonDepth) return std::nullopt;
        ++p_;
        if (c == '{') {
          builder_.open_document(key);
        } else {
          builder_.open_array(key);
        }
        is_array[depth] = c == '[';
        next_index[depth] = 0;
        ++depth;
        first = true;
        continue;
      }
      if (!read_scalar(key)) return std::nullopt;
      if (!after_value(depth, is_array)) return std::nullopt;
      if (depth == 0) break;
      first = false;
    }
    skip_ws();
    if (p_ != end_) return std::nullopt;
    return builder_.finish();
  }

 private:
  void skip_ws() {
    while (p_ != end_ && is_ws(*p_)) ++p_;
  }

  // Closes the innermost container (its closing bracket already consumed).
  // (The top level is closed by finish.)
  void close_level(size_t& depth) {
    --depth;
    if (depth > 0) builder_.close();
  }

  // After a value: a comma (another member follows) or the closing brackets of as many levels
  // as end here. On return with depth > 0 the next member is due.
  bool after_value(size_t& depth, const std::array<bool, kMaxPlainJsonDepth>& is_array) {
    while (true) {
      skip_ws();
      if (p_ == end_) return false;
      if (*p_ == ',') {
        ++p_;
        return true;
      }
      if (*p_ != (is_array[depth - 1] ? ']' : '}')) return false;
      ++p_;
      close_level(depth);
      if (depth == 0) return true;
    }
  }

  // A string whose opening quote is consumed: into `*out`, a view of the input when it holds no
  // escape, else of `scratch`.
  bool read_string(std::string& scratch, std::string_view* out) {
    const char* start = p_;
    // The run without escapes, checked as it goes.
    while (true) {
      if (p_ == end_) return false;
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        *out = std::string_view(start, static_cast<size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c == '\\') break;
      if (!plain_byte(c)) return false;
    }
    scratch.assign(start, static_cast<size_t>(p_ - start));
    while (true) {
      if (p_ == end_) return false;
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        *out = scratch;
        return true;
      }
      if (c != '\\') {
        const char* from = p_;
        if (!plain_byte(c)) return false;
        scratch.append(from, static_cast<size_t>(p_ - from));
        continue;
      }
      if (end_ - p_ < 2) return false;
      const char e = p_[1];
      p_ += 2;
      switch (e) {
        case '"':
          scratch.push_back('"');
          break;
        case '\\':
          scratch.push_back('\\');
          break;
        case '/':
          scratch.push_back('/');
          break;
        case 'b':
          scratch.push_back('\b');
          break;
        case 'f':
          scratch.push_back('\f');
          break;
        case 'n':
          scratch.push_back('\n');
          break;
        case 'r':
          scratch.push_back('\r');
          break;
        case 't':
          scratch.push_back('\t');
          break;
        case 'u': {
          int32_t unit = read_hex4();
          if (unit < 0) return false;
          uint32_t cp = static_cast<uint32_t>(unit);
          if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a lone low surrogate
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            // A high surrogate joins only the low one right after it; libbson's handling of
            // anything else (an error, or a pair split by other escapes) is left to libbson.
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
            p_ += 2;
            int32_t low = read_hex4();
            if (low < 0xDC00 || low > 0xDFFF) return false;
            cp = 0x10000 + ((cp & 0x3FF) << 10) + (static_cast<uint32_t>(low) & 0x3FF);
          }
          put_utf8(scratch, cp);
          break;
        }
        default:
          return false;
      }
    }
  }

  // Steps over one unescaped character of a string: a printable ASCII byte or a whole valid
  // UTF-8 sequence. Control bytes and invalid UTF-8 are declined.
  bool plain_byte(unsigned char c) {
    if (c < 0x20) return false;
    if (c < 0x80) {
      ++p_;
      return true;
    }
    size_t n = utf8_sequence(reinterpret_cast<const unsigned char*>(p_),
                             reinterpret_cast<const unsigned char*>(end_));
    if (n == 0) return false;
    p_ += n;
    return true;
  }

  int32_t read_hex4() {
    if (end_ - p_ < 4) return -1;
    int32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      int d = hex_value(p_[i]);
      if (d < 0) return -1;
      v = (v << 4) | d;
    }
    p_ += 4;
    return v;
  }

  bool read_literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  bool read_scalar(std::string_view key) {
    switch (*p_) {
      case '"': {
        ++p_;
        std::string_view s;
        if (!read_string(value_scratch_, &s)) return false;
        builder_.append(key, s);
        return true;
      }
      case 't':
        if (!read_literal("true")) return false;
        builder_.append(key, true);
        return true;
      case 'f':
        if (!read_literal("false")) return false;
        builder_.append(key, false);
        return true;
      case 'n':
        if (!read_literal("null")) return false;
        builder_.append(key, Null{});
        return true;
      default:
        return read_number(key);
    }
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, strictly.
  bool read_number(std::string_view key) {
    const char* start = p_;
    const bool negative = p_ != end_ && *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || !is_digit(*p_)) return false;
    const char* digits = p_;
    if (*p_ == '0') {
      ++p_;
      if (p_ != end_ && is_digit(*p_)) return false;  // a leading zero
    } else {
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    const size_t ndigits = static_cast<size_t>(p_ - digits);
    bool integral = true;
    if (p_ != end_ && *p_ == '.') {
      integral = false;
      ++p_;
      if (p_ == end_ || !is_digit(*p_)) return false;
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !is_digit(*p_)) return false;
      while (p_ != end_ && is_digit(*p_)) ++p_;
    }
    if (integral) {
      // libbson's tokenizer accumulates the digits in a uint64_t that silently wraps; past 19
      // digits (or int64) libbson's answer is its own.
      if (ndigits > 19) return false;
      uint64_t v = 0;
      for (const char* d = digits; d != p_; ++d) v = v * 10 + static_cast<uint64_t>(*d - '0');
      constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      constexpr uint64_t kInt32Max = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());
      if (!negative) {
        if (v > kInt64Max) return false;
        if (v <= kInt32Max) {
          builder_.append(key, static_cast<int32_t>(v));
        } else {
          builder_.append(key, static_cast<int64_t>(v));
        }
      } else {
        if (v > kInt64Max + 1) return false;
        // "-0" comes out of libbson's tokenizer as unsigned zero: int32 0, without a sign.
        if (v <= kInt32Max + 1) {
          builder_.append(key, static_cast<int32_t>(-static_cast<int64_t>(v)));
        } else {
          builder_.append(key, static_cast<int64_t>(0 - v));
        }
      }
      return true;
    }
    double d = 0;
    auto [ptr, ec] = std::from_chars(start, p_, d);
    // Overflow libbson refuses, and underflow it accepts as strtod rounds it: both left to it.
    if (ec != std::errc() || ptr != p_ || !std::isfinite(d)) return false;
    builder_.append(key, d);
    return true;
  }

  const char* p_;
  const char* end_;
  DocumentBuilder builder_;
  std::string key_scratch_;
  std::string value_scratch_;
};

}  // namespace

std::optional<Document> parse_plain_json(std::string_view json) {
  if (json.size() >= kMaxPlainJsonBytes) return std::nullopt;
  return PlainJsonParser(json).run();
}

}  // namespace mongostore::bson
