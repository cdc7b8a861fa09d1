// Grouping stages: $group, $sortByCount (a $group then a $sort) and $bucket.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "engine/aggregation/collation_scope.h"
#include "engine/aggregation/internal.h"
#include "engine/aggregation/spill.h"
#include "mongostore/bson/index_key.h"

namespace mongostore::engine::aggregation_detail {

namespace {

struct Group {
  std::string key;
  OwnedValue id;
  std::vector<std::unique_ptr<Accumulator>> accumulators;
};

Document group_output(const Group& g, const std::vector<AccumulatorSpec>& specs) {
  bson::DocumentBuilder b;
  b.append("_id", g.id.view());
  for (size_t i = 0; i < specs.size(); ++i) {
    OwnedValue r = g.accumulators[i]->result();
    append_value(b, specs[i].field, r.view());
  }
  return b.finish();
}

std::unique_ptr<Group> new_group(std::string key, const Value& id,
                                 const std::vector<AccumulatorSpec>& specs) {
  auto g = std::make_unique<Group>();
  g->key = std::move(key);
  g->id = OwnedValue(id);
  for (const AccumulatorSpec& s : specs) g->accumulators.push_back(make_accumulator(s));
  return g;
}

// The output of a $group that spilled: the runs (each sorted by group key, holding
// {_id, p: [partial states]}) merged by key; a key's partials are combined in run order,
// which is input order.
class GroupMergeSource final : public DocumentSource {
 public:
  GroupMergeSource(std::shared_ptr<SpillFile> file, std::vector<AccumulatorSpec> specs,
                   const RunContext& ctx)
      : file_(std::move(file)), specs_(std::move(specs)), merger_(open_all_runs(*file_, ctx, 0)) {}
  std::optional<Document> next() override {
    RunCursor* top = merger_.top();
    if (!top) return std::nullopt;
    std::unique_ptr<Group> g;
    std::string key = top->key();
    while ((top = merger_.top()) && top->key() == key) {
      Document d = top->take_document();
      if (!g) g = new_group(key, d.get("_id"), specs_);
      std::vector<Value> partials = array_elements(d.get("p"));
      for (size_t i = 0; i < specs_.size(); ++i) g->accumulators[i]->merge(partials.at(i));
      merger_.pop();
    }
    return group_output(*g, specs_);
  }

 private:
  std::shared_ptr<SpillFile> file_;
  std::vector<AccumulatorSpec> specs_;
  RunMerger merger_;
};

// Groups documents by key, feeding each group's accumulators; groups keep first-seen order
// (or key order with `key_order`). With allowDiskUse, past the memory limit the groups are
// written to a spill file as a run sorted by key, with each accumulator's partial state, and
// the table starts again empty; finish() then merges the runs and comes out in key order.
class Grouper {
 public:
  Grouper(const std::vector<AccumulatorSpec>* specs, RunContext& ctx, std::string stage,
          bool key_order = false)
      : specs_(specs),
        ctx_(ctx),
        stage_(stage),
        memory_(ctx, std::move(stage)),
        key_order_(key_order) {}

  // `key` identifies the group and orders it (bytes); `id` is the _id of a new group.
  void add(std::string key, const Value& id, DocumentView doc) {
    auto it = index_.find(key);
    Group* g = nullptr;
    if (it == index_.end()) {
      memory_.add(key.size() * 2 + id.size() + 128);
      auto ng = new_group(key, id, *specs_);
      g = ng.get();
      index_.emplace(std::move(key), groups_.size());
      groups_.push_back(std::move(ng));
    } else {
      g = groups_[it->second].get();
    }
    for (size_t i = 0; i < specs_->size(); ++i) {
      const AccumulatorSpec& s = (*specs_)[i];
      OwnedValue v = eval_in(s.arg, doc, ctx_);
      if (s.op == "$push" || s.op == "$addToSet") memory_.add(v.view().size() + 32);
      g->accumulators[i]->add(v.view());
    }
    if (memory_.over_limit()) spill();
  }

  std::unique_ptr<DocumentSource> finish() {
    if (spill_) {
      if (!groups_.empty()) spill();
      return std::make_unique<GroupMergeSource>(std::move(spill_), *specs_, ctx_);
    }
    if (key_order_) sort_by_key();
    std::vector<Document> out;
    out.reserve(groups_.size());
    for (const auto& g : groups_) out.push_back(group_output(*g, *specs_));
    return make_vector_source(std::move(out));
  }

 private:
  void sort_by_key() {
    std::sort(groups_.begin(), groups_.end(),
              [](const auto& a, const auto& b) { return a->key < b->key; });
  }

  void spill() {
    for (const AccumulatorSpec& s : *specs_) {
      if (!make_accumulator(s)->can_spill()) {
        fail(ErrorCode::kNotImplemented, stage_ +
                                             " exceeded its memory limit and cannot spill "
                                             "to disk: accumulator " +
                                             s.op + " has no mergeable partial state");
      }
    }
    if (!spill_) spill_ = std::make_shared<SpillFile>(ctx_, stage_);
    sort_by_key();
    for (const auto& g : groups_) {
      bson::DocumentBuilder b;
      b.append("_id", g->id.view());
      b.open_array("p");
      for (const auto& a : g->accumulators) {
        OwnedValue p = a->partial();
        b.push(p.view());
      }
      b.close();
      Document d = b.finish();
      spill_->add(g->key, d.data(), d.size());
    }
    spill_->end_run();
    groups_.clear();
    index_.clear();
    memory_.reset();
  }

  const std::vector<AccumulatorSpec>* specs_;
  RunContext& ctx_;
  std::string stage_;
  MemoryTracker memory_;
  bool key_order_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<std::unique_ptr<Group>> groups_;
  std::shared_ptr<SpillFile> spill_;
};

class GroupStage : public Stage {
 public:
  GroupStage(ExprPtr id, std::vector<AccumulatorSpec> specs)
      : id_(std::move(id)), specs_(std::move(specs)) {}
  std::string_view name() const override { return "$group"; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    Grouper grouper(&specs_, *ctx, "$group");
    while (auto d = input->next()) {
      OwnedValue id = eval_in(id_, *d, *ctx);
      Value key_value = id.view().is_missing() ? null_.get("") : id.view();
      // Under a collation, ids it finds equal are one group (shown as the first met).
      const Collation* collation = ctx->context->collation.get();
      grouper.add(collation != nullptr
                      ? bson::encode_index_key(collation->comparison_key(key_value))
                      : bson::encode_index_key(key_value),
                  key_value, *d);
    }
    return grouper.finish();
  }

 private:
  ExprPtr id_;
  std::vector<AccumulatorSpec> specs_;
  Document null_ = bson::make_document("", bson::Null{});
};

class ChainStage : public Stage {
 public:
  ChainStage(std::string name, std::vector<StagePtr> stages)
      : name_(std::move(name)), stages_(std::move(stages)) {}
  std::string_view name() const override { return name_; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    for (const StagePtr& s : stages_) input = s->apply(std::move(input), ctx);
    return input;
  }

 private:
  std::string name_;
  std::vector<StagePtr> stages_;
};

class BucketStage : public Stage {
 public:
  BucketStage(ExprPtr group_by, std::vector<OwnedValue> boundaries, std::optional<OwnedValue> def,
              std::vector<AccumulatorSpec> specs)
      : group_by_(std::move(group_by)),
        boundaries_(std::move(boundaries)),
        default_(std::move(def)),
        specs_(std::move(specs)) {}
  std::string_view name() const override { return "$bucket"; }
  std::unique_ptr<DocumentSource> apply(std::unique_ptr<DocumentSource> input,
                                        std::shared_ptr<RunContext> ctx) const override {
    // Buckets are grouped by slot number (big-endian, so key order is boundary order with
    // the default last), spilled or not.
    Grouper grouper(&specs_, *ctx, "$bucket", true);
    size_t n = boundaries_.size() - 1;
    while (auto d = input->next()) {
      OwnedValue v = eval_in(group_by_, *d, *ctx);
      Value key = v.view();
      if (key.is_missing()) key = null_.get("");
      size_t slot = n;
      if (compare_in_scope(key, boundaries_.front().view()) >= 0 &&
          compare_in_scope(key, boundaries_.back().view()) < 0) {
        for (size_t i = 0; i < n; ++i) {
          if (compare_in_scope(key, boundaries_[i + 1].view()) < 0) {
            slot = i;
            break;
          }
        }
      }
      if (slot == n && !default_) {
        fail(40066,
             "$switch could not find a matching branch for an input, and no default was "
             "specified.");
      }
      std::string slot_key(4, '\0');
      for (int i = 0; i < 4; ++i) slot_key[i] = static_cast<char>((slot >> (8 * (3 - i))) & 0xff);
      grouper.add(std::move(slot_key), slot == n ? default_->view() : boundaries_[slot].view(), *d);
    }
    return grouper.finish();
  }

 private:
  ExprPtr group_by_;
  std::vector<OwnedValue> boundaries_;
  std::optional<OwnedValue> default_;
  std::vector<AccumulatorSpec> specs_;
  Document null_ = bson::make_document("", bson::Null{});
};

std::vector<AccumulatorSpec> default_count() {
  static const Document spec = bson::make_document("$sum", int32_t{1});
  Document holder = bson::make_document("", spec);
  return {parse_accumulator("count", holder.get(""))};
}

}  // namespace

StagePtr parse_group(const Value& spec) {
  if (!spec.is_document()) fail(15947, "a group's fields must be specified in an object");
  ExprPtr id;
  std::vector<AccumulatorSpec> specs;
  std::set<std::string_view> fields;  // a set: 100,000 accumulators must not cost 10^10 steps
  for (const bson::Element& e : spec.as_document()) {
    if (e.key == "_id") {
      if (id) fail(15948, "a group's _id may only be specified once");
      id = parse_expression(e.value);
      continue;
    }
    if (!fields.insert(e.key).second) {
      fail(16406, "duplicate field name specified in object literal: " + std::string(e.key));
    }
    specs.push_back(parse_accumulator(e.key, e.value));
  }
  if (!id) fail(15955, "a group specification must include an _id");
  return std::make_shared<GroupStage>(std::move(id), std::move(specs));
}

StagePtr parse_sort_by_count(const Value& spec) {
  bool ok = (spec.type() == BsonType::kString && !spec.as_string().empty() &&
             spec.as_string()[0] == '$') ||
            (spec.is_document() && spec.as_document().count() == 1 &&
             spec.as_document().begin()->key[0] == '$');
  if (!ok) {
    fail(40148, "the sortByCount field must be defined as a $-prefixed path or an expression");
  }
  auto group = std::make_shared<GroupStage>(parse_expression(spec), default_count());
  Document sort = bson::make_document("count", int32_t{-1});
  Document holder = bson::make_document("", sort);
  return std::make_shared<ChainStage>("$sortByCount",
                                      std::vector<StagePtr>{group, parse_sort(holder.get(""))});
}

StagePtr parse_bucket(const Value& spec) {
  if (!spec.is_document()) {
    fail(40201, "Argument to $bucket stage must be an object, but found type: " + type_name(spec));
  }
  ExprPtr group_by;
  std::vector<OwnedValue> boundaries;
  bool has_boundaries = false;
  std::optional<OwnedValue> def;
  std::vector<AccumulatorSpec> specs;
  bool has_output = false;
  for (const bson::Element& e : spec.as_document()) {
    if (e.key == "groupBy") {
      bool ok = (e.value.type() == BsonType::kString && !e.value.as_string().empty() &&
                 e.value.as_string()[0] == '$') ||
                e.value.is_document();
      if (!ok) {
        fail(40202,
             "The $bucket 'groupBy' field must be defined as a $-prefixed path or an "
             "expression, but found: " +
                 render(e.value) + ".");
      }
      group_by = parse_expression(e.value);
    } else if (e.key == "boundaries") {
      if (!e.value.is_array()) {
        fail(40200, "The $bucket 'boundaries' field must be an array, but found type: " +
                        type_name(e.value) + ".");
      }
      has_boundaries = true;
      for (const bson::Element& b : e.value.as_array()) boundaries.emplace_back(b.value);
    } else if (e.key == "default") {
      def = OwnedValue(e.value);
    } else if (e.key == "output") {
      if (!e.value.is_document()) {
        fail(40196, "The $bucket 'output' field must be an object, but found type: " +
                        type_name(e.value) + ".");
      }
      has_output = true;
      for (const bson::Element& o : e.value.as_document()) {
        specs.push_back(parse_accumulator(o.key, o.value));
      }
    } else {
      fail(40197, "Unrecognized option to $bucket: " + std::string(e.key) + ".");
    }
  }
  if (!group_by || !has_boundaries) {
    fail(40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.");
  }
  if (boundaries.size() < 2) {
    fail(40192, "The $bucket 'boundaries' field must have at least 2 values, but found " +
                    std::to_string(boundaries.size()) + " value(s).");
  }
  for (size_t i = 1; i < boundaries.size(); ++i) {
    Value a = boundaries[i - 1].view();
    Value b = boundaries[i].view();
    if (bson::type_bracket(a.type()) != bson::type_bracket(b.type())) {
      fail(40193,
           "All values in the the 'boundaries' option to $bucket must have the same "
           "type. Found conflicting types " +
               type_name(a) + " and " + type_name(b) + ".");
    }
    if (compare_in_scope(a, b) >= 0) {
      fail(40194,
           "The 'boundaries' option to $bucket must be sorted in ascending order, but "
           "elements " +
               std::to_string(i - 1) + " and " + std::to_string(i) +
               " are not in ascending order (" + render(a) + " is not less than " + render(b) +
               ").");
    }
  }
  if (def) {
    Value d = def->view();
    if (bson::type_bracket(d.type()) == bson::type_bracket(boundaries[0].view().type()) &&
        compare_in_scope(d, boundaries.front().view()) >= 0 &&
        compare_in_scope(d, boundaries.back().view()) < 0) {
      fail(40199,
           "The $bucket 'default' field must be less than the lowest boundary or greater "
           "than or equal to the highest boundary.");
    }
  }
  if (!has_output) specs = default_count();
  return std::make_shared<BucketStage>(std::move(group_by), std::move(boundaries), std::move(def),
                                       std::move(specs));
}

}  // namespace mongostore::engine::aggregation_detail
