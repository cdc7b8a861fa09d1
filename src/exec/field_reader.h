// FieldReader: typed reads of a parsed model document (an Execution, Event or child state),
// failing with FailedToParse (9) that names the model and the field.
//
// Execution and Event JSON is parsed into a BSON document first (bson::Document::from_json);
// this class then checks each field's type. A missing field takes the model's default (as pydantic
// fills defaults); only a field with the wrong type is an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"

namespace mongostore::exec {

class FieldReader {
 public:
  /// `what` names the model in errors ("Execution", "Event", "children[<id>]").
  FieldReader(bson::DocumentView doc, std::string what) : doc_(doc), what_(std::move(what)) {}

  bool has(std::string_view key) const { return !doc_.get(key).is_missing(); }
  /// A required string (missing is an error too).
  std::string required_string(std::string_view key) const;
  std::string string(std::string_view key, std::string_view fallback = "") const;
  /// A string or null.
  std::optional<std::string> optional_string(std::string_view key) const;
  bool boolean(std::string_view key, bool fallback = false) const;
  int64_t integer(std::string_view key, int64_t fallback = 0) const;
  /// A sub-document (null and missing read as {}).
  bson::DocumentView document(std::string_view key) const;
  /// An array (null and missing read as []).
  bson::DocumentView array(std::string_view key) const;

  // The same checks of a value already read (e.g. by bson::first_values, one walk for several
  // fields); `key` names it in errors.
  std::string required_string(std::string_view key, const bson::Value& v) const;
  std::optional<std::string> optional_string(std::string_view key, const bson::Value& v) const;
  bson::DocumentView document(std::string_view key, const bson::Value& v) const;

  /// An error naming the field.
  [[noreturn]] void fail(std::string_view key, std::string_view problem) const;

 private:
  bson::DocumentView doc_;
  std::string what_;
};

}  // namespace mongostore::exec
