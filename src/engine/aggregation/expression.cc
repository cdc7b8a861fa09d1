// Expression parsing: literals, field paths, variables, object and array expressions, the
// operator table, and the variable operators ($literal, $let).
#include <chrono>

#include "engine/aggregation/internal.h"
#include "mongostore/engine/limits.h"

namespace mongostore::engine::aggregation_detail {

namespace {

// A vector an evaluation needs for the duration of one node (an operator's argument values,
// a $let's definitions, an evaluation's variables), taken from and returned to a per-thread
// free list: an expression runs once per document, and allocating these each time was a
// large part of evaluating a small arithmetic one. Leases nest (a node's children take their
// own). Bounded: at most 32 vectors per thread and element type, none above 64 elements.
template <class T>
class PooledVector {
 public:
  PooledVector() {
    auto& pool = free_list();
    if (!pool.empty()) {
      v_ = std::move(pool.back());
      pool.pop_back();
    }
  }
  ~PooledVector() {
    v_.clear();
    auto& pool = free_list();
    if (pool.size() < kMaxPooled && v_.capacity() <= 64) pool.push_back(std::move(v_));
  }
  PooledVector(const PooledVector&) = delete;
  PooledVector& operator=(const PooledVector&) = delete;
  std::vector<T>& get() { return v_; }

 private:
  static constexpr size_t kMaxPooled = 32;
  static std::vector<std::vector<T>>& free_list() {
    // Reserved up front, so returning a vector never allocates (the destructor cannot throw).
    thread_local std::vector<std::vector<T>> pool = [] {
      std::vector<std::vector<T>> p;
      p.reserve(kMaxPooled);
      return p;
    }();
    return pool;
  }
  std::vector<T> v_;
};

class LiteralNode : public ExprNode {
 public:
  explicit LiteralNode(OwnedValue v) : value_(std::move(v)) {}
  OwnedValue eval(EvalContext&) const override { return value_; }
  std::optional<Value> view(EvalContext&) const override { return value_.view(); }
  bool is_constant() const override { return true; }

 private:
  OwnedValue value_;
};

class FieldPathNode : public ExprNode {
 public:
  // `variable` empty means CURRENT.
  FieldPathNode(std::string variable, std::vector<std::string> parts)
      : variable_(std::move(variable)), parts_(std::move(parts)) {
    // Which base, decided once (eval runs per document).
    if (variable_.empty() || variable_ == "CURRENT" || variable_ == "ROOT") {
      base_ = Base::kRoot;
    } else if (variable_ == "REMOVE") {
      base_ = Base::kRemove;
    } else if (variable_ == "NOW") {
      base_ = Base::kNow;
    }
  }
  OwnedValue eval(EvalContext& ctx) const override {
    Value base;
    if (base_ == Base::kRoot) {
      base = document_as_value(ctx.root);
    } else if (base_ == Base::kRemove) {
      return OwnedValue();
    } else if (base_ == Base::kNow) {
      if (!parts_.empty()) return OwnedValue();
      // The command's time: a running pipeline carries it as a variable; anything else
      // takes the enclosing NowScope's (or the clock's).
      for (auto it = ctx.vars->rbegin(); it != ctx.vars->rend(); ++it) {
        if (it->first == "NOW") return it->second;
      }
      return make_value(NowScope::now());
    } else {
      base = lookup_variable(ctx, variable_);
    }
    if (parts_.empty()) return OwnedValue(base);
    return traverse_path(base, parts_, 0);
  }

  std::optional<Value> view(EvalContext& ctx) const override {
    // Only paths into $$ROOT / $$CURRENT through sub-documents: a path through an array
    // builds a new array (one value per element), which eval does.
    // A variable's value lives in ctx.vars until its scope ends, which is after this node's
    // reader is done (a reallocation of ctx.vars moves the holders, not their bytes).
    if (base_ != Base::kRoot && base_ != Base::kVariable) return std::nullopt;
    Value v = base_ == Base::kRoot ? document_as_value(ctx.root) : lookup_variable(ctx, variable_);
    for (const std::string& part : parts_) {
      if (v.is_array()) return std::nullopt;
      if (!v.is_document()) return Value();
      v = v.as_document().get(part);
    }
    return v;
  }

 private:
  enum class Base { kRoot, kRemove, kNow, kVariable };
  std::string variable_;
  std::vector<std::string> parts_;
  Base base_ = Base::kVariable;
};

class ObjectNode : public ExprNode {
 public:
  explicit ObjectNode(std::vector<std::pair<std::string, ExprPtr>> fields)
      : fields_(std::move(fields)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    bson::DocumentBuilder b;
    for (const auto& [k, e] : fields_) {
      OwnedValue v = e->eval(ctx);
      append_value(b, k, v.view());
    }
    return make_value(b.finish());
  }

 private:
  std::vector<std::pair<std::string, ExprPtr>> fields_;
};

class ArrayNode : public ExprNode {
 public:
  explicit ArrayNode(std::vector<ExprPtr> items) : items_(std::move(items)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    std::vector<OwnedValue> out;
    out.reserve(items_.size());
    for (const ExprPtr& e : items_) out.push_back(e->eval(ctx));
    return make_array_value(out);
  }

 private:
  std::vector<ExprPtr> items_;
};

class EagerNode : public ExprNode {
 public:
  EagerNode(std::string name, std::vector<ExprPtr> args, EagerFn fn)
      : name_(std::move(name)), args_(std::move(args)), fn_(std::move(fn)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    PooledVector<OwnedValue> lease;
    std::vector<OwnedValue>& values = lease.get();
    values.reserve(args_.size());
    for (const ExprPtr& e : args_) values.push_back(e->eval(ctx));
    return fn_(name_, values);
  }

 private:
  std::string name_;
  std::vector<ExprPtr> args_;
  EagerFn fn_;
};

class ReadingNode : public ExprNode {
 public:
  ReadingNode(std::string name, std::vector<ExprPtr> args, ReadingFn fn)
      : name_(std::move(name)), args_(std::move(args)), fn_(std::move(fn)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    PooledVector<OwnedValue> held_lease;
    PooledVector<Value> values_lease;
    std::vector<OwnedValue>& held = held_lease.get();
    std::vector<Value>& values = values_lease.get();
    // Reserved, so no view into a held value moves while the others are evaluated.
    held.reserve(args_.size());
    values.reserve(args_.size());
    for (const ExprPtr& e : args_) {
      std::optional<Value> v = e->view(ctx);
      if (!v) {
        held.push_back(e->eval(ctx));
        v = held.back().view();
      }
      values.push_back(*v);
    }
    return fn_(name_, std::span<const Value>(values));
  }

 private:
  std::string name_;
  std::vector<ExprPtr> args_;
  ReadingFn fn_;
};

class LetNode : public ExprNode {
 public:
  LetNode(std::vector<std::pair<std::string, ExprPtr>> vars, ExprPtr in)
      : vars_(std::move(vars)), in_(std::move(in)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    // All definitions are evaluated in the outer scope, then bound together.
    PooledVector<OwnedValue> lease;
    std::vector<OwnedValue>& values = lease.get();
    for (const auto& [name, e] : vars_) values.push_back(e->eval(ctx));
    size_t before = ctx.vars->size();
    for (size_t i = 0; i < vars_.size(); ++i) {
      ctx.vars->emplace_back(vars_[i].first, std::move(values[i]));
    }
    struct Pop {
      Variables* v;
      size_t n;
      ~Pop() { v->resize(n); }
    } pop{ctx.vars, before};
    return in_->eval(ctx);
  }

 private:
  std::vector<std::pair<std::string, ExprPtr>> vars_;
  ExprPtr in_;
};

}  // namespace

void validate_variable_name(std::string_view name) {
  if (name.empty()) fail(16869, "empty variable names are not allowed");
  unsigned char c = static_cast<unsigned char>(name[0]);
  if (!(std::islower(c) || c >= 0x80 || name == "CURRENT" || name == "ROOT")) {
    fail(16870,
         "'" + std::string(name) + "' starts with an invalid character for a user variable name");
  }
  for (char ch : name) {
    unsigned char u = static_cast<unsigned char>(ch);
    if (!(std::isalnum(u) || ch == '_' || u >= 0x80)) {
      fail(16871, "'" + std::string(name) +
                      "' contains an invalid character for a variable name: '" +
                      std::string(1, ch) + "'");
    }
  }
}

namespace {

ExprPtr parse_let(std::string_view, const Value& args) {
  if (!args.is_document()) fail(16874, "$let only supports an object as its argument");
  Value vars;
  Value in;
  for (const bson::Element& e : args.as_document()) {
    if (e.key == "vars") {
      vars = e.value;
    } else if (e.key == "in") {
      in = e.value;
    } else {
      fail(16875, "Unrecognized parameter to $let: " + std::string(e.key));
    }
  }
  if (vars.is_missing()) fail(16876, "Missing 'vars' parameter to $let");
  if (in.is_missing()) fail(16877, "Missing 'in' parameter to $let");
  if (!vars.is_document()) {
    fail(10065, "invalid parameter: expected an object (vars)");
  }
  std::vector<std::pair<std::string, ExprPtr>> defs;
  for (const bson::Element& e : vars.as_document()) {
    validate_variable_name(e.key);
    defs.emplace_back(std::string(e.key), parse_expression(e.value));
  }
  return std::make_shared<LetNode>(std::move(defs), parse_expression(in));
}

const OperatorTable& operators() {
  static const OperatorTable table = [] {
    OperatorTable t;
    t["$literal"] = [](std::string_view, const Value& args) -> ExprPtr {
      return std::make_shared<LiteralNode>(OwnedValue(args));
    };
    t["$let"] = parse_let;
    register_arithmetic(t);
    register_comparison(t);
    register_array(t);
    register_string(t);
    register_type(t);
    register_object(t);
    register_date(t);
    register_set(t);
    register_date_arithmetic(t);
    return t;
  }();
  return table;
}

ExprPtr parse_field_path(std::string_view s) {
  // s starts with '$'.
  std::string_view body = s.substr(1);
  std::string variable;
  if (!body.empty() && body[0] == '$') {
    body.remove_prefix(1);
    size_t dot = body.find('.');
    variable = std::string(body.substr(0, dot));
    if (variable.empty()) fail(16869, "empty variable names are not allowed");
    if (variable != "ROOT" && variable != "CURRENT" && variable != "REMOVE" && variable != "NOW") {
      validate_variable_name(variable);
    }
    body = dot == std::string_view::npos ? std::string_view() : body.substr(dot + 1);
    if (dot != std::string_view::npos && body.empty()) {
      fail(40352, "FieldPath cannot be constructed with empty string");
    }
  } else if (body.empty()) {
    fail(16872, "'$' by itself is not a valid FieldPath");
  }
  std::vector<std::string> parts;
  if (!body.empty()) {
    parts = split_path(body);
    for (const std::string& p : parts) {
      if (p.empty()) fail(15998, "FieldPath field names may not be empty strings.");
      if (p[0] == '$') {
        fail(16410,
             "FieldPath field names may not start with '$'. Consider using $getField or "
             "$setField.");
      }
    }
  }
  return std::make_shared<FieldPathNode>(std::move(variable), std::move(parts));
}

}  // namespace

Value lookup_variable(EvalContext& ctx, std::string_view name) {
  for (auto it = ctx.vars->rbegin(); it != ctx.vars->rend(); ++it) {
    if (it->first == name) return it->second.view();
  }
  fail(17276, "Use of undefined variable: " + std::string(name));
}

ExprPtr make_eager(std::string name, std::vector<ExprPtr> args, EagerFn fn) {
  return std::make_shared<EagerNode>(std::move(name), std::move(args), std::move(fn));
}

void check_arity(std::string_view name, size_t n, int min, int max) {
  if (min == max && static_cast<int>(n) != min) {
    fail(16020, "Expression " + std::string(name) + " takes exactly " + std::to_string(min) +
                    " arguments. " + std::to_string(n) + " were passed in.");
  }
  if (static_cast<int>(n) < min) {
    if (max < 0) {
      fail(16020, "Expression " + std::string(name) + " takes at least " + std::to_string(min) +
                      " arguments, and " + std::to_string(n) + " were passed in.");
    }
    fail(28667, "Expression " + std::string(name) + " takes at least " + std::to_string(min) +
                    " arguments, and at most " + std::to_string(max) + ". " + std::to_string(n) +
                    " were passed in.");
  }
  if (max >= 0 && static_cast<int>(n) > max) {
    fail(28667, "Expression " + std::string(name) + " takes at least " + std::to_string(min) +
                    " arguments, and at most " + std::to_string(max) + ". " + std::to_string(n) +
                    " were passed in.");
  }
}

void add_reading(OperatorTable& t, std::string name, int min, int max, ReadingFn fn) {
  t[name] = [min, max, fn](std::string_view op, const Value& args) -> ExprPtr {
    std::vector<ExprPtr> parsed = parse_args(args);
    check_arity(op, parsed.size(), min, max);
    return std::make_shared<ReadingNode>(std::string(op), std::move(parsed), fn);
  };
}

void add_eager(OperatorTable& t, std::string name, int min, int max, EagerFn fn) {
  t[name] = [min, max, fn](std::string_view op, const Value& args) -> ExprPtr {
    std::vector<ExprPtr> parsed = parse_args(args);
    check_arity(op, parsed.size(), min, max);
    return make_eager(std::string(op), std::move(parsed), fn);
  };
}

std::vector<ExprPtr> parse_args(const Value& spec) {
  std::vector<ExprPtr> out;
  if (spec.is_array()) {
    for (const bson::Element& e : spec.as_array()) out.push_back(parse_expression(e.value));
  } else {
    out.push_back(parse_expression(spec));
  }
  return out;
}

ExprPtr parse_expression(const Value& spec) {
  if (spec.is_string()) {
    std::string_view s = spec.as_string();
    if (spec.type() == BsonType::kString && !s.empty() && s[0] == '$') return parse_field_path(s);
    return std::make_shared<LiteralNode>(OwnedValue(spec));
  }
  if (spec.is_array()) {
    std::vector<ExprPtr> items;
    for (const bson::Element& e : spec.as_array()) items.push_back(parse_expression(e.value));
    return std::make_shared<ArrayNode>(std::move(items));
  }
  if (spec.is_document()) {
    DocumentView d = spec.as_document();
    auto it = d.begin();
    if (it != d.end() && !it->key.empty() && it->key[0] == '$') {
      size_t n = d.count();
      if (n != 1) {
        fail(15983,
             "an expression specification must contain exactly one field, the name of "
             "the expression. Found " +
                 std::to_string(n) + " fields in " + d.to_json() + ", while parsing object " +
                 d.to_json());
      }
      const OperatorTable& table = operators();
      auto op = table.find(it->key);
      if (op == table.end()) {
        fail(168, "Unrecognized expression '" + std::string(it->key) + "'");
      }
      return op->second(it->key, it->value);
    }
    std::vector<std::pair<std::string, ExprPtr>> fields;
    for (const bson::Element& e : d) {
      if (!e.key.empty() && e.key[0] == '$') {
        fail(16404, "a $-prefixed field ('" + std::string(e.key) +
                        "') is not allowed in an object expression; use $literal or $getField");
      }
      if (e.key.find('.') != std::string_view::npos) {
        fail(16412,
             "FieldPath field names may not contain '.'. Consider using $getField or "
             "$setField.");
      }
      fields.emplace_back(std::string(e.key), parse_expression(e.value));
    }
    return std::make_shared<ObjectNode>(std::move(fields));
  }
  return std::make_shared<LiteralNode>(OwnedValue(spec));
}

OwnedValue eval_in(const ExprPtr& e, DocumentView root, RunContext& ctx) {
  EvalContext ec{root, &ctx.variables};
  size_t before = ctx.variables.size();
  OwnedValue r = e->eval(ec);
  ctx.variables.resize(before);
  return r;
}

bson::DateTime run_now(const RunContext& ctx) {
  for (auto it = ctx.variables.rbegin(); it != ctx.variables.rend(); ++it) {
    if (it->first == "NOW" && it->second.view().type() == BsonType::kDateTime) {
      return it->second.view().as_datetime();
    }
  }
  return NowScope::now();
}

}  // namespace mongostore::engine::aggregation_detail

namespace mongostore::engine {

Expression Expression::compile(bson::Value spec) {
  if (spec.is_document() || spec.is_array()) {
    check_input_depth(bson::DocumentView(spec.data(), spec.size()), "expression");
  }
  return Expression(aggregation_detail::parse_expression(spec));
}

Expression Expression::compile_document(bson::DocumentView spec) {
  return compile(spec.get(""));
}

Variables evaluate_let(bson::DocumentView let) {
  check_input_depth(let, "let");
  Variables out;
  bson::Document empty;
  for (const bson::Element& e : let) {
    aggregation_detail::validate_variable_name(e.key);
    aggregation_detail::ExprPtr expr = aggregation_detail::parse_expression(e.value);
    Variables scope = out;
    aggregation_detail::EvalContext ctx{empty, &scope};
    out.emplace_back(std::string(e.key), expr->eval(ctx));
  }
  return out;
}

bson::OwnedValue Expression::evaluate(bson::DocumentView root) const {
  aggregation_detail::PooledVector<Variables::value_type> vars;
  aggregation_detail::EvalContext ctx{root, &vars.get()};
  return node_->eval(ctx);
}

bson::OwnedValue Expression::evaluate(bson::DocumentView root, const Variables& variables) const {
  aggregation_detail::PooledVector<Variables::value_type> vars;
  vars.get().assign(variables.begin(), variables.end());
  aggregation_detail::EvalContext ctx{root, &vars.get()};
  return node_->eval(ctx);
}

}  // namespace mongostore::engine
