// The compiled form of a filter: a tree of expression nodes (internal to the matcher).
//
// A Node matches an Input, which is either a document (the normal case: leaf nodes walk their
// field path through it) or a single value (inside a value-form $elemMatch, where leaf nodes
// test the array element itself). Leaf nodes pair a FieldPath with a Predicate, which tests
// one value.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/matcher/field_path.h"
#include "engine/matcher/regex.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine::matcher_detail {

/// What a node is matched against.
struct Input {
  bson::DocumentView document;
  bson::Value value;
  bool is_value = false;  // true: test `value` directly (path-less, inside $elemMatch)
};

/// Tests one value. `index` (may be null) receives the array index a predicate matched
/// through, for predicates that look inside arrays themselves ($elemMatch).
class Predicate {
 public:
  virtual ~Predicate() = default;
  virtual bool test(const bson::Value& v, std::optional<size_t>* index) const = 0;
  /// Whether a leaf array is also matched element by element (true for most operators;
  /// false for $size and $elemMatch, which look at the array itself).
  virtual bool expands_arrays() const { return true; }
};
using PredicatePtr = std::unique_ptr<Predicate>;

class Node {
 public:
  virtual ~Node() = default;
  virtual bool matches(const Input& in, std::optional<size_t>* index) const = 0;
};
using NodePtr = std::unique_ptr<Node>;

// --- leaf -------------------------------------------------------------------------------

/// A predicate applied at a field path (MongoDB's array traversal rules).
class PathNode final : public Node {
 public:
  PathNode(FieldPath path, PredicatePtr pred) : path_(std::move(path)), pred_(std::move(pred)) {}
  bool matches(const Input& in, std::optional<size_t>* index) const override;

 private:
  FieldPath path_;
  PredicatePtr pred_;
};

// --- logical (logical.cc) --------------------------------------------------------------------

class AndNode final : public Node {
 public:
  explicit AndNode(std::vector<NodePtr> children) : children_(std::move(children)) {}
  bool matches(const Input& in, std::optional<size_t>* index) const override;

 private:
  std::vector<NodePtr> children_;
};

class OrNode final : public Node {
 public:
  explicit OrNode(std::vector<NodePtr> children) : children_(std::move(children)) {}
  bool matches(const Input& in, std::optional<size_t>* index) const override;

 private:
  std::vector<NodePtr> children_;
};

class NorNode final : public Node {
 public:
  explicit NorNode(std::vector<NodePtr> children) : children_(std::move(children)) {}
  bool matches(const Input& in, std::optional<size_t>* index) const override;

 private:
  std::vector<NodePtr> children_;
};

class NotNode final : public Node {
 public:
  explicit NotNode(NodePtr child) : child_(std::move(child)) {}
  bool matches(const Input& in, std::optional<size_t>* index) const override;

 private:
  NodePtr child_;
};

class ConstNode final : public Node {
 public:
  explicit ConstNode(bool value) : value_(value) {}
  bool matches(const Input&, std::optional<size_t>*) const override { return value_; }

 private:
  bool value_;
};

/// $expr: an aggregation expression evaluated against the whole document (truthiness).
class ExprNode final : public Node {
 public:
  explicit ExprNode(ExprPredicate test) : test_(std::move(test)) {}
  bool matches(const Input& in, std::optional<size_t>*) const override {
    return !in.is_value && test_(in.document);
  }

 private:
  ExprPredicate test_;
};

/// The installed $expr compiler, or null.
ExprCompiler installed_expr_compiler();

/// $jsonSchema (json_schema_operator.cc): a node matching the documents `schema` accepts. The
/// schema's bytes must outlive the node. Throws Error(TypeMismatch) when `schema` is not a
/// document, and the schema compiler's errors (json_schema.h).
NodePtr make_json_schema(const bson::Value& schema);

// --- predicates (comparison.cc, element.cc, array.cc) ----------------------------------------

enum class CompareOp { kEq, kLt, kLte, kGt, kGte };

/// $eq $lt $lte $gt $gte (and implicit equality).
/// `strings` (null: bytes) compares strings; it must outlive the predicate.
PredicatePtr make_compare(CompareOp op, bson::Value rhs,
                          const bson::StringComparator* strings = nullptr);
/// $in: equality with any value, or a match of any regex.
PredicatePtr make_in(std::vector<bson::Value> values, std::vector<Regex> regexes,
                     const bson::StringComparator* strings = nullptr);
/// $regex (and /re/ values).
PredicatePtr make_regex(Regex regex);
/// $exists: true.
PredicatePtr make_exists();
/// $type: `codes` holds BSON type bytes; `number` matches any numeric type.
PredicatePtr make_type(std::vector<int> codes, bool number);
/// $size.
PredicatePtr make_size(long long size);
/// $mod.
PredicatePtr make_mod(long long divisor, long long remainder);
/// $elemMatch, object form: `sub` matched against each element that is a document or array.
PredicatePtr make_elem_match_object(NodePtr sub);
/// $elemMatch, value form: `sub` (path-less) matched against each element.
PredicatePtr make_elem_match_value(NodePtr sub);

enum class BitsOp { kAllSet, kAllClear, kAnySet, kAnyClear };

/// $bitsAllSet and friends (bits.cc); `name` is the operator, for messages. Throws
/// Error(BadValue) for an operand that is not a bitmask, positions or BinData.
PredicatePtr make_bits(BitsOp op, std::string_view name, const bson::Value& operand);

// --- the compiled filter ---------------------------------------------------------------------

struct CompiledFilter {
  bson::Document filter;                       // owns the bytes every Value in the tree points into
  std::shared_ptr<const Collation> collation;  // the tree's comparisons point to it
  NodePtr root;
  bool empty = true;
  std::vector<std::pair<std::string, bson::Value>> equalities;
};

/// Parses `filter` (whose bytes must outlive the result); fills `equalities` with top-level
/// equality conditions. Throws mongostore::Error.
NodePtr parse_filter(bson::DocumentView filter,
                     std::vector<std::pair<std::string, bson::Value>>* equalities,
                     const MatcherOptions& options = {});

}  // namespace mongostore::engine::matcher_detail
