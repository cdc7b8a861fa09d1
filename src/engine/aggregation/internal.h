// Internals of the aggregation component: expression nodes, value helpers, stages.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/document.h"
#include "mongostore/bson/value.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/limits.h"
#include "mongostore/error.h"

namespace mongostore::engine::aggregation_detail {

using bson::BsonType;
using bson::Document;
using bson::DocumentView;
using bson::OwnedValue;
using bson::Value;

// ---- values -------------------------------------------------------------------------------

template <class T>
OwnedValue make_value(T&& v) {
  using D = std::remove_cvref_t<T>;
  // Numbers, bools and null (most of what arithmetic and comparisons produce) are written
  // straight into the OwnedValue: no builder, no intermediate document. The bytes are the
  // host's, little-endian as BSON's (the builder writes them the same way).
  if constexpr (std::is_same_v<D, double> || std::is_same_v<D, int64_t> ||
                std::is_same_v<D, int32_t>) {
    constexpr BsonType type = std::is_same_v<D, double>    ? BsonType::kDouble
                              : std::is_same_v<D, int64_t> ? BsonType::kInt64
                                                           : BsonType::kInt32;
    uint8_t bytes[sizeof(D)];
    std::memcpy(bytes, &v, sizeof(D));
    return OwnedValue(Value(type, bytes, sizeof(D)));
  } else if constexpr (std::is_same_v<D, bool>) {
    const uint8_t byte = v ? 1 : 0;
    return OwnedValue(Value(BsonType::kBool, &byte, 1));
  } else if constexpr (std::is_same_v<D, bson::Null>) {
    return OwnedValue(Value(BsonType::kNull, nullptr, 0));
  } else {
    bson::DocumentBuilder b;
    b.append("", std::forward<T>(v));
    Document d = b.finish();
    return OwnedValue(d.get(""));
  }
}
inline OwnedValue null_value() {
  return make_value(bson::Null{});
}
inline OwnedValue missing_value() {
  return OwnedValue();
}
OwnedValue make_array_value(const std::vector<OwnedValue>& elements);
OwnedValue make_array_value(const std::vector<Value>& elements);

/// Fails with ExceededMemoryLimit (146) when an expression `op` would build a value of `bytes`
/// bytes, past kMaxExpressionBytes: checked before (or while) building it, so a hostile
/// expression costs at most that much memory.
void check_expression_bytes(std::string_view op, uint64_t bytes);
OwnedValue make_document_value(DocumentView doc);
std::vector<Value> array_elements(const Value& array);
/// A document value as a Value viewing `doc` (which must outlive it).
Value document_as_value(DocumentView doc);
/// Appends `v` under `key`, skipping missing values.
void append_value(bson::DocumentBuilder& b, std::string_view key, const Value& v);
std::string type_name(const Value& v);
/// An int32 or int64 value as int64.
inline int64_t int_value(const Value& v) {
  return v.type() == BsonType::kInt32 ? v.as_int32() : v.as_int64();
}
/// `doc` with dotted `path` set to `v` (created through sub-documents, replacing
/// non-documents on the way); a missing `v` removes the field.
Document set_path(DocumentView doc, const std::vector<std::string>& path, const Value& v);
/// The value at a dotted path through sub-documents only (no array traversal).
Value get_path(DocumentView doc, const std::vector<std::string>& path);
/// MongoDB's nullish: null, undefined or missing.
inline bool nullish(const Value& v) {
  return v.is_missing() || v.is_null() || v.type() == BsonType::kUndefined;
}
/// Rough in-memory size of a document, for the memory limit.
inline size_t approx_size(DocumentView d) {
  return d.size() + 64;
}
/// A short rendering of a value for error messages.
std::string render(const Value& v);

// ---- expression evaluation -----------------------------------------------------------------

struct EvalContext {
  DocumentView root;
  Variables* vars;  // innermost last
};

class ExprNode {
 public:
  virtual ~ExprNode() = default;
  virtual OwnedValue eval(EvalContext& ctx) const = 0;
  /// The value without copying it, when the node can point into something that outlives the
  /// evaluation (the root document, or a constant of the compiled expression); nullopt when
  /// it must build the value (then call eval). Operators that only read a large operand (a
  /// membership test over a 10,000-element array) use this to skip the copy.
  virtual std::optional<Value> view(EvalContext&) const { return std::nullopt; }
  /// For constant folding and $literal detection.
  virtual bool is_constant() const { return false; }
};
using ExprPtr = std::shared_ptr<const ExprNode>;

/// Parses any expression.
ExprPtr parse_expression(const Value& spec);
/// Parses an operator's argument list: an array gives its elements, anything else one arg.
std::vector<ExprPtr> parse_args(const Value& spec);
/// Evaluates `expr` with `ctx`.
inline OwnedValue eval(const ExprPtr& e, EvalContext& ctx) {
  return e->eval(ctx);
}

/// Throws 16869/16870/16871 for a name that is not a valid user variable name.
void validate_variable_name(std::string_view name);
/// Looks a variable up (innermost first); throws 17276 when it is not defined.
Value lookup_variable(EvalContext& ctx, std::string_view name);
/// Pushes a variable for the lifetime of the guard.
class ScopedVariable {
 public:
  ScopedVariable(EvalContext& ctx, std::string name, OwnedValue value) : ctx_(ctx) {
    ctx_.vars->emplace_back(std::move(name), std::move(value));
  }
  ~ScopedVariable() { ctx_.vars->pop_back(); }
  void set(OwnedValue v) { ctx_.vars->back().second = std::move(v); }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  EvalContext& ctx_;
};

/// A parser of one operator: receives the operator's name and its argument value.
using OperatorParser = std::function<ExprPtr(std::string_view name, const Value& args)>;
using OperatorTable = std::map<std::string, OperatorParser, std::less<>>;

/// A node whose arguments are all evaluated eagerly and handed to `fn`.
using EagerFn = std::function<OwnedValue(std::string_view name, std::vector<OwnedValue>& args)>;
ExprPtr make_eager(std::string name, std::vector<ExprPtr> args, EagerFn fn);
/// An operator that only reads its arguments, during the call: each is read in place where
/// its node can give a view (a literal, a path into the document, a variable), else
/// evaluated and held for the call. Saves a copy per argument over an eager operator.
using ReadingFn = std::function<OwnedValue(std::string_view name, std::span<const Value> args)>;
/// Registers a reading operator with an arity check: `min`..`max` args (max < 0: unbounded).
void add_reading(OperatorTable& t, std::string name, int min, int max, ReadingFn fn);
/// Registers an eager operator with an arity check: `min`..`max` args (max < 0: unbounded).
void add_eager(OperatorTable& t, std::string name, int min, int max, EagerFn fn);
void check_arity(std::string_view name, size_t n, int min, int max);

void register_arithmetic(OperatorTable& t);
void register_comparison(OperatorTable& t);  // comparison, boolean, conditional
void register_array(OperatorTable& t);
void register_string(OperatorTable& t);
void register_type(OperatorTable& t);
void register_object(OperatorTable& t);
void register_date(OperatorTable& t);
void register_set(OperatorTable& t);
void register_date_arithmetic(OperatorTable& t);

/// Days since 1970-01-01 of a proleptic Gregorian date, and back (Howard Hinnant's
/// algorithms).
int64_t days_from_civil(int64_t year, unsigned month, unsigned day);
struct CivilDate {
  int64_t year;
  unsigned month, day;
};
CivilDate civil_from_days(int64_t days);
/// The instant (ms since the epoch) of a Date, Timestamp or ObjectId; nullopt for null,
/// undefined or missing; 16006 for anything else.
std::optional<int64_t> date_millis(const Value& v);

/// Dates: "2018-03-27T16:58:51.538Z" and back (accepts the same shape, 'Z' or +hh:mm
/// offsets, optional milliseconds, or a bare date).
std::string format_iso_date(int64_t millis);
/// `stated_offset`, when given, tells whether the text gave its own offset (Z or +hh:mm).
bool parse_iso_date(std::string_view text, int64_t* millis, bool* stated_offset = nullptr);
/// Shortest text that round-trips a double ("2.5", "1", "1e+100", "NaN", "Infinity").
std::string format_double(double d);

[[noreturn]] void fail(int32_t code, std::string message);
[[noreturn]] inline void fail(ErrorCode code, std::string message) {
  fail(static_cast<int32_t>(code), std::move(message));
}

/// Field-path traversal ("a.b" against a value): MongoDB's expression semantics, where an
/// array met on the way maps the rest of the path over its document elements.
OwnedValue traverse_path(const Value& start, const std::vector<std::string>& parts, size_t from);
std::vector<std::string> split_path(std::string_view path);

// ---- numbers ------------------------------------------------------------------------------

/// int32/int64/double/decimal value helpers for arithmetic.
OwnedValue number_from_double(double d);
/// Converts any number to a decimal128.
bson::Decimal128 to_decimal(const Value& v);
bson::Decimal128 decimal_from_double(double d);
double decimal_to_double(const bson::Decimal128& d);
/// int64 result narrowed to int32 when `prefer_int32` and it fits.
OwnedValue integral_result(int64_t v, bool prefer_int32);
bool to_int32_exact(const Value& v, int32_t* out);

// ---- accumulators ---------------------------------------------------------------------------

class Accumulator {
 public:
  virtual ~Accumulator() = default;
  virtual void add(const Value& v) = 0;
  virtual OwnedValue result() const = 0;
  virtual size_t memory() const { return 0; }
  /// Spilling $group: whether partial()/merge() are implemented.
  virtual bool can_spill() const { return false; }
  /// The state so far as a BSON value, for a spill file.
  virtual OwnedValue partial() const;
  /// Folds in a partial() of the same accumulator over input that came after everything
  /// this one has seen (merging in input order keeps $first/$last/$push order).
  virtual void merge(const Value& partial);
};
struct AccumulatorSpec {
  std::string field;
  std::string op;
  ExprPtr arg;
  int64_t n = 0;                 // the n-accumulators ($firstN ... $bottomN)
  std::vector<bool> descending;  // $top/$bottom(N): the sortBy directions
};
/// Parses {field: {$op: expr}} entries of $group; throws for bad specs.
AccumulatorSpec parse_accumulator(std::string_view field, const Value& spec);
/// The accumulator of a unary operator ($sum, $push, ...).
std::unique_ptr<Accumulator> make_accumulator(const std::string& op);
/// The accumulator of a parsed spec (also the n-accumulators).
std::unique_ptr<Accumulator> make_accumulator(const AccumulatorSpec& spec);
/// The n-accumulators (accumulators_n.cc): $firstN $lastN $maxN $minN $top $bottom $topN
/// $bottomN, whose argument is an object ({n, input} or {n, output, sortBy}).
bool is_n_accumulator(std::string_view op);
void parse_n_accumulator(AccumulatorSpec* spec, const Value& args);
std::unique_ptr<Accumulator> make_n_accumulator(const AccumulatorSpec& spec);

// ---- stages ---------------------------------------------------------------------------------

/// Shared state of one run of a pipeline.
struct RunContext {
  AggregationContext storage;  // run() copies the caller's context, so sources outlive it
  const AggregationContext* context = &storage;
  Variables variables;
  RunContext() = default;
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;
};

class Stage {
 public:
  virtual ~Stage() = default;
  virtual std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                                std::shared_ptr<RunContext> ctx) const = 0;
  virtual std::string_view name() const = 0;
  /// The filter of a plain $match stage.
  virtual std::optional<Document> match_filter() const { return std::nullopt; }
  /// The specification of a $sort stage that a find sort can replace (plain field paths).
  virtual std::optional<Document> sort_spec() const { return std::nullopt; }
  /// The count of a $limit stage.
  virtual std::optional<int64_t> limit_count() const { return std::nullopt; }
};
using StagePtr = std::shared_ptr<const Stage>;

/// Counts bytes held by a blocking stage and enforces the memory limit.
class MemoryTracker {
 public:
  MemoryTracker(const RunContext& ctx, std::string stage) : ctx_(ctx), stage_(std::move(stage)) {}
  /// Counts `bytes`; throws 292 past the limit unless allow_disk_use is set.
  void add(size_t bytes);
  /// Past the limit (only reachable with allow_disk_use): a stage that spills does it now.
  bool over_limit() const { return used_ > ctx_.context->memory_limit_bytes; }
  /// After a spill: the stage holds nothing any more.
  void reset() { used_ = 0; }
  /// The stage let go of `bytes` it had counted.
  void release(size_t bytes) { used_ -= std::min(bytes, used_); }
  size_t used() const { return used_; }

 private:
  const RunContext& ctx_;
  std::string stage_;
  size_t used_ = 0;
};

/// Evaluates an expression in a run (root document + pipeline variables).
OwnedValue eval_in(const ExprPtr& e, DocumentView root, RunContext& ctx);
/// The $$NOW of a run (Pipeline::run binds it), for what the run compiles or reads under a
/// NowScope: a $match's $expr, a $lookup's foreign read.
bson::DateTime run_now(const RunContext& ctx);
/// True when `filter` has an $expr where the matcher evaluates one (the top level and the
/// clauses of $and/$or/$nor): then a $match of it reads the pipeline's variables and $$NOW.
bool filter_has_expr(DocumentView filter);

/// A source produced by a callback.
class FunctionSource : public DocumentSource {
 public:
  explicit FunctionSource(std::function<std::optional<Document>()> fn) : fn_(std::move(fn)) {}
  std::optional<Document> next() override { return fn_(); }

 private:
  std::function<std::optional<Document>()> fn_;
};

/// A sub-pipeline over another collection ($lookup, $unionWith): see foreign_pipeline.cc.
struct ForeignPipeline {
  std::optional<Document> leading_match;  // pushed into the read
  bool leading_match_has_expr = false;    // it reads variables: bound per read
  Pipeline rest;                          // what runs after the read

  static ForeignPipeline split(Pipeline pipeline);
  /// The read's filter: the leading $match with `variables` bound into its $expr.
  std::optional<Document> read_filter(const Variables& variables) const;
  /// The rest of the sub-pipeline over `read`, pulled lazily ($unionWith streams it).
  std::unique_ptr<DocumentSource> stream(std::unique_ptr<DocumentSource> read,
                                         const RunContext& ctx, const Variables& variables) const;
  /// stream(), drained ($lookup collects it into its `as` array).
  std::vector<Document> run(std::unique_ptr<DocumentSource> read, const RunContext& ctx,
                            const Variables& variables) const;
};
/// Reads `collection` with `filter` through the run's context, under the run's $$NOW;
/// `stage` names the stage when the context offers no collection access.
std::unique_ptr<DocumentSource> read_foreign(const RunContext& ctx, std::string_view stage,
                                             std::string_view collection, DocumentView filter);

StagePtr parse_match(const Value& spec);
StagePtr parse_union_with(const Value& spec);
StagePtr parse_set_window_fields(const Value& spec);
StagePtr parse_limit(const Value& spec);
StagePtr parse_skip(const Value& spec);
StagePtr parse_sort(const Value& spec);
StagePtr parse_sample(const Value& spec);
StagePtr parse_count(const Value& spec);
StagePtr parse_project(const Value& spec);
StagePtr parse_add_fields(std::string_view name, const Value& spec);
StagePtr parse_unset(const Value& spec);
StagePtr parse_replace_root(std::string_view name, const Value& spec);
StagePtr parse_unwind(const Value& spec);
StagePtr parse_group(const Value& spec);
StagePtr parse_sort_by_count(const Value& spec);
StagePtr parse_bucket(const Value& spec);
StagePtr parse_lookup(const Value& spec);
StagePtr parse_facet(const Value& spec);
StagePtr parse_out(const Value& spec);
StagePtr parse_documents(const Value& spec);
StagePtr parse_merge(const Value& spec);

/// Sorting documents by a {field: 1|-1} spec.
class DocumentSorter {
 public:
  static DocumentSorter compile(DocumentView spec);
  /// Strings are keyed under `collation` when it is not null.
  std::string key_for(DocumentView doc, const Collation* collation = nullptr) const;

 private:
  struct Field {
    std::vector<std::string> path;
    bool descending;
  };
  std::vector<Field> fields_;
};

}  // namespace mongostore::engine::aggregation_detail
