#include "mongostore/records/value.h"

#include <charconv>
#include <cstdio>

#include "mongostore/records/errors.h"
#include "mongostore/records/schema.h"

namespace mongostore::records {
namespace {

constexpr int64_t kMicrosPerDay = 86'400'000'000;

// Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int* year, int* month, int* day) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *year = static_cast<int>(y + (*month <= 2));
}

bool leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

void check_date(int y, int m, int d) {
  if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > days_in_month(y, m)) {
    throw SchemaError("date out of range: " + std::to_string(y) + "-" + std::to_string(m) + "-" +
                      std::to_string(d));
  }
}

// Reads exactly `width` digits at text[*pos].
int digits(std::string_view text, size_t* pos, size_t width, std::string_view whole) {
  if (*pos + width > text.size()) throw SchemaError("not an ISO 8601 value: " + std::string(whole));
  int v = 0;
  for (size_t i = 0; i < width; ++i) {
    char c = text[*pos + i];
    if (c < '0' || c > '9') throw SchemaError("not an ISO 8601 value: " + std::string(whole));
    v = v * 10 + (c - '0');
  }
  *pos += width;
  return v;
}

void expect(std::string_view text, size_t* pos, char c, std::string_view whole) {
  if (*pos >= text.size() || text[*pos] != c) {
    throw SchemaError("not an ISO 8601 value: " + std::string(whole));
  }
  ++*pos;
}

}  // namespace

DateTime DateTime::from_fields(int year, int month, int day, int hour, int minute, int second,
                               int microsecond, std::optional<int32_t> utc_offset_seconds) {
  check_date(year, month, day);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 ||
      microsecond < 0 || microsecond > 999'999) {
    throw SchemaError("time out of range");
  }
  if (utc_offset_seconds && (*utc_offset_seconds <= -86400 || *utc_offset_seconds >= 86400)) {
    throw SchemaError("UTC offset out of range (must be under 24 hours)");
  }
  int64_t micros = days_from_civil(year, month, day) * kMicrosPerDay +
                   ((hour * 60 + minute) * 60 + second) * int64_t{1'000'000} + microsecond;
  DateTime out;
  out.aware = utc_offset_seconds.has_value();
  out.micros = micros - (out.aware ? *utc_offset_seconds * int64_t{1'000'000} : 0);
  Fields f = out.fields();
  if (f.year < 1 || f.year > 9999) throw SchemaError("datetime out of range in UTC");
  return out;
}

DateTime::Fields DateTime::fields() const {
  int64_t days =
      micros >= 0 ? micros / kMicrosPerDay : -((-micros + kMicrosPerDay - 1) / kMicrosPerDay);
  int64_t rest = micros - days * kMicrosPerDay;
  Fields f{};
  civil_from_days(days, &f.year, &f.month, &f.day);
  f.microsecond = static_cast<int>(rest % 1'000'000);
  int64_t secs = rest / 1'000'000;
  f.second = static_cast<int>(secs % 60);
  f.minute = static_cast<int>((secs / 60) % 60);
  f.hour = static_cast<int>(secs / 3600);
  return f;
}

std::string DateTime::iso() const {
  Fields f = fields();
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", f.year, f.month, f.day,
                        f.hour, f.minute, f.second);
  std::string out(buf, static_cast<size_t>(n));
  if (f.microsecond != 0) {
    n = std::snprintf(buf, sizeof buf, ".%06d", f.microsecond);
    out.append(buf, static_cast<size_t>(n));
  }
  if (aware) out += "+00:00";
  return out;
}

DateTime DateTime::parse_iso(std::string_view text) {
  size_t pos = 0;
  int y = digits(text, &pos, 4, text);
  expect(text, &pos, '-', text);
  int mo = digits(text, &pos, 2, text);
  expect(text, &pos, '-', text);
  int d = digits(text, &pos, 2, text);
  expect(text, &pos, 'T', text);
  int h = digits(text, &pos, 2, text);
  expect(text, &pos, ':', text);
  int mi = digits(text, &pos, 2, text);
  expect(text, &pos, ':', text);
  int s = digits(text, &pos, 2, text);
  int us = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    us = digits(text, &pos, 6, text);
  }
  std::optional<int32_t> offset;
  if (pos < text.size()) {
    if (text[pos] == 'Z') {
      offset = 0;
      ++pos;
    } else if (text[pos] == '+' || text[pos] == '-') {
      int sign = text[pos] == '-' ? -1 : 1;
      ++pos;
      int oh = digits(text, &pos, 2, text);
      expect(text, &pos, ':', text);
      int om = digits(text, &pos, 2, text);
      offset = sign * (oh * 3600 + om * 60);
    }
  }
  if (pos != text.size()) throw SchemaError("not an ISO 8601 datetime: " + std::string(text));
  return from_fields(y, mo, d, h, mi, s, us, offset);
}

std::string Date::iso() const {
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", year, month, day);
  return std::string(buf, static_cast<size_t>(n));
}

Date Date::parse_iso(std::string_view text) {
  size_t pos = 0;
  Date out;
  out.year = digits(text, &pos, 4, text);
  expect(text, &pos, '-', text);
  out.month = digits(text, &pos, 2, text);
  expect(text, &pos, '-', text);
  out.day = digits(text, &pos, 2, text);
  if (pos != text.size()) throw SchemaError("not an ISO 8601 date: " + std::string(text));
  check_date(out.year, out.month, out.day);
  return out;
}

std::string_view Value::kind() const {
  static constexpr std::string_view kNames[] = {"null",   "bool",   "int",      "float",
                                                "string", "bytes",  "rational", "datetime",
                                                "date",   "matrix", "list",     "record"};
  if (is_null()) return "null";
  return kNames[v_.index()];
}

void Value::throw_wrong_kind(std::string_view expected) const {
  throw SchemaError("expected a " + std::string(expected) + " value, got " + std::string(kind()));
}

bool operator==(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null();
  if (a.v_.index() != b.v_.index()) return false;
  if (const auto* ra = std::get_if<Value::RecordPtr>(&a.v_)) {
    const auto& rb = std::get<Value::RecordPtr>(b.v_);
    if (ra->get() == rb.get()) return true;
    return &(*ra)->schema() == &rb->schema() && (*ra)->fields() == rb->fields();
  }
  return a.v_ == b.v_;
}

DynamicRecord::DynamicRecord(std::shared_ptr<const RecordSchema> schema, std::vector<Value> fields,
                             std::optional<int64_t> sid)
    : schema_(std::move(schema)), fields_(std::move(fields)), sid_(sid) {
  if (!schema_) throw SchemaError("a record needs a schema");
  if (fields_.size() != schema_->fields().size()) {
    throw SchemaError(schema_->identity_name() + ": " + std::to_string(fields_.size()) +
                      " values for " + std::to_string(schema_->fields().size()) + " fields");
  }
}

const Value& DynamicRecord::get(std::string_view name) const {
  std::optional<size_t> i = schema_->field_index(name);
  if (!i) throw SchemaError(schema_->identity_name() + " has no field '" + std::string(name) + "'");
  return fields_[*i];
}

}  // namespace mongostore::records
