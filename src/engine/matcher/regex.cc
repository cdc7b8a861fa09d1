// PCRE2-backed regular expressions with MongoDB's options.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "engine/matcher/regex.h"

#include <pcre2.h>

#include "mongostore/bson/document.h"
#include "mongostore/bson/utf8.h"
#include "mongostore/error.h"

namespace mongostore::engine::matcher_detail {

struct Regex::Code {
  pcre2_code* code = nullptr;
  ~Code() {
    if (code) pcre2_code_free(code);
  }
};

namespace {

// One small match-data block per thread: matching never allocates per document.
struct MatchData {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  ~MatchData() { pcre2_match_data_free(data); }
};

pcre2_match_data* thread_match_data() {
  thread_local MatchData md;
  return md.data;
}

}  // namespace

Regex::Regex(std::string_view pattern, std::string_view options)
    : pattern_(pattern), options_(options) {
  uint32_t flags = PCRE2_UTF;
  for (size_t i = 0; i < options.size(); ++i) {
    char c = options[i];
    switch (c) {
      case 'i':
        flags |= PCRE2_CASELESS;
        break;
      case 'm':
        flags |= PCRE2_MULTILINE;
        break;
      case 's':
        flags |= PCRE2_DOTALL;
        break;
      case 'x':
        flags |= PCRE2_EXTENDED;
        break;
      case 'u':
        break;  // always UTF-8
      default:
        // The whole character, not its first byte: the message must stay valid UTF-8.
        throw Error(ErrorCode::kBadValue, "invalid flag in regex options: " +
                                              bson::to_valid_utf8(bson::utf8_char_at(options, i)));
    }
  }
  if (pattern.find('\0') != std::string_view::npos) {
    throw Error(ErrorCode::kBadValue, "Regular expression cannot contain an embedded null byte");
  }
  int err = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                   flags, &err, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(err, buf, sizeof buf);
    throw Error(ErrorCode::kBadValue, std::string("Regular expression is invalid: ") +
                                          reinterpret_cast<const char*>(buf));
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // best effort; interpreted otherwise
  auto c = std::make_shared<Code>();
  c->code = code;
  code_ = std::move(c);
}

bool Regex::search(std::string_view subject) const {
  int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0,
                       0, thread_match_data(), nullptr);
  return rc >= 0;
}

std::optional<Regex::Match> Regex::match_from(std::string_view subject, size_t start) const {
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(),
                       start, 0, data, nullptr);
  std::optional<Match> out;
  if (rc > 0) {
    PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
    uint32_t groups = 0;
    pcre2_pattern_info(code_->code, PCRE2_INFO_CAPTURECOUNT, &groups);
    out.emplace();
    out->whole = {ovector[0], ovector[1]};
    for (uint32_t g = 1; g <= groups; ++g) {
      if (static_cast<int>(g) < rc && ovector[2 * g] != PCRE2_UNSET) {
        out->groups.emplace_back(std::make_pair(ovector[2 * g], ovector[2 * g + 1]));
      } else {
        out->groups.emplace_back(std::nullopt);
      }
    }
  }
  pcre2_match_data_free(data);
  return out;
}

bool Regex::matches_value(const bson::Value& v) const {
  switch (v.type()) {
    case bson::BsonType::kString:
    case bson::BsonType::kSymbol:
      return search(v.as_string());
    case bson::BsonType::kRegex: {
      bson::RegexView r = v.as_regex();
      return r.pattern == pattern_ && r.options == options_;
    }
    default:
      return false;
  }
}

}  // namespace mongostore::engine::matcher_detail
