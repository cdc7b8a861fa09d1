// The n-accumulators of $group (MongoDB 5.2): $firstN $lastN $maxN $minN, and $top $bottom
// $topN $bottomN, which order by their own `sortBy`. `n` is a positive integral constant
// (mongod also takes an expression of the group key; that fails NotImplemented here). Each
// keeps at most n values (top/bottom: up to 2n between trims), and every one can spill.
#include <algorithm>
#include <cmath>
#include <deque>
#include <set>

#include "engine/aggregation/collation_scope.h"
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

int64_t validate_n(const Value& v) {
  if (!v.is_number()) {
    fail(5787902, "Value for 'n' must be of integral type, but found " + render(v));
  }
  double d = v.number_as_double();
  if (d != std::trunc(d) || std::abs(d) > 9.2e18) {
    fail(5787903, "Value for 'n' must be of integral type, but found " + render(v));
  }
  auto n = static_cast<int64_t>(d);
  if (n <= 0) fail(5787908, "'n' must be greater than 0, found " + std::to_string(n));
  return n;
}

int64_t constant_n(const Value& spec) {
  ExprPtr e = parse_expression(spec);
  if (!e->is_constant()) {
    fail(ErrorCode::kNotImplemented,
         "'n' of an n-accumulator must be a constant in mongostore (not an expression of the "
         "group key)");
  }
  Variables none;
  Document empty;
  EvalContext ctx{empty, &none};
  OwnedValue v = e->eval(ctx);
  return validate_n(v.view());
}

OwnedValue array_of(const std::vector<OwnedValue>& values) {
  return make_array_value(values);
}

// $firstN/$lastN/$maxN/$minN: the result is the kept values, and so is the partial state;
// merging adds a partial's values in order.
class KeepsValues : public Accumulator {
 public:
  size_t memory() const override { return bytes_; }
  bool can_spill() const override { return true; }
  OwnedValue partial() const override { return result(); }
  void merge(const Value& p) override {
    for (const Value& v : array_elements(p)) add(v);
  }

 protected:
  size_t bytes_ = 0;
};

class FirstLastN : public KeepsValues {
 public:
  FirstLastN(int64_t n, bool first) : n_(static_cast<size_t>(n)), first_(first) {}
  void add(const Value& v) override {
    if (kept_.size() == n_) {
      if (first_) return;
      bytes_ -= kept_.front().view().size();
      kept_.pop_front();
    }
    kept_.push_back(v.is_missing() ? null_value() : OwnedValue(v));
    bytes_ += kept_.back().view().size();
  }
  OwnedValue result() const override { return array_of({kept_.begin(), kept_.end()}); }

 private:
  size_t n_;
  bool first_;
  std::deque<OwnedValue> kept_;
};

struct ValueOrder {
  bool operator()(const OwnedValue& a, const OwnedValue& b) const {
    return compare_in_scope(a.view(), b.view()) < 0;
  }
};

class MinMaxN : public KeepsValues {
 public:
  MinMaxN(int64_t n, bool max) : n_(static_cast<size_t>(n)), max_(max) {}
  void add(const Value& v) override {
    if (nullish(v)) return;
    if (kept_.size() == n_) {
      auto worst = max_ ? kept_.begin() : std::prev(kept_.end());
      int c = compare_in_scope(v, worst->view());
      if (max_ ? c <= 0 : c >= 0) return;
      bytes_ -= worst->view().size();
      kept_.erase(worst);
    }
    bytes_ += v.size();
    kept_.insert(OwnedValue(v));
  }
  OwnedValue result() const override {
    return max_ ? array_of({kept_.rbegin(), kept_.rend()}) : array_of({kept_.begin(), kept_.end()});
  }

 private:
  size_t n_;
  bool max_;
  std::multiset<OwnedValue, ValueOrder> kept_;
};

// The argument is [output, sortValue1, sortValue2, ...] (see parse_n_accumulator).
class TopBottomN : public Accumulator {
 public:
  TopBottomN(int64_t n, bool top, bool single, std::vector<bool> descending)
      : n_(static_cast<size_t>(n)),
        top_(top),
        single_(single),
        descending_(std::move(descending)) {}
  void add(const Value& v) override {
    Entry e;
    e.seq = seq_++;
    std::vector<Value> parts = array_elements(v);
    for (size_t i = 0; i < parts.size(); ++i) {
      OwnedValue p = parts[i].is_missing() ? null_value() : OwnedValue(parts[i]);
      if (i == 0) {
        e.output = std::move(p);
      } else {
        e.keys.push_back(std::move(p));
      }
    }
    bytes_ += v.size();
    entries_.push_back(std::move(e));
    if (entries_.size() > 2 * n_) trim();
  }
  OwnedValue result() const override {
    std::vector<Entry> kept = entries_;
    trim(kept);
    if (single_) return kept.empty() ? null_value() : kept.front().output;
    std::vector<OwnedValue> out;
    for (const Entry& e : kept) out.push_back(e.output);
    return array_of(out);
  }
  size_t memory() const override { return bytes_; }
  bool can_spill() const override { return true; }
  OwnedValue partial() const override {
    std::vector<Entry> kept = entries_;
    trim(kept);
    bson::DocumentBuilder b;
    b.open_array("");
    for (const Entry& e : kept) {
      b.push_array().push(e.output.view());
      for (const OwnedValue& k : e.keys) b.push(k.view());
      b.close();
    }
    b.close();
    Document d = b.finish();
    return OwnedValue(d.get(""));
  }
  void merge(const Value& p) override {
    for (const Value& v : array_elements(p)) add(v);
  }

 private:
  struct Entry {
    OwnedValue output;
    std::vector<OwnedValue> keys;
    int64_t seq = 0;
  };
  bool before(const Entry& a, const Entry& b) const {
    for (size_t i = 0; i < a.keys.size() && i < b.keys.size(); ++i) {
      int c = compare_in_scope(a.keys[i].view(), b.keys[i].view());
      if (descending_[i]) c = -c;
      if (c != 0) return c < 0;
    }
    return a.seq < b.seq;
  }
  // Sorts by sortBy and keeps the first n ($top) or the last n ($bottom), in sortBy order.
  void trim(std::vector<Entry>& entries) const {
    std::sort(entries.begin(), entries.end(),
              [this](const Entry& a, const Entry& b) { return before(a, b); });
    if (entries.size() <= n_) return;
    if (top_) {
      entries.resize(n_);
    } else {
      entries.erase(entries.begin(), entries.end() - static_cast<std::ptrdiff_t>(n_));
    }
  }
  void trim() {
    trim(entries_);
    bytes_ = 0;
    for (const Entry& e : entries_) {
      bytes_ += e.output.view().size() + 16;
      for (const OwnedValue& k : e.keys) bytes_ += k.view().size();
    }
  }

  size_t n_;
  bool top_, single_;
  std::vector<bool> descending_;
  std::vector<Entry> entries_;
  int64_t seq_ = 0;
  size_t bytes_ = 0;
};

}  // namespace

bool is_n_accumulator(std::string_view op) {
  for (std::string_view n :
       {"$firstN", "$lastN", "$maxN", "$minN", "$top", "$bottom", "$topN", "$bottomN"}) {
    if (op == n) return true;
  }
  return false;
}

void parse_n_accumulator(AccumulatorSpec* spec, const Value& args) {
  const std::string& op = spec->op;
  bool sorted = op == "$top" || op == "$bottom" || op == "$topN" || op == "$bottomN";
  bool single = op == "$top" || op == "$bottom";
  if (!args.is_document()) {
    fail(sorted                                ? 5788001
         : (op == "$firstN" || op == "$lastN") ? 5787801
                                               : 5787900,
         "specification must be an object; found " + render(args));
  }
  std::optional<Value> n, input, output, sort_by;
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "n" && !single) {
      n = e.value;
    } else if (!sorted && e.key == "input") {
      input = e.value;
    } else if (sorted && e.key == "output") {
      output = e.value;
    } else if (sorted && e.key == "sortBy") {
      sort_by = e.value;
    } else if (sorted) {
      fail(5788002, "Unknown argument to " + op + " '" + std::string(e.key) + "'");
    } else {
      fail(5787901, "Unknown argument for 'n' operator: " + std::string(e.key));
    }
  }
  if (!sorted) {
    if (!n) fail(5787906, "Missing value for 'n'");
    if (!input) fail(5787907, "Missing value for 'input'");
    spec->n = constant_n(*n);
    spec->arg = parse_expression(*input);
    return;
  }
  if (!single && !n) fail(5788003, "Missing value for 'n'");
  if (!output) fail(5788004, "Missing value for 'output'");
  if (!sort_by) fail(5788005, "Missing value for 'sortBy'");
  if (!sort_by->is_document()) {
    fail(ErrorCode::kTypeMismatch, op + "'s sortBy must be an object");
  }
  DocumentSorter::compile(sort_by->as_document());  // mongod's errors for a bad sort
  spec->n = single ? 1 : constant_n(*n);
  // One expression yields [output, sort value, ...] per document.
  bson::DocumentBuilder b;
  b.open_array("").push(*output);
  spec->descending.clear();
  for (const bson::Element& s : sort_by->as_document()) {
    b.push("$" + std::string(s.key));
    spec->descending.push_back(s.value.number_as_double() < 0);
  }
  b.close();
  Document arg = b.finish();
  spec->arg = parse_expression(arg.get(""));
}

std::unique_ptr<Accumulator> make_n_accumulator(const AccumulatorSpec& spec) {
  const std::string& op = spec.op;
  if (op == "$firstN" || op == "$lastN") {
    return std::make_unique<FirstLastN>(spec.n, op == "$firstN");
  }
  if (op == "$maxN" || op == "$minN") return std::make_unique<MinMaxN>(spec.n, op == "$maxN");
  bool top = op == "$top" || op == "$topN";
  bool single = op == "$top" || op == "$bottom";
  return std::make_unique<TopBottomN>(spec.n, top, single, spec.descending);
}

}  // namespace mongostore::engine::aggregation_detail
