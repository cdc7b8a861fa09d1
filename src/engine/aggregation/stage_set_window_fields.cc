// $setWindowFields (MongoDB 5.0): per partition (`partitionBy`, missing grouped with null), in
// `sortBy` order, each output field is a window function over a window of the partition:
//   - accumulators ($sum $avg $min $max $count $push $addToSet $first $last $stdDevPop
//     $stdDevSamp) over `window: {documents: [lower, upper]}` (positions relative to the
//     current document, "current" or "unbounded"; the whole partition when no window is given)
//     or `window: {range: [lower, upper], unit}` (values of the single sortBy field relative
//     to the current one; `unit` for dates, week and smaller);
//   - $documentNumber, $rank, $denseRank (by the sortBy key), $shift {output, by, default}.
// The stage is blocking: it holds its input (counted against the memory limit; it does not
// spill, so past the limit it fails even with allowDiskUse) and emits it sorted by partition,
// then sortBy. Other window functions ($derivative, $integral, $expMovingAvg, $covariance*,
// $locf, $linearFill, $topN ...) fail NotImplemented by name.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "engine/aggregation/internal.h"
#include "mongostore/bson/index_key.h"

namespace mongostore::engine::aggregation_detail {

namespace {

struct Bound {
  enum Kind { kUnbounded, kCurrent, kOffset } kind = kUnbounded;
  double offset = 0;  // kOffset: positions (documents) or sortBy units (range)
};

struct OutputField {
  std::vector<std::string> path;
  std::string op;
  ExprPtr arg;
  bool range = false;
  Bound lower, upper;       // default: the whole partition
  int64_t unit_millis = 0;  // range over dates
  int64_t shift_by = 0;
  ExprPtr shift_default;
};

const char* kAccumulatorFunctions[] = {"$sum",   "$avg",       "$min",       "$max",
                                       "$count", "$push",      "$addToSet",  "$first",
                                       "$last",  "$stdDevPop", "$stdDevSamp"};
const char* kNotImplementedFunctions[] = {
    "$derivative", "$integral", "$expMovingAvg", "$covariancePop", "$covarianceSamp", "$locf",
    "$linearFill", "$topN",     "$bottomN",      "$top",           "$bottom",         "$firstN",
    "$lastN",      "$maxN",     "$minN",         "$median",        "$percentile"};

bool is_accumulator(std::string_view op) {
  for (const char* a : kAccumulatorFunctions) {
    if (op == a) return true;
  }
  return false;
}

Bound parse_bound(const Value& v, bool range) {
  Bound b;
  if (v.type() == BsonType::kString && v.as_string() == "unbounded") return b;
  if (v.type() == BsonType::kString && v.as_string() == "current") {
    b.kind = Bound::kCurrent;
    return b;
  }
  double d = v.is_number() ? v.number_as_double() : 0;
  if (!v.is_number() || (!range && d != std::trunc(d))) {
    fail(ErrorCode::kFailedToParse, range ? "Range-based bounds expression must be a number"
                                          : "Numeric document-based bounds must be an integer");
  }
  b.kind = Bound::kOffset;
  b.offset = d;
  return b;
}

int64_t unit_to_millis(std::string_view unit) {
  if (unit == "week") return 7 * 86'400'000LL;
  if (unit == "day") return 86'400'000LL;
  if (unit == "hour") return 3'600'000LL;
  if (unit == "minute") return 60'000LL;
  if (unit == "second") return 1000;
  if (unit == "millisecond") return 1;
  if (unit == "month" || unit == "quarter" || unit == "year") {
    fail(ErrorCode::kNotImplemented,
         "$setWindowFields range windows in unit '" + std::string(unit) +
             "' are not supported by mongostore (use day, week or smaller)");
  }
  fail(ErrorCode::kFailedToParse, "unknown time unit value: " + std::string(unit));
}

void parse_window(const Value& spec, OutputField* out) {
  if (!spec.is_document()) fail(ErrorCode::kFailedToParse, "'window' field must be an object");
  std::optional<Value> documents, range, unit;
  for (const bson::Element& e : spec.as_document()) {
    if (e.key == "documents") {
      documents = e.value;
    } else if (e.key == "range") {
      range = e.value;
    } else if (e.key == "unit") {
      unit = e.value;
    } else {
      fail(ErrorCode::kFailedToParse,
           "'window' field can only contain 'documents' as the only argument or 'range' with an "
           "optional 'unit' field");
    }
  }
  if (documents && range) {
    fail(ErrorCode::kFailedToParse, "Window bounds can specify either 'documents' or 'range'.");
  }
  if (unit && !range) fail(ErrorCode::kFailedToParse, "'unit' can only be specified with 'range'");
  const std::optional<Value>& bounds = documents ? documents : range;
  if (!bounds) return;
  if (!bounds->is_array() || bounds->as_array().count() != 2) {
    fail(ErrorCode::kFailedToParse, std::string("Window bounds must be a 2-element array: ") +
                                        (documents ? "documents" : "range"));
  }
  std::vector<Value> pair = array_elements(*bounds);
  out->range = range.has_value();
  out->lower = parse_bound(pair[0], out->range);
  out->upper = parse_bound(pair[1], out->range);
  if (out->lower.kind == Bound::kOffset && out->upper.kind == Bound::kOffset &&
      out->lower.offset > out->upper.offset) {
    fail(5339900, "Lower bound must not exceed upper bound: [" + render(pair[0]) + ", " +
                      render(pair[1]) + "]");
  }
  if (unit) {
    if (unit->type() != BsonType::kString) {
      fail(ErrorCode::kFailedToParse, "'unit' must be a string");
    }
    out->unit_millis = unit_to_millis(unit->as_string());
  }
}

OutputField parse_output(std::string_view field, const Value& spec) {
  if (!spec.is_document()) {
    fail(ErrorCode::kFailedToParse, "The field '" + std::string(field) + "' must be an object");
  }
  OutputField out;
  out.path = split_path(field);
  std::optional<Value> window;
  for (const bson::Element& e : spec.as_document()) {
    if (e.key == "window") {
      window = e.value;
      continue;
    }
    if (e.key.empty() || e.key[0] != '$') {
      fail(ErrorCode::kFailedToParse,
           "Expected a $-prefixed window function, " + std::string(e.key));
    }
    if (!out.op.empty()) {
      fail(ErrorCode::kFailedToParse, "Unrecognized window function, " + std::string(e.key));
    }
    out.op = std::string(e.key);
    for (const char* n : kNotImplementedFunctions) {
      if (out.op == n) {
        fail(ErrorCode::kNotImplemented,
             "the window function " + out.op + " is not supported by mongostore");
      }
    }
    if (out.op == "$count") {
      if (!e.value.is_document() || !e.value.as_document().empty()) {
        fail(ErrorCode::kFailedToParse, "$count only accepts an empty object as input");
      }
      bson::Document one = bson::make_document("", int32_t{1});
      out.op = "$sum";
      out.arg = parse_expression(one.get(""));
    } else if (out.op == "$documentNumber" || out.op == "$rank" || out.op == "$denseRank") {
      if (!e.value.is_document() || !e.value.as_document().empty()) {
        fail(5371603, out.op + " must be specified with '{}' as the value");
      }
    } else if (out.op == "$shift") {
      if (!e.value.is_document()) fail(ErrorCode::kFailedToParse, "$shift must be an object");
      bool has_by = false;
      for (const bson::Element& a : e.value.as_document()) {
        if (a.key == "output") {
          out.arg = parse_expression(a.value);
        } else if (a.key == "by") {
          int64_t by = 0;
          if (!a.value.is_number() || !a.value.number_as_exact_int64(&by) || by != int32_t(by)) {
            fail(ErrorCode::kFailedToParse,
                 "'$shift:by' field must be an integer, but found " + render(a.value));
          }
          out.shift_by = by;
          has_by = true;
        } else if (a.key == "default") {
          out.shift_default = parse_expression(a.value);
          if (!out.shift_default->is_constant()) {
            fail(ErrorCode::kFailedToParse,
                 "'$shift:default' expression must yield a constant value.");
          }
        } else {
          fail(ErrorCode::kFailedToParse, "Unknown argument in $shift");
        }
      }
      if (!out.arg || !has_by) {
        fail(ErrorCode::kFailedToParse, "$shift requires 'output' and 'by' to be specified");
      }
    } else if (is_accumulator(out.op)) {
      out.arg = parse_expression(e.value);
    } else {
      fail(ErrorCode::kFailedToParse, "Unrecognized window function, " + out.op);
    }
  }
  if (out.op.empty()) fail(ErrorCode::kFailedToParse, "Expected a $-prefixed window function");
  if (window) {
    if (!out.arg || out.op == "$shift") {
      fail(5371601, "Rank style window functions take no other arguments");
    }
    parse_window(*window, &out);
  }
  return out;
}

class SetWindowFieldsStage : public Stage {
 public:
  ExprPtr partition_by;
  std::optional<DocumentSorter> sort_by;
  std::vector<std::vector<std::string>> sort_paths;
  bool sort_descending = false;  // of the single sortBy field (range windows)
  std::vector<OutputField> outputs;

  std::string_view name() const override { return "$setWindowFields"; }

  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    MemoryTracker memory(*ctx, "$setWindowFields");
    struct Row {
      Document doc;
      std::string partition;  // encoded partition value
      std::string sort_key;
    };
    std::vector<Row> rows;
    while (auto d = input->next()) {
      memory.add(approx_size(d->view()) + 64);
      if (ctx->context->allow_disk_use && memory.over_limit()) {
        fail(5414201, "Exceeded memory limit in DocumentSourceSetWindowFields, used " +
                          std::to_string(memory.used()) + " bytes but max allowed is " +
                          std::to_string(ctx->context->memory_limit_bytes) +
                          " (mongostore's $setWindowFields does not spill to disk)");
      }
      Row r;
      if (partition_by) {
        OwnedValue p = eval_in(partition_by, d->view(), *ctx);
        if (p.view().is_missing()) p = null_value();
        const Collation* collation = ctx->context->collation.get();
        if (collation != nullptr) {
          bson::append_index_key(r.partition, collation->comparison_key(p.view()));
        } else {
          bson::append_index_key(r.partition, p.view());
        }
      }
      if (sort_by) r.sort_key = sort_by->key_for(d->view(), ctx->context->collation.get());
      r.doc = std::move(*d);
      rows.push_back(std::move(r));
    }
    std::vector<size_t> order(rows.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (rows[a].partition != rows[b].partition) return rows[a].partition < rows[b].partition;
      return rows[a].sort_key < rows[b].sort_key;
    });
    std::vector<Document> out;
    out.reserve(rows.size());
    for (size_t begin = 0; begin < order.size();) {
      size_t end = begin + 1;
      while (end < order.size() && rows[order[end]].partition == rows[order[begin]].partition) {
        ++end;
      }
      std::vector<const Row*> part;
      for (size_t i = begin; i < end; ++i) part.push_back(&rows[order[i]]);
      std::vector<std::vector<OwnedValue>> values;
      for (const OutputField& f : outputs) values.push_back(compute(f, part, *ctx));
      for (size_t i = 0; i < part.size(); ++i) {
        Document d = part[i]->doc;
        for (size_t k = 0; k < outputs.size(); ++k)
          d = set_path(d, outputs[k].path, values[k][i].view());
        out.push_back(std::move(d));
      }
      begin = end;
    }
    return make_vector_source(std::move(out));
  }

 private:
  template <class Row>
  std::vector<OwnedValue> compute(const OutputField& f, const std::vector<const Row*>& part,
                                  RunContext& ctx) const {
    size_t n = part.size();
    std::vector<OwnedValue> out(n);
    if (f.op == "$documentNumber" || f.op == "$rank" || f.op == "$denseRank") {
      int64_t rank = 0, dense = 0;
      for (size_t i = 0; i < n; ++i) {
        bool tie = i > 0 && part[i]->sort_key == part[i - 1]->sort_key;
        if (!tie) {
          rank = static_cast<int64_t>(i) + 1;
          ++dense;
        }
        int64_t v = f.op == "$documentNumber" ? static_cast<int64_t>(i) + 1
                    : f.op == "$rank"         ? rank
                                              : dense;
        out[i] = make_value(static_cast<int32_t>(v));
      }
      return out;
    }
    if (f.op == "$shift") {
      for (size_t i = 0; i < n; ++i) {
        int64_t j = static_cast<int64_t>(i) + f.shift_by;
        if (j >= 0 && j < static_cast<int64_t>(n)) {
          out[i] = eval_in(f.arg, part[j]->doc.view(), ctx);
          if (out[i].view().is_missing()) out[i] = null_value();
        } else {
          out[i] =
              f.shift_default ? eval_in(f.shift_default, part[i]->doc.view(), ctx) : null_value();
        }
      }
      return out;
    }
    // Accumulators: the argument once per document, then each window folded.
    std::vector<OwnedValue> args(n);
    for (size_t i = 0; i < n; ++i) args[i] = eval_in(f.arg, part[i]->doc.view(), ctx);
    auto fold = [&](size_t lo, size_t hi) {  // [lo, hi)
      std::unique_ptr<Accumulator> acc = make_accumulator(f.op);
      for (size_t j = lo; j < hi; ++j) acc->add(args[j].view());
      return acc->result();
    };
    if (!f.range && f.lower.kind == Bound::kUnbounded && f.upper.kind == Bound::kUnbounded) {
      OwnedValue all = fold(0, n);
      for (size_t i = 0; i < n; ++i) out[i] = all;
      return out;
    }
    std::vector<std::pair<size_t, size_t>> windows(n);
    if (f.range) {
      windows = range_windows(f, part);
    } else {
      for (size_t i = 0; i < n; ++i) windows[i] = document_window(f, i, n);
    }
    // From the start of the partition with a growing upper edge (a running total): one pass.
    bool running = !f.range && f.lower.kind == Bound::kUnbounded;
    if (running) {
      std::unique_ptr<Accumulator> acc = make_accumulator(f.op);
      size_t added = 0;
      for (size_t i = 0; i < n; ++i) {
        while (added < windows[i].second) acc->add(args[added++].view());
        out[i] = acc->result();
      }
      return out;
    }
    for (size_t i = 0; i < n; ++i) out[i] = fold(windows[i].first, windows[i].second);
    return out;
  }

  // [lo, hi) of a documents window around position i of n.
  static std::pair<size_t, size_t> document_window(const OutputField& f, size_t i, size_t n) {
    auto edge = [&](const Bound& b, bool upper) -> int64_t {
      if (b.kind == Bound::kUnbounded) return upper ? static_cast<int64_t>(n) - 1 : 0;
      if (b.kind == Bound::kCurrent) return static_cast<int64_t>(i);
      return static_cast<int64_t>(i) + static_cast<int64_t>(b.offset);
    };
    int64_t lo = std::max<int64_t>(edge(f.lower, false), 0);
    int64_t hi = std::min<int64_t>(edge(f.upper, true), static_cast<int64_t>(n) - 1);
    if (lo > hi) return {0, 0};
    return {static_cast<size_t>(lo), static_cast<size_t>(hi) + 1};
  }

  // Windows by the value of the single sortBy field: the documents whose value lies within
  // [value + lower, value + upper].
  template <class Row>
  std::vector<std::pair<size_t, size_t>> range_windows(const OutputField& f,
                                                       const std::vector<const Row*>& part) const {
    size_t n = part.size();
    std::vector<double> keys(n);
    for (size_t i = 0; i < n; ++i) {
      Value v = get_path(part[i]->doc.view(), sort_paths[0]);
      if (f.unit_millis > 0) {
        if (v.type() != BsonType::kDateTime) {
          fail(5429513,
               "Invalid range: Expected the sortBy field to be a Date, but it was " + type_name(v));
        }
        keys[i] = static_cast<double>(v.as_datetime().millis);
      } else {
        if (!v.is_number()) {
          fail(5429414, "Invalid range: Expected the sortBy field to be a number, but it was " +
                            type_name(v));
        }
        keys[i] = v.number_as_double();
      }
    }
    double scale = f.unit_millis > 0 ? static_cast<double>(f.unit_millis) : 1.0;
    std::vector<std::pair<size_t, size_t>> out(n);
    for (size_t i = 0; i < n; ++i) {
      double lo = f.lower.kind == Bound::kUnbounded ? -INFINITY
                  : f.lower.kind == Bound::kCurrent ? keys[i]
                                                    : keys[i] + f.lower.offset * scale;
      double hi = f.upper.kind == Bound::kUnbounded ? INFINITY
                  : f.upper.kind == Bound::kCurrent ? keys[i]
                                                    : keys[i] + f.upper.offset * scale;
      // Keys run ascending, or descending for a descending sortBy.
      size_t first = 0, last = n;
      if (!sort_descending) {
        first = std::lower_bound(keys.begin(), keys.end(), lo) - keys.begin();
        last = std::upper_bound(keys.begin(), keys.end(), hi) - keys.begin();
      } else {
        first =
            std::lower_bound(keys.begin(), keys.end(), hi, std::greater<double>()) - keys.begin();
        last =
            std::upper_bound(keys.begin(), keys.end(), lo, std::greater<double>()) - keys.begin();
      }
      out[i] = first < last ? std::make_pair(first, last) : std::make_pair(size_t{0}, size_t{0});
    }
    return out;
  }
};

}  // namespace

StagePtr parse_set_window_fields(const Value& spec) {
  if (!spec.is_document()) {
    fail(ErrorCode::kFailedToParse,
         "the $setWindowFields stage specification must be an object, found " + type_name(spec));
  }
  auto stage = std::make_shared<SetWindowFieldsStage>();
  std::optional<Value> output;
  for (const bson::Element& e : spec.as_document()) {
    if (e.key == "partitionBy") {
      stage->partition_by = parse_expression(e.value);
    } else if (e.key == "sortBy") {
      if (!e.value.is_document()) {
        fail(ErrorCode::kTypeMismatch, "BSON field '$setWindowFields.sortBy' is the wrong type '" +
                                           type_name(e.value) + "', expected type 'object'");
      }
      stage->sort_by = DocumentSorter::compile(e.value.as_document());
      for (const bson::Element& s : e.value.as_document()) {
        stage->sort_paths.push_back(split_path(s.key));
        stage->sort_descending = s.value.number_as_double() < 0;
      }
    } else if (e.key == "output") {
      if (!e.value.is_document()) {
        fail(ErrorCode::kTypeMismatch, "BSON field '$setWindowFields.output' is the wrong type '" +
                                           type_name(e.value) + "', expected type 'object'");
      }
      output = e.value;
    } else {
      fail(40415, "BSON field '$setWindowFields." + std::string(e.key) + "' is an unknown field.");
    }
  }
  if (!output) fail(40414, "BSON field '$setWindowFields.output' is missing but a required field");
  for (const bson::Element& e : output->as_document()) {
    OutputField f = parse_output(e.key, e.value);
    bool ranked = f.op == "$rank" || f.op == "$denseRank";
    if (ranked && stage->sort_paths.size() != 1) {
      fail(5371602, f.op +
                        " must be specified with a top level sortBy expression with exactly "
                        "one element");
    }
    if ((f.op == "$documentNumber" || f.op == "$shift") && !stage->sort_by) {
      fail(5339902, f.op + " requires a sortBy");
    }
    if (f.range && stage->sort_paths.size() != 1) {
      fail(5339902, "Range-based bounds require sortBy a single field");
    }
    if (!f.range &&
        (f.lower.kind == Bound::kOffset || f.upper.kind == Bound::kOffset ||
         f.lower.kind == Bound::kCurrent || f.upper.kind == Bound::kCurrent) &&
        !stage->sort_by) {
      fail(5339901, "Document-based bounds require a sortBy");
    }
    stage->outputs.push_back(std::move(f));
  }
  return stage;
}

}  // namespace mongostore::engine::aggregation_detail
