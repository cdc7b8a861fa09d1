// The query vocabulary of the RecordStore searcher (searcher.h): variables, field paths and
// conditions, built as values and compiled into one aggregation on the server.
//
//   Searcher search = store.searcher();
//   Var s = search.variable<Structure>();
//   Var a = search.variable<Author>();
//   search.add((s.field(&Structure::spacegroup) == 225) &
//              ~(s.field("energy") > -1.0) &              // excludes null energies
//              s.field("tags").has_any({"cubic", "cubic-ish"}) &
//              (s.field("author") == a) &                   // a join: binds `a`
//              a.field("name").starts_with("Ad"));
//   search.add(s.field("author").field("name") == "Ada");  // a chained reference
//
// Fields are named by member pointer where the C++ type is known, or by name on the runtime
// schema; `sid()`, `logical_id()`, `store_timestamp()` and `content_id()` name the document's
// own keys. An encoded field (float, rational, datetime, date) is compared through its query
// column: the nearest double of a rational, the ISO text of a datetime. A list field (a
// child) is compared existentially: `tags == "x"` holds when some element equals "x", and its
// negation when none does.
//
// Conditions have three values, as SQL's: a comparison with a null (absent) value is neither
// true nor false, so neither it nor its negation holds (`~(x == v)` excludes null x); only
// `== null`, `!= null` and `is_in` with a null member see nulls. Compiled exactly by the table
// of docs/record-store.md ("Three-valued logic").
//
// Errors: SchemaError when a field does not exist, is used in a way its type does not allow
// (a chained field on a non-reference, `has` on a scalar, a fixed matrix) or is compared with
// a literal of another kind; BadValue (mongostore::Error) for a naive timestamp operand.
//
// Thread safety: vocabulary values are immutable and may be shared; a Searcher is not.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/records/declare.h"
#include "mongostore/records/schema.h"
#include "mongostore/records/value.h"

namespace mongostore::records {

/// None, for `field == kNull` (a literal 0 would be an int, never a null).
inline const Value kNull{};

/// A stored record named by its sid, for `ref == stored record`.
struct SidLiteral {
  int64_t sid = 0;
};
inline SidLiteral stored(int64_t sid) {
  return SidLiteral{sid};
}

/// What a field path ends in: a declared field, or one of the document's own keys.
enum class PathEnd { kField, kSid, kLogicalId, kStoreTimestamp, kContentId };

/// A field path: from a variable through zero or more reference fields to its end. Plain data,
/// read by the query compiler.
struct FieldPath {
  using SchemaPtr = std::shared_ptr<const RecordSchema>;
  int var = 0;           // the variable (0 = the root)
  SchemaPtr var_schema;  // the variable's record type
  /// The reference fields followed, each on the schema before it: (schema, field index).
  std::vector<std::pair<SchemaPtr, size_t>> hops;
  SchemaPtr owner;   // the record type owning the end
  size_t field = 0;  // kField: the index of the field in `owner`
  PathEnd end = PathEnd::kField;

  const FieldSchema* field_schema() const {
    return end == PathEnd::kField ? &owner->fields()[field] : nullptr;
  }
  /// "s0.author.name", for messages and fingerprints.
  std::string describe() const;
};

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class StringOp { kContains, kStartsWith, kEndsWith };

/// One node of a condition tree.
struct CondNode {
  enum class Kind {
    kTrue,
    kFalse,
    kAnd,
    kOr,
    kNot,
    kCompare,       // lhs op literal (values[0], possibly null)
    kCompareField,  // lhs op rhs
    kIn,            // lhs in values (null members allowed)
    kHasAny,        // a child has an element in values
    kHasOnly,       // a child has no element outside values
    kString,        // lhs contains / starts with / ends with text
    kExact,         // [values[1] ·] [lhs_factor ·] lhs op values[0] (Rationals), exactly:
                    // client-verified
    kExactField,    // values[0] · [lhs_factor ·] lhs op values[1] · [rhs_factor ·] rhs
                    // (Rationals), exactly: client-verified
    kUnknown,       // neither true nor false on every row (nor is its negation)
    kLength,        // the number of elements of a list lhs op values[0] (an int)
  };
  Kind kind = Kind::kTrue;
  CompareOp op = CompareOp::kEq;
  StringOp string_op = StringOp::kContains;
  FieldPath lhs, rhs;
  /// kExact, kExactField: a field factor of lhs / rhs (its literal factor is then 1).
  std::optional<FieldPath> lhs_factor, rhs_factor;
  std::vector<Value> values;
  std::string text;
  std::vector<std::shared_ptr<const CondNode>> children;
};

/// A condition: combine with `&`, `|`, `~`.
class Condition {
 public:
  explicit Condition(std::shared_ptr<const CondNode> node) : node_(std::move(node)) {}
  const CondNode& node() const { return *node_; }
  const std::shared_ptr<const CondNode>& ptr() const { return node_; }

  friend Condition operator&(const Condition& a, const Condition& b);
  friend Condition operator|(const Condition& a, const Condition& b);
  friend Condition operator~(const Condition& a);

 private:
  std::shared_ptr<const CondNode> node_;
};
/// The condition every row satisfies / no row satisfies.
Condition always_true();
Condition always_false();
/// The conjunction of `parts` as a balanced tree: a chain of n conditions (a filter may hold
/// thousands) is about log2(n) deep, so compiling it recurses little. always_true() for none.
Condition all_of(std::vector<Condition> parts);
/// The disjunction of `parts`, balanced likewise; always_false() for none.
Condition any_of(std::vector<Condition> parts);
/// The condition that is unknown on every row, as a comparison with a null is: neither it nor
/// its negation holds (`x | always_unknown()` holds where x does, `x & always_unknown()`
/// never holds, and is false where x is). For a property no record has (OPTIMADE's
/// properties of other databases).
Condition always_unknown();

class Var;
class FieldRef;

/// A factor of a scaled comparison (FieldRef::scaled): a rational literal, or a rational,
/// float or int field (httk's scaled_exact_equal takes any query value as a factor). Converts
/// implicitly from both, so `x.scaled(Rational(3), ...)` and `x.scaled(v.field("n"), ...)`
/// read alike.
class ScaleFactor {
 public:
  ScaleFactor(Rational literal) : literal_(std::move(literal)) {}  // NOLINT: implicit
  ScaleFactor(const FieldRef& field);                              // NOLINT: implicit
  /// The literal (1 for a field factor) and the field, if the factor is one.
  const Rational& literal() const { return literal_; }
  const std::optional<FieldPath>& field() const { return field_; }

 private:
  Rational literal_{1};
  std::optional<FieldPath> field_;
};

/// A field of a variable (or of a record it refers to), to compare, sort on or output.
class FieldRef {
 public:
  explicit FieldRef(FieldPath path) : path_(std::move(path)) {}
  const FieldPath& path() const { return path_; }

  /// A field of the record this reference field points at (a chained reference).
  /// SchemaError unless this path ends in a reference field and `name` is a stored field of
  /// its target.
  FieldRef field(std::string_view name) const;
  template <Declared T, class M>
  FieldRef field(M T::*member) const {
    return field(RecordType<T>::get().field_name(member));
  }
  /// A stored property of the target by the free function that computes it (declare.h).
  template <Declared T, class R>
  FieldRef field(R (*compute)(const T&)) const {
    return field(RecordType<T>::get().field_name(compute));
  }

  Condition is_in(std::vector<Value> values) const;
  /// Children (list fields): has / has_any hold when some element is one of `values`;
  /// has_only when no element is outside them (vacuously on an empty list). A null member is
  /// refused (BadValue).
  Condition has(Value value) const { return has_any({std::move(value)}); }
  Condition has_any(std::vector<Value> values) const;
  Condition has_only(std::vector<Value> values) const;
  /// The number of elements of a list field compared with `n`: two-valued on the record's own
  /// lists (a list is never null, an absent one is empty); unknown through a reference that
  /// is null. SchemaError when the field is not a list.
  Condition length(CompareOp op, int64_t n) const;
  /// Literal, case-sensitive substring tests of a string field (no wildcard characters).
  Condition contains(std::string text) const;
  Condition starts_with(std::string text) const;
  Condition ends_with(std::string text) const;

  Condition compare(CompareOp op, Value literal) const;
  Condition compare(CompareOp op, const FieldRef& other) const;
  /// An exact comparison of a rational or float field with `value` (a plain comparison
  /// compares the stored nearest double). The server prefilters by the nearest double, which
  /// never drops a match (rounding is monotonic: x < v implies double(x) <= double(v)); the
  /// client verifies each candidate's exact value, before offset, limit, count and pages
  /// apply. Only as a top-level conjunct (UnsupportedQueryError under | or ~).
  Condition exact(CompareOp op, Rational value) const;
  /// Scaled exact comparisons (httk's scaled_exact_equal, and the orderings): `factor · this
  /// op value` and `factor · this op other_factor · other`, in exact arithmetic, both fields
  /// rational or float (SchemaError otherwise). Each factor is a rational literal or a
  /// rational, float or int field (SchemaError for another kind, or a list). A null operand
  /// or field factor makes the comparison unknown. The server prefilters by an error-bounded
  /// window on the stored nearest doubles, which provably keeps every match
  /// (docs/record-store.md, "Exact comparisons"); the client verifies exactly. The same
  /// restrictions as exact(): a top-level conjunct only.
  Condition scaled(const ScaleFactor& factor, CompareOp op, Rational value) const;
  Condition scaled(const ScaleFactor& factor, CompareOp op, const FieldRef& other,
                   const ScaleFactor& other_factor) const;

 private:
  FieldPath path_;
};

/// A variable of a searcher: one record of its type per result row.
class Var {
 public:
  Var(int index, std::shared_ptr<const RecordSchema> schema)
      : index_(index), schema_(std::move(schema)) {}
  int index() const { return index_; }
  const std::shared_ptr<const RecordSchema>& schema() const { return schema_; }

  /// A stored field by name; SchemaError when the schema has no such stored field.
  FieldRef field(std::string_view name) const;
  /// A field by member pointer; SchemaError when T is not this variable's type.
  template <Declared T, class M>
  FieldRef field(M T::*member) const {
    if (RecordType<T>::get().schema() != schema_) {
      throw SchemaError("member of " + RecordType<T>::get().schema()->identity_name() +
                        " used on a variable of " + schema_->identity_name());
    }
    return field(RecordType<T>::get().field_name(member));
  }
  /// A stored property by the free function that computes it (declare.h); a property computed
  /// by a method is named by its member pointer above. SchemaError when T is not this
  /// variable's type.
  template <Declared T, class R>
  FieldRef field(R (*compute)(const T&)) const {
    if (RecordType<T>::get().schema() != schema_) {
      throw SchemaError("property of " + RecordType<T>::get().schema()->identity_name() +
                        " used on a variable of " + schema_->identity_name());
    }
    return field(RecordType<T>::get().field_name(compute));
  }
  FieldRef sid() const { return special(PathEnd::kSid); }
  FieldRef logical_id() const { return special(PathEnd::kLogicalId); }
  /// Operands are nanoseconds (int), aware DateTimes or RFC 3339 strings; naive is refused.
  FieldRef store_timestamp() const { return special(PathEnd::kStoreTimestamp); }
  FieldRef content_id() const { return special(PathEnd::kContentId); }

 private:
  FieldRef special(PathEnd end) const;
  int index_;
  std::shared_ptr<const RecordSchema> schema_;
};

// Comparisons: against a literal (a null Value is None), another field, a variable (a
// reference field equal to a variable joins it), a stored record's sid (`stored(sid)`) or
// kNull.
#define MONGOSTORE_RECORDS_COMPARISON(sym, op)                          \
  inline Condition operator sym(const FieldRef& a, Value b) {           \
    return a.compare(op, std::move(b));                                 \
  }                                                                     \
  inline Condition operator sym(const FieldRef& a, const FieldRef& b) { \
    return a.compare(op, b);                                            \
  }                                                                     \
  inline Condition operator sym(const FieldRef& a, SidLiteral b) {      \
    return a.compare(op, Value(b.sid));                                 \
  }
MONGOSTORE_RECORDS_COMPARISON(==, CompareOp::kEq)
MONGOSTORE_RECORDS_COMPARISON(!=, CompareOp::kNe)
MONGOSTORE_RECORDS_COMPARISON(<, CompareOp::kLt)
MONGOSTORE_RECORDS_COMPARISON(<=, CompareOp::kLe)
MONGOSTORE_RECORDS_COMPARISON(>, CompareOp::kGt)
MONGOSTORE_RECORDS_COMPARISON(>=, CompareOp::kGe)
#undef MONGOSTORE_RECORDS_COMPARISON

/// `ref == variable`: a reference field pointing at the variable's record (a join).
inline Condition operator==(const FieldRef& a, const Var& b) {
  return a.compare(CompareOp::kEq, b.sid());
}
inline Condition operator!=(const FieldRef& a, const Var& b) {
  return a.compare(CompareOp::kNe, b.sid());
}

}  // namespace mongostore::records
