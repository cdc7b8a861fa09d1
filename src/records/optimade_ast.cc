// The OPTIMADE filter syntax tree: value constructors and structural equality.
#include <utility>

#include "mongostore/records/optimade_filter.h"
#include "mongostore/records/query.h"

namespace mongostore::records::optimade {

Value Value::string(std::string unescaped) {
  Value v;
  v.kind_ = Kind::kString;
  v.text_ = std::move(unescaped);
  return v;
}

Value Value::number(std::string literal) {
  Value v;
  v.kind_ = Kind::kNumber;
  v.text_ = std::move(literal);
  return v;
}

Value Value::boolean(bool value) {
  Value v;
  v.kind_ = Kind::kBoolean;
  v.boolean_ = value;
  return v;
}

Value Value::property(Property property) {
  Value v;
  v.kind_ = Kind::kProperty;
  v.property_ = std::move(property);
  return v;
}

std::string_view operator_text(Operator op) {
  switch (op) {
    case Operator::kEq:
      return "=";
    case Operator::kNe:
      return "!=";
    case Operator::kLt:
      return "<";
    case Operator::kLe:
      return "<=";
    case Operator::kGt:
      return ">";
    case Operator::kGe:
      return ">=";
    case Operator::kContains:
      return "CONTAINS";
    case Operator::kStartsWith:
      return "STARTS WITH";
    case Operator::kEndsWith:
      return "ENDS WITH";
  }
  return "?";
}

Operator mirrored(Operator op) {
  switch (op) {
    case Operator::kLt:
      return Operator::kGt;
    case Operator::kLe:
      return Operator::kGe;
    case Operator::kGt:
      return Operator::kLt;
    case Operator::kGe:
      return Operator::kLe;
    default:
      return op;
  }
}

std::optional<CompareOp> compare_op(Operator op) {
  switch (op) {
    case Operator::kEq:
      return CompareOp::kEq;
    case Operator::kNe:
      return CompareOp::kNe;
    case Operator::kLt:
      return CompareOp::kLt;
    case Operator::kLe:
      return CompareOp::kLe;
    case Operator::kGt:
      return CompareOp::kGt;
    case Operator::kGe:
      return CompareOp::kGe;
    case Operator::kContains:
    case Operator::kStartsWith:
    case Operator::kEndsWith:
      break;
  }
  return std::nullopt;
}

namespace {

void splice(const Logical& logical, Logical::Op op, std::vector<const Expression*>& out) {
  for (const Expression& e : logical.operands) {
    const Logical* inner = e.get_if<Logical>();
    if (inner != nullptr && inner->op == op) {
      splice(*inner, op, out);  // as deep as the parser's nesting limit
    } else {
      out.push_back(&e);
    }
  }
}

}  // namespace

std::vector<const Expression*> chained_operands(const Logical& logical) {
  std::vector<const Expression*> out;
  if (logical.op == Logical::Op::kNot) {
    for (const Expression& e : logical.operands) out.push_back(&e);
    return out;
  }
  splice(logical, logical.op, out);
  return out;
}

bool operator==(const Logical& a, const Logical& b) {
  return a.op == b.op && a.operands == b.operands;
}

bool operator==(const Expression& a, const Expression& b) {
  return a.node_ == b.node_;
}

}  // namespace mongostore::records::optimade
