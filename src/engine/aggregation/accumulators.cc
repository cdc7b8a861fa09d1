// $group accumulators: $sum $avg $min $max $first $last $push $addToSet $count
// $mergeObjects $stdDevPop $stdDevSamp (the n-accumulators are in accumulators_n.cc).
#include <cmath>
#include <set>

#include "mongostore/bson/index_key.h"

#include "engine/aggregation/collation_scope.h"
#include "engine/aggregation/internal.h"
#include "engine/update/decimal_math.h"

namespace mongostore::engine::aggregation_detail {

namespace {

// A compensated double sum (Neumaier's variant of Kahan summation): `hi` is the running sum
// and `lo` the rounding error it lost, so hi + lo carries about twice a double's precision.
// MongoDB sums doubles the same way (its DoubleDoubleSummation), and it is what makes a spilled
// $sum, which adds partial sums, come out as the in-memory one.
class CompensatedSum {
 public:
  void add(double x) {
    plain_ += x;
    double s = hi_ + x;
    lo_ += std::fabs(hi_) >= std::fabs(x) ? (hi_ - s) + x : (x - s) + hi_;
    hi_ = s;
  }
  void add(const CompensatedSum& o) {
    double plain = plain_ + o.plain_;
    add(o.hi_);
    add(o.lo_);
    plain_ = plain;
  }
  double value() const {
    // Infinities and NaN make the error term meaningless: the plain sum has the answer.
    return std::isfinite(plain_) ? hi_ + lo_ : plain_;
  }
  double hi() const { return hi_; }
  double lo() const { return lo_; }
  double plain() const { return plain_; }
  static CompensatedSum from(double hi, double lo, double plain) {
    CompensatedSum c;
    c.hi_ = hi;
    c.lo_ = lo;
    c.plain_ = plain;
    return c;
  }

 private:
  double hi_ = 0, lo_ = 0, plain_ = 0;
};

// Sums numbers with MongoDB's widening: int32 -> int64 -> double -> decimal. The integers
// are summed exactly in 128 bits (so only the final total decides whether a long overflowed
// into a double, as MongoDB's), the doubles in a compensated sum, and the decimals on their
// own; a decimal result adds the other two in at the end.
class NumericSum {
 public:
  void add(const Value& v) {
    switch (v.type()) {
      case BsonType::kInt32:
        int_sum_ += v.as_int32();
        break;
      case BsonType::kInt64:
        kind_ = std::max(kind_, 1);
        int_sum_ += v.as_int64();
        break;
      case BsonType::kDouble:
        kind_ = std::max(kind_, 2);
        saw_double_ = true;
        doubles_.add(v.as_double());
        break;
      case BsonType::kDecimal128:
        kind_ = 3;
        decimal_ = update_detail::decimal_add(decimal_, v.as_decimal128());
        break;
      default:
        return;  // not a number
    }
    ++count_;
  }
  OwnedValue result() const {
    if (kind_ == 3) return make_value(decimal());
    if (kind_ < 2 && int_sum_ >= INT64_MIN && int_sum_ <= INT64_MAX) {
      return integral_result(static_cast<int64_t>(int_sum_), kind_ == 0);
    }
    return make_value(as_double());
  }
  double as_double() const {
    if (kind_ == 3) return decimal_to_double(decimal());
    CompensatedSum total = doubles_;
    add_ints(total);
    return total.value();
  }
  int64_t count() const { return count_; }
  bool is_decimal() const { return kind_ == 3; }
  bson::Decimal128 decimal() const {
    bson::Decimal128 total = update_detail::decimal_add(decimal_, int_as_decimal());
    if (saw_double_) {
      // With MongoDB's 15 significant digits for a double made decimal.
      total = update_detail::decimal_add(total, to_decimal(make_value(doubles_.value()).view()));
    }
    return total;
  }
  // Spilling: the whole state, and the sum of two states (this one's input came first).
  OwnedValue partial() const {
    bson::DocumentBuilder b;
    b.append("k", static_cast<int32_t>(kind_))
        .append("ih", static_cast<int64_t>(int_sum_ >> 64))
        .append("il", static_cast<int64_t>(static_cast<uint64_t>(int_sum_)))
        .append("dh", doubles_.hi())
        .append("dl", doubles_.lo())
        .append("dp", doubles_.plain())
        .append("sd", saw_double_)
        .append("m", decimal_)
        .append("c", count_);
    return make_value(b.finish());
  }
  void merge(const Value& partial) {
    DocumentView p = partial.as_document();
    kind_ = std::max(kind_, static_cast<int>(p.get("k").as_int32()));
    __int128 ints = static_cast<__int128>(
        (static_cast<unsigned __int128>(static_cast<uint64_t>(p.get("ih").as_int64())) << 64) |
        static_cast<uint64_t>(p.get("il").as_int64()));
    int_sum_ += ints;
    doubles_.add(CompensatedSum::from(p.get("dh").as_double(), p.get("dl").as_double(),
                                      p.get("dp").as_double()));
    if (p.get("sd").as_bool()) saw_double_ = true;
    decimal_ = update_detail::decimal_add(decimal_, p.get("m").as_decimal128());
    count_ += p.get("c").as_int64();
  }

 private:
  // The integer total as doubles: the nearest double, then what it missed (exact for any
  // total below 2^106, far beyond what int64 inputs can reach).
  void add_ints(CompensatedSum& total) const {
    if (int_sum_ == 0) return;
    double high = static_cast<double>(int_sum_);
    total.add(high);
    total.add(static_cast<double>(int_sum_ - static_cast<__int128>(high)));
  }
  bson::Decimal128 int_as_decimal() const {
    unsigned __int128 magnitude = int_sum_ < 0 ? -static_cast<unsigned __int128>(int_sum_)
                                               : static_cast<unsigned __int128>(int_sum_);
    std::string digits;
    do {
      digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
      magnitude /= 10;
    } while (magnitude != 0);
    if (int_sum_ < 0) digits.insert(digits.begin(), '-');
    return bson::Decimal128::from_string(digits);
  }

  int kind_ = 0;  // 0 int32, 1 int64, 2 double, 3 decimal: the widest input seen
  __int128 int_sum_ = 0;
  CompensatedSum doubles_;
  bool saw_double_ = false;
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
    int c = compare_in_scope(v, best_.view());
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
    // Values equal under the run's collation are one element, as in MongoDB.
    const Collation* collation = CollationScope::current();
    std::string key =
        bson::encode_index_key(collation != nullptr && Collation::collation_sensitive(v)
                                   ? collation->comparison_key(v).view()
                                   : v);
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

// $stdDevPop / $stdDevSamp over the numbers seen (anything else is ignored), by Welford's
// running mean and sum of squared deviations; spilled partials combine by Chan's formula.
class StdDevAcc : public Accumulator {
 public:
  explicit StdDevAcc(bool sample) : sample_(sample) {}
  void add(const Value& v) override {
    if (!v.is_number()) return;
    combine(1, v.number_as_double(), 0);
  }
  OwnedValue result() const override {
    int64_t needed = sample_ ? 2 : 1;
    if (count_ < needed) return null_value();
    return make_value(std::sqrt(m2_ / static_cast<double>(sample_ ? count_ - 1 : count_)));
  }
  bool can_spill() const override { return true; }
  OwnedValue partial() const override {
    bson::DocumentBuilder b;
    b.open_array("").push(count_).push(mean_).push(m2_).close();
    Document d = b.finish();
    return OwnedValue(d.get(""));
  }
  void merge(const Value& p) override {
    std::vector<Value> parts = array_elements(p);
    combine(parts[0].as_int64(), parts[1].as_double(), parts[2].as_double());
  }

 private:
  void combine(int64_t count, double mean, double m2) {
    int64_t total = count_ + count;
    double delta = mean - mean_;
    mean_ += delta * static_cast<double>(count) / static_cast<double>(total);
    m2_ += m2 + delta * delta * static_cast<double>(count_) * static_cast<double>(count) /
                    static_cast<double>(total);
    count_ = total;
  }
  bool sample_;
  int64_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

const char* kAccumulators[] = {"$sum",   "$avg",          "$min",       "$max",
                               "$first", "$last",         "$push",      "$addToSet",
                               "$count", "$mergeObjects", "$stdDevPop", "$stdDevSamp"};

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
  bool known = is_n_accumulator(e.key);
  for (const char* a : kAccumulators) known = known || e.key == a;
  if (!known) fail(15952, "unknown group operator '" + std::string(e.key) + "'");
  AccumulatorSpec out;
  out.field = std::string(field);
  out.op = std::string(e.key);
  if (is_n_accumulator(out.op)) {
    parse_n_accumulator(&out, e.value);
    return out;
  }
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

std::unique_ptr<Accumulator> make_accumulator(const AccumulatorSpec& spec) {
  if (is_n_accumulator(spec.op)) return make_n_accumulator(spec);
  return make_accumulator(spec.op);
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
  if (op == "$stdDevPop") return std::make_unique<StdDevAcc>(false);
  if (op == "$stdDevSamp") return std::make_unique<StdDevAcc>(true);
  fail(15952, "unknown group operator '" + op + "'");
}

}  // namespace mongostore::engine::aggregation_detail
