// Aggregation: MongoDB's aggregation pipeline and its expression language.
//
//   Pipeline p = Pipeline::compile(stages);           // throws mongostore::Error
//   auto out = p.run(std::move(input), context);      // lazy where the stage allows it
//   while (auto doc = out->next()) ...
//
//   Expression e = Expression::compile(spec);         // {$add: ["$a", 1]}, "$a.b", literals
//   bson::OwnedValue v = e.evaluate(document);        // missing when the result is missing
//
// Stages: $match (including a top-level $expr) $project $addFields/$set $unset
// $replaceRoot/$replaceWith $sort $limit $skip $unwind $group $count $sortByCount $lookup
// (equality and pipeline/let forms) $unionWith $setWindowFields $facet $bucket $sample
// $documents $out $merge.
// $group accumulators: $sum $avg $min $max $first $last $push $addToSet $count $mergeObjects
// $stdDevPop $stdDevSamp $firstN $lastN $maxN $minN $top $bottom $topN $bottomN.
//
// Expressions: field paths (through arrays as MongoDB), $$ROOT $$CURRENT $$REMOVE $$NOW and
// let variables; $literal $let; arithmetic ($add $subtract $multiply $divide $mod $abs $ceil
// $floor $round $trunc $sqrt $pow $exp $ln $log $log10 $rand); comparison ($cmp $eq $ne $gt
// $gte $lt $lte); boolean ($and $or $not); conditional ($cond $ifNull $switch); array ($in
// $size $arrayElemAt $filter $map $reduce $concatArrays $slice $first $last $indexOfArray
// $isArray $range $reverseArray $sortArray $zip, and $sum $avg $min $max $stdDevPop
// $stdDevSamp over arrays); set ($setUnion $setIntersection $setDifference $setEquals
// $setIsSubset $allElementsTrue $anyElementTrue);
// string ($concat $substrCP $substrBytes $substr $toLower $toUpper $split $strLenCP
// $strcasecmp $trim $ltrim $rtrim $regexMatch $regexFind $regexFindAll $replaceOne
// $replaceAll $indexOfCP);
// type ($type $isNumber $convert $toString $toInt $toLong $toDouble $toBool $toDecimal
// $toDate $toObjectId); object ($mergeObjects $getField $setField $unsetField
// $objectToArray $arrayToObject); date ($dateToString $year $month $dayOfMonth $hour $minute
// $second $millisecond $dayOfWeek $dayOfYear $week $isoWeek $isoWeekYear $isoDayOfWeek
// $dateAdd $dateSubtract $dateDiff $dateTrunc $dateToParts $dateFromParts $dateFromString
// (ISO 8601 text, or a format of %Y %m %d %H %M %S %L %j %z %Z), with
// UTC, fixed-offset or Olson time zones). Errors carry mongod's codes and messages.
//
// Blocking stages ($sort, $group, $bucket, $sortByCount, $facet, $sample) count the bytes
// they hold; past `memory_limit_bytes` they fail with QueryExceededMemoryLimitNoDiskUseAllowed
// (292) unless `allow_disk_use` is set. With allow_disk_use they spill to files in
// `spill_directory`, so the memory each holds stays near the limit:
//   - $sort writes sorted runs and merges them lazily (stable, as the in-memory sort);
//   - $group ($bucket, $sortByCount) writes its partial groups sorted by key with each
//     accumulator's partial state and merges them at the end (after a spill $group's output
//     comes in _id key order instead of first-seen order; $bucket's stays in boundary order);
//   - $sample gives every document a random key and keeps the `size` smallest; spilled, each
//     run keeps its own smallest and the merge takes the smallest overall;
//   - $facet buffers its input once for all its sub-pipelines; spilled, the buffer is a file
//     each sub-pipeline reads back (its output document is still capped at 100 MB, 4031700).
// $out holds nothing: its documents stream into the target as they are written. A leading
// $sort that the engine hands to its find (see Pipeline::find_prefix) is sorted by the find;
// with allow_disk_use the engine keeps it in the pipeline instead (so it spills) unless an
// index gives the order or a $limit bounds it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"
#include "mongostore/engine/collation.h"

namespace mongostore::engine {

/// A pull-based stream of documents; nullopt ends it.
class DocumentSource {
 public:
  virtual ~DocumentSource() = default;
  virtual std::optional<bson::Document> next() = 0;
};

/// A DocumentSource over documents held in memory (handy for tests and sub-pipelines).
std::unique_ptr<DocumentSource> make_vector_source(std::vector<bson::Document> documents);
/// Drains a source into a vector.
std::vector<bson::Document> drain(DocumentSource& source);

/// Named variables ($$name) visible to expressions, in addition to ROOT, CURRENT, REMOVE.
using Variables = std::vector<std::pair<std::string, bson::OwnedValue>>;

/// Evaluates the aggregate command's `let` option ({name: expression}) into variables for
/// Pipeline::run (expressions see an empty $$ROOT). Throws for invalid variable names.
Variables evaluate_let(bson::DocumentView let);

/// The `let` option of find, update, delete and findAndModify: `filter` with every $expr
/// (at the top level and inside $and/$or/$nor) given `let`'s variables, so $$name reads them.
/// The values are evaluated once, as evaluate_let does. An empty `let` returns the filter.
bson::Document bind_let_to_filter(bson::DocumentView filter, bson::DocumentView let);

/// `filter` with every $expr (where the matcher accepts one) wrapped in a $let that binds
/// `variables` to their values ($literal; a missing value as $$REMOVE), so a find can run a
/// pipeline's $match, $expr and all, with the variables of the pipeline's scope. System
/// variables (NOW, ROOT, ...) are not bound: see NowScope for NOW. With several values for
/// one name the last wins, as for nested scopes. The query planner reads such a $let: an
/// {$eq: ["$path", "$$name"]} inside it is an index point (see query_planner.h).
bson::Document bind_variables_to_filter(bson::DocumentView filter, const Variables& variables);

/// $$NOW: MongoDB gives a command one time, the same in every stage and expression of it.
/// While a NowScope lives on a thread, what starts there without a NOW of its own takes the
/// scope's time: a pipeline when it starts running (it then carries that time in its
/// variables, so the lazy stages a later getMore runs see it too), a find filter's $expr and
/// an update pipeline when they are compiled. The default constructor keeps the time of an
/// enclosing scope (an engine call inside another shares its NOW) and otherwise reads the
/// clock; the other sets `now` for what runs inside it.
class NowScope {
 public:
  NowScope();
  explicit NowScope(bson::DateTime now);
  ~NowScope();
  NowScope(const NowScope&) = delete;
  NowScope& operator=(const NowScope&) = delete;

  /// The innermost scope's time on this thread, or the clock's (in milliseconds) when none.
  static bson::DateTime now();

 private:
  std::optional<bson::DateTime> previous_;
};

/// What $merge does with one output document. The engine finds the target document whose
/// `on` fields equal those of the output document (`filter` is that equality filter) and
/// calls `decide` with it (or nullopt when none matches). `decide` returns the document to
/// store (which replaces the matched document, or is inserted when none matched), or
/// nullopt to leave the target untouched; it throws Error for the "fail" modes.
using MergeDecision =
    std::function<std::optional<bson::Document>(std::optional<bson::DocumentView> existing)>;

/// What the blocking stages of a run wrote to disk (allow_disk_use). Shared by pointer through
/// AggregationContext::spill_stats; one run of a pipeline is single-threaded.
struct SpillStats {
  int64_t files = 0;    // spill files created (one per spilling stage)
  int64_t runs = 0;     // sorted runs written
  int64_t records = 0;  // documents ($sort) or partial groups ($group) written
  int64_t bytes = 0;    // bytes written
  /// The most bytes any blocking stage's memory count reached (stays near the limit when the
  /// stage spills).
  size_t peak_memory_bytes = 0;
};

/// Supplied by the engine: access to other collections of the same database.
struct AggregationContext {
  /// $lookup: the documents of `collection` matching `filter` (a find filter).
  std::function<std::unique_ptr<DocumentSource>(std::string_view collection,
                                                bson::DocumentView filter)>
      read_collection;
  /// $out: atomically replaces the contents of `collection` with what `documents` yields,
  /// pulling them as it writes (the result is never held whole).
  std::function<void(std::string_view collection, DocumentSource& documents)> replace_collection;
  /// $merge: see MergeDecision.
  std::function<void(std::string_view collection, bson::DocumentView filter,
                     const MergeDecision& decide)>
      merge_document;
  bool allow_disk_use = false;
  /// The memory a blocking stage may hold before failing (or, with allow_disk_use, before it
  /// spills).
  size_t memory_limit_bytes = 100 * 1024 * 1024;
  /// Where spilling stages create their temporary files (unique names, removed when the
  /// stage's output is destroyed). The engine sets <dbpath>/_tmp for a durable engine and a
  /// directory inside its private /tmp home for an in-memory one; empty means a per-process
  /// directory made with mkdtemp under $TMPDIR (or /tmp) on first use.
  std::string spill_directory;
  /// When set, receives counts of what was spilled.
  SpillStats* spill_stats = nullptr;
  /// The collation of the run's $match filters, $sort and $setWindowFields sort keys, $group
  /// and partition keys (strings it finds equal are one key, the first met shown); null is
  /// simple. Expressions ($eq, $in, $setUnion, ... inside $expr or $project) still compare
  /// strings as bytes.
  std::shared_ptr<const Collation> collation;
};

namespace aggregation_detail {
class ExprNode;
class Stage;
}  // namespace aggregation_detail

/// A compiled aggregation expression.
class Expression {
 public:
  /// Parses an expression: a field path string ("$a.b"), a variable ("$$x"), an operator
  /// document ({$op: args}), an object of expressions or an array of expressions; anything
  /// else is a literal. Throws Error (168 for an unknown operator, ...).
  static Expression compile(bson::Value spec);
  /// compile() of the single element of a document ({"": spec}), for convenience.
  static Expression compile_document(bson::DocumentView spec);

  /// Evaluates against `root` ($$ROOT and $$CURRENT). Missing results are missing values.
  bson::OwnedValue evaluate(bson::DocumentView root) const;
  bson::OwnedValue evaluate(bson::DocumentView root, const Variables& variables) const;

 private:
  explicit Expression(std::shared_ptr<const aggregation_detail::ExprNode> node)
      : node_(std::move(node)) {}
  std::shared_ptr<const aggregation_detail::ExprNode> node_;
};

/// Makes $expr work in find filters (Matcher) by installing this layer's evaluator; called
/// by Engine::open, idempotent.
void install_expr_in_find_filters();
/// Makes update pipelines work (Update::compile_pipeline) by installing this layer's stage
/// compiler; called by Engine::open, idempotent.
void install_update_pipelines();

class Pipeline {
 public:
  Pipeline() = default;
  /// Throws Error: 40323 when a stage is not a one-field document, 40324 "Unrecognized
  /// pipeline stage name: '$foo'", 40601 for $out/$merge not last, and each stage's own
  /// parse errors.
  static Pipeline compile(const std::vector<bson::Document>& stages);
  static Pipeline compile(bson::DocumentView stages_array);

  /// The filter of a leading $match, so the engine can push it into its scan. An $expr in it
  /// may read the pipeline's variables: bind them with bind_variables_to_filter first. run()
  /// still applies it (re-applying a filter is harmless).
  std::optional<bson::Document> leading_match() const;

  /// The leading stages a find can do instead: [$match] [$sort [$limit]] (in that order, a
  /// $sort on plain paths; the $match's $expr needs the variables bound, as above). The engine
  /// reads find(filter, sort, limit) and runs without_prefix(stages) over it, so a leading $sort
  /// uses an index when one gives the order, and streams instead of blocking.
  struct Prefix {
    bson::Document filter;
    bson::Document sort;
    int64_t limit = 0;  // 0: none
    size_t stages = 0;  // how many leading stages this replaces
  };
  Prefix find_prefix() const;
  /// This pipeline without its first `n` stages.
  Pipeline without_prefix(size_t n) const;
  /// True when the last stage is $out or $merge (the pipeline returns no documents).
  bool writes_output() const;

  /// Runs the pipeline over `input`. The context is copied (the returned source may outlive
  /// it); streaming stages stay lazy, blocking stages consume their input inside run() (so
  /// their errors, such as the memory limit, are thrown from here).
  /// The returned source also keeps the compiled stages it needs alive.
  std::unique_ptr<DocumentSource> run(std::unique_ptr<DocumentSource> input,
                                      const AggregationContext& context) const;
  std::unique_ptr<DocumentSource> run(std::unique_ptr<DocumentSource> input,
                                      const AggregationContext& context,
                                      const Variables& variables) const;

  size_t size() const { return stages_.size(); }

 private:
  std::vector<std::shared_ptr<const aggregation_detail::Stage>> stages_;
};

}  // namespace mongostore::engine
