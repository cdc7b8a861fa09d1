// Streaming and simple blocking stages: $match $limit $skip $sort $sample $count, and
// $documents (literal input documents).
#include <algorithm>
#include <random>

#include "engine/aggregation/internal.h"
#include "engine/aggregation/spill.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine::aggregation_detail {

namespace {

class MatchStage : public Stage {
 public:
  MatchStage(Document filter, Matcher matcher, bool has_expr)
      : filter_(std::move(filter)), matcher_(std::move(matcher)), has_expr_(has_expr) {}
  std::string_view name() const override { return "$match"; }
  std::optional<Document> match_filter() const override { return filter_; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    std::shared_ptr<DocumentSource> in(std::move(input));
    Matcher m = has_expr_ || ctx->context->collation ? matcher_for_run(*ctx) : matcher_;
    return std::make_unique<FunctionSource>([m, in]() -> std::optional<Document> {
      while (auto d = in->next()) {
        if (m.matches(*d)) return d;
      }
      return std::nullopt;
    });
  }

 private:
  // The filter's $expr (wherever it is) with this run's variables bound and its $$NOW: one
  // compile per run (per input document for a $lookup sub-pipeline).
  Matcher matcher_for_run(const RunContext& ctx) const {
    NowScope now(run_now(ctx));
    MatcherOptions options;
    options.collation = ctx.context->collation;
    if (!has_expr_) return Matcher::compile(filter_, options);
    return Matcher::compile(bind_variables_to_filter(filter_, ctx.variables), options);
  }

  Document filter_;
  Matcher matcher_;  // compiled at parse time: the errors surface there, and it serves runs
                     // of a filter without $expr
  bool has_expr_;
};

class LimitSkipStage : public Stage {
 public:
  LimitSkipStage(bool limit, int64_t n) : limit_(limit), n_(n) {}
  std::string_view name() const override { return limit_ ? "$limit" : "$skip"; }
  std::optional<int64_t> limit_count() const override {
    return limit_ ? std::optional<int64_t>(n_) : std::nullopt;
  }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext>) const override {
    std::shared_ptr<DocumentSource> in(std::move(input));
    auto count = std::make_shared<int64_t>(0);
    bool limit = limit_;
    int64_t n = n_;
    return std::make_unique<FunctionSource>([in, count, limit, n]() -> std::optional<Document> {
      if (limit) {
        if (*count >= n) return std::nullopt;
        ++*count;
        return in->next();
      }
      while (*count < n) {
        if (!in->next()) return std::nullopt;
        ++*count;
      }
      return in->next();
    });
  }

 private:
  bool limit_;
  int64_t n_;
};

// The documents of `rows`, in order.
std::unique_ptr<DocumentSource> rows_source(KeyedRows rows) {
  std::vector<Document> docs;
  docs.reserve(rows.size());
  for (auto& row : rows) docs.push_back(std::move(row.second));
  return make_vector_source(std::move(docs));
}

class SortStage : public Stage {
 public:
  SortStage(DocumentSorter sorter, Document spec)
      : sorter_(std::move(sorter)), spec_(std::move(spec)) {}
  std::string_view name() const override { return "$sort"; }
  std::optional<Document> sort_spec() const override {
    // Only plain {path: 1 | -1} keys mean the same to a find; $meta sorts stay here.
    for (const bson::Element& e : spec_.view()) {
      if (!e.value.is_number()) return std::nullopt;
    }
    return spec_;
  }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    MemoryTracker memory(*ctx, "$sort");
    KeyedRows rows;
    std::shared_ptr<SpillFile> spill;
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    while (auto d = input->next()) {
      std::string key = sorter_.key_for(*d, ctx->context->collation.get());
      memory.add(approx_size(*d) + key.size());
      rows.emplace_back(std::move(key), std::move(*d));
      if (memory.over_limit()) {
        // allowDiskUse: the rows so far become one sorted run on disk.
        if (!spill) spill = std::make_shared<SpillFile>(*ctx, "$sort");
        std::stable_sort(rows.begin(), rows.end(), by_key);
        write_run(*spill, rows);
        rows.clear();
        memory.reset();
      }
    }
    std::stable_sort(rows.begin(), rows.end(), by_key);
    // The in-memory rest is the last (latest) run, so the merge stays stable.
    if (spill) return merge_runs(std::move(spill), std::move(rows), *ctx);
    return rows_source(std::move(rows));
  }

 private:
  DocumentSorter sorter_;
  Document spec_;
};

class SampleStage : public Stage {
 public:
  explicit SampleStage(int64_t size) : size_(size) {}
  std::string_view name() const override { return "$sample"; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    // MongoDB's way for an input that is not a plain collection: every document gets a random
    // key and the `size` smallest keys win, in key order (so the output order is random
    // too). A max-heap keeps the smallest so far. With allowDiskUse, past the memory limit
    // the heap becomes a sorted run on disk and a fresh heap starts; the winners overall are
    // among each run's winners, so merging the runs and taking `size` gives the sample.
    MemoryTracker memory(*ctx, "$sample");
    std::mt19937_64 rng(std::random_device{}());
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    const size_t keep = static_cast<size_t>(size_);
    KeyedRows heap;
    std::shared_ptr<SpillFile> spill;
    while (keep > 0) {
      std::optional<Document> d = input->next();
      if (!d) break;
      std::string key = random_key(rng);
      if (heap.size() == keep) {
        if (!(key < heap.front().first)) continue;
        std::pop_heap(heap.begin(), heap.end(), by_key);
        memory.release(approx_size(heap.back().second) + key.size());
        heap.pop_back();
      }
      memory.add(approx_size(*d) + key.size());
      heap.emplace_back(std::move(key), std::move(*d));
      std::push_heap(heap.begin(), heap.end(), by_key);
      if (memory.over_limit()) {
        if (!spill) spill = std::make_shared<SpillFile>(*ctx, "$sample");
        std::sort_heap(heap.begin(), heap.end(), by_key);
        write_run(*spill, heap);
        heap.clear();
        memory.reset();
      }
    }
    std::sort_heap(heap.begin(), heap.end(), by_key);
    if (spill) return merge_runs(std::move(spill), std::move(heap), *ctx, keep);
    return rows_source(std::move(heap));
  }

 private:
  // Eight random bytes, big-endian, so byte order is numeric order.
  static std::string random_key(std::mt19937_64& rng) {
    uint64_t r = rng();
    std::string key(8, '\0');
    for (int i = 7; i >= 0; --i) {
      key[static_cast<size_t>(i)] = static_cast<char>(r & 0xff);
      r >>= 8;
    }
    return key;
  }

  int64_t size_;
};

class CountStage : public Stage {
 public:
  explicit CountStage(std::string field) : field_(std::move(field)) {}
  std::string_view name() const override { return "$count"; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext>) const override {
    int64_t n = 0;
    while (input->next()) ++n;
    std::vector<Document> out;
    if (n > 0) {
      bson::DocumentBuilder b;
      if (n <= INT32_MAX) {
        b.append(field_, static_cast<int32_t>(n));
      } else {
        b.append(field_, n);
      }
      out.push_back(b.finish());
    }
    return make_vector_source(std::move(out));
  }

 private:
  std::string field_;
};

class DocumentsStage : public Stage {
 public:
  explicit DocumentsStage(ExprPtr expr) : expr_(std::move(expr)) {}
  std::string_view name() const override { return "$documents"; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource>,
                                        std::shared_ptr<RunContext> ctx) const override {
    // The input is ignored: $documents is a source.
    Document empty;
    OwnedValue v = eval_in(expr_, empty, *ctx);
    if (!v.view().is_array()) {
      fail(5858203, "error during lookup: $documents expression must evaluate to an array");
    }
    std::vector<Document> docs;
    for (const bson::Element& e : v.view().as_array()) {
      if (!e.value.is_document()) {
        fail(40228, "'newRoot' expression must evaluate to an object, but resulting value was: " +
                        render(e.value) + ". Type of resulting value: '" + type_name(e.value) +
                        "'");
      }
      docs.push_back(Document::copy_of(e.value.as_document()));
    }
    return make_vector_source(std::move(docs));
  }

 private:
  ExprPtr expr_;
};

int64_t integral_arg(const Value& v, int not_number_code, const std::string& not_number,
                     int not_integral_code, const std::string& not_integral) {
  if (!v.is_number()) fail(not_number_code, not_number);
  int64_t n = 0;
  if (!v.number_as_exact_int64(&n)) fail(not_integral_code, not_integral);
  return n;
}

}  // namespace

bool filter_has_expr(DocumentView filter) {
  for (const bson::Element& e : filter) {
    if (e.key == "$expr") return true;
    if ((e.key == "$and" || e.key == "$or" || e.key == "$nor") && e.value.is_array()) {
      for (const bson::Element& clause : e.value.as_array()) {
        if (clause.value.is_document() && filter_has_expr(clause.value.as_document())) {
          return true;
        }
      }
    }
  }
  return false;
}

StagePtr parse_match(const Value& spec) {
  if (!spec.is_document()) fail(15959, "the match filter must be an expression in an object");
  DocumentView filter = spec.as_document();
  int exprs = 0;
  for (const bson::Element& e : filter) exprs += e.key == "$expr";
  if (exprs > 1) fail(2, "Duplicate $expr in $match");
  install_expr_in_find_filters();  // the matcher evaluates the $expr through this layer
  Matcher matcher = Matcher::compile(filter);
  return std::make_shared<MatchStage>(Document::copy_of(filter), std::move(matcher),
                                      filter_has_expr(filter));
}

StagePtr parse_limit(const Value& spec) {
  int64_t n = integral_arg(spec, 15957, "the limit must be specified as a number", 15957,
                           "the limit must be specified as a number");
  if (n <= 0) fail(15958, "the limit must be positive");
  return std::make_shared<LimitSkipStage>(true, n);
}

StagePtr parse_skip(const Value& spec) {
  int64_t n = integral_arg(spec, 15972, "Argument to $skip must be a number", 15972,
                           "Argument to $skip must be a number");
  if (n < 0) {
    fail(15956, "Argument to $skip cannot be negative");
  }
  return std::make_shared<LimitSkipStage>(false, n);
}

StagePtr parse_sort(const Value& spec) {
  if (!spec.is_document()) fail(15973, "the $sort key specification must be an object");
  return std::make_shared<SortStage>(DocumentSorter::compile(spec.as_document()),
                                     Document::copy_of(spec.as_document()));
}

StagePtr parse_sample(const Value& spec) {
  if (!spec.is_document()) {
    fail(28745, "the $sample stage specification must be an object");
  }
  std::optional<int64_t> size;
  for (const bson::Element& e : spec.as_document()) {
    if (e.key == "size") {
      size = integral_arg(e.value, 28746, "size argument to $sample must be a number", 28746,
                          "size argument to $sample must be a number");
      if (*size < 0) fail(28747, "size argument to $sample must not be negative");
    } else {
      fail(28748, "unrecognized option to $sample: " + std::string(e.key));
    }
  }
  if (!size) fail(28749, "$sample stage must specify a size");
  return std::make_shared<SampleStage>(*size);
}

StagePtr parse_documents(const Value& spec) {
  return std::make_shared<DocumentsStage>(parse_expression(spec));
}

StagePtr parse_count(const Value& spec) {
  if (spec.type() != BsonType::kString || spec.as_string().empty()) {
    fail(40156, "the count field must be a non-empty string");
  }
  std::string_view f = spec.as_string();
  if (f[0] == '$') fail(40158, "the count field cannot be a $-prefixed path");
  if (f.find('.') != std::string_view::npos) fail(40160, "the count field cannot contain '.'");
  return std::make_shared<CountStage>(std::string(f));
}

}  // namespace mongostore::engine::aggregation_detail
