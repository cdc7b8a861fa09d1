// Date expressions: $dateToString (format specifiers %Y %m %d %H %M %S %L %j %w %u %U %V %G
// %z %Z %%) and the part extractors $year $month $dayOfMonth $hour $minute $second
// $millisecond $dayOfWeek $dayOfYear $week $isoWeek $isoWeekYear $isoDayOfWeek. Time zones:
// "UTC"/"GMT", fixed offsets ("+05:30", "-0800", "+03") and Olson names (see time_zone.h).
#include <cmath>
#include <cstdio>

#include "engine/aggregation/internal.h"
#include "engine/aggregation/time_zone.h"

namespace mongostore::engine::aggregation_detail {

// Howard Hinnant's civil-date algorithms.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

CivilDate civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return CivilDate{y + (m <= 2), m, d};
}

std::optional<int64_t> date_millis(const Value& v) {
  switch (v.type()) {
    case BsonType::kDateTime:
      return v.as_datetime().millis;
    case BsonType::kTimestamp:
      return int64_t{v.as_timestamp().seconds} * 1000;
    case BsonType::kObjectId:
      return int64_t{v.as_object_id().timestamp()} * 1000;
    default:
      if (nullish(v)) return std::nullopt;
      fail(16006, "can't convert from BSON type " + type_name(v) + " to Date");
  }
}

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

struct Parts {
  int64_t year;
  int month, day, hour, minute, second, millis;
  int wday;  // 0 = Sunday
  int yday;  // 0-based
  int64_t days;
};

Parts parts_of(int64_t millis) {
  Parts p;
  int64_t days = floor_div(millis, 86400000);
  int64_t rem = millis - days * 86400000;
  CivilDate c = civil_from_days(days);
  p.days = days;
  p.year = c.year;
  p.month = static_cast<int>(c.month);
  p.day = static_cast<int>(c.day);
  p.hour = static_cast<int>(rem / 3600000);
  p.minute = static_cast<int>(rem / 60000 % 60);
  p.second = static_cast<int>(rem / 1000 % 60);
  p.millis = static_cast<int>(rem % 1000);
  p.wday = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  p.yday = static_cast<int>(days - days_from_civil(c.year, 1, 1));
  return p;
}

int iso_dow(const Parts& p) {
  return p.wday == 0 ? 7 : p.wday;
}

void iso_week(const Parts& p, int64_t* iso_year, int* week) {
  int64_t thursday = p.days - (iso_dow(p) - 1) + 3;
  CivilDate c = civil_from_days(thursday);
  *iso_year = c.year;
  *week = static_cast<int>((thursday - days_from_civil(c.year, 1, 1)) / 7 + 1);
}

std::string pad(int64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(v));
  return buf;
}

std::string format_date(int64_t millis, std::string_view format, int offset_seconds) {
  Parts p = parts_of(millis + int64_t{offset_seconds} * 1000);
  int offset_minutes = offset_seconds / 60;
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if (c != '%') {
      out += c;
      continue;
    }
    if (i + 1 >= format.size()) fail(18535, "Unmatched '%' at end of format string");
    char f = format[++i];
    int64_t iy = 0;
    int wk = 0;
    switch (f) {
      case 'Y':
        out += pad(p.year, 4);
        break;
      case 'm':
        out += pad(p.month, 2);
        break;
      case 'd':
        out += pad(p.day, 2);
        break;
      case 'H':
        out += pad(p.hour, 2);
        break;
      case 'M':
        out += pad(p.minute, 2);
        break;
      case 'S':
        out += pad(p.second, 2);
        break;
      case 'L':
        out += pad(p.millis, 3);
        break;
      case 'j':
        out += pad(p.yday + 1, 3);
        break;
      case 'w':
        out += pad(p.wday + 1, 1);
        break;
      case 'u':
        out += pad(iso_dow(p), 1);
        break;
      case 'U':
        out += pad((p.yday + 7 - p.wday) / 7, 2);
        break;
      case 'V':
        iso_week(p, &iy, &wk);
        out += pad(wk, 2);
        break;
      case 'G':
        iso_week(p, &iy, &wk);
        out += pad(iy, 4);
        break;
      case 'z': {
        int a = offset_minutes < 0 ? -offset_minutes : offset_minutes;
        out += (offset_minutes < 0 ? "-" : "+") + pad(a / 60, 2) + pad(a % 60, 2);
        break;
      }
      case 'Z':
        out += (offset_minutes < 0 ? "-" : "+") +
               std::to_string(offset_minutes < 0 ? -offset_minutes : offset_minutes);
        break;
      case '%':
        out += '%';
        break;
      default:
        fail(18536, std::string("Invalid format character '%") + f + "' in format string");
    }
  }
  return out;
}

class DateToStringNode : public ExprNode {
 public:
  ExprPtr date, format, timezone, on_null;
  OwnedValue eval(EvalContext& ctx) const override {
    // mongod's order: the format's type, then the time zone (an unknown one fails even for a
    // null date), then a null date (onNull), then a null time zone or format (null).
    OwnedValue d = date->eval(ctx);
    OwnedValue f;
    if (format) {
      f = format->eval(ctx);
      if (!nullish(f.view()) && f.view().type() != BsonType::kString) {
        fail(18533, "$dateToString requires that 'format' be a string, found: " +
                        type_name(f.view()) + " with value " + render(f.view()));
      }
    }
    TimeZone zone;
    bool null_zone = false;
    if (timezone) {
      OwnedValue tz = timezone->eval(ctx);
      null_zone = nullish(tz.view());
      if (!null_zone) zone = TimeZone::parse(tz.view());
    }
    std::optional<int64_t> ms = date_millis(d.view());
    if (!ms) return on_null ? on_null->eval(ctx) : null_value();
    if (null_zone || (format && nullish(f.view()))) return null_value();
    // Without a format: ISO 8601, with a Z only when the zone is UTC itself.
    std::string fmt = format          ? std::string(f.view().as_string())
                      : zone.is_utc() ? "%Y-%m-%dT%H:%M:%S.%LZ"
                                      : "%Y-%m-%dT%H:%M:%S.%L";
    return make_value(format_date(*ms, fmt, zone.offset_seconds_at(*ms)));
  }
};

ExprPtr parse_date_to_string(std::string_view, const Value& args) {
  if (!args.is_document()) {
    fail(18629, "$dateToString only supports an object as its argument");
  }
  auto node = std::make_shared<DateToStringNode>();
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "date") {
      node->date = parse_expression(e.value);
    } else if (e.key == "format") {
      node->format = parse_expression(e.value);
    } else if (e.key == "timezone") {
      node->timezone = parse_expression(e.value);
    } else if (e.key == "onNull") {
      node->on_null = parse_expression(e.value);
    } else {
      fail(18534, "Unrecognized parameter to $dateToString: " + std::string(e.key));
    }
  }
  if (!node->date) fail(18628, "Missing 'date' parameter to $dateToString");
  return node;
}

enum class Part {
  kYear,
  kMonth,
  kDayOfMonth,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kDayOfWeek,
  kDayOfYear,
  kWeek,
  kIsoWeek,
  kIsoWeekYear,
  kIsoDayOfWeek
};

class DatePartNode : public ExprNode {
 public:
  DatePartNode(Part part, ExprPtr date, ExprPtr tz)
      : part_(part), date_(std::move(date)), tz_(std::move(tz)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue d = date_->eval(ctx);
    TimeZone zone;
    if (tz_) {
      OwnedValue tz = tz_->eval(ctx);
      if (nullish(tz.view())) return null_value();
      zone = TimeZone::parse(tz.view());
    }
    std::optional<int64_t> ms = date_millis(d.view());
    if (!ms) return null_value();
    Parts p = parts_of(*ms + int64_t{zone.offset_seconds_at(*ms)} * 1000);
    int64_t iy = 0;
    int wk = 0;
    switch (part_) {
      case Part::kYear:
        return make_value(static_cast<int32_t>(p.year));
      case Part::kMonth:
        return make_value(static_cast<int32_t>(p.month));
      case Part::kDayOfMonth:
        return make_value(static_cast<int32_t>(p.day));
      case Part::kHour:
        return make_value(static_cast<int32_t>(p.hour));
      case Part::kMinute:
        return make_value(static_cast<int32_t>(p.minute));
      case Part::kSecond:
        return make_value(static_cast<int32_t>(p.second));
      case Part::kMillisecond:
        return make_value(static_cast<int32_t>(p.millis));
      case Part::kDayOfWeek:
        return make_value(static_cast<int32_t>(p.wday + 1));
      case Part::kDayOfYear:
        return make_value(static_cast<int32_t>(p.yday + 1));
      case Part::kWeek:
        return make_value(static_cast<int32_t>((p.yday + 7 - p.wday) / 7));
      case Part::kIsoWeek:
        iso_week(p, &iy, &wk);
        return make_value(static_cast<int32_t>(wk));
      case Part::kIsoWeekYear:
        iso_week(p, &iy, &wk);
        return make_value(iy);
      default:
        return make_value(static_cast<int32_t>(iso_dow(p)));
    }
  }

 private:
  Part part_;
  ExprPtr date_, tz_;
};

OperatorParser date_part(Part part) {
  return [part](std::string_view name, const Value& args) -> ExprPtr {
    if (args.is_document() && args.as_document().has("date")) {
      ExprPtr date, tz;
      for (const bson::Element& e : args.as_document()) {
        if (e.key == "date") {
          date = parse_expression(e.value);
        } else if (e.key == "timezone") {
          tz = parse_expression(e.value);
        } else {
          fail(40535,
               "unrecognized option to " + std::string(name) + ": \"" + std::string(e.key) + "\"");
        }
      }
      return std::make_shared<DatePartNode>(part, date, tz);
    }
    std::vector<ExprPtr> a = parse_args(args);
    check_arity(name, a.size(), 1, 1);
    return std::make_shared<DatePartNode>(part, a[0], nullptr);
  };
}

// ---- $dateToParts / $dateFromParts ---------------------------------------------------------

class DateToPartsNode : public ExprNode {
 public:
  ExprPtr date, timezone, iso8601;
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue d = date->eval(ctx);
    TimeZone zone;
    if (timezone) {
      OwnedValue tz = timezone->eval(ctx);
      if (nullish(tz.view())) return null_value();
      zone = TimeZone::parse(tz.view());
    }
    bool iso = false;
    if (iso8601) {
      OwnedValue i = iso8601->eval(ctx);
      if (nullish(i.view())) return null_value();
      if (i.view().type() != BsonType::kBool) {
        fail(40521, "iso8601 must evaluate to a bool, found " + type_name(i.view()));
      }
      iso = i.view().as_bool();
    }
    std::optional<int64_t> ms = date_millis(d.view());
    if (!ms) return null_value();
    Parts p = parts_of(*ms + int64_t{zone.offset_seconds_at(*ms)} * 1000);
    bson::DocumentBuilder b;
    if (iso) {
      int64_t iso_year = 0;
      int week = 0;
      iso_week(p, &iso_year, &week);
      b.append("isoWeekYear", static_cast<int32_t>(iso_year));
      b.append("isoWeek", week);
      b.append("isoDayOfWeek", iso_dow(p));
    } else {
      b.append("year", static_cast<int32_t>(p.year));
      b.append("month", p.month);
      b.append("day", p.day);
    }
    b.append("hour", p.hour).append("minute", p.minute).append("second", p.second);
    b.append("millisecond", p.millis);
    Document parts = b.finish();
    return make_document_value(parts.view());
  }
};

ExprPtr parse_date_to_parts(std::string_view, const Value& args) {
  if (!args.is_document()) fail(40524, "$dateToParts only supports an object as its argument");
  auto node = std::make_shared<DateToPartsNode>();
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "date") {
      node->date = parse_expression(e.value);
    } else if (e.key == "timezone") {
      node->timezone = parse_expression(e.value);
    } else if (e.key == "iso8601") {
      node->iso8601 = parse_expression(e.value);
    } else {
      fail(40520, "Unrecognized argument to $dateToParts: " + std::string(e.key));
    }
  }
  if (!node->date) fail(40522, "Missing 'date' parameter to $dateToParts");
  return node;
}

// Components are integers; out-of-range values carry into the next larger unit (month 14 is
// February of the next year), as mongod's.
class DateFromPartsNode : public ExprNode {
 public:
  std::map<std::string, ExprPtr, std::less<>> parts;
  bool iso = false;
  ExprPtr timezone;

  OwnedValue eval(EvalContext& ctx) const override {
    std::map<std::string, int64_t, std::less<>> v;
    for (const auto& [name, expr] : parts) {
      OwnedValue value = expr->eval(ctx);
      if (nullish(value.view())) return null_value();
      Value x = value.view();
      double d = x.is_number() ? x.number_as_double() : 0;
      if (!x.is_number() || d != std::trunc(d)) {
        fail(40515, "'" + name + "' must evaluate to an integer, found " + type_name(x) +
                        " with value " + render(x));
      }
      bool year = name == "year" || name == "isoWeekYear";
      if (year && (d < 1 || d > 9999)) {
        fail(40523, "'" + name + "' must evaluate to an integer in the range 1 to 9999, found " +
                        render(x));
      }
      if (!year && (d < -32768 || d > 32767)) {
        fail(31034, "'" + name + "' must evaluate to a value in the range [-32768, 32767]; value " +
                        render(x) + " is not in range");
      }
      v[name] = static_cast<int64_t>(d);
    }
    TimeZone zone;
    if (timezone) {
      OwnedValue tz = timezone->eval(ctx);
      if (nullish(tz.view())) return null_value();
      zone = TimeZone::parse(tz.view());
    }
    auto get = [&](const char* name, int64_t fallback) {
      auto it = v.find(name);
      return it == v.end() ? fallback : it->second;
    };
    int64_t days = 0;
    if (iso) {
      // Week 1 is the week of January 4th; weeks start on Monday.
      int64_t jan4 = days_from_civil(get("isoWeekYear", 1970), 1, 4);
      int64_t since_monday = ((jan4 + 3) % 7 + 7) % 7;  // 1970-01-01 was a Thursday
      days = jan4 - since_monday + (get("isoWeek", 1) - 1) * 7 + (get("isoDayOfWeek", 1) - 1);
    } else {
      int64_t months = get("month", 1) - 1;
      int64_t year = get("year", 1970) + floor_div(months, 12);
      int64_t month = months - floor_div(months, 12) * 12 + 1;
      days = days_from_civil(year, static_cast<unsigned>(month), 1) + get("day", 1) - 1;
    }
    int64_t local = days * 86'400'000 + get("hour", 0) * 3'600'000 + get("minute", 0) * 60'000 +
                    get("second", 0) * 1000 + get("millisecond", 0);
    return make_value(bson::DateTime{zone.utc_of_local(local)});
  }
};

ExprPtr parse_date_from_parts(std::string_view, const Value& args) {
  if (!args.is_document()) fail(40519, "$dateFromParts only supports an object as its argument");
  auto node = std::make_shared<DateFromPartsNode>();
  bool natural = false;
  for (const bson::Element& e : args.as_document()) {
    std::string_view k = e.key;
    if (k == "timezone") {
      node->timezone = parse_expression(e.value);
      continue;
    }
    bool is_natural = k == "year" || k == "month" || k == "day";
    bool is_iso = k == "isoWeekYear" || k == "isoWeek" || k == "isoDayOfWeek";
    if (!is_natural && !is_iso && k != "hour" && k != "minute" && k != "second" &&
        k != "millisecond") {
      fail(40518, "Unrecognized argument to $dateFromParts: " + std::string(k));
    }
    natural = natural || is_natural;
    node->iso = node->iso || is_iso;
    node->parts[std::string(k)] = parse_expression(e.value);
  }
  if (natural && node->iso) {
    fail(40489, "$dateFromParts does not allow mixing natural dates with ISO dates");
  }
  if (!node->parts.count("year") && !node->parts.count("isoWeekYear")) {
    fail(40516, "$dateFromParts requires either 'year' or 'isoWeekYear' to be present");
  }
  return node;
}

// ---- $dateFromString --------------------------------------------------------------------------

// Parses `text` with a $dateToString-style `format` into local milliseconds since the epoch;
// `offset_seconds` receives an offset the text states (%z, %Z), if any. False when the text
// does not match the format.
bool parse_with_format(std::string_view text, std::string_view format, int64_t* local,
                       std::optional<int>* offset_seconds) {
  int64_t year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, millis = 0;
  int64_t day_of_year = -1;
  size_t pos = 0;
  auto digits = [&](size_t min, size_t max, int64_t* out) {
    size_t start = pos;
    int64_t v = 0;
    while (pos < text.size() && pos - start < max && text[pos] >= '0' && text[pos] <= '9') {
      v = v * 10 + (text[pos++] - '0');
    }
    if (pos - start < min) return false;
    *out = v;
    return true;
  };
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      if (pos >= text.size() || text[pos] != format[i]) return false;
      ++pos;
      continue;
    }
    if (++i >= format.size()) return false;
    bool ok = true;
    switch (format[i]) {
      case 'Y':
        ok = digits(4, 4, &year);
        break;
      case 'm':
        ok = digits(1, 2, &month);
        break;
      case 'd':
        ok = digits(1, 2, &day);
        break;
      case 'H':
        ok = digits(1, 2, &hour);
        break;
      case 'M':
        ok = digits(1, 2, &minute);
        break;
      case 'S':
        ok = digits(1, 2, &second);
        break;
      case 'L':
        ok = digits(1, 3, &millis);
        break;
      case 'j':
        ok = digits(1, 3, &day_of_year);
        break;
      case 'z': {  // +hhmm or -hhmm
        if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return false;
        bool negative = text[pos++] == '-';
        int64_t hh = 0, mm = 0;
        ok = digits(2, 2, &hh) && digits(2, 2, &mm);
        *offset_seconds = static_cast<int>((hh * 60 + mm) * 60 * (negative ? -1 : 1));
        break;
      }
      case 'Z': {  // minutes east of UTC, signed
        bool negative = pos < text.size() && text[pos] == '-';
        if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) ++pos;
        int64_t m = 0;
        ok = digits(1, 4, &m);
        *offset_seconds = static_cast<int>(m * 60 * (negative ? -1 : 1));
        break;
      }
      case '%':
        ok = pos < text.size() && text[pos++] == '%';
        break;
      default:
        fail(18536,
             "Invalid format character '%" + std::string(1, format[i]) + "' in format string");
    }
    if (!ok) return false;
  }
  if (pos != text.size()) return false;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return false;
  }
  int64_t days = day_of_year >= 0 ? days_from_civil(year, 1, 1) + day_of_year - 1
                                  : days_from_civil(year, static_cast<unsigned>(month),
                                                    static_cast<unsigned>(day));
  *local = days * 86'400'000 + hour * 3'600'000 + minute * 60'000 + second * 1000 + millis;
  return true;
}

class DateFromStringNode : public ExprNode {
 public:
  ExprPtr date_string, format, timezone, on_error, on_null;
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue text = date_string->eval(ctx);
    OwnedValue f;
    if (format) {
      f = format->eval(ctx);
      if (!nullish(f.view()) && f.view().type() != BsonType::kString) {
        fail(40684, "$dateFromString requires that 'format' be a string, found: " +
                        type_name(f.view()) + " with value " + render(f.view()));
      }
    }
    TimeZone zone;
    bool has_zone = false;
    if (timezone) {
      OwnedValue tz = timezone->eval(ctx);
      if (nullish(tz.view())) return null_value();
      zone = TimeZone::parse(tz.view());
      has_zone = true;
    }
    if (nullish(text.view())) return on_null ? on_null->eval(ctx) : null_value();
    if (format && nullish(f.view())) return null_value();
    try {
      if (text.view().type() != BsonType::kString) {
        fail(241, "$dateFromString requires that 'dateString' be a string, found: " +
                      type_name(text.view()) + " with value " + render(text.view()));
      }
      std::string_view s = text.view().as_string();
      if (format) {
        int64_t local = 0;
        std::optional<int> stated;
        if (!parse_with_format(s, f.view().as_string(), &local, &stated)) {
          fail(241, "Error parsing date string '" + std::string(s) +
                        "'; the string does not "
                        "match the format '" +
                        std::string(f.view().as_string()) + "'");
        }
        if (stated && has_zone) {
          fail(40554,
               "you cannot pass in a date/time string with GMT offset together with a "
               "timezone argument");
        }
        int64_t utc = stated ? local - int64_t{*stated} * 1000 : zone.utc_of_local(local);
        return make_value(bson::DateTime{utc});
      }
      // No format: ISO 8601 ("2017-02-08T12:10:40.787Z", "2017-02-08 12:10:40",
      // "2017-02-08T12:10:40+02:00", "2017-02-08").
      int64_t as_utc = 0;
      bool stated = false;
      if (!parse_iso_date(s, &as_utc, &stated)) {
        fail(241, "Error parsing date string '" + std::string(s) + "'");
      }
      if (stated && has_zone) {
        fail(40554,
             "you cannot pass in a date/time string with time zone information together "
             "with a timezone argument");
      }
      // Without a stated offset the text is local time in the zone.
      return make_value(bson::DateTime{stated ? as_utc : zone.utc_of_local(as_utc)});
    } catch (const Error& e) {
      if (on_error && e.code() == 241) return on_error->eval(ctx);
      throw;
    }
  }
};

ExprPtr parse_date_from_string(std::string_view, const Value& args) {
  if (!args.is_document()) {
    fail(40540,
         "$dateFromString only supports an object as an argument, found: " + type_name(args));
  }
  auto node = std::make_shared<DateFromStringNode>();
  for (const bson::Element& e : args.as_document()) {
    ExprPtr parsed = parse_expression(e.value);
    if (e.key == "dateString") {
      node->date_string = parsed;
    } else if (e.key == "format") {
      node->format = parsed;
    } else if (e.key == "timezone") {
      node->timezone = parsed;
    } else if (e.key == "onError") {
      node->on_error = parsed;
    } else if (e.key == "onNull") {
      node->on_null = parsed;
    } else {
      fail(40541, "Unrecognized argument to $dateFromString: " + std::string(e.key));
    }
  }
  if (!node->date_string) fail(40542, "Missing 'dateString' parameter to $dateFromString");
  return node;
}

}  // namespace

std::string format_iso_date(int64_t millis) {
  return format_date(millis, "%Y-%m-%dT%H:%M:%S.%LZ", 0);
}

bool parse_iso_date(std::string_view s, int64_t* millis, bool* stated_offset) {
  if (stated_offset) *stated_offset = false;
  // mongod's date parser (timelib) takes white space around the date and a bare year-month.
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  std::string year_month;
  if (s.size() == 7 && s[4] == '-') {
    year_month = std::string(s) + "-01";
    s = year_month;
  }
  auto num = [&](size_t pos, size_t n, int* out) {
    if (pos + n > s.size()) return false;
    int v = 0;
    for (size_t i = pos; i < pos + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
  };
  int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0;
  if (!num(0, 4, &y) || s.size() < 10 || s[4] != '-' || !num(5, 2, &mo) || s[7] != '-' ||
      !num(8, 2, &d)) {
    return false;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
  size_t pos = 10;
  int offset = 0;
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
    if (!num(pos + 1, 2, &h) || pos + 3 >= s.size() || s[pos + 3] != ':' || !num(pos + 4, 2, &mi)) {
      return false;
    }
    pos += 6;
    if (pos < s.size() && s[pos] == ':') {
      if (!num(pos + 1, 2, &sec)) return false;
      pos += 3;
      if (pos < s.size() && s[pos] == '.') {
        size_t start = ++pos;
        int frac = 0;
        int digits = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
          if (digits < 3) {
            frac = frac * 10 + (s[pos] - '0');
            ++digits;
          }
          ++pos;
        }
        if (pos == start) return false;
        while (digits < 3) {
          frac *= 10;
          ++digits;
        }
        ms = frac;
      }
    }
    if (pos < s.size()) {
      if (s[pos] == 'Z') {
        ++pos;
        if (stated_offset) *stated_offset = true;
      } else if (s[pos] == '+' || s[pos] == '-') {
        if (stated_offset) *stated_offset = true;
        int oh = 0, om = 0;
        bool neg = s[pos] == '-';
        if (!num(pos + 1, 2, &oh)) return false;
        pos += 3;
        if (pos < s.size() && s[pos] == ':') ++pos;
        if (pos < s.size()) {
          if (!num(pos, 2, &om)) return false;
          pos += 2;
        }
        offset = (oh * 60 + om) * (neg ? -1 : 1);
      }
    }
  }
  if (pos != s.size()) return false;
  if (h > 23 || mi > 59 || sec > 60) return false;
  int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  *millis =
      ((days * 24 + h) * 60 + mi) * 60000 + int64_t{sec} * 1000 + ms - int64_t{offset} * 60000;
  return true;
}

void register_date(OperatorTable& t) {
  t["$dateToParts"] = parse_date_to_parts;
  t["$dateFromParts"] = parse_date_from_parts;
  t["$dateFromString"] = parse_date_from_string;
  t["$dateToString"] = parse_date_to_string;
  t["$year"] = date_part(Part::kYear);
  t["$month"] = date_part(Part::kMonth);
  t["$dayOfMonth"] = date_part(Part::kDayOfMonth);
  t["$hour"] = date_part(Part::kHour);
  t["$minute"] = date_part(Part::kMinute);
  t["$second"] = date_part(Part::kSecond);
  t["$millisecond"] = date_part(Part::kMillisecond);
  t["$dayOfWeek"] = date_part(Part::kDayOfWeek);
  t["$dayOfYear"] = date_part(Part::kDayOfYear);
  t["$week"] = date_part(Part::kWeek);
  t["$isoWeek"] = date_part(Part::kIsoWeek);
  t["$isoWeekYear"] = date_part(Part::kIsoWeekYear);
  t["$isoDayOfWeek"] = date_part(Part::kIsoDayOfWeek);
}

}  // namespace mongostore::engine::aggregation_detail
