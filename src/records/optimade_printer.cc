// The canonical text of an OPTIMADE filter syntax tree (print_optimade_filter): what tests
// compare and error messages quote. Parentheses appear only where the tree's shape needs them,
// so that parsing the text gives back the same tree.
#include <string>

#include "mongostore/records/optimade_filter.h"

namespace mongostore::records {
namespace optimade {
namespace {

void print_property(const Property& property, std::string& out) {
  for (std::size_t i = 0; i < property.names.size(); ++i) {
    if (i > 0) out += '.';
    out += property.names[i];
  }
}

void print_value(const Value& value, std::string& out) {
  switch (value.kind()) {
    case Value::Kind::kString:
      out += '"';
      for (char c : value.text()) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      out += '"';
      return;
    case Value::Kind::kNumber:
      out += value.text();
      return;
    case Value::Kind::kBoolean:
      out += value.boolean_value() ? "TRUE" : "FALSE";
      return;
    case Value::Kind::kProperty:
      print_property(value.property_name(), out);
      return;
  }
}

// An operand of a HAS list: equality is the default and is not written.
void print_operand(const Operand& operand, std::string& out) {
  if (operand.op != Operator::kEq) {
    out += operator_text(operand.op);
    out += ' ';
  }
  print_value(operand.value, out);
}

const char* quantifier_text(Has::Quantifier quantifier) {
  switch (quantifier) {
    case Has::Quantifier::kOne:
      return "HAS ";
    case Has::Quantifier::kAll:
      return "HAS ALL ";
    case Has::Quantifier::kAny:
      return "HAS ANY ";
    case Has::Quantifier::kOnly:
      return "HAS ONLY ";
  }
  return "HAS ";
}

void print_expression(const Expression& expression, std::string& out);

// Operands of NOT are comparisons or parenthesised expressions (the grammar has no `NOT NOT`);
// an AND inside an AND, or an OR inside an AND or an OR, keeps its parentheses.
void print_operand_of(Logical::Op parent, const Expression& operand, std::string& out) {
  const Logical* logical = operand.get_if<Logical>();
  bool parenthesise = false;
  if (logical != nullptr) {
    switch (parent) {
      case Logical::Op::kNot:
        parenthesise = true;
        break;
      case Logical::Op::kAnd:
        parenthesise = logical->op != Logical::Op::kNot;
        break;
      case Logical::Op::kOr:
        parenthesise = logical->op == Logical::Op::kOr;
        break;
    }
  }
  if (parenthesise) out += '(';
  print_expression(operand, out);
  if (parenthesise) out += ')';
}

struct Printer {
  std::string& out;

  void operator()(const Comparison& c) const {
    print_value(c.left, out);
    out += ' ';
    out += operator_text(c.op);
    out += ' ';
    print_value(c.right, out);
  }
  void operator()(const BareProperty& b) const { print_property(b.property, out); }
  void operator()(const Known& k) const {
    print_property(k.property, out);
    out += k.known ? " IS KNOWN" : " IS UNKNOWN";
  }
  void operator()(const Has& h) const {
    for (std::size_t i = 0; i < h.properties.size(); ++i) {
      if (i > 0) out += ':';
      print_property(h.properties[i], out);
    }
    out += ' ';
    out += quantifier_text(h.quantifier);
    for (std::size_t t = 0; t < h.tuples.size(); ++t) {
      if (t > 0) out += ", ";
      for (std::size_t i = 0; i < h.tuples[t].size(); ++i) {
        if (i > 0) out += ':';
        print_operand(h.tuples[t][i], out);
      }
    }
  }
  void operator()(const Length& l) const {
    print_property(l.property, out);
    out += " LENGTH ";
    if (l.op != Operator::kEq) {
      out += operator_text(l.op);
      out += ' ';
    }
    print_value(l.value, out);
  }
  void operator()(const Logical& l) const {
    if (l.op == Logical::Op::kNot) {
      out += "NOT ";
      if (!l.operands.empty()) print_operand_of(l.op, l.operands.front(), out);
      return;
    }
    const char* separator = l.op == Logical::Op::kAnd ? " AND " : " OR ";
    for (std::size_t i = 0; i < l.operands.size(); ++i) {
      if (i > 0) out += separator;
      print_operand_of(l.op, l.operands[i], out);
    }
  }
};

void print_expression(const Expression& expression, std::string& out) {
  std::visit(Printer{out}, expression.node());
}

}  // namespace
}  // namespace optimade

std::string print_optimade_filter(const optimade::Expression& expression) {
  std::string out;
  optimade::print_expression(expression, out);
  return out;
}

std::string OptimadeFilter::to_string() const {
  return print_optimade_filter(root_);
}

}  // namespace mongostore::records
