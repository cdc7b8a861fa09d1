// Regex: a compiled PCRE2 pattern with MongoDB's option letters (i, m, s, x, u).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "mongostore/bson/value.h"

namespace mongostore::engine::matcher_detail {

class Regex {
 public:
  /// Compiles `pattern` with `options`; throws Error(BadValue) for an invalid pattern or an
  /// unknown option letter.
  Regex(std::string_view pattern, std::string_view options);

  /// True when `subject` contains a match.
  bool search(std::string_view subject) const;
  /// MongoDB's regex match of a value: strings and symbols are searched; a regex value
  /// matches when its pattern and options are identical.
  bool matches_value(const bson::Value& v) const;

  const std::string& pattern() const { return pattern_; }
  const std::string& options() const { return options_; }

 private:
  struct Code;
  std::string pattern_;
  std::string options_;
  std::shared_ptr<const Code> code_;
};

}  // namespace mongostore::engine::matcher_detail
