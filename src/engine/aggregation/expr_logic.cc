// Comparison ($cmp $eq $ne $gt $gte $lt $lte), boolean ($and $or $not) and conditional
// ($cond $ifNull $switch) expressions. Comparisons use MongoDB's total order of values, in
// which a missing value sorts below null.
#include "engine/aggregation/collation_scope.h"
#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

namespace {

std::function<OwnedValue(const Value&, const Value&)> comparison(int which) {
  return [which](const Value& a, const Value& b) -> OwnedValue {
    int c = compare_in_scope(a, b);  // under the collation
    switch (which) {
      case 0:
        return make_value(static_cast<int32_t>(c < 0 ? -1 : (c > 0 ? 1 : 0)));
      case 1:
        return make_value(c == 0);
      case 2:
        return make_value(c != 0);
      case 3:
        return make_value(c > 0);
      case 4:
        return make_value(c >= 0);
      case 5:
        return make_value(c < 0);
      default:
        return make_value(c <= 0);
    }
  };
}

// $cmp, $eq, ... : each operand is read in place when it can be (a literal, a path into the
// document, a variable) rather than copied, as an eager operator would: comparisons are the
// commonest nodes of a $expr filter, run once per document.
class ComparisonNode : public ExprNode {
 public:
  ComparisonNode(int which, std::vector<ExprPtr> args)
      : compare_(comparison(which)), args_(std::move(args)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    OwnedValue held[2];
    Value operands[2];
    for (size_t i = 0; i < 2; ++i) {
      std::optional<Value> v = args_[i]->view(ctx);
      if (!v) {
        held[i] = args_[i]->eval(ctx);
        v = held[i].view();
      }
      operands[i] = *v;
    }
    return compare_(operands[0], operands[1]);
  }

 private:
  std::function<OwnedValue(const Value&, const Value&)> compare_;
  std::vector<ExprPtr> args_;
};

class AndOrNode : public ExprNode {
 public:
  AndOrNode(bool is_and, std::vector<ExprPtr> args) : is_and_(is_and), args_(std::move(args)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    for (const ExprPtr& e : args_) {
      bool t = e->eval(ctx).view().truthy();
      if (is_and_ && !t) return make_value(false);
      if (!is_and_ && t) return make_value(true);
    }
    return make_value(is_and_);
  }

 private:
  bool is_and_;
  std::vector<ExprPtr> args_;
};

class CondNode : public ExprNode {
 public:
  CondNode(ExprPtr c, ExprPtr t, ExprPtr e)
      : cond_(std::move(c)), then_(std::move(t)), else_(std::move(e)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    return cond_->eval(ctx).view().truthy() ? then_->eval(ctx) : else_->eval(ctx);
  }

 private:
  ExprPtr cond_, then_, else_;
};

ExprPtr parse_cond(std::string_view name, const Value& args) {
  if (args.is_document()) {
    Value i, t, e;
    for (const bson::Element& el : args.as_document()) {
      if (el.key == "if") {
        i = el.value;
      } else if (el.key == "then") {
        t = el.value;
      } else if (el.key == "else") {
        e = el.value;
      } else {
        fail(17083, "Unrecognized parameter to $cond: " + std::string(el.key));
      }
    }
    if (i.is_missing()) fail(17080, "Missing 'if' parameter to $cond");
    if (t.is_missing()) fail(17081, "Missing 'then' parameter to $cond");
    if (e.is_missing()) fail(17082, "Missing 'else' parameter to $cond");
    return std::make_shared<CondNode>(parse_expression(i), parse_expression(t),
                                      parse_expression(e));
  }
  std::vector<ExprPtr> a = parse_args(args);
  check_arity(name, a.size(), 3, 3);
  return std::make_shared<CondNode>(a[0], a[1], a[2]);
}

class IfNullNode : public ExprNode {
 public:
  explicit IfNullNode(std::vector<ExprPtr> args) : args_(std::move(args)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    for (size_t i = 0; i + 1 < args_.size(); ++i) {
      OwnedValue v = args_[i]->eval(ctx);
      if (!nullish(v.view())) return v;
    }
    return args_.back()->eval(ctx);
  }

  std::optional<Value> view(EvalContext& ctx) const override {
    for (size_t i = 0; i + 1 < args_.size(); ++i) {
      std::optional<Value> v = args_[i]->view(ctx);
      if (!v) return std::nullopt;
      if (!nullish(*v)) return v;
    }
    return args_.back()->view(ctx);
  }

 private:
  std::vector<ExprPtr> args_;
};

class SwitchNode : public ExprNode {
 public:
  SwitchNode(std::vector<std::pair<ExprPtr, ExprPtr>> branches, ExprPtr def)
      : branches_(std::move(branches)), default_(std::move(def)) {}
  OwnedValue eval(EvalContext& ctx) const override {
    for (const auto& [c, t] : branches_) {
      if (c->eval(ctx).view().truthy()) return t->eval(ctx);
    }
    if (!default_) {
      fail(40066,
           "$switch could not find a matching branch for an input, and no default was "
           "specified.");
    }
    return default_->eval(ctx);
  }

 private:
  std::vector<std::pair<ExprPtr, ExprPtr>> branches_;
  ExprPtr default_;
};

ExprPtr parse_switch(std::string_view, const Value& args) {
  if (!args.is_document()) {
    fail(40060, "$switch requires an object as an argument, found: " + type_name(args));
  }
  std::vector<std::pair<ExprPtr, ExprPtr>> branches;
  ExprPtr def;
  for (const bson::Element& el : args.as_document()) {
    if (el.key == "branches") {
      if (!el.value.is_array()) {
        fail(40061, "$switch expected an array for 'branches', found: " + type_name(el.value));
      }
      for (const bson::Element& b : el.value.as_array()) {
        if (!b.value.is_document()) {
          fail(40062, "$switch expected each branch to be an object, found: " + type_name(b.value));
        }
        Value c, t;
        for (const bson::Element& f : b.value.as_document()) {
          if (f.key == "case") {
            c = f.value;
          } else if (f.key == "then") {
            t = f.value;
          } else {
            fail(40063, "$switch found an unknown argument to a branch: " + std::string(f.key));
          }
        }
        if (c.is_missing()) fail(40064, "$switch requires each branch have a 'case' expression");
        if (t.is_missing()) fail(40065, "$switch requires each branch have a 'then' expression.");
        branches.emplace_back(parse_expression(c), parse_expression(t));
      }
    } else if (el.key == "default") {
      def = parse_expression(el.value);
    } else {
      fail(40067, "$switch found an unknown argument: " + std::string(el.key));
    }
  }
  if (branches.empty()) fail(40068, "$switch requires at least one branch.");
  return std::make_shared<SwitchNode>(std::move(branches), std::move(def));
}

}  // namespace

void register_comparison(OperatorTable& t) {
  const char* names[] = {"$cmp", "$eq", "$ne", "$gt", "$gte", "$lt", "$lte"};
  for (int i = 0; i < 7; ++i) {
    t[names[i]] = [i](std::string_view op, const Value& args) -> ExprPtr {
      std::vector<ExprPtr> parsed = parse_args(args);
      check_arity(op, parsed.size(), 2, 2);
      return std::make_shared<ComparisonNode>(i, std::move(parsed));
    };
  }
  t["$and"] = [](std::string_view, const Value& args) -> ExprPtr {
    return std::make_shared<AndOrNode>(true, parse_args(args));
  };
  t["$or"] = [](std::string_view, const Value& args) -> ExprPtr {
    return std::make_shared<AndOrNode>(false, parse_args(args));
  };
  add_eager(t, "$not", 1, 1, [](std::string_view, std::vector<OwnedValue>& a) {
    return make_value(!a[0].view().truthy());
  });
  t["$cond"] = parse_cond;
  t["$ifNull"] = [](std::string_view name, const Value& args) -> ExprPtr {
    std::vector<ExprPtr> a = parse_args(args);
    if (a.size() < 2) {
      fail(1257300, "$ifNull needs at least two arguments, had: " + std::to_string(a.size()));
    }
    (void)name;
    return std::make_shared<IfNullNode>(std::move(a));
  };
  t["$switch"] = parse_switch;
}

}  // namespace mongostore::engine::aggregation_detail
