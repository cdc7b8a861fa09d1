// The tokens of the OPTIMADE filter language (the "TOKENS" part of the specification's EBNF),
// read one at a time from the filter text.
//
// Whitespace (space, \t, \n, \r, \v, \f) between tokens is skipped; the grammar makes it
// optional everywhere, so tokens may touch (`a=1ANDb=2`). Keywords are recognised by their
// upper-case spelling; no keyword is a prefix of another, so the longest-match rule is the
// grammar's own reading. A lexical error throws OptimadeFilterSyntaxError at the column of the
// offending byte. Not thread-safe (one lexer per parse).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mongostore::records::optimade {

enum class TokenKind {
  kEnd,
  kIdentifier,
  kString,
  kNumber,
  kLeftParen,
  kRightParen,
  kDot,
  kComma,
  kColon,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  // Keywords.
  kAnd,
  kOr,
  kNot,
  kIs,
  kKnown,
  kUnknown,
  kContains,
  kStarts,
  kEnds,
  kWith,
  kLength,
  kHas,
  kAll,
  kAny,
  kOnly,
  kTrue,
  kFalse,
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::size_t offset = 0;  // byte offset of the token's first byte in the filter
  std::string_view text;   // the token as written (a string with its quotes and escapes)
  std::string value;       // a string token's value, escapes resolved

  /// The 1-based column of the token.
  int64_t column() const { return static_cast<int64_t>(offset) + 1; }
  /// The token for an error message: `'AND'`, `property name 'abc'`, `the end of the filter`.
  std::string describe() const;
};

class Lexer {
 public:
  explicit Lexer(std::string_view input) : input_(input) {}

  /// The next token, without consuming it.
  const Token& peek();
  /// Consumes and returns the next token.
  Token next();

 private:
  Token scan();
  void skip_spaces();
  Token scan_word();
  Token scan_string();
  Token scan_number();
  [[noreturn]] void fail_at(std::size_t offset, std::string expected, std::string found) const;

  std::string_view input_;
  std::size_t pos_ = 0;
  bool has_peeked_ = false;
  Token peeked_;
};

}  // namespace mongostore::records::optimade
