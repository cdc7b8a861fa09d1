// Regex: a compiled PCRE2 pattern with MongoDB's option letters (i, m, s, x, u).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mongostore/bson/value.h"

namespace mongostore::engine::matcher_detail {

class Regex {
 public:
  /// Compiles `pattern` with `options`; throws Error(BadValue) for an invalid pattern or an
  /// unknown option letter.
  Regex(std::string_view pattern, std::string_view options);

  /// True when `subject` contains a match.
  bool search(std::string_view subject) const;
  /// Byte offsets [begin, end) of a match and of each capture group.
  struct Match {
    std::pair<size_t, size_t> whole;
    /// One per group of the pattern; nullopt for a group that took no part in the match.
    std::vector<std::optional<std::pair<size_t, size_t>>> groups;
  };
  /// The first match starting at byte `start` or later, or nullopt ($regexFind and friends).
  std::optional<Match> match_from(std::string_view subject, size_t start) const;
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
