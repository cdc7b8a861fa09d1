// The values a record field holds, and a record whose fields are known only at run time.
//
// A typed record (a plain C++ struct declared with record<T>(...), see declare.h) is turned
// into a DynamicRecord to be saved and rebuilt from one on fetch; tools that read a store
// without the C++ types (the CLI, an OPTIMADE endpoint) use DynamicRecord directly. Every
// piece of the store (identity, the stored form, dedup) is written against this one model.
//
// Thread safety: values are immutable once built and may be shared across threads.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "mongostore/records/rational.h"

namespace mongostore::records {

class RecordSchema;
class DynamicRecord;

/// Raw bytes (a `bytes` field; stored as binData subtype 0).
struct Bytes {
  std::string data;
  friend bool operator==(const Bytes&, const Bytes&) = default;
};

/// A date and time to the microsecond, aware (an instant, kept in UTC) or naive (a wall-clock
/// reading with no zone). `micros` counts microseconds from 1970-01-01T00:00:00 (UTC for an
/// aware value, the wall clock for a naive one); years 1..9999.
struct DateTime {
  int64_t micros = 0;
  bool aware = true;

  /// From calendar fields; an aware value names its UTC offset in seconds (the instant is
  /// kept, the offset is not: httk stores aware datetimes in UTC). BadValue when a field is
  /// out of range.
  static DateTime from_fields(int year, int month, int day, int hour = 0, int minute = 0,
                              int second = 0, int microsecond = 0,
                              std::optional<int32_t> utc_offset_seconds = 0);
  struct Fields {
    int year, month, day, hour, minute, second, microsecond;
  };
  /// The calendar fields (UTC for an aware value).
  Fields fields() const;
  /// ISO 8601 as httk's stored column writes it: "2026-01-02T03:04:05+00:00" (aware) or
  /// "2026-01-02T03:04:05" (naive), with ".ffffff" only when the microseconds are not zero.
  std::string iso() const;
  /// Parses iso()'s forms (an aware value with any "+hh:mm"/"Z" offset). BadValue otherwise.
  static DateTime parse_iso(std::string_view text);
  friend bool operator==(const DateTime&, const DateTime&) = default;
};

/// A calendar date (a `date` field; stored as "YYYY-MM-DD").
struct Date {
  int year = 1970, month = 1, day = 1;
  std::string iso() const;
  static Date parse_iso(std::string_view text);
  friend bool operator==(const Date&, const Date&) = default;
};

/// A matrix of exact rationals, row-major. A field declares its shape: fixed (rows x cols) or
/// variable rows of `cols` columns.
struct RationalMatrix {
  size_t rows = 0, cols = 0;
  std::vector<Rational> cells;
  friend bool operator==(const RationalMatrix&, const RationalMatrix&) = default;
};

/// One field's value. `null` stands for an absent optional value (Python's None).
class Value {
 public:
  using List = std::vector<Value>;
  using RecordPtr = std::shared_ptr<const DynamicRecord>;
  using Storage = std::variant<std::monostate, bool, int64_t, double, std::string, Bytes, Rational,
                               DateTime, Date, RationalMatrix, List, RecordPtr>;

  Value() = default;
  Value(bool v) : v_(v) {}                       // NOLINT
  Value(int64_t v) : v_(v) {}                    // NOLINT
  Value(int v) : v_(int64_t{v}) {}               // NOLINT
  Value(double v) : v_(v) {}                     // NOLINT
  Value(std::string v) : v_(std::move(v)) {}     // NOLINT
  Value(const char* v) : v_(std::string(v)) {}   // NOLINT
  Value(Bytes v) : v_(std::move(v)) {}           // NOLINT
  Value(Rational v) : v_(std::move(v)) {}        // NOLINT
  Value(DateTime v) : v_(v) {}                   // NOLINT
  Value(Date v) : v_(v) {}                       // NOLINT
  Value(RationalMatrix v) : v_(std::move(v)) {}  // NOLINT
  Value(List v) : v_(std::move(v)) {}            // NOLINT
  Value(RecordPtr v) : v_(std::move(v)) {}       // NOLINT

  bool is_null() const { return std::holds_alternative<std::monostate>(v_) || is_null_record(); }
  template <class T>
  bool is() const {
    return std::holds_alternative<T>(v_);
  }
  /// The held alternative; SchemaError naming what was expected when it holds another.
  template <class T>
  const T& as() const {
    if (const T* p = std::get_if<T>(&v_)) return *p;
    throw_wrong_kind(kind_name<T>());
  }
  const Storage& storage() const { return v_; }
  /// "null", "bool", "int", "float", "string", "bytes", "rational", "datetime", "date",
  /// "matrix", "list" or "record".
  std::string_view kind() const;

  friend bool operator==(const Value& a, const Value& b);

 private:
  bool is_null_record() const {
    const RecordPtr* p = std::get_if<RecordPtr>(&v_);
    return p && !*p;
  }
  template <class T>
  static constexpr std::string_view kind_name();
  [[noreturn]] void throw_wrong_kind(std::string_view expected) const;
  Storage v_;
};

template <class T>
constexpr std::string_view Value::kind_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  if constexpr (std::is_same_v<T, int64_t>) return "int";
  if constexpr (std::is_same_v<T, double>) return "float";
  if constexpr (std::is_same_v<T, std::string>) return "string";
  if constexpr (std::is_same_v<T, Bytes>) return "bytes";
  if constexpr (std::is_same_v<T, Rational>) return "rational";
  if constexpr (std::is_same_v<T, DateTime>) return "datetime";
  if constexpr (std::is_same_v<T, Date>) return "date";
  if constexpr (std::is_same_v<T, RationalMatrix>) return "matrix";
  if constexpr (std::is_same_v<T, List>) return "list";
  if constexpr (std::is_same_v<T, RecordPtr>) return "record";
  return "null";
}

/// A record of a runtime schema: one Value per declared field, in declaration order (a Skip
/// field's slot is null and never read). Fetched records are shared and immutable.
class DynamicRecord {
 public:
  /// SchemaError when `fields` does not hold one value per field of `schema`.
  DynamicRecord(std::shared_ptr<const RecordSchema> schema, std::vector<Value> fields,
                std::optional<int64_t> sid = std::nullopt);

  const RecordSchema& schema() const { return *schema_; }
  const std::shared_ptr<const RecordSchema>& schema_ptr() const { return schema_; }
  const std::vector<Value>& fields() const { return fields_; }
  /// The value of the field named `name`; SchemaError when the schema has no such field.
  const Value& get(std::string_view name) const;
  /// The sid of a record read from a store (nullopt for one built in memory).
  std::optional<int64_t> sid() const { return sid_; }

 private:
  std::shared_ptr<const RecordSchema> schema_;
  std::vector<Value> fields_;
  std::optional<int64_t> sid_;
};

}  // namespace mongostore::records
