// $group accumulators: $sum $avg $min $max $first $last $push $addToSet $count
// $mergeObjects.
#include <set>

#include "mongostore/bson/index_key.h"

#include "engine/aggregation/internal.h"
#include "engine/update/decimal_math.h"

namespace mongostore::engine::aggregation_detail {

namespace {

// Sums numbers with MongoDB's widening: int32 -> int64 -> double (on overflow or a double)
// -> decimal (when any decimal is seen).
class NumericSum {
 public:
  void add(const Value& v) {
    if (!v.is_number()) return;
    ++count_;
    switch (v.type()) {
      case BsonType::kInt32:
      case BsonType::kInt64: {
        if (v.type() == BsonType::kInt64) kind_ = std::max(kind_, 1);
        int64_t i = int_value(v);
        if (!int_overflow_ && __builtin_add_overflow(int_sum_, i, &int_sum_)) {
          int_overflow_ = true;
        }
        double_sum_ += static_cast<double>(i);
        break;
      }
      case BsonType::kDouble:
        kind_ = std::max(kind_, 2);
        double_sum_ += v.as_double();
        break;
      default:
        kind_ = 3;
        break;
    }
    decimal_ = update_detail::decimal_add(decimal_, to_decimal(v));
  }
  OwnedValue result() const {
    if (kind_ == 3) return make_value(decimal_);
    if (kind_ == 2 || int_overflow_) return make_value(double_sum_);
    return integral_result(int_sum_, kind_ == 0);
  }
  double as_double() const {
    if (kind_ == 3) return decimal_to_double(decimal_);
    if (kind_ == 2 || int_overflow_) return double_sum_;
    return static_cast<double>(int_sum_);
  }
  int64_t count() const { return count_; }
  bool is_decimal() const { return kind_ == 3; }
  // Spilling: the whole state, and the sum of two states (this one's input came first).
  OwnedValue partial() const {
    bson::DocumentBuilder b;
    b.append("k", static_cast<int32_t>(kind_))
        .append("i", int_sum_)
        .append("o", int_overflow_)
        .append("d", double_sum_)
        .append("m", decimal_)
        .append("c", count_);
    return make_value(b.finish());
  }
  void merge(const Value& partial) {
    DocumentView p = partial.as_document();
    kind_ = std::max(kind_, static_cast<int>(p.get("k").as_int32()));
    if (p.get("o").as_bool()) int_overflow_ = true;
    if (!int_overflow_ && __builtin_add_overflow(int_sum_, p.get("i").as_int64(), &int_sum_)) {
      int_overflow_ = true;
    }
    double_sum_ += p.get("d").as_double();
    decimal_ = update_detail::decimal_add(decimal_, p.get("m").as_decimal128());
    count_ += p.get("c").as_int64();
  }
  bson::Decimal128 decimal() const { return decimal_; }

 private:
  int kind_ = 0;
  int64_t int_sum_ = 0;
  bool int_overflow_ = false;
  double double_sum_ = 0;
  bson::Decimal128 decimal_ = bson::Decimal128::from_string("0");
  int64_t count_ = 0;
};

class SumAcc : public Accumulator {
 public:
  void add(const Value& v) override { sum_.add(v); }
  OwnedValue result() const override { return sum_.result(); }
  bool can_spill() const override { return true; }
  OwnedValue partial() const override { return sum_.partial(); }
  void merge(const Value& p) override { sum_.merge(p); }

 private:
  NumericSum sum_;
};

class AvgAcc : public Accumulator {
 public:
  void add(const Value& v) override { sum_.add(v); }
  OwnedValue result() const override {
    if (sum_.count() == 0) return null_value();
    if (sum_.is_decimal()) {
      double avg = sum_.as_double() / static_cast<double>(sum_.count());
      return make_value(decimal_from_double(avg));
    }
    return make_value(sum_.as_double() / static_cast<double>(sum_.count()));
  }
  bool can_spill() const override { return true; }
  OwnedValue partial() const override { return sum_.partial(); }
  void merge(const Value& p) override { sum_.merge(p); }

 private:
  NumericSum sum_;
};

class MinMaxAcc : public Accumulator {
 public:
  explicit MinMaxAcc(bool is_max) : is_max_(is_max) {}
  void add(const Value& v) override {
    if (nullish(v)) return;
    if (!seen_) {
      best_ = OwnedValue(v);
      seen_ = true;
      return;
    }
    int c = bson::compare_values(v, best_.view());
    if (is_max_ ? c > 0 : c < 0) best_ = OwnedValue(v);
  }
  OwnedValue result() const override { return seen_ ? best_ : null_value(); }
  size_t memory() const override { return best_.view().size(); }
  bool can_spill() const override { return true; }
  // [] when nothing was seen, else [best].
  OwnedValue partial() const override {
    return seen_ ? make_array_value(std::vector<Value>{best_.view()})
                 : make_array_value(std::vector<Value>{});
  }
  void merge(const Value& p) override {
    for (const Value& v : array_elements(p)) add(v);
  }

 private:
  bool is_max_;
  bool seen_ = false;
  OwnedValue best_;
};

class FirstLastAcc : public Accumulator {
 public:
  explicit FirstLastAcc(bool first) : first_(first) {}
  void add(const Value& v) override {
    if (first_ && seen_) return;
    value_ = v.is_missing() ? null_value() : OwnedValue(v);
    seen_ = true;
  }
  OwnedValue result() const override { return seen_ ? value_ : null_value(); }
  size_t memory() const override { return value_.view().size(); }
  bool can_spill() const override { return true; }
  // [] when nothing was seen, else [value] (never missing: add() stores null for it).
  OwnedValue partial() const override {
    return seen_ ? make_array_value(std::vector<Value>{value_.view()})
                 : make_array_value(std::vector<Value>{});
  }
  void merge(const Value& p) override {
    // The partial's input came later: $first keeps ours when we have one, $last takes it.
    for (const Value& v : array_elements(p)) add(v);
  }

 private:
  bool first_;
  bool seen_ = false;
  OwnedValue value_;
};

class PushAcc : public Accumulator {
 public:
  void add(const Value& v) override {
    if (v.is_missing()) return;
    bytes_ += v.size() + 16;
    values_.emplace_back(v);
  }
  OwnedValue result() const override { return make_array_value(values_); }
  size_t memory() const override { return bytes_; }
  bool can_spill() const override { return true; }
  OwnedValue partial() const override { return result(); }
  void merge(const Value& p) override {
    for (const Value& v : array_elements(p)) add(v);  // later input: appended in order
  }

 private:
  std::vector<OwnedValue> values_;
  size_t bytes_ = 0;
};

class AddToSetAcc : public Accumulator {
 public:
  void add(const Value& v) override {
    if (v.is_missing()) return;
    std::string key = bson::encode_index_key(v);
    if (!seen_.insert(key).second) return;
    bytes_ += v.size() + key.size() + 32;
    values_.emplace_back(v);
  }
  OwnedValue result() const override { return make_array_value(values_); }
  size_t memory() const override { return bytes_; }
  bool can_spill() const override { return true; }
  OwnedValue partial() const override { return result(); }
  void merge(const Value& p) override {
    for (const Value& v : array_elements(p)) add(v);  // union, first occurrences kept
  }

 private:
  std::set<std::string> seen_;
  std::vector<OwnedValue> values_;
  size_t bytes_ = 0;
};

class MergeObjectsAcc : public Accumulator {
 public:
  void add(const Value& v) override {
    if (nullish(v)) return;
    if (!v.is_document()) {
      fail(40400, "$mergeObjects requires object inputs, but input " + render(v) + " is of type " +
                      type_name(v));
    }
    for (const bson::Element& e : v.as_document()) {
      bool found = false;
      for (auto& f : fields_) {
        if (f.first == e.key) {
          f.second = OwnedValue(e.value);
          found = true;
        }
      }
      if (!found) fields_.emplace_back(std::string(e.key), OwnedValue(e.value));
    }
  }
  OwnedValue result() const override {
    bson::DocumentBuilder b;
    for (const auto& [k, v] : fields_) append_value(b, k, v.view());
    return make_value(b.finish());
  }
  bool can_spill() const override { return true; }
  OwnedValue partial() const override { return result(); }
  // Merging the later partial document is what adding it would do.
  void merge(const Value& p) override { add(p); }

 private:
  std::vector<std::pair<std::string, OwnedValue>> fields_;
};

const char* kAccumulators[] = {"$sum",  "$avg",  "$min",      "$max",   "$first",
                               "$last", "$push", "$addToSet", "$count", "$mergeObjects"};

}  // namespace

OwnedValue Accumulator::partial() const {
  fail(ErrorCode::kNotImplemented, "this $group accumulator cannot spill to disk");
}

void Accumulator::merge(const Value&) {
  fail(ErrorCode::kNotImplemented, "this $group accumulator cannot merge spilled state");
}

AccumulatorSpec parse_accumulator(std::string_view field, const Value& spec) {
  if (field.find('.') != std::string_view::npos) {
    fail(40235, "The field name '" + std::string(field) + "' cannot contain '.'");
  }
  if (!field.empty() && field[0] == '$') {
    fail(40236, "The field name '" + std::string(field) + "' cannot be an operator name");
  }
  if (!spec.is_document()) {
    fail(40234, "The field '" + std::string(field) + "' must be an accumulator object");
  }
  DocumentView d = spec.as_document();
  if (d.count() != 1) {
    fail(40238, "The field '" + std::string(field) + "' must specify one accumulator");
  }
  bson::Element e = *d.begin();
  bool known = false;
  for (const char* a : kAccumulators) known = known || e.key == a;
  if (!known) fail(15952, "unknown group operator '" + std::string(e.key) + "'");
  AccumulatorSpec out;
  out.field = std::string(field);
  out.op = std::string(e.key);
  if (out.op == "$count") {
    if (!e.value.is_document() || !e.value.as_document().empty()) {
      fail(40237, "$count takes no arguments, i.e. $count:{}");
    }
    bson::Document one = bson::make_document("", int32_t{1});
    out.op = "$sum";
    out.arg = parse_expression(one.get(""));
    return out;
  }
  if (e.value.is_array() && out.op != "$push" && out.op != "$addToSet") {
    // Accumulators are unary: [x] is x; [] or [x, y] is an error.
    size_t n = e.value.as_array().count();
    if (n != 1) {
      fail(40237, "The " + out.op + " accumulator is a unary operator");
    }
    out.arg = parse_expression(e.value.as_array().begin()->value);
    return out;
  }
  out.arg = parse_expression(e.value);
  return out;
}

std::unique_ptr<Accumulator> make_accumulator(const std::string& op) {
  if (op == "$sum") return std::make_unique<SumAcc>();
  if (op == "$avg") return std::make_unique<AvgAcc>();
  if (op == "$min") return std::make_unique<MinMaxAcc>(false);
  if (op == "$max") return std::make_unique<MinMaxAcc>(true);
  if (op == "$first") return std::make_unique<FirstLastAcc>(true);
  if (op == "$last") return std::make_unique<FirstLastAcc>(false);
  if (op == "$push") return std::make_unique<PushAcc>();
  if (op == "$addToSet") return std::make_unique<AddToSetAcc>();
  if (op == "$mergeObjects") return std::make_unique<MergeObjectsAcc>();
  fail(15952, "unknown group operator '" + op + "'");
}

}  // namespace mongostore::engine::aggregation_detail
