// Pipeline: stage parsing and dispatch, running, sources, memory accounting, sort keys.
#include <algorithm>
#include <charconv>

#include "engine/aggregation/collation_scope.h"
#include "engine/aggregation/internal.h"
#include "mongostore/bson/index_key.h"
#include "mongostore/engine/limits.h"

namespace mongostore::engine {

namespace {

class VectorSource : public DocumentSource {
 public:
  explicit VectorSource(std::vector<bson::Document> docs) : docs_(std::move(docs)) {}
  std::optional<bson::Document> next() override {
    if (pos_ >= docs_.size()) return std::nullopt;
    return std::move(docs_[pos_++]);
  }

 private:
  std::vector<bson::Document> docs_;
  size_t pos_ = 0;
};

using aggregation_detail::StagePtr;

// The documents a pipeline returns: each must be a document MongoDB could return (at most
// 16 MB plus its 16 KB of internal slack), so a result too large is BSONObjectTooLarge
// instead of an oversized reply.
// A pipeline's result: checks each document's size, and evaluates the stages (which run
// lazily, a getMore's worth at a time) under the run's collation, so that expressions
// compare strings under it (see CollationScope).
class SizeCheckedSource : public DocumentSource {
 public:
  SizeCheckedSource(std::unique_ptr<DocumentSource> inner,
                    std::shared_ptr<const Collation> collation)
      : inner_(std::move(inner)), collation_(std::move(collation)) {}
  std::optional<bson::Document> next() override {
    aggregation_detail::CollationScope scope(collation_.get());
    std::optional<bson::Document> d = inner_->next();
    if (d && d->size() > kMaxInternalDocumentSize) {
      aggregation_detail::fail(ErrorCode::kBSONObjectTooLarge,
                               "BSONObj size: " + std::to_string(d->size()) +
                                   " is invalid. Size must be between 0 and " +
                                   std::to_string(kMaxInternalDocumentSize) + "(16MB)");
    }
    return d;
  }

 private:
  std::unique_ptr<DocumentSource> inner_;
  std::shared_ptr<const Collation> collation_;
};

StagePtr parse_stage(const bson::Document& stage) {
  using namespace aggregation_detail;
  if (stage.view().count() != 1) {
    fail(40323, "A pipeline stage specification object must contain exactly one field.");
  }
  bson::Element e = *stage.begin();
  std::string_view n = e.key;
  const Value& v = e.value;
  if (n == "$match") return parse_match(v);
  if (n == "$project") return parse_project(v);
  if (n == "$addFields" || n == "$set") return parse_add_fields(n, v);
  if (n == "$unset") return parse_unset(v);
  if (n == "$replaceRoot" || n == "$replaceWith") return parse_replace_root(n, v);
  if (n == "$sort") return parse_sort(v);
  if (n == "$limit") return parse_limit(v);
  if (n == "$skip") return parse_skip(v);
  if (n == "$unwind") return parse_unwind(v);
  if (n == "$group") return parse_group(v);
  if (n == "$count") return parse_count(v);
  if (n == "$sortByCount") return parse_sort_by_count(v);
  if (n == "$bucket") return parse_bucket(v);
  if (n == "$lookup") return parse_lookup(v);
  if (n == "$unionWith") return parse_union_with(v);
  if (n == "$setWindowFields") return parse_set_window_fields(v);
  if (n == "$facet") return parse_facet(v);
  if (n == "$sample") return parse_sample(v);
  if (n == "$documents") return parse_documents(v);
  if (n == "$out") return parse_out(v);
  if (n == "$merge") return parse_merge(v);
  fail(40324, "Unrecognized pipeline stage name: '" + std::string(n) + "'");
}

}  // namespace

std::unique_ptr<DocumentSource> make_vector_source(std::vector<bson::Document> documents) {
  return std::make_unique<VectorSource>(std::move(documents));
}

std::vector<bson::Document> drain(DocumentSource& source) {
  std::vector<bson::Document> out;
  while (auto d = source.next()) out.push_back(std::move(*d));
  return out;
}

namespace {

// How many pipelines the current thread is compiling inside one another ($lookup, $unionWith
// and $facet compile theirs while their stage is parsed): bounded, so a pipeline nested in a
// pipeline many times cannot chain enough stage sources to exhaust the stack when it runs.
thread_local int compiling_pipelines = 0;

class PipelineNesting {
 public:
  PipelineNesting() {
    if (compiling_pipelines > kMaxSubPipelineDepth) {
      aggregation_detail::fail(ErrorCode::kMaxSubPipelineDepthExceeded,
                               "Maximum number of nested sub-pipelines exceeded. Limit is " +
                                   std::to_string(kMaxSubPipelineDepth));
    }
    ++compiling_pipelines;
  }
  ~PipelineNesting() { --compiling_pipelines; }
  PipelineNesting(const PipelineNesting&) = delete;
  PipelineNesting& operator=(const PipelineNesting&) = delete;
};

void check_pipeline_length(size_t stages) {
  if (stages > kMaxPipelineLength) {
    aggregation_detail::fail(7749501, "Pipeline length must be no longer than " +
                                          std::to_string(kMaxPipelineLength) + " stages.");
  }
}

}  // namespace

Pipeline Pipeline::compile(const std::vector<bson::Document>& stages) {
  check_pipeline_length(stages.size());
  PipelineNesting nesting;
  Pipeline p;
  for (size_t i = 0; i < stages.size(); ++i) {
    check_input_depth(stages[i].view(), "pipeline stage");
    StagePtr s = parse_stage(stages[i]);
    if ((s->name() == "$out" || s->name() == "$merge") && i + 1 != stages.size()) {
      aggregation_detail::fail(
          40601, std::string(s->name()) + " can only be the final stage in the pipeline");
    }
    p.stages_.push_back(std::move(s));
  }
  return p;
}

Pipeline Pipeline::compile(bson::DocumentView stages_array) {
  check_pipeline_length(stages_array.count());
  std::vector<bson::Document> stages;
  for (const bson::Element& e : stages_array) {
    if (!e.value.is_document()) {
      aggregation_detail::fail(14, "Each element of the 'pipeline' array must be an object");
    }
    stages.push_back(bson::Document::copy_of(e.value.as_document()));
  }
  return compile(stages);
}

std::optional<bson::Document> Pipeline::leading_match() const {
  if (stages_.empty()) return std::nullopt;
  return stages_.front()->match_filter();
}

Pipeline::Prefix Pipeline::find_prefix() const {
  Prefix prefix;
  size_t i = 0;
  if (i < stages_.size()) {
    if (auto filter = stages_[i]->match_filter()) {
      prefix.filter = std::move(*filter);
      prefix.stages = ++i;
    }
  }
  if (i < stages_.size()) {
    if (auto sort = stages_[i]->sort_spec()) {
      prefix.sort = std::move(*sort);
      prefix.stages = ++i;
      if (i < stages_.size()) {
        if (auto limit = stages_[i]->limit_count()) {
          prefix.limit = *limit;
          prefix.stages = ++i;
        }
      }
    }
  }
  return prefix;
}

Pipeline Pipeline::without_prefix(size_t n) const {
  Pipeline p;
  p.stages_.assign(stages_.begin() + static_cast<std::ptrdiff_t>(std::min(n, stages_.size())),
                   stages_.end());
  return p;
}

bool Pipeline::writes_output() const {
  return !stages_.empty() &&
         (stages_.back()->name() == "$out" || stages_.back()->name() == "$merge");
}

std::unique_ptr<DocumentSource> Pipeline::run(std::unique_ptr<DocumentSource> input,
                                              const AggregationContext& context) const {
  return run(std::move(input), context, {});
}

std::unique_ptr<DocumentSource> Pipeline::run(std::unique_ptr<DocumentSource> input,
                                              const AggregationContext& context,
                                              const Variables& variables) const {
  auto ctx = std::make_shared<aggregation_detail::RunContext>();
  ctx->storage = context;
  ctx->variables = variables;
  // One $$NOW for the whole run, however lazily its stages are pulled (a sub-pipeline run
  // by $lookup or $facet inherits its parent's through `variables`).
  bool has_now = std::any_of(variables.begin(), variables.end(),
                             [](const auto& v) { return v.first == "NOW"; });
  if (!has_now) ctx->variables.emplace_back("NOW", aggregation_detail::make_value(NowScope::now()));
  std::unique_ptr<DocumentSource> current = std::move(input);
  {
    aggregation_detail::CollationScope scope(context.collation.get());
    for (const StagePtr& s : stages_) current = s->apply(std::move(current), ctx);
  }
  return std::make_unique<SizeCheckedSource>(std::move(current), context.collation);
}

}  // namespace mongostore::engine

namespace mongostore::engine::aggregation_detail {

void MemoryTracker::add(size_t bytes) {
  used_ += bytes;
  if (SpillStats* stats = ctx_.context->spill_stats) {
    stats->peak_memory_bytes = std::max(stats->peak_memory_bytes, used_);
  }
  if (used_ > ctx_.context->memory_limit_bytes && !ctx_.context->allow_disk_use) {
    fail(292, "Exceeded memory limit for " + stage_ +
                  ", but didn't allow external sort. Pass allowDiskUse:true to opt in.");
  }
  // With allow_disk_use the stage spills when over_limit() (the grouping stages, $sort,
  // $sample, $facet's input); $out holds nothing to count.
}

namespace {

bool parse_index(std::string_view part, size_t* index) {
  if (part.empty() || part.size() > 9) return false;
  for (char c : part) {
    if (c < '0' || c > '9') return false;
  }
  std::from_chars(part.data(), part.data() + part.size(), *index);
  return true;
}

// The values a path reaches, as sort sees them (arrays traversed, numeric parts index).
void collect(const Value& v, const std::vector<std::string>& parts, size_t i,
             std::vector<Value>* out, bool* empty_array) {
  if (i == parts.size()) {
    if (v.is_array()) {
      bool any = false;
      for (const bson::Element& e : v.as_array()) {
        out->push_back(e.value);
        any = true;
      }
      if (!any) *empty_array = true;
    } else if (!v.is_missing()) {
      out->push_back(v);
    }
    return;
  }
  if (v.is_document()) {
    collect(v.as_document().get(parts[i]), parts, i + 1, out, empty_array);
  } else if (v.is_array()) {
    size_t index = 0;
    if (parse_index(parts[i], &index)) {
      size_t k = 0;
      for (const bson::Element& e : v.as_array()) {
        if (k++ == index) {
          collect(e.value, parts, i + 1, out, empty_array);
          return;
        }
      }
      return;
    }
    for (const bson::Element& e : v.as_array()) {
      if (e.value.is_document()) {
        collect(e.value.as_document().get(parts[i]), parts, i + 1, out, empty_array);
      }
    }
  }
}

}  // namespace

DocumentSorter DocumentSorter::compile(DocumentView spec) {
  DocumentSorter out;
  if (spec.count() > kMaxCompoundKeyFields) fail(13103, "too many compound keys");
  for (const bson::Element& e : spec) {
    if (e.value.is_document()) {
      fail(238,
           "sort by $meta (field '" + std::string(e.key) + "') is not supported by mongostore");
    }
    int64_t order = 0;
    if (!e.value.is_number() || !e.value.number_as_exact_int64(&order) ||
        (order != 1 && order != -1)) {
      fail(15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
    }
    if (e.key.empty()) fail(40352, "FieldPath cannot be constructed with empty string");
    out.fields_.push_back(Field{split_path(e.key), order == -1});
  }
  if (out.fields_.empty()) fail(15976, "$sort stage must have at least one sort key");
  return out;
}

std::string DocumentSorter::key_for(DocumentView doc, const Collation* collation) const {
  static const Document kNull = bson::make_document("", bson::Null{});
  static const Document kUndefined = bson::make_document("", bson::Undefined{});
  std::string key;
  std::vector<Value> values;
  Value root = document_as_value(doc);
  for (const Field& f : fields_) {
    values.clear();
    bool empty_array = false;
    collect(root, f.path, 0, &values, &empty_array);
    Value chosen;
    for (const Value& v : values) {
      if (chosen.is_missing()) {
        chosen = v;
        continue;
      }
      int c = bson::compare_values(v, chosen, collation);
      if (f.descending ? c > 0 : c < 0) chosen = v;
    }
    if (chosen.is_missing()) chosen = empty_array ? kUndefined.get("") : kNull.get("");
    if (collation != nullptr && Collation::collation_sensitive(chosen)) {
      bson::append_index_key(key, collation->comparison_key(chosen), f.descending);
    } else {
      bson::append_index_key(key, chosen, f.descending);
    }
  }
  return key;
}

}  // namespace mongostore::engine::aggregation_detail
