// Matcher: MongoDB `find` filter semantics over BSON documents.
//
//   Matcher m = Matcher::compile(filter);   // throws mongostore::Error on a bad filter
//   if (m.matches(doc)) ...
//
// compile() parses the filter once into a tree of expression nodes; matches() walks that tree
// against a document without allocating in the common case. Supported: implicit equality,
// $eq $ne $gt $gte $lt $lte $in $nin $and $or $nor $not $exists $type $all $elemMatch $size
// $regex/$options $mod $bitsAllSet $bitsAllClear $bitsAnySet $bitsAnyClear $comment
// $alwaysTrue $alwaysFalse $jsonSchema, with MongoDB's dotted-path and array semantics. Geo,
// text and $where raise Error(NotImplemented); $expr does until the aggregation layer installs
// its compiler.
//
// A Matcher owns a copy of its filter bytes; copies share the compiled, immutable tree.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"
#include "mongostore/engine/collation.h"

namespace mongostore::engine {

struct MatchDetails {
  /// Index of the first (outermost) array element that made the document match, for the
  /// positional `$` operator of updates and projections.
  std::optional<size_t> array_index;
};

namespace matcher_detail {
struct CompiledFilter;
}

/// $expr: the aggregation layer, which sits above the matcher, installs the compiler that
/// turns an $expr argument into a test of the whole document (Engine::open does it). The
/// compiled test may point into the filter, which the Matcher keeps alive. Until one is
/// installed, $expr fails with NotImplemented (238). `collation` is the filter's (null:
/// simple): the expression compares strings under it, as in MongoDB.
using ExprPredicate = std::function<bool(bson::DocumentView)>;
using ExprCompiler = ExprPredicate (*)(const bson::Value& expression,
                                       std::shared_ptr<const Collation> collation);
void install_expr_compiler(ExprCompiler compiler);

/// Where a filter is compiled, for the operators mongod allows only in some contexts.
struct MatcherOptions {
  /// False where mongod bans $jsonSchema (an $elemMatch projection, a partial index filter):
  /// it then fails with QueryFeatureNotAllowed (224) "$jsonSchema is not allowed in this
  /// context".
  bool allow_json_schema = true;
  /// The collation of string comparisons ($eq, ranges, $in, $nin, $all, $elemMatch values,
  /// also inside arrays and embedded documents); null is the simple one (bytes). $regex,
  /// $type, $exists, $size and the bit operators ignore it, as in MongoDB.
  std::shared_ptr<const Collation> collation;
};

class Matcher {
 public:
  /// The empty filter: matches every document.
  Matcher();

  /// Parses `filter`; throws mongostore::Error with MongoDB's code and message when it is
  /// not a valid filter (BadValue, FailedToParse, TypeMismatch, NotImplemented, ...).
  static Matcher compile(bson::DocumentView filter, const MatcherOptions& options = {});

  bool matches(bson::DocumentView document, MatchDetails* details = nullptr) const;

  /// True when the filter has no conditions (matches everything).
  bool is_empty() const;

  /// The value the filter pins `_id` to by equality at top level ({_id: v}, {_id: {$eq: v}},
  /// possibly inside a top-level $and), if any. Valid while this Matcher (or a copy) lives.
  std::optional<bson::Value> id_equality() const;

  /// The top-level equality conditions, path -> value ({a: 1, "b.c": 2, $and: [{d: 3}]}),
  /// for seeding upserted documents. Values are valid while this Matcher (or a copy) lives.
  std::vector<std::pair<std::string, bson::Value>> equality_fields() const;

  /// The filter this Matcher was compiled from.
  bson::DocumentView filter() const;

  /// The collation it was compiled with (null: simple).
  const std::shared_ptr<const Collation>& collation() const;

 private:
  explicit Matcher(std::shared_ptr<const matcher_detail::CompiledFilter> state)
      : state_(std::move(state)) {}
  std::shared_ptr<const matcher_detail::CompiledFilter> state_;
};

}  // namespace mongostore::engine
