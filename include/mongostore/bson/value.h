// Value: a zero-copy view of one BSON value inside a document's bytes.
//
// A Value never owns memory: it points into a Document (or any validated BSON buffer) that
// must outlive it. The default Value is "missing" (type kEndOfDocument), which is what a
// lookup of an absent field returns; MongoDB distinguishes missing from null, and so do we.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "mongostore/bson/types.h"

namespace mongostore::bson {

class DocumentView;

class Value {
 public:
  /// A missing value.
  Value() = default;
  /// A view of a value of `type` whose payload (the bytes after the element's key) starts at
  /// `data` and is `size` bytes long. The payload must be valid BSON for `type`.
  Value(BsonType type, const uint8_t* data, uint32_t size)
      : type_(type), data_(data), size_(size) {}

  BsonType type() const { return type_; }
  bool is_missing() const { return type_ == BsonType::kEndOfDocument; }
  bool is_null() const { return type_ == BsonType::kNull; }
  bool is_number() const { return bson::is_number(type_); }
  bool is_document() const { return type_ == BsonType::kDocument; }
  bool is_array() const { return type_ == BsonType::kArray; }
  bool is_string() const { return type_ == BsonType::kString; }

  // Typed accessors. Each throws Error(TypeMismatch) when the value has another type.
  double as_double() const;
  int32_t as_int32() const;
  int64_t as_int64() const;
  bool as_bool() const;
  std::string_view as_string() const;  // kString, kSymbol and kCode
  DocumentView as_document() const;    // kDocument
  DocumentView as_array() const;       // kArray: a document keyed "0", "1", ...
  ObjectId as_object_id() const;
  DateTime as_datetime() const;
  Timestamp as_timestamp() const;
  Decimal128 as_decimal128() const;
  BinaryView as_binary() const;
  RegexView as_regex() const;
  /// kCodeWithScope: the code and its scope document.
  std::string_view code_with_scope_code() const;
  DocumentView code_with_scope_scope() const;

  /// Any numeric type widened to double (int64 and decimal values may round).
  double number_as_double() const;
  /// True for a number whose value is integral and fits int64 exactly; sets *out.
  bool number_as_exact_int64(int64_t* out) const;
  /// MongoDB truthiness: false, null, missing, undefined and numeric zero are false.
  bool truthy() const;

  /// The payload bytes (what follows the element key in BSON).
  const uint8_t* data() const { return data_; }
  uint32_t size() const { return size_; }

  /// Relaxed extended JSON of this value alone (e.g. `1`, `"x"`, `{"$oid": "..."}`).
  std::string to_json() const;

  /// Byte-wise identity (same type and payload). For MongoDB equality use compare_values.
  bool identical(const Value& other) const {
    return type_ == other.type_ && size_ == other.size_ &&
           (size_ == 0 || std::memcmp(data_, other.data_, size_) == 0);
  }

 private:
  BsonType type_ = BsonType::kEndOfDocument;
  const uint8_t* data_ = nullptr;
  uint32_t size_ = 0;
};

}  // namespace mongostore::bson
