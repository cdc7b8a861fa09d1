// Array expressions: $in $size $arrayElemAt $filter $map $reduce $concatArrays $slice $first
// $last $indexOfArray $isArray $range $reverseArray $sortArray $zip, and the accumulator
// expressions $sum $avg $min $max (over an array argument or over several arguments).
#include <limits>

#include "engine/aggregation/collation_scope.h"
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

int64_t to_index(const Value& v, int code, const std::string& what) {
  int32_t i = 0;
  if (!to_int32_exact(v, &i)) fail(code, what);
  return i;
}

// $in reads its array in place when it can (ExprNode::view): the ExecutionStore's dedupe
// check runs it over an ever-growing `processed` array on every event.
class InNode : public ExprNode {
 public:
  explicit InNode(std::vector<ExprPtr> args) : args_(std::move(args)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue needle = args_[0]->eval(ctx);
    OwnedValue owned;
    std::optional<Value> array = args_[1]->view(ctx);
    if (!array) {
      owned = args_[1]->eval(ctx);
      array = owned.view();
    }
    if (!array->is_array()) {
      fail(40081, "$in requires an array as a second argument, found: " + type_name(*array));
    }
    Value n = needle.view();
    if (n.type() == BsonType::kString && CollationScope::current() == nullptr) {
      // The common case (ids), without a collation: a string equals only a string (or a symbol)
      // with those bytes.
      std::string_view wanted = n.as_string();
      for (const bson::Element& e : array->as_array()) {
        BsonType t = e.value.type();
        if ((t == BsonType::kString || t == BsonType::kSymbol) && e.value.as_string() == wanted) {
          return make_value(true);
        }
      }
      return make_value(false);
    }
    for (const bson::Element& e : array->as_array()) {
      if (equal_in_scope(e.value, n)) return make_value(true);
    }
    return make_value(false);
  }

 private:
  std::vector<ExprPtr> args_;
};

OwnedValue op_size(std::string_view, std::vector<OwnedValue>& a) {
  Value v = a[0].view();
  if (!v.is_array()) {
    fail(17124, "The argument to $size must be an array, but was of type: " + type_name(v));
  }
  return make_value(static_cast<int32_t>(v.as_array().count()));
}

OwnedValue op_elem_at(std::string_view, std::vector<OwnedValue>& a) {
  Value arr = a[0].view();
  Value idx = a[1].view();
  if (nullish(arr) || nullish(idx)) return null_value();
  if (!arr.is_array()) {
    fail(28689, "$arrayElemAt's first argument must be an array, but is " + type_name(arr));
  }
  if (!idx.is_number()) {
    fail(28690, "$arrayElemAt's second argument must be a numeric value, but is " + type_name(idx));
  }
  int64_t i = to_index(idx, 28691,
                       "$arrayElemAt's second argument must be representable as a 32-bit "
                       "integer: " +
                           render(idx));
  std::vector<Value> el = array_elements(arr);
  int64_t n = static_cast<int64_t>(el.size());
  if (i < 0) i += n;
  if (i < 0 || i >= n) return OwnedValue();
  return OwnedValue(el[static_cast<size_t>(i)]);
}

EagerFn first_last(bool first) {
  return [first](std::string_view name, std::vector<OwnedValue>& a) -> OwnedValue {
    Value arr = a[0].view();
    if (nullish(arr)) return null_value();
    if (!arr.is_array()) {
      fail(28689, std::string(name) + "'s argument must be an array, but is " + type_name(arr));
    }
    std::vector<Value> el = array_elements(arr);
    if (el.empty()) return OwnedValue();
    return OwnedValue(first ? el.front() : el.back());
  };
}

OwnedValue op_concat_arrays(std::string_view, std::vector<OwnedValue>& a) {
  std::vector<Value> out;
  uint64_t bytes = 0;
  for (const OwnedValue& o : a) {
    Value v = o.view();
    if (nullish(v)) return null_value();
    if (!v.is_array()) fail(28664, "$concatArrays only supports arrays, not " + type_name(v));
    check_expression_bytes("$concatArrays", bytes += v.size());
    for (const bson::Element& e : v.as_array()) out.push_back(e.value);
  }
  return make_array_value(out);
}

OwnedValue op_slice(std::string_view, std::vector<OwnedValue>& a) {
  Value arr = a[0].view();
  for (const OwnedValue& o : a) {
    if (nullish(o.view())) return null_value();
  }
  if (!arr.is_array()) {
    fail(28724, "First argument to $slice must be an array, but is of type: " + type_name(arr));
  }
  std::vector<Value> el = array_elements(arr);
  int64_t n = static_cast<int64_t>(el.size());
  int64_t start = 0;
  int64_t count = 0;
  if (a.size() == 2) {
    Value c = a[1].view();
    if (!c.is_number()) {
      fail(28725,
           "Second argument to $slice must be a numeric value, but is of type: " + type_name(c));
    }
    count = to_index(
        c, 28726,
        "Second argument to $slice can't be represented as a 32-bit integer: " + render(c));
    if (count >= 0) {
      start = 0;
    } else {
      start = std::max<int64_t>(0, n + count);
      count = n - start;
    }
  } else {
    Value p = a[1].view();
    Value c = a[2].view();
    if (!p.is_number()) {
      fail(28725,
           "Second argument to $slice must be a numeric value, but is of type: " + type_name(p));
    }
    if (!c.is_number()) {
      fail(28727, "Third argument to $slice must be numeric, but is of type: " + type_name(c));
    }
    start = to_index(
        p, 28726,
        "Second argument to $slice can't be represented as a 32-bit integer: " + render(p));
    count =
        to_index(c, 28728,
                 "Third argument to $slice can't be represented as a 32-bit integer: " + render(c));
    if (count <= 0) {
      fail(28729, "Third argument to $slice must be positive: " + render(c));
    }
    if (start < 0) start = std::max<int64_t>(0, n + start);
  }
  std::vector<Value> out;
  for (int64_t i = start; i < n && i < start + count; ++i)
    out.push_back(el[static_cast<size_t>(i)]);
  return make_array_value(out);
}

OwnedValue op_index_of_array(std::string_view, std::vector<OwnedValue>& a) {
  Value arr = a[0].view();
  if (nullish(arr)) return null_value();
  if (!arr.is_array()) {
    fail(40090, "$indexOfArray requires an array as a first argument, found: " + type_name(arr));
  }
  std::vector<Value> el = array_elements(arr);
  int64_t start = 0;
  int64_t end = static_cast<int64_t>(el.size());
  if (a.size() > 2) {
    Value s = a[2].view();
    int32_t i = 0;
    if (!to_int32_exact(s, &i)) {
      fail(40096, "$indexOfArray requires an integral starting index, found a value of type: " +
                      type_name(s));
    }
    if (i < 0)
      fail(40097, "$indexOfArray requires a nonnegative starting index, found: " + render(s));
    start = i;
  }
  if (a.size() > 3) {
    Value s = a[3].view();
    int32_t i = 0;
    if (!to_int32_exact(s, &i)) {
      fail(40096, "$indexOfArray requires an integral ending index, found a value of type: " +
                      type_name(s));
    }
    if (i < 0)
      fail(40097, "$indexOfArray requires a nonnegative ending index, found: " + render(s));
    end = std::min<int64_t>(end, i);
  }
  for (int64_t i = start; i < end; ++i) {
    if (equal_in_scope(el[static_cast<size_t>(i)], a[1].view())) {
      return make_value(static_cast<int32_t>(i));
    }
  }
  return make_value(int32_t{-1});
}

OwnedValue op_range(std::string_view, std::vector<OwnedValue>& a) {
  Value s = a[0].view();
  Value e = a[1].view();
  if (!s.is_number()) {
    fail(34443, "$range requires a numeric starting value, found value of type: " + type_name(s));
  }
  int32_t start = 0, end = 0, step = 1;
  if (!to_int32_exact(s, &start)) {
    fail(34444,
         "$range requires a starting value that can be represented as a 32-bit integer, "
         "found value: " +
             render(s));
  }
  if (!e.is_number()) {
    fail(34445, "$range requires a numeric ending value, found value of type: " + type_name(e));
  }
  if (!to_int32_exact(e, &end)) {
    fail(34446,
         "$range requires an ending value that can be represented as a 32-bit integer, "
         "found value: " +
             render(e));
  }
  if (a.size() > 2) {
    Value st = a[2].view();
    if (!st.is_number()) {
      fail(34447, "$range requires a numeric step value, found value of type: " + type_name(st));
    }
    if (!to_int32_exact(st, &step)) {
      fail(34448,
           "$range requires a step value that can be represented as a 32-bit integer, "
           "found value: " +
               render(st));
    }
    if (step == 0) fail(34449, "$range requires a non-zero step value");
  }
  // Sized before it is built, as mongod does (16 bytes per element, its estimate of a value).
  int64_t steps = (int64_t{end} - start) / step;
  uint64_t length = steps >= 0 ? uint64_t(steps) + 1 : 0;
  check_expression_bytes("$range", 24 + length * 16);
  bson::DocumentBuilder b;
  b.open_array("");
  for (int64_t i = start; step > 0 ? i < end : i > end; i += step) {
    b.push(static_cast<int32_t>(i));
  }
  b.close();
  Document d = b.finish();
  return OwnedValue(d.get(""));
}

OwnedValue op_reverse(std::string_view, std::vector<OwnedValue>& a) {
  Value arr = a[0].view();
  if (nullish(arr)) return null_value();
  if (!arr.is_array()) {
    fail(34435,
         "The argument to $reverseArray must be an array, but was of type: " + type_name(arr));
  }
  std::vector<Value> el = array_elements(arr);
  std::reverse(el.begin(), el.end());
  return make_array_value(el);
}

// $filter / $map / $reduce: variables bound per element.
struct IterArgs {
  ExprPtr input;
  std::string as = "this";
  ExprPtr body;   // cond or in
  ExprPtr extra;  // limit (filter) or initialValue (reduce)
};

IterArgs parse_iter(std::string_view name, const Value& args, const char* body_key,
                    const char* extra_key, bool has_as) {
  std::string op(name);
  if (!args.is_document()) {
    fail(name == "$filter" ? 28646 : (name == "$map" ? 16878 : 40075),
         op + " only supports an object as its argument");
  }
  IterArgs out;
  Value body;
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "input") {
      out.input = parse_expression(e.value);
    } else if (has_as && e.key == "as") {
      if (!e.value.is_string()) fail(28649, op + " 'as' must be a string");
      out.as = std::string(e.value.as_string());
    } else if (e.key == body_key) {
      body = e.value;
    } else if (extra_key && e.key == extra_key) {
      out.extra = parse_expression(e.value);
    } else {
      fail(name == "$filter" ? 28647 : (name == "$map" ? 16879 : 40076),
           "Unrecognized parameter to " + op + ": " + std::string(e.key));
    }
  }
  if (!out.input)
    fail(name == "$filter" ? 28648 : (name == "$map" ? 16880 : 40077),
         "Missing 'input' parameter to " + op);
  if (body.is_missing()) {
    fail(name == "$filter" ? 28650 : (name == "$map" ? 16882 : 40079),
         "Missing '" + std::string(body_key) + "' parameter to " + op);
  }
  if (name == "$reduce" && !out.extra) fail(40078, "Missing 'initialValue' parameter to $reduce");
  out.body = parse_expression(body);
  return out;
}

class FilterNode : public ExprNode {
 public:
  explicit FilterNode(IterArgs a) : a_(std::move(a)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue in = a_.input->eval(ctx);
    if (nullish(in.view())) return null_value();
    if (!in.view().is_array()) {
      fail(28651, "input to $filter must be an array not " + type_name(in.view()));
    }
    int64_t limit = std::numeric_limits<int64_t>::max();
    if (a_.extra) {
      OwnedValue l = a_.extra->eval(ctx);
      if (!nullish(l.view())) {
        int32_t i = 0;
        if (!to_int32_exact(l.view(), &i)) {
          fail(327391, "$filter: limit must be represented as a 32-bit integral value: " +
                           render(l.view()));
        }
        if (i < 1) fail(327392, "$filter: limit must be greater than 0: " + render(l.view()));
        limit = i;
      }
    }
    std::vector<Value> out;
    ScopedVariable var(ctx, a_.as, OwnedValue());
    for (const bson::Element& e : in.view().as_array()) {
      if (static_cast<int64_t>(out.size()) >= limit) break;
      var.set(OwnedValue(e.value));
      if (a_.body->eval(ctx).view().truthy()) out.push_back(e.value);
    }
    return make_array_value(out);
  }

 private:
  IterArgs a_;
};

class MapNode : public ExprNode {
 public:
  explicit MapNode(IterArgs a) : a_(std::move(a)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue in = a_.input->eval(ctx);
    if (nullish(in.view())) return null_value();
    if (!in.view().is_array()) {
      fail(16883, "input to $map must be an array not " + type_name(in.view()));
    }
    std::vector<OwnedValue> out;
    ScopedVariable var(ctx, a_.as, OwnedValue());
    uint64_t bytes = 0;
    for (const bson::Element& e : in.view().as_array()) {
      var.set(OwnedValue(e.value));
      out.push_back(a_.body->eval(ctx));
      check_expression_bytes("$map", bytes += out.back().view().size());
    }
    return make_array_value(out);
  }

 private:
  IterArgs a_;
};

class ReduceNode : public ExprNode {
 public:
  explicit ReduceNode(IterArgs a) : a_(std::move(a)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue in = a_.input->eval(ctx);
    if (nullish(in.view())) return null_value();
    if (!in.view().is_array()) {
      fail(40080, "$reduce requires that 'input' be an array, found: " + render(in.view()));
    }
    OwnedValue acc = a_.extra->eval(ctx);
    for (const bson::Element& e : in.view().as_array()) {
      ScopedVariable value(ctx, "value", acc);
      ScopedVariable self(ctx, "this", OwnedValue(e.value));
      acc = a_.body->eval(ctx);
      // A value that grows each step (a string doubled, an array appended to) is bounded.
      check_expression_bytes("$reduce", acc.view().size());
      // It is also the one expression that can nest a value one level deeper per step
      // ({in: ["$$value"]}); what compares or copies values recursively must not see that.
      Value v = acc.view();
      if ((v.is_document() || v.is_array()) &&
          bson::nesting_exceeds(DocumentView(v.data(), v.size()), kMaxInputDepth)) {
        fail(ErrorCode::kOverflow, "$reduce would nest its value more than " +
                                       std::to_string(kMaxInputDepth) + " levels deep");
      }
    }
    return acc;
  }

 private:
  IterArgs a_;
};

EagerFn accumulate(std::string op) {
  return [op](std::string_view, std::vector<OwnedValue>& a) -> OwnedValue {
    std::unique_ptr<Accumulator> acc = make_accumulator(op);
    if (a.size() == 1 && a[0].view().is_array()) {
      for (const bson::Element& e : a[0].view().as_array()) acc->add(e.value);
    } else {
      for (const OwnedValue& v : a) acc->add(v.view());
    }
    return acc->result();
  };
}

// $sortArray {input, sortBy}: sortBy 1/-1 orders whole values, a document orders documents
// by its fields as $sort does (stably; equal elements keep their order).
class SortArrayNode : public ExprNode {
 public:
  SortArrayNode(ExprPtr input, std::optional<DocumentSorter> by_fields, bool descending)
      : input_(std::move(input)), by_fields_(std::move(by_fields)), descending_(descending) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue in = input_->eval(ctx);
    if (nullish(in.view())) return null_value();
    if (!in.view().is_array()) {
      fail(2942504, "The input argument to $sortArray must be an array, but was of type: " +
                        type_name(in.view()));
    }
    std::vector<Value> elements = array_elements(in.view());
    if (by_fields_) {
      static const Document kEmpty;
      std::vector<std::pair<std::string, size_t>> keyed;
      for (size_t i = 0; i < elements.size(); ++i) {
        DocumentView d = elements[i].is_document() ? elements[i].as_document() : kEmpty.view();
        keyed.emplace_back(by_fields_->key_for(d, CollationScope::current()), i);
      }
      std::stable_sort(keyed.begin(), keyed.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<Value> sorted;
      for (const auto& k : keyed) sorted.push_back(elements[k.second]);
      return make_array_value(sorted);
    }
    std::stable_sort(elements.begin(), elements.end(), [this](const Value& a, const Value& b) {
      int c = compare_in_scope(a, b);
      return descending_ ? c > 0 : c < 0;
    });
    return make_array_value(elements);
  }

 private:
  ExprPtr input_;
  std::optional<DocumentSorter> by_fields_;
  bool descending_;
};

ExprPtr parse_sort_array(std::string_view, const Value& args) {
  if (!args.is_document()) {
    fail(2942500, "$sortArray requires an object as an argument, found: " + type_name(args));
  }
  ExprPtr input;
  std::optional<Value> sort_by;
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "input") {
      input = parse_expression(e.value);
    } else if (e.key == "sortBy") {
      sort_by = e.value;
    } else {
      fail(2942501, "$sortArray found an unknown argument: " + std::string(e.key));
    }
  }
  if (!input) fail(2942502, "$sortArray requires 'input' to be specified");
  if (!sort_by) fail(2942503, "$sortArray requires 'sortBy' to be specified");
  if (sort_by->is_document()) {
    return std::make_shared<SortArrayNode>(input, DocumentSorter::compile(sort_by->as_document()),
                                           false);
  }
  int64_t direction = 0;
  if (sort_by->type() == BsonType::kBool || !sort_by->is_number()) {
    fail(2942507,
         "The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort "
         "embedded fields");
  }
  if (!sort_by->number_as_exact_int64(&direction) || (direction != 1 && direction != -1)) {
    fail(2942506, "The $sort element value must be either 1 or -1");
  }
  return std::make_shared<SortArrayNode>(input, std::nullopt, direction == -1);
}

// $zip {inputs, useLongestLength, defaults}: the n-th elements of each input array together.
class ZipNode : public ExprNode {
 public:
  std::vector<ExprPtr> inputs, defaults;
  bool longest = false;
  OwnedValue eval(EvalContext& ctx) const override {
    std::vector<std::vector<Value>> arrays;
    std::vector<OwnedValue> held;
    for (const ExprPtr& e : inputs) {
      held.push_back(e->eval(ctx));
      Value v = held.back().view();
      if (nullish(v)) return null_value();
      if (!v.is_array()) {
        fail(34468, "$zip found a non-array expression in input: " + render(v));
      }
      arrays.push_back(array_elements(v));
    }
    std::vector<OwnedValue> fill;
    for (const ExprPtr& e : defaults) fill.push_back(e->eval(ctx));
    size_t n = arrays.empty() ? 0 : arrays[0].size();
    for (const auto& a : arrays) n = longest ? std::max(n, a.size()) : std::min(n, a.size());
    std::vector<OwnedValue> rows;
    for (size_t i = 0; i < n; ++i) {
      std::vector<Value> row;
      for (size_t k = 0; k < arrays.size(); ++k) {
        if (i < arrays[k].size()) {
          row.push_back(arrays[k][i]);
        } else {
          row.push_back(k < fill.size() ? fill[k].view() : Value());  // missing: null
        }
      }
      rows.push_back(make_array_value(row));
    }
    return make_array_value(rows);
  }
};

ExprPtr parse_zip(std::string_view, const Value& args) {
  if (!args.is_document()) {
    fail(34460, "$zip only supports an object as an argument, found " + type_name(args));
  }
  auto node = std::make_shared<ZipNode>();
  bool has_inputs = false, has_defaults = false;
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "inputs") {
      if (!e.value.is_array()) {
        fail(34461, "inputs must be an array of expressions, found " + type_name(e.value));
      }
      for (const bson::Element& i : e.value.as_array()) {
        node->inputs.push_back(parse_expression(i.value));
      }
      has_inputs = true;
    } else if (e.key == "defaults") {
      if (!e.value.is_array()) {
        fail(34462, "defaults must be an array of expressions, found " + type_name(e.value));
      }
      for (const bson::Element& d : e.value.as_array()) {
        node->defaults.push_back(parse_expression(d.value));
      }
      has_defaults = true;
    } else if (e.key == "useLongestLength") {
      if (e.value.type() != BsonType::kBool) {
        fail(34463, "useLongestLength must be a bool, found " + type_name(e.value));
      }
      node->longest = e.value.as_bool();
    } else {
      fail(34464, "$zip found an unknown argument: " + std::string(e.key));
    }
  }
  if (!has_inputs || node->inputs.empty()) fail(34465, "$zip requires at least one input array");
  if (has_defaults && !node->longest) {
    fail(34466, "cannot specify defaults unless useLongestLength is true");
  }
  if (has_defaults && node->defaults.size() != node->inputs.size()) {
    fail(34467, "defaults and inputs must have the same length");
  }
  return node;
}

}  // namespace

void register_array(OperatorTable& t) {
  t["$sortArray"] = parse_sort_array;
  t["$zip"] = parse_zip;
  for (const char* op : {"$sum", "$avg", "$min", "$max", "$stdDevPop", "$stdDevSamp"}) {
    add_eager(t, op, 0, -1, accumulate(op));  // {$avg: []} is null, as mongod's
  }
  t["$in"] = [](std::string_view op, const Value& args) -> ExprPtr {
    std::vector<ExprPtr> parsed = parse_args(args);
    check_arity(op, parsed.size(), 2, 2);
    return std::make_shared<InNode>(std::move(parsed));
  };
  add_eager(t, "$size", 1, 1, op_size);
  add_eager(t, "$arrayElemAt", 2, 2, op_elem_at);
  add_eager(t, "$first", 1, 1, first_last(true));
  add_eager(t, "$last", 1, 1, first_last(false));
  add_eager(t, "$concatArrays", 0, -1, op_concat_arrays);
  add_eager(t, "$slice", 2, 3, op_slice);
  add_eager(t, "$indexOfArray", 2, 4, op_index_of_array);
  add_eager(t, "$isArray", 1, 1, [](std::string_view, std::vector<OwnedValue>& a) {
    return make_value(a[0].view().is_array());
  });
  add_eager(t, "$range", 2, 3, op_range);
  add_eager(t, "$reverseArray", 1, 1, op_reverse);
  t["$filter"] = [](std::string_view name, const Value& args) -> ExprPtr {
    return std::make_shared<FilterNode>(parse_iter(name, args, "cond", "limit", true));
  };
  t["$map"] = [](std::string_view name, const Value& args) -> ExprPtr {
    return std::make_shared<MapNode>(parse_iter(name, args, "in", nullptr, true));
  };
  t["$reduce"] = [](std::string_view name, const Value& args) -> ExprPtr {
    return std::make_shared<ReduceNode>(parse_iter(name, args, "in", "initialValue", false));
  };
}

}  // namespace mongostore::engine::aggregation_detail
