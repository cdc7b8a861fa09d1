// Date arithmetic: $dateAdd $dateSubtract $dateDiff $dateTrunc, with MongoDB 5.0's rules.
//   - Units: year quarter month week day hour minute second millisecond.
//   - Calendar units (day and up) count in the time zone's local time, so adding a day
//     across a daylight-saving change keeps the wall-clock time; adding months clamps the
//     day to the month's last (Jan 31 + 1 month = Feb 28/29). Hours and smaller are
//     durations.
//   - $dateDiff counts unit boundaries crossed (23:59 to 00:01 is one day), in local time;
//     weeks start on `startOfWeek` (Sunday by default).
//   - $dateTrunc bins from 2000-01-01 (local time; for weeks the first `startOfWeek` on or
//     after it), `binSize` units wide.
#include <cctype>
#include <cmath>
#include <limits>

#include "engine/aggregation/internal.h"
#include "engine/aggregation/time_zone.h"

namespace mongostore::engine::aggregation_detail {

namespace {

enum class Unit { kYear, kQuarter, kMonth, kWeek, kDay, kHour, kMinute, kSecond, kMillisecond };

constexpr int64_t kDayMillis = 86'400'000;

Unit parse_unit(const Value& v, const std::string& op) {
  if (v.type() != BsonType::kString) {
    fail(5439013, op + " requires 'unit' to be a string, but got " + type_name(v));
  }
  static const std::pair<std::string_view, Unit> kUnits[] = {
      {"year", Unit::kYear},     {"quarter", Unit::kQuarter}, {"month", Unit::kMonth},
      {"week", Unit::kWeek},     {"day", Unit::kDay},         {"hour", Unit::kHour},
      {"minute", Unit::kMinute}, {"second", Unit::kSecond},   {"millisecond", Unit::kMillisecond}};
  for (const auto& [name, unit] : kUnits) {
    if (v.as_string() == name) return unit;
  }
  fail(ErrorCode::kFailedToParse, op + " parameter 'unit' value parsing failed :: caused by :: " +
                                      "unknown time unit value: " + std::string(v.as_string()));
}

// 1 = Monday ... 7 = Sunday, as ISO numbers them.
int parse_start_of_week(const Value& v, const std::string& op) {
  if (v.type() != BsonType::kString) {
    fail(5439015, op + " requires 'startOfWeek' to be a string, but got " + type_name(v));
  }
  std::string name(v.as_string());
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const char* kDays[] = {"monday", "tuesday",  "wednesday", "thursday",
                                "friday", "saturday", "sunday"};
  for (int d = 0; d < 7; ++d) {
    if (name == kDays[d] || name == std::string(kDays[d]).substr(0, 3)) return d + 1;
  }
  fail(ErrorCode::kFailedToParse,
       op + " parameter 'startOfWeek' value parsing failed :: caused by :: " +
           "unknown day of week value: " + std::string(v.as_string()));
}

int64_t floor_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return r < 0 ? r + b : r;
}

// A local date and time of day.
struct Local {
  int64_t days;  // since 1970-01-01
  int64_t year;
  int month, day;
  int64_t millis_of_day;
};

Local local_of(int64_t utc_millis, const TimeZone& tz) {
  int64_t local = utc_millis + int64_t{tz.offset_seconds_at(utc_millis)} * 1000;
  Local l;
  l.days = (local - floor_mod(local, kDayMillis)) / kDayMillis;
  l.millis_of_day = floor_mod(local, kDayMillis);
  CivilDate c = civil_from_days(l.days);
  l.year = c.year;
  l.month = static_cast<int>(c.month);
  l.day = static_cast<int>(c.day);
  return l;
}

int days_in_month(int64_t year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return kDays[month - 1] + (month == 2 && leap);
}

int64_t checked_add(int64_t a, int64_t b, int code, const char* what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) fail(code, what);
  return r;
}

int64_t checked_mul(int64_t a, int64_t b, int code, const char* what) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) fail(code, what);
  return r;
}

std::string unit_name(Unit u) {
  static const char* kNames[] = {"year", "quarter", "month",  "week",       "day",
                                 "hour", "minute",  "second", "millisecond"};
  return kNames[static_cast<int>(u)];
}

int64_t unit_millis(Unit u) {
  switch (u) {
    case Unit::kHour:
      return 3'600'000;
    case Unit::kMinute:
      return 60'000;
    case Unit::kSecond:
      return 1000;
    default:
      return 1;
  }
}

int64_t date_add(int64_t date, Unit unit, int64_t amount, const TimeZone& tz) {
  if (unit == Unit::kMillisecond) return checked_add(date, amount, 5166406, "dateAdd overflowed");
  // Amounts that cannot land inside the range of a date (mongod's bound).
  constexpr int64_t kMaxDays = static_cast<int64_t>(
      std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(kDayMillis) + 1);
  constexpr int64_t kMaxYears = kMaxDays / 365 + 1;
  int64_t limit = 0;
  switch (unit) {
    case Unit::kYear:
      limit = kMaxYears;
      break;
    case Unit::kQuarter:
      limit = kMaxYears * 4;
      break;
    case Unit::kMonth:
      limit = kMaxYears * 12;
      break;
    case Unit::kWeek:
      limit = kMaxDays / 7;
      break;
    case Unit::kDay:
      limit = kMaxDays;
      break;
    case Unit::kHour:
      limit = kMaxDays * 24;
      break;
    case Unit::kMinute:
      limit = kMaxDays * 24 * 60;
      break;
    default:
      limit = kMaxDays * 24 * 60 * 60;
  }
  if (amount <= -limit || amount >= limit) {
    fail(5976500, "invalid dateAdd 'amount' parameter value: " + std::to_string(amount) + " " +
                      unit_name(unit));
  }
  if (unit == Unit::kHour || unit == Unit::kMinute || unit == Unit::kSecond) {
    return checked_add(date, checked_mul(amount, unit_millis(unit), 5166406, "dateAdd overflowed"),
                       5166406, "dateAdd overflowed");
  }
  Local l = local_of(date, tz);
  int64_t days = 0;
  if (unit == Unit::kWeek || unit == Unit::kDay) {
    days = unit == Unit::kWeek ? amount * 7 : amount;
  } else {
    int64_t months = unit == Unit::kYear      ? amount * 12
                     : unit == Unit::kQuarter ? amount * 3
                                              : amount;
    int64_t index = l.year * 12 + (l.month - 1) + months;  // months since year 0
    int64_t year = (index - floor_mod(index, 12)) / 12;
    int month = static_cast<int>(floor_mod(index, 12)) + 1;
    int day = std::min(l.day, days_in_month(year, month));
    days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) - l.days;
  }
  int64_t shift = checked_mul(days, kDayMillis, 5166406, "dateAdd overflowed");
  if (tz.fixed()) return checked_add(date, shift, 5166406, "dateAdd overflowed");
  // The same wall-clock time, `days` local days later.
  int64_t local = checked_add(date + int64_t{tz.offset_seconds_at(date)} * 1000, shift, 5166406,
                              "dateAdd overflowed");
  return tz.utc_of_local(local);
}

int quarter_of(int month) {
  return (month - 1) / 3;
}

// Day of the week counted from `start_of_week` (0 for that day itself).
int64_t week_day(const Local& l, int start_of_week) {
  int iso = static_cast<int>(floor_mod(l.days + 3, 7)) + 1;  // 1970-01-01 was a Thursday (4)
  return (iso - start_of_week + 7) % 7;
}

int64_t date_diff(int64_t start, int64_t end, Unit unit, const TimeZone& tz, int start_of_week) {
  if (unit == Unit::kMillisecond) {
    int64_t r = 0;
    if (__builtin_sub_overflow(end, start, &r)) fail(5166308, "dateDiff overflowed");
    return r;
  }
  Local s = local_of(start, tz), e = local_of(end, tz);
  int64_t years = e.year - s.year;
  int64_t days = e.days - s.days;
  int64_t offset_change = int64_t{tz.offset_seconds_at(start)} - tz.offset_seconds_at(end);
  int64_t hours = (e.millis_of_day / 3'600'000 - s.millis_of_day / 3'600'000) + days * 24;
  int64_t minutes = (e.millis_of_day / 60'000 % 60 - s.millis_of_day / 60'000 % 60) + hours * 60;
  switch (unit) {
    case Unit::kYear:
      return years;
    case Unit::kQuarter:
      return quarter_of(e.month) - quarter_of(s.month) + years * 4;
    case Unit::kMonth:
      return e.month - s.month + years * 12;
    case Unit::kWeek:
      return (days + week_day(s, start_of_week) - week_day(e, start_of_week)) / 7;
    case Unit::kDay:
      return days;
    case Unit::kHour:
      return hours + offset_change / 3600;
    case Unit::kMinute:
      return minutes + offset_change / 60;
    case Unit::kSecond:
      return (e.millis_of_day / 1000 % 60 - s.millis_of_day / 1000 % 60) + minutes * 60 +
             offset_change;
    default:
      return 0;
  }
}

int64_t date_trunc(int64_t date, Unit unit, int64_t bin, const TimeZone& tz, int start_of_week) {
  // The reference point: 2000-01-01T00:00 local time (a Saturday); for weeks, the first
  // `start_of_week` day on or after it.
  constexpr int64_t kReference = 946'684'800'000;
  int64_t reference = kReference - int64_t{tz.offset_seconds_at(kReference)} * 1000;
  if (unit == Unit::kWeek) {
    int saturday = (6 - start_of_week + 7) % 7;
    reference += ((7 - saturday) % 7) * kDayMillis;
  }
  if (unit == Unit::kMillisecond || unit == Unit::kSecond || unit == Unit::kMinute ||
      unit == Unit::kHour) {
    int64_t width = checked_mul(bin, unit_millis(unit), 5439002, "dateTrunc overflowed");
    int64_t shifted = 0;
    if (__builtin_sub_overflow(date, reference, &shifted)) fail(5439000, "dateTrunc overflowed");
    return date - floor_mod(shifted, width);
  }
  if (bin > 100'000'000'000) fail(5439006, "dateTrunc unsupported binSize value");
  int64_t distance = date_diff(reference, date, unit, tz, start_of_week);
  return date_add(reference, unit, distance - floor_mod(distance, bin), tz);
}

// The instant of a date argument that must be one ($dateDiff, $dateTrunc).
int64_t required_date(const Value& v, const std::string& op, const char* what) {
  if (v.type() != BsonType::kDateTime && v.type() != BsonType::kTimestamp &&
      v.type() != BsonType::kObjectId) {
    fail(5166307, op + " requires '" + what + "' to be a date, but got " + type_name(v));
  }
  return *date_millis(v);
}

TimeZone zone_of(const ExprPtr& timezone, EvalContext& ctx, bool* null) {
  if (!timezone) return TimeZone();
  OwnedValue tz = timezone->eval(ctx);
  if (nullish(tz.view())) {
    *null = true;
    return TimeZone();
  }
  return TimeZone::parse(tz.view());
}

// The named arguments of a date operator: `allowed` lists them, `required` must be there.
std::map<std::string, ExprPtr, std::less<>> named_arguments(
    const std::string& op, const Value& args, std::initializer_list<const char*> allowed,
    int not_object_code, int unknown_code, const std::string& expected) {
  if (!args.is_document()) fail(not_object_code, op + " expects an object as its argument");
  std::map<std::string, ExprPtr, std::less<>> out;
  for (const bson::Element& e : args.as_document()) {
    bool known = false;
    for (const char* a : allowed) known = known || e.key == a;
    if (!known) {
      fail(unknown_code, "Unrecognized argument to " + op + ": " + std::string(e.key) + expected);
    }
    out[std::string(e.key)] = parse_expression(e.value);
  }
  return out;
}

ExprPtr get(const std::map<std::string, ExprPtr, std::less<>>& args, const char* name) {
  auto it = args.find(name);
  return it == args.end() ? nullptr : it->second;
}

class DateAddNode : public ExprNode {
 public:
  DateAddNode(std::string op, int sign, ExprPtr start, ExprPtr unit, ExprPtr amount, ExprPtr tz)
      : op_(std::move(op)),
        sign_(sign),
        start_(std::move(start)),
        unit_(std::move(unit)),
        amount_(std::move(amount)),
        tz_(std::move(tz)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue start = start_->eval(ctx);
    if (nullish(start.view())) return null_value();
    OwnedValue unit_value = unit_->eval(ctx);
    if (nullish(unit_value.view())) return null_value();
    Unit unit = parse_unit(unit_value.view(), op_);
    OwnedValue amount = amount_->eval(ctx);
    if (nullish(amount.view())) return null_value();
    bool null = false;
    TimeZone tz = zone_of(tz_, ctx, &null);
    if (null) return null_value();
    Value s = start.view();
    if (s.type() != BsonType::kDateTime && s.type() != BsonType::kTimestamp &&
        s.type() != BsonType::kObjectId) {
      fail(5166403, op_ + " requires startDate to be convertible to a date");
    }
    int64_t n = 0;
    bool integral = amount.view().is_number() && amount.view().type() != BsonType::kDecimal128;
    if (integral) {
      if (amount.view().type() == BsonType::kDouble) {
        double d = amount.view().as_double();
        integral = d == std::trunc(d) && d >= -9.2e18 && d <= 9.2e18;
        n = static_cast<int64_t>(d);
      } else {
        n = int_value(amount.view());
      }
    }
    if (!integral) fail(5166405, op_ + " expects integer amount of time units");
    if (sign_ < 0) {
      if (n == std::numeric_limits<int64_t>::min()) {
        fail(6045000, "invalid $dateSubtract 'amount' parameter value: " + std::to_string(n));
      }
      n = -n;
    }
    return make_value(bson::DateTime{date_add(*date_millis(s), unit, n, tz)});
  }

 private:
  std::string op_;
  int sign_;
  ExprPtr start_, unit_, amount_, tz_;
};

OperatorParser date_add_parser(int sign) {
  return [sign](std::string_view name, const Value& args) -> ExprPtr {
    std::string op(name);
    auto a = named_arguments(
        op, args, {"startDate", "unit", "amount", "timezone"}, 5166400, 5166401,
        ". Expected arguments are startDate, unit, amount, and optionally timezone.");
    if (!get(a, "startDate") || !get(a, "unit") || !get(a, "amount")) {
      fail(5166402, op + " requires startDate, unit, and amount to be present");
    }
    return std::make_shared<DateAddNode>(op, sign, get(a, "startDate"), get(a, "unit"),
                                         get(a, "amount"), get(a, "timezone"));
  };
}

// The optional startOfWeek of $dateDiff and $dateTrunc (read only for weeks); 0 when null.
int start_of_week_of(const ExprPtr& e, Unit unit, EvalContext& ctx, const std::string& op) {
  if (unit != Unit::kWeek || !e) return 7;  // Sunday
  OwnedValue v = e->eval(ctx);
  if (nullish(v.view())) return 0;
  return parse_start_of_week(v.view(), op);
}

// The unit, startOfWeek and timezone of $dateDiff and $dateTrunc, in mongod's order of
// evaluation; nullopt when one of them is null (the result is then null).
struct UnitAndZone {
  Unit unit;
  int start_of_week;
  TimeZone zone;
};
std::optional<UnitAndZone> unit_and_zone(const std::map<std::string, ExprPtr, std::less<>>& args,
                                         EvalContext& ctx, const std::string& op) {
  OwnedValue unit_value = get(args, "unit")->eval(ctx);
  if (nullish(unit_value.view())) return std::nullopt;
  Unit unit = parse_unit(unit_value.view(), op);
  int sow = start_of_week_of(get(args, "startOfWeek"), unit, ctx, op);
  if (sow == 0) return std::nullopt;
  bool null = false;
  TimeZone zone = zone_of(get(args, "timezone"), ctx, &null);
  if (null) return std::nullopt;
  return UnitAndZone{unit, sow, zone};
}

class DateDiffNode : public ExprNode {
 public:
  std::map<std::string, ExprPtr, std::less<>> args;
  OwnedValue eval(EvalContext& ctx) const override {
    const std::string op = "$dateDiff";
    OwnedValue start = get(args, "startDate")->eval(ctx);
    if (nullish(start.view())) return null_value();
    OwnedValue end = get(args, "endDate")->eval(ctx);
    if (nullish(end.view())) return null_value();
    std::optional<UnitAndZone> u = unit_and_zone(args, ctx, op);
    if (!u) return null_value();
    int64_t s = required_date(start.view(), op, "startDate");
    int64_t e = required_date(end.view(), op, "endDate");
    return make_value(date_diff(s, e, u->unit, u->zone, u->start_of_week));
  }
};

ExprPtr parse_date_diff(std::string_view, const Value& args) {
  if (!args.is_document()) fail(5166301, "$dateDiff only supports an object as its argument");
  auto node = std::make_shared<DateDiffNode>();
  node->args = named_arguments("$dateDiff", args,
                               {"startDate", "endDate", "unit", "timezone", "startOfWeek"}, 5166301,
                               5166302, "");
  if (!get(node->args, "startDate")) fail(5166303, "Missing 'startDate' parameter to $dateDiff");
  if (!get(node->args, "endDate")) fail(5166304, "Missing 'endDate' parameter to $dateDiff");
  if (!get(node->args, "unit")) fail(5166305, "Missing 'unit' parameter to $dateDiff");
  return node;
}

class DateTruncNode : public ExprNode {
 public:
  std::map<std::string, ExprPtr, std::less<>> args;
  OwnedValue eval(EvalContext& ctx) const override {
    const std::string op = "$dateTrunc";
    OwnedValue date = get(args, "date")->eval(ctx);
    if (nullish(date.view())) return null_value();
    int64_t bin = 1;
    if (ExprPtr b = get(args, "binSize")) {
      OwnedValue v = b->eval(ctx);
      if (nullish(v.view())) return null_value();
      Value bv = v.view();
      bool integral =
          bv.type() == BsonType::kInt32 || bv.type() == BsonType::kInt64 ||
          (bv.type() == BsonType::kDouble && bv.as_double() == std::trunc(bv.as_double()) &&
           std::abs(bv.as_double()) < 9.2e18);
      if (!integral) {
        fail(5439017, op + " requires 'binSize' to be a 64-bit integer, but got value '" +
                          render(bv) + "' of type " + type_name(bv));
      }
      bin = bv.type() == BsonType::kDouble ? static_cast<int64_t>(bv.as_double()) : int_value(bv);
      if (bin <= 0) {
        fail(5439018,
             op + " requires 'binSize' to be greater than 0, but got value " + std::to_string(bin));
      }
    }
    std::optional<UnitAndZone> u = unit_and_zone(args, ctx, op);
    if (!u) return null_value();
    int64_t d = required_date(date.view(), op, "date");
    return make_value(bson::DateTime{date_trunc(d, u->unit, bin, u->zone, u->start_of_week)});
  }
};

ExprPtr parse_date_trunc(std::string_view, const Value& args) {
  if (!args.is_document()) fail(5439007, "$dateTrunc only supports an object as its argument");
  auto node = std::make_shared<DateTruncNode>();
  node->args = named_arguments(
      "$dateTrunc", args, {"date", "unit", "binSize", "timezone", "startOfWeek"}, 5439007, 5439008,
      ". Expected arguments are date, unit, and optionally, binSize, timezone, startOfWeek");
  if (!get(node->args, "date")) fail(5439009, "Missing 'date' parameter to $dateTrunc");
  if (!get(node->args, "unit")) fail(5439010, "Missing 'unit' parameter to $dateTrunc");
  return node;
}

}  // namespace

void register_date_arithmetic(OperatorTable& t) {
  t["$dateAdd"] = date_add_parser(1);
  t["$dateSubtract"] = date_add_parser(-1);
  t["$dateDiff"] = parse_date_diff;
  t["$dateTrunc"] = parse_date_trunc;
}

}  // namespace mongostore::engine::aggregation_detail
