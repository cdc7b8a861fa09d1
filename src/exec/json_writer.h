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

#include "mongostore/bson/document.h"

namespace mongostore::exec {

/// A member name fixed at compile time and checked then to be ASCII and need no escape (no
/// quote, backslash or control character; a name that does not compile), so the writer
/// copies it without scanning: the model's own field names.
class JsonName {
 public:
  template <size_t N>
  consteval JsonName(const char (&name)[N]) : name_(name, N - 1) {  // NOLINT: implicit on purpose
    for (char c : name_) {
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 ||
          static_cast<unsigned char>(c) >= 0x80) {
        // not a constant expression: a compile error
        throw "a JsonName must be ASCII and need no escape";
      }
    }
  }
  std::string_view view() const { return name_; }

 private:
  std::string_view name_;
};

// Not thread-safe: one writer per output. The writer keeps its own length over a buffer it
// grows geometrically (each piece is one bounds check and a memcpy, not a std::string append),
// so give it a size estimate when one is cheap to compute: Execution::to_json is on every
// commit of the ExecutionStore (issue 29).
class JsonWriter {
 public:
  /// `expected_size`: the output length to reserve up front (a guess; the buffer grows past it).
  explicit JsonWriter(size_t expected_size = 256);
  /// Writes into `buffer` after its first `start` bytes, which stay as they are; the buffer
  /// keeps its size (spare room included: a buffer reused across commits is zeroed only where
  /// it grows). text() is then the whole buffer's written part, [0, length()).
  JsonWriter(std::string& buffer, size_t start, size_t expected_size);
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The next member's name (inside an object).
  JsonWriter& key(std::string_view name);
  /// The same for a name fixed at compile time (cheaper: nothing to scan for escapes).
  JsonWriter& field(JsonName name) {
    put_plain(name.view(), true);
    return *this;
  }

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

  /// False when everything written is known to be ASCII, hence valid UTF-8: string contents
  /// are checked by the escape scan as they are written, the writer's own punctuation, names
  /// and numbers are ASCII, and raw() text counts as non-ASCII. True means "maybe not ASCII"
  /// (a caller then validates the text itself); it never stays false for a non-ASCII byte.
  bool maybe_non_ascii() const { return non_ascii_; }

  /// The JSON written so far.
  std::string_view text() const { return {buf_->data(), len_}; }
  /// The end of what is written (from the buffer's start, the prefix of the second
  /// constructor included).
  size_t length() const { return len_; }
  /// The JSON written; the writer is empty afterwards. Only for a writer of its own buffer
  /// (the first constructor).
  std::string take();

 private:
  // Room for `n` more bytes at the end; returns where they go (commit them with len_ += n).
  char* room(size_t n) {
    if (buf_->size() - len_ < n) grow(n);
    return buf_->data() + len_;
  }
  void grow(size_t n);
  void put(char c) {
    *room(1) = c;
    ++len_;
  }
  void put(std::string_view s);
  // The comma a value or key needs (none at the start of a container or right after a key).
  // Idempotent: a second call before the value is written adds nothing.
  void before_value() {
    if (comma_) {
      put(',');
      comma_ = false;
    }
  }
  // A string value (or, with is_key, a member name and its colon), its comma first if due.
  void put_string(std::string_view s, bool is_key);
  // put_string for `s` known to need no escape.
  void put_plain(std::string_view s, bool is_key);
  // The quoted, escaped string; `stop` is its first byte that needs an escape.
  void put_escaped(std::string_view s, const char* stop);
  // The members of the BSON document (or array) whose bytes are [data, data + size).
  void members(const uint8_t* data, size_t size, bool is_array);
  // raw() for text known to be ASCII (the writer's own literals).
  JsonWriter& put_ascii(std::string_view json);
  // put_ascii for a string literal (its length a constant).
  template <size_t N>
  JsonWriter& put_literal(const char (&literal)[N]);
  // The BSON types JSON has no word for, as relaxed extended JSON.
  void extended(const bson::Value& v);

  // The output is (*buf_)[0, len_); beyond len_ is spare room. buf_ is own_ or the caller's.
  std::string own_;
  std::string* buf_ = &own_;
  size_t len_ = 0;
  // Whether the next value or key follows a sibling and so needs a comma.
  bool comma_ = false;
  // Whether a byte written may be non-ASCII (maybe_non_ascii()).
  bool non_ascii_ = false;
};

/// A double as Python's repr() writes it (shortest round-trip digits; "1.0", "1e-05",
/// "1.5e+16"; "nan", "inf", "-inf"). NaN and the infinities have no JSON spelling: JSON
/// writers handle them before calling this.
std::string python_float_repr(double v);

}  // namespace mongostore::exec
