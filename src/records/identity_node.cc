#include "mongostore/records/identity_node.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "mongostore/error.h"
#include "records/utf8.h"

namespace mongostore::records {
namespace {

constexpr size_t kShown = 200;  // how much of an offending text an error message quotes

std::string shown(std::string_view text) {
  std::string out(text.substr(0, kShown));
  if (text.size() > kShown) out += "...";
  return out;
}

[[noreturn]] void bad(std::string message) {
  throw Error(ErrorCode::kBadValue, std::move(message));
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void require_utf8(std::string_view text, std::string_view what) {
  if (!utf8::valid(text)) bad(std::string(what) + " is not valid UTF-8: '" + shown(text) + "'");
}

/// Sorts entries by key (byte order = code-point order for UTF-8) and refuses duplicates.
void sort_unique(std::vector<IdentityNode::Entry>& entries, std::string_view what) {
  for (const auto& e : entries) require_utf8(e.first, what);
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < entries.size(); ++i) {
    if (entries[i - 1].first == entries[i].first) {
      bad("duplicate " + std::string(what) + " '" + shown(entries[i].first) + "'");
    }
  }
}

// Days since 1970-01-01 of a proleptic Gregorian date, and back (era-based arithmetic).
int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t z, int64_t& y, int& m, int& d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  y = yoe + era * 400 + (m <= 2);
}

bool leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

void check_date(int64_t y, int m, int d) {
  if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > days_in_month(y, m)) {
    bad("invalid date " + std::to_string(y) + "-" + std::to_string(m) + "-" + std::to_string(d));
  }
}

std::string format_date(int64_t y, int m, int d) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", static_cast<int>(y), m, d);
  return buf;
}

}  // namespace

IdentityNode::IdentityNode() = default;

IdentityNode IdentityNode::boolean(bool value) {
  IdentityNode n;
  n.kind_ = Kind::kBool;
  n.flag_ = value;
  return n;
}

IdentityNode IdentityNode::integer(int64_t value) {
  IdentityNode n;
  n.kind_ = Kind::kInt;
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  n.text_.assign(buf, end);
  return n;
}

IdentityNode IdentityNode::integer(std::string_view decimal) {
  bool negative = decimal.starts_with('-');
  std::string_view digits = negative ? decimal.substr(1) : decimal;
  if (!all_digits(digits)) {
    bad("invalid integer text '" + shown(decimal) + "': expected an optional '-' and digits");
  }
  size_t first = digits.find_first_not_of('0');
  IdentityNode n;
  n.kind_ = Kind::kInt;
  if (first == std::string_view::npos) {
    n.text_ = "0";
  } else {
    if (negative) n.text_ = "-";
    n.text_.append(digits.substr(first));
  }
  return n;
}

IdentityNode IdentityNode::floating(double value) {
  if (!std::isfinite(value)) bad("non-finite float values cannot have a content identity");
  IdentityNode n;
  n.kind_ = Kind::kFloat;
  n.number_ = value;
  return n;
}

IdentityNode IdentityNode::string(std::string utf8) {
  require_utf8(utf8, "string");
  IdentityNode n;
  n.kind_ = Kind::kString;
  n.text_ = std::move(utf8);
  return n;
}

IdentityNode IdentityNode::bytes(std::string_view raw) {
  IdentityNode n;
  n.kind_ = Kind::kBytes;
  n.text_.assign(raw);
  return n;
}

IdentityNode IdentityNode::rational(Rational value) {
  IdentityNode n;
  n.kind_ = Kind::kRational;
  n.rational_ = std::make_shared<const Rational>(std::move(value));
  return n;
}

IdentityNode IdentityNode::decimal(std::string_view text) {
  // [sign] (digits [. [digits]] | . digits) [(e|E) [sign] digits], as Python's Decimal reads
  // a finite number (without its surrounding whitespace, underscores or NaN/Infinity).
  auto fail = [&] {
    bad("invalid decimal text '" + shown(text) + "': expected a finite decimal number");
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  size_t mantissa_end = s.find_first_of("eE");
  std::string_view mantissa = s.substr(0, mantissa_end);
  int64_t exponent = 0;
  if (mantissa_end != std::string_view::npos) {
    std::string_view e = s.substr(mantissa_end + 1);
    bool e_negative = false;
    if (!e.empty() && (e[0] == '+' || e[0] == '-')) {
      e_negative = e[0] == '-';
      e.remove_prefix(1);
    }
    if (!all_digits(e)) fail();
    e = e.substr(std::min(e.find_first_not_of('0'), e.size()));
    // The exact value is materialised, so the exponent is bounded (10^100000 is 42 KB).
    constexpr int64_t kMaxExponent = 100000;
    if (e.size() > 6) bad("decimal exponent out of range in '" + shown(text) + "'");
    int64_t magnitude = 0;
    for (char c : e) magnitude = magnitude * 10 + (c - '0');
    if (magnitude > kMaxExponent) bad("decimal exponent out of range in '" + shown(text) + "'");
    exponent = e_negative ? -magnitude : magnitude;
  }
  size_t dot = mantissa.find('.');
  std::string digits;
  if (dot == std::string_view::npos) {
    if (!all_digits(mantissa)) fail();
    digits.assign(mantissa);
  } else {
    std::string_view whole = mantissa.substr(0, dot);
    std::string_view fraction = mantissa.substr(dot + 1);
    if ((whole.empty() && fraction.empty()) || (!whole.empty() && !all_digits(whole)) ||
        (!fraction.empty() && !all_digits(fraction))) {
      fail();
    }
    digits.assign(whole);
    digits.append(fraction);
    exponent -= static_cast<int64_t>(fraction.size());
  }
  std::string rational_text = negative ? "-" : "";
  rational_text += digits;
  if (exponent >= 0) {
    rational_text.append(static_cast<size_t>(exponent), '0');
  } else {
    rational_text += "/1";
    rational_text.append(static_cast<size_t>(-exponent), '0');
  }
  return rational(Rational::parse(rational_text));
}

IdentityNode IdentityNode::frac_vector(std::span<const Rational> values,
                                       std::vector<size_t> shape) {
  size_t count = 1;
  for (size_t d : shape) {
    if (d != 0 && count > SIZE_MAX / d) bad("frac_vector shape is too large");
    count *= d;
  }
  if (count != values.size()) {
    bad("frac_vector of " + std::to_string(values.size()) + " values does not fill its shape");
  }
  auto frac = std::make_shared<FracVector>();
  frac->denominator = Rational::common_denominator(values);
  frac->nominators.reserve(values.size());
  for (const Rational& v : values) frac->nominators.push_back(v.numerator_over(frac->denominator));
  frac->shape = std::move(shape);
  IdentityNode n;
  n.kind_ = Kind::kFracVector;
  n.frac_ = std::move(frac);
  return n;
}

IdentityNode IdentityNode::datetime(const Datetime& v) {
  check_date(v.year, v.month, v.day);
  if (v.hour < 0 || v.hour > 23 || v.minute < 0 || v.minute > 59 || v.second < 0 || v.second > 59 ||
      v.microsecond < 0 || v.microsecond > 999999) {
    bad("invalid time of day " + std::to_string(v.hour) + ":" + std::to_string(v.minute) + ":" +
        std::to_string(v.second) + "." + std::to_string(v.microsecond));
  }
  if (v.aware && (v.utc_offset_seconds <= -86400 || v.utc_offset_seconds >= 86400)) {
    bad("UTC offset of " + std::to_string(v.utc_offset_seconds) +
        " seconds is not strictly within a day");
  }
  int64_t year = v.year;
  int month = v.month, day = v.day;
  int64_t seconds = static_cast<int64_t>(v.hour) * 3600 + v.minute * 60 + v.second;
  if (v.aware) {
    // Python's astimezone(UTC): the wall time minus its offset.
    int64_t total = days_from_civil(year, month, day) * 86400 + seconds - v.utc_offset_seconds;
    int64_t days = total >= 0 ? total / 86400 : -((-total + 86399) / 86400);
    seconds = total - days * 86400;
    civil_from_days(days, year, month, day);
    if (year < 1 || year > 9999) bad("datetime in UTC is out of the range of years 1 to 9999");
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%sT%02d:%02d:%02d.%06d%s", format_date(year, month, day).c_str(),
                static_cast<int>(seconds / 3600), static_cast<int>(seconds / 60 % 60),
                static_cast<int>(seconds % 60), v.microsecond, v.aware ? "+00:00" : "");
  IdentityNode n;
  n.kind_ = Kind::kDatetime;
  n.flag_ = v.aware;
  n.text_ = buf;
  return n;
}

IdentityNode IdentityNode::date(int year, int month, int day) {
  check_date(year, month, day);
  IdentityNode n;
  n.kind_ = Kind::kDate;
  n.text_ = format_date(year, month, day);
  return n;
}

IdentityNode IdentityNode::list(std::vector<IdentityNode> items) {
  IdentityNode n;
  n.kind_ = Kind::kList;
  n.items_ = std::move(items);
  return n;
}

IdentityNode IdentityNode::tuple(std::vector<IdentityNode> items) {
  IdentityNode n;
  n.kind_ = Kind::kTuple;
  n.items_ = std::move(items);
  return n;
}

IdentityNode IdentityNode::mapping(std::vector<Entry> entries) {
  sort_unique(entries, "mapping key");
  IdentityNode n;
  n.kind_ = Kind::kMapping;
  n.entries_ = std::move(entries);
  return n;
}

IdentityNode IdentityNode::record_ref(std::string_view content_id) {
  if (content_id.size() != 64 || !std::all_of(content_id.begin(), content_id.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      })) {
    bad("invalid content id '" + shown(content_id) + "': expected 64 lowercase hex digits");
  }
  IdentityNode n;
  n.kind_ = Kind::kRecordRef;
  n.text_.assign(content_id);
  return n;
}

IdentityNode IdentityNode::record(std::string identity_name, std::vector<Entry> fields) {
  require_utf8(identity_name, "identity_name");
  sort_unique(fields, "field name");
  IdentityNode n;
  n.kind_ = Kind::kRecord;
  n.text_ = std::move(identity_name);
  n.entries_ = std::move(fields);
  return n;
}

IdentityNode IdentityNode::custom(std::string python_type, IdentityNode value) {
  require_utf8(python_type, "custom python_type");
  IdentityNode n;
  n.kind_ = Kind::kCustom;
  n.text_ = std::move(python_type);
  n.items_.push_back(std::move(value));
  return n;
}

namespace {
[[noreturn]] void wrong_kind(const char* accessor) {
  throw Error(ErrorCode::kBadValue,
              std::string("IdentityNode::") + accessor + " of a node of another kind");
}
}  // namespace

bool IdentityNode::as_bool() const {
  if (kind_ != Kind::kBool) wrong_kind("as_bool");
  return flag_;
}

double IdentityNode::as_double() const {
  if (kind_ != Kind::kFloat) wrong_kind("as_double");
  return number_;
}

const std::string& IdentityNode::text() const {
  switch (kind_) {
    case Kind::kInt:
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kRecordRef:
    case Kind::kRecord:
    case Kind::kDatetime:
    case Kind::kDate:
    case Kind::kCustom:
      return text_;
    default:
      wrong_kind("text");
  }
}

bool IdentityNode::aware() const {
  if (kind_ != Kind::kDatetime) wrong_kind("aware");
  return flag_;
}

const Rational& IdentityNode::as_rational() const {
  if (kind_ != Kind::kRational) wrong_kind("as_rational");
  return *rational_;
}

std::span<const IdentityNode> IdentityNode::items() const {
  if (kind_ != Kind::kList && kind_ != Kind::kTuple && kind_ != Kind::kCustom) {
    wrong_kind("items");
  }
  return items_;
}

std::span<const IdentityNode::Entry> IdentityNode::entries() const {
  if (kind_ != Kind::kMapping && kind_ != Kind::kRecord) wrong_kind("entries");
  return entries_;
}

const std::string& IdentityNode::frac_denominator() const {
  if (kind_ != Kind::kFracVector) wrong_kind("frac_denominator");
  return frac_->denominator;
}

std::span<const std::string> IdentityNode::frac_nominators() const {
  if (kind_ != Kind::kFracVector) wrong_kind("frac_nominators");
  return frac_->nominators;
}

std::span<const size_t> IdentityNode::frac_shape() const {
  if (kind_ != Kind::kFracVector) wrong_kind("frac_shape");
  return frac_->shape;
}

}  // namespace mongostore::records
