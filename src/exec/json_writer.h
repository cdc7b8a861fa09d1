// JsonWriter: compact JSON text, written the way harel's pydantic models dump theirs.
//
// The stored `data` field and outbox events are JSON strings that harel (Python) reads and
// writes too, so the bytes matter: no spaces, fields in the order the caller writes them,
// UTF-8 left as is, floats as Python's repr prints them (1.0, 0.1, 1e+16). Free-form BSON
// documents (context, event data, ...) are written with JSON-native numbers; BSON types JSON
// has no word for (ObjectId, dates, decimals, binary, ...) as compact relaxed extended JSON,
// which bson::Document::from_json reads back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::exec {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The next member's name (inside an object).
  JsonWriter& key(std::string_view name);

  JsonWriter& null();
  JsonWriter& boolean(bool v);
  JsonWriter& string(std::string_view v);
  JsonWriter& optional_string(const std::optional<std::string>& v);
  JsonWriter& integer(int64_t v);
  JsonWriter& number(double v);
  /// Any BSON value; documents and arrays recursively.
  JsonWriter& value(const bson::Value& v);
  JsonWriter& document(bson::DocumentView doc);
  JsonWriter& array(bson::DocumentView array);
  /// Appends already-serialized JSON as one value.
  JsonWriter& raw(std::string_view json);

  const std::string& text() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  // Writes the comma a value needs (none right after a key or at the start of a container).
  void before_value();

  std::string out_;
  // One entry per open container: has it received a member yet?
  std::vector<bool> has_member_;
  bool after_key_ = false;
};

/// A double as Python's repr() writes it (shortest round-trip digits; "1.0", "1e-05",
/// "1.5e+16"). NaN and the infinities have no JSON spelling: callers handle them.
std::string python_float_repr(double v);

}  // namespace mongostore::exec
