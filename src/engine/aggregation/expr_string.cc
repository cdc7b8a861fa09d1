// String expressions: $concat $substrCP $substrBytes ($substr) $toLower $toUpper $split
// $strLenCP $strcasecmp $trim $ltrim $rtrim $regexMatch $regexFind $regexFindAll $replaceOne
// $replaceAll $indexOfCP. Code points are UTF-8 sequences.
#include <cctype>

#include "engine/aggregation/internal.h"
#include "engine/matcher/regex.h"
#include "mongostore/bson/utf8.h"

namespace mongostore::engine::aggregation_detail {

namespace {

bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Byte offsets of each code point start, plus the end.
std::vector<size_t> code_points(std::string_view s) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!continuation(static_cast<unsigned char>(s[i]))) out.push_back(i);
  }
  out.push_back(s.size());
  return out;
}

OwnedValue op_concat(std::string_view, std::vector<OwnedValue>& a) {
  std::string out;
  for (const OwnedValue& o : a) {
    Value v = o.view();
    if (nullish(v)) return null_value();
    if (v.type() != BsonType::kString) {
      fail(16702, "$concat only supports strings, not " + type_name(v));
    }
    check_expression_bytes("$concat", out.size() + v.as_string().size());
    out += v.as_string();
  }
  return make_value(out);
}

// $toLower/$toUpper coerce: null -> "", numbers and dates to their string form.
std::string coerce_to_string(std::string_view op, const Value& v) {
  if (nullish(v)) return "";
  switch (v.type()) {
    case BsonType::kString:
    case BsonType::kSymbol:
      return std::string(v.as_string());
    case BsonType::kInt32:
    case BsonType::kInt64:
      return std::to_string(int_value(v));
    case BsonType::kDouble:
    case BsonType::kDecimal128:
      return v.to_json();
    default:
      fail(16007, "can't convert from BSON type " + type_name(v) + " to String");
  }
  (void)op;
}

EagerFn case_fn(bool upper) {
  return [upper](std::string_view name, std::vector<OwnedValue>& a) -> OwnedValue {
    std::string s = coerce_to_string(name, a[0].view());
    for (char& c : s) {
      unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x80) c = static_cast<char>(upper ? std::toupper(u) : std::tolower(u));
    }
    return make_value(s);
  };
}

OwnedValue op_strlen(std::string_view, std::vector<OwnedValue>& a) {
  Value v = a[0].view();
  if (v.type() != BsonType::kString) {
    fail(34471, "$strLenCP requires a string argument, found: " + type_name(v));
  }
  return make_value(static_cast<int32_t>(code_points(v.as_string()).size() - 1));
}

OwnedValue op_substr_cp(std::string_view, std::vector<OwnedValue>& a) {
  Value s = a[0].view();
  Value i = a[1].view();
  Value n = a[2].view();
  std::string str = nullish(s) ? std::string() : coerce_to_string("$substrCP", s);
  if (!i.is_number()) {
    fail(34450,
         "$substrCP: starting index must be a numeric type (is BSON type " + type_name(i) + ")");
  }
  if (!n.is_number()) {
    fail(34452, "$substrCP: length must be a numeric type (is BSON type " + type_name(n) + ")");
  }
  int32_t start = 0, len = 0;
  if (!to_int32_exact(i, &start)) {
    fail(34451, "$substrCP: starting index cannot be represented as a 32-bit integral value: " +
                    render(i));
  }
  if (!to_int32_exact(n, &len)) {
    fail(34453, "$substrCP: length cannot be represented as a 32-bit integral value: " + render(n));
  }
  if (start < 0)
    fail(34455,
         "$substrCP: starting index must be non-negative (got: " + std::to_string(start) + ")");
  if (len < 0) fail(34454, "$substrCP: length must be a nonnegative integer.");
  std::vector<size_t> cp = code_points(str);
  size_t count = cp.size() - 1;
  size_t b = std::min<size_t>(static_cast<size_t>(start), count);
  size_t e = std::min<size_t>(b + static_cast<size_t>(len), count);
  return make_value(str.substr(cp[b], cp[e] - cp[b]));
}

OwnedValue op_split(std::string_view, std::vector<OwnedValue>& a) {
  Value s = a[0].view();
  Value d = a[1].view();
  if (nullish(s) || nullish(d)) return null_value();
  if (s.type() != BsonType::kString) {
    fail(40085,
         "$split requires an expression that evaluates to a string as a first argument, "
         "found: " +
             type_name(s));
  }
  if (d.type() != BsonType::kString) {
    fail(40086,
         "$split requires an expression that evaluates to a string as a second argument, "
         "found: " +
             type_name(d));
  }
  std::string_view str = s.as_string();
  std::string_view sep = d.as_string();
  if (sep.empty()) fail(40087, "$split requires a non-empty separator");
  bson::DocumentBuilder b;
  b.open_array("");
  size_t pos = 0;
  while (true) {
    size_t f = str.find(sep, pos);
    if (f == std::string_view::npos) {
      b.push(str.substr(pos));
      break;
    }
    b.push(str.substr(pos, f - pos));
    pos = f + sep.size();
  }
  b.close();
  Document doc = b.finish();
  return OwnedValue(doc.get(""));
}

OwnedValue op_index_of_cp(std::string_view, std::vector<OwnedValue>& a) {
  Value s = a[0].view();
  if (nullish(s)) return null_value();
  if (s.type() != BsonType::kString) {
    fail(40093, "$indexOfCP requires a string as the first argument, found: " + type_name(s));
  }
  Value t = a[1].view();
  if (t.type() != BsonType::kString) {
    fail(40094, "$indexOfCP requires a string as the second argument, found: " + type_name(t));
  }
  std::vector<size_t> cp = code_points(s.as_string());
  int64_t count = static_cast<int64_t>(cp.size()) - 1;
  int64_t start = 0;
  int64_t end = count;
  for (size_t k = 2; k < a.size(); ++k) {
    int32_t v = 0;
    if (!to_int32_exact(a[k].view(), &v)) {
      fail(40096, std::string("$indexOfCP requires an integral ") +
                      (k == 2 ? "starting" : "ending") +
                      " index, found a value of type: " + type_name(a[k].view()));
    }
    if (v < 0) {
      fail(40097, std::string("$indexOfCP requires a nonnegative ") +
                      (k == 2 ? "start" : "ending") + " index, found: " + std::to_string(v));
    }
    if (k == 2) {
      start = v;
    } else {
      end = std::min<int64_t>(end, v);
    }
  }
  std::string_view str = s.as_string();
  std::string_view needle = t.as_string();
  for (int64_t i = start; i <= end && i <= count; ++i) {
    size_t byte = cp[static_cast<size_t>(i)];
    if (needle.empty()) return make_value(static_cast<int32_t>(i));
    if (i == end) break;
    if (str.substr(byte, needle.size()) == needle) {
      // The match must end within [start, end).
      size_t end_byte = cp[static_cast<size_t>(end)];
      if (byte + needle.size() <= end_byte) return make_value(static_cast<int32_t>(i));
    }
  }
  return make_value(int32_t{-1});
}

bool is_ws(std::string_view s, size_t i, size_t* len) {
  static const char* kSpaces[] = {" ",
                                  "\t",
                                  "\n",
                                  "\v",
                                  "\f",
                                  "\r",
                                  "\0",
                                  "\xC2\xA0",
                                  "\xE2\x80\x80",
                                  "\xE2\x80\x81",
                                  "\xE2\x80\x82",
                                  "\xE2\x80\x83",
                                  "\xE2\x80\x84",
                                  "\xE2\x80\x85",
                                  "\xE2\x80\x86",
                                  "\xE2\x80\x87",
                                  "\xE2\x80\x88",
                                  "\xE2\x80\x89",
                                  "\xE2\x80\x8A"};
  for (const char* sp : kSpaces) {
    std::string_view w = *sp ? std::string_view(sp) : std::string_view("\0", 1);
    if (s.substr(i, w.size()) == w) {
      *len = w.size();
      return true;
    }
  }
  return false;
}

class TrimNode : public ExprNode {
 public:
  TrimNode(std::string name, bool left, bool right, ExprPtr input, ExprPtr chars)
      : name_(std::move(name)),
        left_(left),
        right_(right),
        input_(std::move(input)),
        chars_(std::move(chars)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue in = input_->eval(ctx);
    if (nullish(in.view())) return null_value();
    if (in.view().type() != BsonType::kString) {
      fail(50699, name_ + " requires its input to be a string, got " + render(in.view()) +
                      " (of type " + type_name(in.view()) + ") instead.");
    }
    std::string_view s = in.view().as_string();
    std::vector<std::string> set;
    bool custom = false;
    if (chars_) {
      OwnedValue c = chars_->eval(ctx);
      if (nullish(c.view())) return null_value();
      if (c.view().type() != BsonType::kString) {
        fail(50700, name_ + " requires 'chars' to be a string, got " + render(c.view()) +
                        " (of type " + type_name(c.view()) + ") instead.");
      }
      custom = true;
      std::string_view cs = c.view().as_string();
      std::vector<size_t> cp = code_points(cs);
      for (size_t i = 0; i + 1 < cp.size(); ++i) {
        set.emplace_back(cs.substr(cp[i], cp[i + 1] - cp[i]));
      }
    }
    auto match_at = [&](size_t i, size_t* len) {
      if (!custom) return is_ws(s, i, len);
      for (const std::string& c : set) {
        if (s.substr(i, c.size()) == c) {
          *len = c.size();
          return true;
        }
      }
      return false;
    };
    std::vector<size_t> cp = code_points(s);
    size_t b = 0;
    size_t e = cp.size() - 1;
    size_t len = 0;
    if (left_) {
      while (b < e && match_at(cp[b], &len) && len == cp[b + 1] - cp[b]) ++b;
    }
    if (right_) {
      while (e > b && match_at(cp[e - 1], &len) && len == cp[e] - cp[e - 1]) --e;
    }
    return make_value(s.substr(cp[b], cp[e] - cp[b]));
  }

 private:
  std::string name_;
  bool left_, right_;
  ExprPtr input_, chars_;
};

ExprPtr parse_trim(std::string_view name, const Value& args) {
  std::string op(name);
  if (!args.is_document()) {
    fail(50696, op + " only supports an object as an argument, found: " + type_name(args));
  }
  ExprPtr input, chars;
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "input") {
      input = parse_expression(e.value);
    } else if (e.key == "chars") {
      chars = parse_expression(e.value);
    } else {
      fail(50694, op + " found an unknown argument: " + std::string(e.key));
    }
  }
  if (!input) fail(50695, op + " requires an 'input' field");
  return std::make_shared<TrimNode>(op, name != "$rtrim", name != "$ltrim", input, chars);
}

// The pattern of a $regex* operator from its evaluated `regex` and `options`, checked as
// mongod checks them; nullopt when the regex is null or missing.
std::optional<matcher_detail::Regex> regex_of(const std::string& op, const Value& regex,
                                              const Value& options_value) {
  if (!nullish(regex) && regex.type() != BsonType::kString && regex.type() != BsonType::kRegex) {
    fail(51105, op + " needs 'regex' to be of type string or regex");
  }
  if (!nullish(options_value) && options_value.type() != BsonType::kString) {
    fail(51106, op + " needs 'options' to be of type string");
  }
  std::string pattern, options;
  if (!nullish(options_value)) options = std::string(options_value.as_string());
  if (regex.type() == BsonType::kRegex) {
    bson::RegexView rv = regex.as_regex();
    if (!rv.options.empty() && !nullish(options_value)) {
      fail(51107, op + ": found regex option(s) specified in both 'regex' and 'option' fields");
    }
    pattern = std::string(rv.pattern);
    if (!rv.options.empty()) options = std::string(rv.options);
  } else if (regex.type() == BsonType::kString) {
    pattern = std::string(regex.as_string());
  }
  if (pattern.find('\0') != std::string::npos) {
    fail(51109, op + ": regular expression cannot contain an embedded null byte");
  }
  if (options.find('\0') != std::string::npos) {
    fail(51110, op + ": regular expression options cannot contain an embedded null byte");
  }
  if (nullish(regex)) return std::nullopt;
  for (size_t i = 0; i < options.size(); ++i) {
    if (std::string_view("imsxu").find(options[i]) == std::string_view::npos) {
      // The whole character, not its first byte: the message must stay valid UTF-8.
      fail(51108, op + " invalid flag in regex options: " +
                      bson::to_valid_utf8(bson::utf8_char_at(options, i)));
    }
  }
  try {
    return matcher_detail::Regex(pattern, options);
  } catch (const Error& e) {
    std::string why = e.what();
    constexpr std::string_view kPrefix = "Regular expression is invalid: ";
    if (why.rfind(kPrefix, 0) == 0) why = why.substr(kPrefix.size());
    fail(51111, "Invalid Regex in " + op + ": " + why);
  }
}

// Code points in the bytes [from, to) of a UTF-8 string.
int32_t code_points_between(std::string_view s, size_t from, size_t to) {
  int32_t n = 0;
  for (size_t i = from; i < to; ++i) n += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  return n;
}

// The length in bytes of the UTF-8 character that starts with `lead`.
size_t utf8_length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// {match, idx, captures} of one $regexFind / $regexFindAll match.
OwnedValue match_document(std::string_view input, const matcher_detail::Regex::Match& m,
                          int32_t idx) {
  bson::DocumentBuilder b;
  b.append("match", input.substr(m.whole.first, m.whole.second - m.whole.first));
  b.append("idx", idx);
  b.open_array("captures");
  for (const auto& g : m.groups) {
    if (g) {
      b.push(input.substr(g->first, g->second - g->first));
    } else {
      b.push(bson::Null{});
    }
  }
  b.close();
  Document d = b.finish();
  return make_document_value(d.view());
}

// $regexMatch (a boolean), $regexFind (the first match or null) and $regexFindAll (every
// non-overlapping match; an empty match moves on by one character).
class RegexNode : public ExprNode {
 public:
  enum class Mode { kMatch, kFind, kFindAll };
  RegexNode(std::string op, Mode mode, ExprPtr input, ExprPtr regex, ExprPtr options)
      : op_(std::move(op)),
        mode_(mode),
        input_(std::move(input)),
        regex_(std::move(regex)),
        options_(std::move(options)) {
    // A constant pattern (the usual case) is compiled once, as mongod precompiles it, rather
    // than once per document.
    if (regex_->is_constant() && (!options_ || options_->is_constant())) {
      Variables none;
      Document empty;
      EvalContext ctx{empty, &none};
      OwnedValue r = regex_->eval(ctx);
      OwnedValue o = options_ ? options_->eval(ctx) : OwnedValue();
      precompiled_ = regex_of(op_, r.view(), o.view());
      constant_ = true;
    }
  }
  OwnedValue eval(EvalContext& ctx) const override {
    std::optional<matcher_detail::Regex> compiled;
    const std::optional<matcher_detail::Regex>* regex = &precompiled_;
    if (!constant_) {
      OwnedValue r = regex_->eval(ctx);
      OwnedValue o = options_ ? options_->eval(ctx) : OwnedValue();
      compiled = regex_of(op_, r.view(), o.view());
      regex = &compiled;
    }
    OwnedValue in = input_->eval(ctx);
    if (!nullish(in.view()) && in.view().type() != BsonType::kString) {
      fail(51104, op_ + " needs 'input' to be of type string");
    }
    bool none = nullish(in.view()) || !*regex;
    switch (mode_) {
      case Mode::kMatch:
        return make_value(!none && (*regex)->search(in.view().as_string()));
      case Mode::kFind: {
        if (none) return null_value();
        std::string_view input = in.view().as_string();
        auto m = (*regex)->match_from(input, 0);
        if (!m) return null_value();
        return match_document(input, *m, code_points_between(input, 0, m->whole.first));
      }
      case Mode::kFindAll:
        break;
    }
    std::vector<OwnedValue> matches;
    if (!none) {
      std::string_view input = in.view().as_string();
      size_t from = 0;
      do {  // as mongod's loop: an empty input is searched once, the end of a longer one not
        auto m = (*regex)->match_from(input, from);
        if (!m) break;
        matches.push_back(match_document(input, *m, code_points_between(input, 0, m->whole.first)));
        if (m->whole.second > m->whole.first) {
          from = m->whole.second;
        } else if (m->whole.first < input.size()) {
          from = m->whole.first + utf8_length(static_cast<unsigned char>(input[m->whole.first]));
        } else {
          break;
        }
      } while (from < input.size());
    }
    return make_array_value(matches);
  }

 private:
  std::string op_;
  Mode mode_;
  ExprPtr input_, regex_, options_;
  bool constant_ = false;
  std::optional<matcher_detail::Regex> precompiled_;
};

OperatorParser regex_parser(RegexNode::Mode mode) {
  return [mode](std::string_view name, const Value& args) -> ExprPtr {
    std::string op(name);
    if (!args.is_document()) {
      fail(51103, op + " expects an object of named arguments but found: " + type_name(args));
    }
    ExprPtr input, regex, options;
    for (const bson::Element& e : args.as_document()) {
      if (e.key == "input") {
        input = parse_expression(e.value);
      } else if (e.key == "regex") {
        regex = parse_expression(e.value);
      } else if (e.key == "options") {
        options = parse_expression(e.value);
      } else {
        fail(31024, op + " found an unknown argument: " + std::string(e.key));
      }
    }
    if (!input) fail(31022, op + " requires 'input' parameter");
    if (!regex) fail(31023, op + " requires 'regex' parameter");
    return std::make_shared<RegexNode>(op, mode, input, regex, options);
  };
}

// $replaceOne / $replaceAll: {input, find, replacement}, all strings; any nullish gives null.
class ReplaceNode : public ExprNode {
 public:
  ReplaceNode(std::string op, bool all, ExprPtr input, ExprPtr find, ExprPtr replacement)
      : op_(std::move(op)),
        all_(all),
        input_(std::move(input)),
        find_(std::move(find)),
        replacement_(std::move(replacement)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue input = input_->eval(ctx), find = find_->eval(ctx),
               replacement = replacement_->eval(ctx);
    auto check = [&](const OwnedValue& v, int code, const char* what) {
      if (!nullish(v.view()) && v.view().type() != BsonType::kString) {
        fail(code, op_ + " requires that '" + what + "' be a string, found: " + render(v.view()));
      }
    };
    check(input, 51746, "input");
    check(find, 51745, "find");
    check(replacement, 51744, "replacement");
    if (nullish(input.view()) || nullish(find.view()) || nullish(replacement.view())) {
      return null_value();
    }
    std::string_view in = input.view().as_string(), f = find.view().as_string(),
                     r = replacement.view().as_string();
    std::string out;
    if (f.empty()) {
      // An empty 'find' matches before every character and at the end, as mongod's.
      out.append(r);
      if (!all_) return make_value(out.append(in));
      for (size_t k = 0; k < in.size();) {
        size_t n = utf8_length(static_cast<unsigned char>(in[k]));
        out.append(in.substr(k, n)).append(r);
        check_expression_bytes(op_, out.size());
        k += n;
      }
      return make_value(out);
    }
    size_t from = 0;
    for (size_t at = in.find(f); at != std::string_view::npos; at = in.find(f, from)) {
      out.append(in.substr(from, at - from)).append(r);
      check_expression_bytes(op_, out.size());
      from = at + f.size();
      if (!all_) break;
    }
    out.append(in.substr(from));
    return make_value(out);
  }

 private:
  std::string op_;
  bool all_;
  ExprPtr input_, find_, replacement_;
};

OperatorParser replace_parser(bool all) {
  return [all](std::string_view name, const Value& args) -> ExprPtr {
    std::string op(name);
    if (!args.is_document()) {
      fail(51751, op + " requires an object as an argument, found: " + type_name(args));
    }
    ExprPtr input, find, replacement;
    for (const bson::Element& e : args.as_document()) {
      if (e.key == "input") {
        input = parse_expression(e.value);
      } else if (e.key == "find") {
        find = parse_expression(e.value);
      } else if (e.key == "replacement") {
        replacement = parse_expression(e.value);
      } else {
        fail(51750, op + " found an unknown argument: " + std::string(e.key));
      }
    }
    if (!input) fail(51749, op + " requires 'input' to be specified");
    if (!find) fail(51748, op + " requires 'find' to be specified");
    if (!replacement) fail(51747, op + " requires 'replacement' to be specified");
    return std::make_shared<ReplaceNode>(op, all, input, find, replacement);
  };
}

// $strcasecmp: both coerced to strings, compared byte-wise after ASCII case folding.
OwnedValue op_strcasecmp(std::string_view name, std::vector<OwnedValue>& a) {
  auto folded = [&](const Value& v) {
    std::string s = nullish(v) ? std::string() : coerce_to_string(name, v);
    for (char& c : s) {
      unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x80) c = static_cast<char>(std::tolower(u));
    }
    return s;
  };
  int c = folded(a[0].view()).compare(folded(a[1].view()));
  return make_value(static_cast<int32_t>(c < 0 ? -1 : c > 0 ? 1 : 0));
}

// $substrBytes (and its old name $substr): byte offsets, which must not split a character.
OwnedValue op_substr_bytes(std::string_view name, std::vector<OwnedValue>& a) {
  std::string op(name);
  Value s = a[0].view(), i = a[1].view(), n = a[2].view();
  std::string str = nullish(s) ? std::string() : coerce_to_string(name, s);
  if (!i.is_number()) {
    fail(16034,
         op + ":  starting index must be a numeric type (is BSON type " + type_name(i) + ")");
  }
  if (!n.is_number()) {
    fail(16035, op + ":  length must be a numeric type (is BSON type " + type_name(n) + ")");
  }
  double start_d = i.number_as_double(), length_d = n.number_as_double();
  if (start_d < 0 || static_cast<size_t>(start_d) >= str.size()) return make_value("");
  size_t start = static_cast<size_t>(start_d);
  size_t length = length_d < 0 ? str.size() - start
                               : std::min(static_cast<size_t>(length_d), str.size() - start);
  auto continuation = [&](size_t k) {
    return k < str.size() && (static_cast<unsigned char>(str[k]) & 0xC0) == 0x80;
  };
  if (continuation(start)) {
    fail(28656, op + ":  Invalid range, starting index is a UTF-8 continuation byte.");
  }
  if (continuation(start + length)) {
    fail(28657, op + ":  Invalid range, ending index is in the middle of a UTF-8 character.");
  }
  return make_value(str.substr(start, length));
}

}  // namespace

void register_string(OperatorTable& t) {
  add_eager(t, "$concat", 0, -1, op_concat);
  add_eager(t, "$toLower", 1, 1, case_fn(false));
  add_eager(t, "$toUpper", 1, 1, case_fn(true));
  add_eager(t, "$strLenCP", 1, 1, op_strlen);
  add_eager(t, "$substrCP", 3, 3, op_substr_cp);
  add_eager(t, "$split", 2, 2, op_split);
  add_eager(t, "$indexOfCP", 2, 4, op_index_of_cp);
  t["$trim"] = parse_trim;
  t["$ltrim"] = parse_trim;
  t["$rtrim"] = parse_trim;
  t["$regexMatch"] = regex_parser(RegexNode::Mode::kMatch);
  t["$regexFind"] = regex_parser(RegexNode::Mode::kFind);
  t["$regexFindAll"] = regex_parser(RegexNode::Mode::kFindAll);
  t["$replaceOne"] = replace_parser(false);
  t["$replaceAll"] = replace_parser(true);
  add_eager(t, "$strcasecmp", 2, 2, op_strcasecmp);
  add_eager(t, "$substrBytes", 3, 3, op_substr_bytes);
  add_eager(t, "$substr", 3, 3, op_substr_bytes);
}

}  // namespace mongostore::engine::aggregation_detail
