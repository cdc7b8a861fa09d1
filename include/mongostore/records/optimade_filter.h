// The OPTIMADE filter language: its syntax tree, its parser and its canonical printer.
//
// The language is the one of the OPTIMADE specification ("API Filtering Format Specification"
// and the appendix "The Filter Language EBNF Grammar"), parsed in full, including the forms the
// specification marks OPTIONAL (constant on the left, `HAS` with an operator, `HAS ONLY`,
// correlated lists `a:b HAS 1:2`, `LENGTH` with an operator, properties as values, value-list
// entries with an operator). Whether a form is *supported* when the filter is translated onto
// the searcher is the translation's business, not the parser's: the parser only says whether
// the text is a filter and what its structure is.
//
// What the parser accepts, in the grammar's terms:
//  - keywords are the upper-case words of the grammar (AND OR NOT IS KNOWN UNKNOWN CONTAINS
//    STARTS ENDS WITH LENGTH HAS ALL ANY ONLY TRUE FALSE), case-sensitive: `and` is a property
//    name, `And` is an error. As in the grammar, whitespace between tokens is optional
//    (`a=1ANDb=2` is `a = 1 AND b = 2`); no keyword is a prefix of another, so this is never
//    ambiguous.
//  - property names are `[a-z_][a-z_0-9]*`, nested ones separated by `.` (with optional
//    whitespace after the dot, as the grammar's Dot token allows).
//  - strings are double-quoted; inside, `\"` is a quote and `\\` a backslash, and no other
//    escape exists (`"\n"` is an error); the characters allowed are the grammar's: printable
//    ASCII, the six whitespace characters, and well-formed UTF-8 above 0x7F.
//  - numbers follow the grammar `[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?` and are kept as the
//    literal text written, so that no precision is lost before the translation decides a type.
//  - precedence: comparisons, then NOT, then AND, then OR. As in the grammar, NOT applies to one
//    comparison or one parenthesised expression: `NOT NOT a` is an error, `NOT (NOT a)` is not.
//
// Limits (untrusted input): a filter is at most kMaxOptimadeFilterBytes bytes and nests at most
// kMaxOptimadeFilterDepth parentheses; beyond either the parser throws
// OptimadeFilterSyntaxError. The parser recurses only per parenthesis, so its stack use is
// bounded by the depth limit; it never reads outside the input and never crashes on any byte
// string (it is the entry point of the fuzz target).
//
// Errors: OptimadeFilterSyntaxError (include/mongostore/records/errors.h), naming the 1-based
// column (byte position in the filter) of the first offending token and what was expected.
//
// Thread safety: parsing and printing are pure functions; the syntax tree is an immutable value
// (only const access), safe to share between threads.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mongostore::records {

/// The longest filter accepted, in bytes (OPTIMADE leaves the length to the URI limits).
inline constexpr std::size_t kMaxOptimadeFilterBytes = 100'000;
/// The deepest parenthesis nesting accepted.
inline constexpr int kMaxOptimadeFilterDepth = 100;

// The searcher's comparison operator (mongostore/records/query.h), declared opaquely so that
// the parser does not depend on the searcher's headers.
enum class CompareOp;

namespace optimade {

/// A property name, possibly nested: `a.b.c` is {"a", "b", "c"}.
struct Property {
  std::vector<std::string> names;

  bool operator==(const Property&) const = default;
};

/// A value of the filter: a string, a number, TRUE/FALSE, or a property name (the grammar's
/// `Value`).
class Value {
 public:
  enum class Kind { kString, kNumber, kBoolean, kProperty };

  /// FALSE (so that the types holding a Value are default-constructible).
  Value() = default;
  static Value string(std::string unescaped);
  /// `literal` is the number's text as written (sign, digits, dot, exponent).
  static Value number(std::string literal);
  static Value boolean(bool value);
  static Value property(Property property);

  Kind kind() const { return kind_; }
  /// The string's value (escapes resolved), or the number's literal text.
  const std::string& text() const { return text_; }
  bool boolean_value() const { return boolean_; }
  const Property& property_name() const { return property_; }
  /// A string, a number (the grammar's OrderedConstant) or a boolean.
  bool is_constant() const { return kind_ != Kind::kProperty; }

  bool operator==(const Value&) const = default;

 private:
  Kind kind_ = Kind::kBoolean;
  std::string text_;
  bool boolean_ = false;
  Property property_;
};

/// The binary operators: comparisons and the fuzzy string operators.
enum class Operator { kEq, kNe, kLt, kLe, kGt, kGe, kContains, kStartsWith, kEndsWith };

/// The operator as the canonical filter text writes it ("=", "STARTS WITH", ...).
std::string_view operator_text(Operator op);

/// The operator with its sides swapped: `c op p` holds exactly when `p mirrored(op) c` does
/// (`<` becomes `>`, `<=` becomes `>=`; the others are symmetric or have no mirror and are
/// returned as they are).
Operator mirrored(Operator op);

/// The searcher's CompareOp of a comparison operator (`=` is kEq, `<=` is kLe, ...); nullopt
/// for the fuzzy string operators (CONTAINS, STARTS WITH, ENDS WITH), which have none.
std::optional<CompareOp> compare_op(Operator op);

/// One entry of a HAS value list: `op value`; an entry written without an operator is kEq.
struct Operand {
  Operator op = Operator::kEq;
  Value value;

  bool operator==(const Operand&) const = default;
};

/// `left op right` with `=` `!=` `<` `<=` `>` `>=` `CONTAINS` `STARTS [WITH]` `ENDS [WITH]`.
/// Either side may be a constant (constant-on-the-left forms keep their order here).
struct Comparison {
  Value left;
  Operator op = Operator::kEq;
  Value right;

  bool operator==(const Comparison&) const = default;
};

/// A property alone (`property`, the boolean shorthand for `property = TRUE`, or
/// `IS KNOWN` for non-boolean properties, as the translation decides).
struct BareProperty {
  Property property;

  bool operator==(const BareProperty&) const = default;
};

/// `property IS KNOWN` (known = true) or `property IS UNKNOWN`.
struct Known {
  Property property;
  bool known = true;

  bool operator==(const Known&) const = default;
};

/// `HAS`, `HAS ALL`, `HAS ANY`, `HAS ONLY`, on one property or on correlated properties
/// (`a:b HAS 1:2`). `tuples` holds the value list: one tuple per comma-separated entry, each
/// tuple one Operand per colon-separated part. Without correlation each tuple has one operand;
/// with it, at least two (the grammar does not require as many as there are properties: the
/// translation checks that). Plain `HAS` has exactly one tuple.
struct Has {
  enum class Quantifier { kOne, kAll, kAny, kOnly };

  std::vector<Property> properties;
  Quantifier quantifier = Quantifier::kOne;
  std::vector<std::vector<Operand>> tuples;

  bool operator==(const Has&) const = default;
};

/// `property LENGTH [op] value`; without an operator op is kEq. op is never a fuzzy operator.
struct Length {
  Property property;
  Operator op = Operator::kEq;
  Value value;

  bool operator==(const Length&) const = default;
};

class Expression;

/// NOT (one operand), AND, OR (two or more operands). A chain `a AND b AND c` is one node of
/// three operands; parentheses make nodes of their own: `(a AND b) AND c` is AND(AND(a, b), c).
struct Logical {
  enum class Op { kNot, kAnd, kOr };

  Op op = Op::kAnd;
  std::vector<Expression> operands;
};

/// A node of the syntax tree.
class Expression {
 public:
  using Node = std::variant<Comparison, BareProperty, Known, Has, Length, Logical>;

  explicit Expression(Node node) : node_(std::move(node)) {}

  const Node& node() const { return node_; }
  template <typename T>
  const T* get_if() const {
    return std::get_if<T>(&node_);
  }

  friend bool operator==(const Expression& a, const Expression& b);

 private:
  Node node_;
};

bool operator==(const Logical& a, const Logical& b);

/// The operands of an AND or OR node with those of its operands of the same operator spliced
/// in, recursively, in order: `(a AND b) AND c` gives a, b, c (the operators are associative,
/// in OPTIMADE's three-valued logic too), so a translation builds one balanced tree instead
/// of one level per parenthesis. A NOT node's one operand as it is.
std::vector<const Expression*> chained_operands(const Logical& logical);

}  // namespace optimade

/// A parsed OPTIMADE filter: an immutable syntax tree.
class OptimadeFilter {
 public:
  explicit OptimadeFilter(optimade::Expression root) : root_(std::move(root)) {}

  const optimade::Expression& root() const { return root_; }
  /// The canonical filter text (print_optimade_filter of the root).
  std::string to_string() const;

  friend bool operator==(const OptimadeFilter& a, const OptimadeFilter& b) {
    return a.root_ == b.root_;
  }

 private:
  optimade::Expression root_;
};

/// Parses `filter` (the URL-decoded text of the `filter` parameter). Throws
/// OptimadeFilterSyntaxError when it is not a filter of the grammar or exceeds the limits above;
/// throws nothing else but std::bad_alloc.
OptimadeFilter parse_optimade_filter(std::string_view filter);

/// The canonical text of a syntax tree: single spaces between tokens, keywords in full
/// (`STARTS WITH`), `=` omitted in HAS lists and LENGTH, parentheses only where the structure
/// needs them, strings re-escaped, numbers as written. parse_optimade_filter(print(e)) == e
/// for every tree the parser produces.
std::string print_optimade_filter(const optimade::Expression& expression);

}  // namespace mongostore::records
