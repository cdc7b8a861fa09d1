// IdentityNode: one value of httk's canonical identity form (format version 2; reference §2).
//
// The content id of a record is the SHA-256 of a canonical JSON text built from a tree of
// type-tagged value nodes; this class is that tree. The RecordStore turns a record (through
// its runtime schema) into a record node, and content_id.h writes the node's canonical JSON
// and hashes it. Every factory validates its input, so a node that exists always has a
// canonical form: integers are decimal text, floats finite, strings valid UTF-8, datetimes
// real instants, mapping keys and record field names unique. Mapping entries and record fields
// are kept sorted by key in code-point order (the order of the canonical form; for valid
// UTF-8, byte order is code-point order).
//
// A record node used as a value (a reference, a child element, a mapping value) is written as
// `{"content_id":<its digest>,"type":"record_ref"}` (httk's Merkle reference); record_ref()
// builds that reference directly from a digest computed elsewhere (e.g. a child already
// saved), which is cheaper for wide graphs.
//
// Errors: every factory throws mongostore::Error BadValue (2) naming the offending value.
// Thread safety: a node is a value; const access from several threads is safe.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "mongostore/records/rational.h"

namespace mongostore::records {

class IdentityNode {
 public:
  enum class Kind {
    kNull,
    kBool,
    kInt,
    kFloat,
    kString,
    kBytes,
    kRational,    // Fraction; also Decimal (which encodes as its reduced rational)
    kFracVector,  // httk FracVector: a shared denominator and nested integer nominators
    kDatetime,
    kDate,
    kList,
    kTuple,
    kMapping,
    kRecordRef,
    kRecord,
    kCustom,  // a value of a registered custom encoder: {python_type, value}
  };
  using Entry = std::pair<std::string, IdentityNode>;

  /// A null node ({"type":"null"}).
  IdentityNode();

  static IdentityNode null() { return IdentityNode(); }
  static IdentityNode boolean(bool value);
  static IdentityNode integer(int64_t value);
  /// An integer of any size from decimal text: an optional '-' and digits (leading zeros and
  /// "-0" are normalised, as Python's int would print them).
  static IdentityNode integer(std::string_view decimal);
  /// A finite double; NaN and infinities have no identity (BadValue).
  static IdentityNode floating(double value);
  /// UTF-8 text (validated: no overlongs, no surrogates, nothing above U+10FFFF).
  static IdentityNode string(std::string utf8);
  /// Raw bytes (written as lowercase hex).
  static IdentityNode bytes(std::string_view raw);
  static IdentityNode rational(Rational value);
  /// A decimal number as Python's Decimal text: "-1.25", "3", "1E+3", "2.5e-7" (finite only;
  /// no NaN/Infinity). It encodes as the reduced rational of its exact value.
  static IdentityNode decimal(std::string_view text);
  /// A FracVector of the given shape (row-major `values`; the shape's product must equal
  /// values.size(); an empty shape is a scalar of one value). Written as
  /// {"type":"frac_vector","value":{"denominator":d,"nominators":[…]}} with d the least
  /// common denominator (httk's `simplify()`: the smallest positive shared denominator) and
  /// nominators nested as the shape, as JSON integers (not strings).
  /// Verified by reading httk-core's code (identity.py `_frac` and FracVector.simplify at
  /// 0352cc25), not by golden vectors: none covers FracVector. httk writes a FracScalar as a
  /// `rational` node, so use rational() for a single value. (surd_scalar/surd_vector nodes are
  /// not supported.)
  static IdentityNode frac_vector(std::span<const Rational> values, std::vector<size_t> shape);

  /// A datetime. `aware` false → naive; true → aware with `utc_offset_seconds` east of UTC
  /// (whole seconds, |offset| < 24 h), converted to UTC for the identity and written with
  /// "+00:00". Six microsecond digits always (Python's isoformat(timespec="microseconds")). Fields
  /// as Python's datetime: year 1…9999 (also after the conversion to UTC), month 1…12, day valid
  /// for the month, hour 0…23, minute and second 0…59, microsecond 0…999999.
  struct Datetime {
    int year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, microsecond = 0;
    bool aware = false;
    int32_t utc_offset_seconds = 0;  // used only when aware
  };
  static IdentityNode datetime(const Datetime& value);
  static IdentityNode date(int year, int month, int day);

  static IdentityNode list(std::vector<IdentityNode> items);
  static IdentityNode tuple(std::vector<IdentityNode> items);
  /// A mapping with string keys (UTF-8, unique), given in any order.
  static IdentityNode mapping(std::vector<Entry> entries);
  /// A reference to a record whose content id (64 lowercase hex) is known.
  static IdentityNode record_ref(std::string_view content_id);
  /// A record: its identity_name and the fields that are part of its identity (callers leave
  /// out Skip, IdentitySkip and stored properties), unique names in any order.
  static IdentityNode record(std::string identity_name, std::vector<Entry> fields);
  /// A custom-encoded value: `python_type` is the exact Python type name httk records.
  static IdentityNode custom(std::string python_type, IdentityNode value);

  Kind kind() const { return kind_; }

  // Accessors, each valid only for the kinds named (checked with a BadValue otherwise).
  bool as_bool() const;                         // kBool
  double as_double() const;                     // kFloat
  const std::string& text() const;              // kInt (decimal), kString, kBytes (raw),
                                                // kRecordRef (digest), kRecord (identity_name),
                                                // kDatetime/kDate (identity text), kCustom
  bool aware() const;                           // kDatetime
  const Rational& as_rational() const;          // kRational
  std::span<const IdentityNode> items() const;  // kList, kTuple, kCustom (one item)
  std::span<const Entry> entries() const;       // kMapping, kRecord (sorted by key)
  /// kFracVector: the denominator (decimal), nominators (decimal, row-major) and the shape.
  const std::string& frac_denominator() const;
  std::span<const std::string> frac_nominators() const;
  std::span<const size_t> frac_shape() const;

 private:
  struct FracVector {
    std::string denominator;
    std::vector<std::string> nominators;
    std::vector<size_t> shape;
  };

  Kind kind_ = Kind::kNull;
  bool flag_ = false;  // kBool value; kDatetime aware
  double number_ = 0;  // kFloat
  std::string text_;
  // Rational and FracVector are rare and large: held behind a pointer to keep nodes small.
  std::shared_ptr<const Rational> rational_;
  std::shared_ptr<const FracVector> frac_;
  std::vector<IdentityNode> items_;
  std::vector<Entry> entries_;
};

}  // namespace mongostore::records
