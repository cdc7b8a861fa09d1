// QueryCompiler: a searcher's condition tree as MongoDB filters, by reference §9's
// three-valued table, and the pipeline paths of its fields.
//
// Every node compiles to two filters: TRUE (the rows where it holds) and FALSE (the rows where
// its negation holds); a row with a null operand is in neither. NOT swaps them; AND is (all
// TRUE, any FALSE); OR is (any TRUE, all FALSE). The searcher matches the TRUE filter of the
// conjunction of its conditions.
//
// | node                  | TRUE                                | FALSE |
// |-----------------------|-------------------------------------|-----------------------------------|
// | p op v                | {p: {$op: v}} and p known           | {p: {$complement: v}} and known |
// | p == null / != null   | p null or missing / known           | known / null or missing | | p <
// null (ordering)   | never                               | known                             | | p
// op q (two fields)   | $expr: both known and $op           | $expr: both known and not $op     |
// | p in (v.., null?)     | $in and known (or null, if listed)  | $nin and known | | child has_any
// M       | {p: {$elemMatch: M}}                | {p: {$not: {$elemMatch: M}}}      | | child
// has_only O      | {p: {$not: {$elemMatch: not-O}}}    | {p: {$elemMatch: not-O}}          | |
// child op v            | $elemMatch (k known and k op v)     | $not $elemMatch (same)            |
// | string test           | {p: {$regex: r}} and known          | {p: {$not: {$regex: r}}} and
// known|
//
// Regexes are the literal text escaped, anchored with \A and \z (the true ends of the subject:
// `$` would also match before a trailing newline).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/records/query.h"

namespace mongostore::records {

/// Where a searcher's fields are in the rows of its pipeline: the root's keys at the top, a
/// joined variable under `_httk_var_<n>`, a record reached through a reference under
/// `_httk_ref_<n>` (one $lookup per distinct reference path, registered on first use).
class QueryPaths {
 public:
  /// `as_of_units`: the cutoff applied to every reference lookup.
  explicit QueryPaths(std::optional<int64_t> as_of_units) : as_of_(as_of_units) {}

  /// "" for the root, "_httk_var_<n>." for a joined variable.
  static std::string var_prefix(int var);
  /// The prefix ("" or "x.") of the document owning the path's end (registering the lookups
  /// of its reference hops).
  std::string owner_prefix(const FieldPath& path);
  /// The dotted path of the path's query column ("f.spacegroup", "_id", "_httk_ref_0.f.name").
  std::string column(const FieldPath& path);
  /// The $lookup + $unwind stages of every reference registered, in dependency order.
  std::vector<bson::Document> reference_stages() const;

 private:
  std::optional<int64_t> as_of_;
  std::map<std::string, std::string> refs_;  // local column path -> "_httk_ref_<n>"
  std::vector<bson::Document> stages_;
};

/// Converts literals to their query-column form (a store_timestamp operand to units).
struct LiteralContext {
  int64_t timestamp_resolution = 1000;
};

/// The query column's value for `literal` compared with `path`, as the one element "v" of a
/// document. SchemaError when the literal's kind does not fit the field.
bson::Document encode_literal(const FieldPath& path, const Value& literal,
                              const LiteralContext& context);

/// The two filters of a node.
struct CompiledCondition {
  bson::Document truth;
  bson::Document falsity;
};
CompiledCondition compile_condition(const CondNode& node, QueryPaths& paths,
                                    const LiteralContext& context);

/// {_id: {$exists: false}}: matches no document.
bson::Document never_filter();
/// The regex of a literal substring test.
std::string literal_regex(StringOp op, std::string_view text);

}  // namespace mongostore::records
