#include "records/optimade_lexer.h"

#include <array>
#include <cstdio>
#include <utility>

#include "mongostore/records/errors.h"

namespace mongostore::records::optimade {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}
// The grammar counts '_' as a lower-case letter.
bool is_lower(char c) {
  return (c >= 'a' && c <= 'z') || c == '_';
}

struct Keyword {
  std::string_view spelling;
  TokenKind kind;
};

constexpr std::array<Keyword, 17> kKeywords{{
    {"AND", TokenKind::kAnd},
    {"OR", TokenKind::kOr},
    {"NOT", TokenKind::kNot},
    {"IS", TokenKind::kIs},
    {"KNOWN", TokenKind::kKnown},
    {"UNKNOWN", TokenKind::kUnknown},
    {"CONTAINS", TokenKind::kContains},
    {"STARTS", TokenKind::kStarts},
    {"ENDS", TokenKind::kEnds},
    {"WITH", TokenKind::kWith},
    {"LENGTH", TokenKind::kLength},
    {"HAS", TokenKind::kHas},
    {"ALL", TokenKind::kAll},
    {"ANY", TokenKind::kAny},
    {"ONLY", TokenKind::kOnly},
    {"TRUE", TokenKind::kTrue},
    {"FALSE", TokenKind::kFalse},
}};

// A byte for an error message: the character if it is printable ASCII, its code otherwise.
std::string describe_byte(unsigned char c) {
  if (c >= 0x20 && c <= 0x7e) return std::string("'") + static_cast<char>(c) + "'";
  std::array<char, 16> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "byte 0x%02X", c);
  return buffer.data();
}

// A piece of the filter for an error message, cut so that a huge token cannot make a huge
// message.
std::string quote_excerpt(std::string_view text) {
  constexpr std::size_t kMax = 40;
  if (text.size() <= kMax) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kMax)) + "...'";
}

// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF) that starts at `s[0]` (a byte >= 0x80), or 0 when there is none.
std::size_t utf8_sequence_length(std::string_view s) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  auto continuation = [&](std::size_t i, unsigned char lo = 0x80, unsigned char hi = 0xbf) {
    return i < s.size() && byte(i) >= lo && byte(i) <= hi;
  };
  unsigned char b = byte(0);
  if (b >= 0xc2 && b <= 0xdf) return continuation(1) ? 2 : 0;
  if (b == 0xe0) return continuation(1, 0xa0, 0xbf) && continuation(2) ? 3 : 0;
  if ((b >= 0xe1 && b <= 0xec) || b == 0xee || b == 0xef) {
    return continuation(1) && continuation(2) ? 3 : 0;
  }
  if (b == 0xed) return continuation(1, 0x80, 0x9f) && continuation(2) ? 3 : 0;
  if (b == 0xf0) return continuation(1, 0x90, 0xbf) && continuation(2) && continuation(3) ? 4 : 0;
  if (b >= 0xf1 && b <= 0xf3) {
    return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
  }
  if (b == 0xf4) return continuation(1, 0x80, 0x8f) && continuation(2) && continuation(3) ? 4 : 0;
  return 0;
}

}  // namespace

std::string Token::describe() const {
  switch (kind) {
    case TokenKind::kEnd:
      return "the end of the filter";
    case TokenKind::kIdentifier:
      return "property name " + quote_excerpt(text);
    case TokenKind::kString:
      return "string " + quote_excerpt(text);
    case TokenKind::kNumber:
      return "number " + quote_excerpt(text);
    default:
      return quote_excerpt(text);
  }
}

const Token& Lexer::peek() {
  if (!has_peeked_) {
    peeked_ = scan();
    has_peeked_ = true;
  }
  return peeked_;
}

Token Lexer::next() {
  peek();
  has_peeked_ = false;
  return std::move(peeked_);
}

void Lexer::fail_at(std::size_t offset, std::string expected, std::string found) const {
  throw OptimadeFilterSyntaxError(static_cast<int64_t>(offset) + 1, std::move(expected),
                                  std::move(found));
}

void Lexer::skip_spaces() {
  while (pos_ < input_.size() && is_space(input_[pos_])) ++pos_;
}

Token Lexer::scan() {
  skip_spaces();
  Token token;
  token.offset = pos_;
  if (pos_ >= input_.size()) {
    token.kind = TokenKind::kEnd;
    return token;
  }
  char c = input_[pos_];
  auto single = [&](TokenKind kind, std::size_t length) {
    token.kind = kind;
    token.text = input_.substr(pos_, length);
    pos_ += length;
    return token;
  };
  bool next_is_eq = pos_ + 1 < input_.size() && input_[pos_ + 1] == '=';
  switch (c) {
    case '(':
      return single(TokenKind::kLeftParen, 1);
    case ')':
      return single(TokenKind::kRightParen, 1);
    case ',':
      return single(TokenKind::kComma, 1);
    case ':':
      return single(TokenKind::kColon, 1);
    case '=':
      return single(TokenKind::kEq, 1);
    case '<':
      return next_is_eq ? single(TokenKind::kLe, 2) : single(TokenKind::kLt, 1);
    case '>':
      return next_is_eq ? single(TokenKind::kGe, 2) : single(TokenKind::kGt, 1);
    case '!':
      if (next_is_eq) return single(TokenKind::kNe, 2);
      fail_at(pos_ + 1, "'=' after '!' (the operator is '!=')",
              pos_ + 1 < input_.size() ? describe_byte(static_cast<unsigned char>(input_[pos_ + 1]))
                                       : "the end of the filter");
    case '"':
      return scan_string();
    case '.':
      // A dot followed by a digit starts a number (`.5`); otherwise it separates the names of
      // a nested property.
      if (pos_ + 1 < input_.size() && is_digit(input_[pos_ + 1])) return scan_number();
      return single(TokenKind::kDot, 1);
    case '+':
    case '-':
      return scan_number();
    default:
      break;
  }
  if (is_digit(c)) return scan_number();
  if (is_lower(c) || is_upper(c)) return scan_word();
  fail_at(pos_,
          "a property name, a string, a number, a keyword, an operator, '(', ')', '.', ',' or ':'",
          describe_byte(static_cast<unsigned char>(c)));
}

Token Lexer::scan_word() {
  Token token;
  token.offset = pos_;
  if (is_lower(input_[pos_])) {
    std::size_t end = pos_ + 1;
    while (end < input_.size() && (is_lower(input_[end]) || is_digit(input_[end]))) ++end;
    token.kind = TokenKind::kIdentifier;
    token.text = input_.substr(pos_, end - pos_);
    pos_ = end;
    return token;
  }
  std::string_view rest = input_.substr(pos_);
  for (const Keyword& keyword : kKeywords) {
    if (rest.starts_with(keyword.spelling)) {
      token.kind = keyword.kind;
      token.text = rest.substr(0, keyword.spelling.size());
      pos_ += keyword.spelling.size();
      return token;
    }
  }
  // Not a keyword: say what the word is, as far as it goes.
  std::size_t end = pos_;
  while (end < input_.size() &&
         (is_upper(input_[end]) || is_lower(input_[end]) || is_digit(input_[end]))) {
    ++end;
  }
  fail_at(pos_,
          "a keyword (keywords are upper-case: AND, OR, NOT, IS, KNOWN, UNKNOWN, CONTAINS, "
          "STARTS, ENDS, WITH, LENGTH, HAS, ALL, ANY, ONLY, TRUE, FALSE) or a property name "
          "(lower-case letters, digits and '_')",
          quote_excerpt(input_.substr(pos_, end - pos_)));
}

Token Lexer::scan_string() {
  Token token;
  token.kind = TokenKind::kString;
  token.offset = pos_;
  std::size_t i = pos_ + 1;
  while (true) {
    if (i >= input_.size()) fail_at(i, "'\"' closing the string", "the end of the filter");
    unsigned char c = static_cast<unsigned char>(input_[i]);
    if (c == '"') break;
    if (c == '\\') {
      if (i + 1 >= input_.size()) {
        fail_at(i + 1, "'\"' or '\\' after a backslash in a string", "the end of the filter");
      }
      char escaped = input_[i + 1];
      if (escaped != '"' && escaped != '\\') {
        fail_at(i + 1,
                "'\"' or '\\' after a backslash in a string (the only escapes are \\\" and \\\\)",
                describe_byte(static_cast<unsigned char>(escaped)));
      }
      token.value.push_back(escaped);
      i += 2;
      continue;
    }
    if (c >= 0x80) {
      std::size_t length = utf8_sequence_length(input_.substr(i));
      if (length == 0) fail_at(i, "a well-formed UTF-8 character in a string", describe_byte(c));
      token.value.append(input_.substr(i, length));
      i += length;
      continue;
    }
    // The grammar's UnescapedChar: letters, digits, punctuators and the six whitespace
    // characters; no other control character, no DEL.
    if ((c < 0x20 && !is_space(static_cast<char>(c))) || c == 0x7f) {
      fail_at(i, "a printable character in a string (control characters must not appear)",
              describe_byte(c));
    }
    token.value.push_back(static_cast<char>(c));
    ++i;
  }
  token.text = input_.substr(pos_, i + 1 - pos_);
  pos_ = i + 1;
  return token;
}

Token Lexer::scan_number() {
  // Number = [Sign], (Digits, ['.', [Digits]] | '.', Digits), [Exponent]
  Token token;
  token.kind = TokenKind::kNumber;
  token.offset = pos_;
  std::size_t i = pos_;
  auto at = [&](std::size_t k) { return k < input_.size() ? input_[k] : '\0'; };
  if (at(i) == '+' || at(i) == '-') ++i;
  if (is_digit(at(i))) {
    while (is_digit(at(i))) ++i;
    if (at(i) == '.') {
      ++i;
      while (is_digit(at(i))) ++i;
    }
  } else if (at(i) == '.' && is_digit(at(i + 1))) {
    ++i;
    while (is_digit(at(i))) ++i;
  } else {
    fail_at(i, "digits or '.' and digits after the sign of a number",
            i < input_.size() ? describe_byte(static_cast<unsigned char>(at(i)))
                              : "the end of the filter");
  }
  // The exponent belongs to the number only when it is complete (`1e5`, `1E-5`); `1e` is the
  // number 1 followed by the property name `e`, as the grammar reads it.
  if (at(i) == 'e' || at(i) == 'E') {
    std::size_t k = i + 1;
    if (at(k) == '+' || at(k) == '-') ++k;
    if (is_digit(at(k))) {
      while (is_digit(at(k))) ++k;
      i = k;
    }
  }
  token.text = input_.substr(pos_, i - pos_);
  pos_ = i;
  return token;
}

}  // namespace mongostore::records::optimade
