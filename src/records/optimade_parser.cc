// The OPTIMADE filter parser (parse_optimade_filter): recursive descent over the
// specification's EBNF, one token of lookahead.
//
// The grammar's right-recursive rules (Expression = Clause [OR Expression], Clause = Phrase
// [AND Clause]) are parsed as loops, so that a long chain of ORs or ANDs costs no stack; the
// only recursion is through parentheses, bounded by kMaxOptimadeFilterDepth.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mongostore/records/errors.h"
#include "mongostore/records/optimade_filter.h"
#include "records/optimade_lexer.h"

namespace mongostore::records {
namespace optimade {
namespace {

constexpr const char* kValue = "a value (a string, a number, TRUE, FALSE or a property name)";
constexpr const char* kOrderedValue = "a string, a number or a property name";

bool is_equality(TokenKind kind) {
  return kind == TokenKind::kEq || kind == TokenKind::kNe;
}
bool is_relative(TokenKind kind) {
  return kind == TokenKind::kLt || kind == TokenKind::kLe || kind == TokenKind::kGt ||
         kind == TokenKind::kGe;
}
bool is_fuzzy(TokenKind kind) {
  return kind == TokenKind::kContains || kind == TokenKind::kStarts || kind == TokenKind::kEnds;
}

Operator comparison_operator(TokenKind kind) {
  switch (kind) {
    case TokenKind::kNe:
      return Operator::kNe;
    case TokenKind::kLt:
      return Operator::kLt;
    case TokenKind::kLe:
      return Operator::kLe;
    case TokenKind::kGt:
      return Operator::kGt;
    case TokenKind::kGe:
      return Operator::kGe;
    default:
      return Operator::kEq;
  }
}

class Parser {
 public:
  explicit Parser(std::string_view input) : lexer_(input) {}

  Expression parse_filter() {
    Expression expression = parse_expression(0);
    const Token& end = lexer_.peek();
    if (end.kind != TokenKind::kEnd) {
      fail(end, end.kind == TokenKind::kRightParen ? "AND, OR or the end of the filter ('(' "
                                                     "missing for this ')')"
                                                   : "AND, OR or the end of the filter");
    }
    return expression;
  }

 private:
  [[noreturn]] static void fail(const Token& token, std::string expected) {
    throw OptimadeFilterSyntaxError(token.column(), std::move(expected), token.describe());
  }

  Token expect(TokenKind kind, const char* expected) {
    if (lexer_.peek().kind != kind) fail(lexer_.peek(), expected);
    return lexer_.next();
  }

  bool accept(TokenKind kind) {
    if (lexer_.peek().kind != kind) return false;
    lexer_.next();
    return true;
  }

  // Expression = ExpressionClause, { OR, ExpressionClause }
  Expression parse_expression(int depth) {
    std::vector<Expression> operands;
    operands.push_back(parse_clause(depth));
    while (accept(TokenKind::kOr)) operands.push_back(parse_clause(depth));
    if (operands.size() == 1) return std::move(operands.front());
    return Expression(Logical{Logical::Op::kOr, std::move(operands)});
  }

  // ExpressionClause = ExpressionPhrase, { AND, ExpressionPhrase }
  Expression parse_clause(int depth) {
    std::vector<Expression> operands;
    operands.push_back(parse_phrase(depth));
    while (accept(TokenKind::kAnd)) operands.push_back(parse_phrase(depth));
    if (operands.size() == 1) return std::move(operands.front());
    return Expression(Logical{Logical::Op::kAnd, std::move(operands)});
  }

  // ExpressionPhrase = [NOT], ( Comparison | '(', Expression, ')' )
  Expression parse_phrase(int depth) {
    bool negated = accept(TokenKind::kNot);
    std::optional<Expression> inner;
    if (lexer_.peek().kind == TokenKind::kLeftParen) {
      if (depth >= kMaxOptimadeFilterDepth) {
        fail(lexer_.peek(), "at most " + std::to_string(kMaxOptimadeFilterDepth) +
                                " nested parentheses (the parser's limit)");
      }
      lexer_.next();
      inner.emplace(parse_expression(depth + 1));
      expect(TokenKind::kRightParen, "')', AND or OR");
    } else {
      inner.emplace(parse_comparison(negated));
    }
    if (!negated) return std::move(*inner);
    std::vector<Expression> operands;
    operands.push_back(std::move(*inner));
    return Expression(Logical{Logical::Op::kNot, std::move(operands)});
  }

  // Comparison = ConstantFirstComparison | PropertyFirstComparison
  Expression parse_comparison(bool after_not) {
    const Token& first = lexer_.peek();
    switch (first.kind) {
      case TokenKind::kIdentifier:
        return parse_property_first(parse_property());
      case TokenKind::kString:
      case TokenKind::kNumber: {
        // OrderedConstant, ValueOpRhs
        Value left = parse_value(false, kValue);
        const Token& op = lexer_.peek();
        if (!is_equality(op.kind) && !is_relative(op.kind)) {
          fail(op, "a comparison operator (=, !=, <, <=, >, >=) after a constant");
        }
        TokenKind kind = lexer_.next().kind;
        Value right = parse_value(is_relative(kind), is_relative(kind) ? kOrderedValue : kValue);
        return Expression(Comparison{std::move(left), comparison_operator(kind), std::move(right)});
      }
      case TokenKind::kTrue:
      case TokenKind::kFalse: {
        // UnorderedConstant, ValueEqRhs
        Value left = parse_value(false, kValue);
        const Token& op = lexer_.peek();
        if (!is_equality(op.kind)) fail(op, "'=' or '!=' after TRUE or FALSE");
        TokenKind kind = lexer_.next().kind;
        Value right = parse_value(false, kValue);
        return Expression(Comparison{std::move(left), comparison_operator(kind), std::move(right)});
      }
      default:
        fail(first, after_not ? "a comparison or '(' after NOT (NOT applies to one comparison "
                                "or one parenthesised expression)"
                              : "a comparison, NOT or '('");
    }
  }

  // Property = Identifier, { '.', Identifier }
  Property parse_property() {
    Property property;
    property.names.emplace_back(expect(TokenKind::kIdentifier, "a property name").text);
    while (accept(TokenKind::kDot)) {
      property.names.emplace_back(expect(TokenKind::kIdentifier, "a property name after '.'").text);
    }
    return property;
  }

  // Value = TRUE | FALSE | String | Number | Property; OrderedValue without TRUE and FALSE.
  Value parse_value(bool ordered_only, const char* expected) {
    const Token& token = lexer_.peek();
    switch (token.kind) {
      case TokenKind::kString:
        return Value::string(lexer_.next().value);
      case TokenKind::kNumber:
        return Value::number(std::string(lexer_.next().text));
      case TokenKind::kTrue:
      case TokenKind::kFalse:
        if (ordered_only) {
          fail(token, std::string(expected) + " (TRUE and FALSE only compare with = and !=)");
        }
        return Value::boolean(lexer_.next().kind == TokenKind::kTrue);
      case TokenKind::kIdentifier:
        return Value::property(parse_property());
      default:
        fail(token, expected);
    }
  }

  // FuzzyStringOpRhs = CONTAINS, Value | STARTS, [WITH], Value | ENDS, [WITH], Value
  // (the current token is CONTAINS, STARTS or ENDS)
  Operand parse_fuzzy() {
    TokenKind kind = lexer_.next().kind;
    Operator op = Operator::kContains;
    if (kind == TokenKind::kStarts) op = Operator::kStartsWith;
    if (kind == TokenKind::kEnds) op = Operator::kEndsWith;
    if (kind != TokenKind::kContains) accept(TokenKind::kWith);
    return Operand{op, parse_value(false, kValue)};
  }

  // PropertyFirstComparison = Property, [ ValueOpRhs | KnownOpRhs | FuzzyStringOpRhs
  //                                     | SetOpRhs | SetZipOpRhs | LengthOpRhs ]
  Expression parse_property_first(Property property) {
    TokenKind kind = lexer_.peek().kind;
    if (is_equality(kind) || is_relative(kind)) {
      lexer_.next();
      Value right = parse_value(is_relative(kind), is_relative(kind) ? kOrderedValue : kValue);
      return Expression(Comparison{Value::property(std::move(property)), comparison_operator(kind),
                                   std::move(right)});
    }
    if (is_fuzzy(kind)) {
      Operand rhs = parse_fuzzy();
      return Expression(
          Comparison{Value::property(std::move(property)), rhs.op, std::move(rhs.value)});
    }
    switch (kind) {
      case TokenKind::kIs: {
        lexer_.next();
        const Token& which = lexer_.peek();
        if (which.kind != TokenKind::kKnown && which.kind != TokenKind::kUnknown) {
          fail(which, "KNOWN or UNKNOWN after IS");
        }
        bool known = lexer_.next().kind == TokenKind::kKnown;
        return Expression(Known{std::move(property), known});
      }
      case TokenKind::kHas: {
        lexer_.next();
        std::vector<Property> properties;
        properties.push_back(std::move(property));
        return parse_has(std::move(properties));
      }
      case TokenKind::kColon: {
        // SetZipOpRhs = PropertyZipAddon, HAS, ...
        std::vector<Property> properties;
        properties.push_back(std::move(property));
        while (accept(TokenKind::kColon)) properties.push_back(parse_property());
        expect(TokenKind::kHas, "':' or HAS after correlated properties");
        return parse_has(std::move(properties));
      }
      case TokenKind::kLength: {
        // LengthOpRhs = LENGTH, [Operator], Value
        lexer_.next();
        Operator op = Operator::kEq;
        TokenKind next = lexer_.peek().kind;
        if (is_equality(next) || is_relative(next)) op = comparison_operator(lexer_.next().kind);
        return Expression(Length{std::move(property), op, parse_value(false, kValue)});
      }
      case TokenKind::kAnd:
      case TokenKind::kOr:
      case TokenKind::kRightParen:
      case TokenKind::kEnd:
        return Expression(BareProperty{std::move(property)});
      default:
        // Name everything that may follow a property, not only what may follow a phrase.
        fail(lexer_.peek(),
             "an operator (=, !=, <, <=, >, >=), IS, CONTAINS, STARTS, ENDS, HAS, LENGTH, ':', "
             "AND, OR or the end of the filter after a property name");
    }
  }

  // ValueListEntry = Value | ValueEqRhs | ValueRelCompRhs | FuzzyStringOpRhs; also the single
  // operand of a plain HAS, which the grammar spells out the same way.
  Operand parse_operand() {
    TokenKind kind = lexer_.peek().kind;
    if (is_fuzzy(kind)) return parse_fuzzy();
    if (is_equality(kind) || is_relative(kind)) {
      lexer_.next();
      return Operand{comparison_operator(kind),
                     parse_value(is_relative(kind), is_relative(kind) ? kOrderedValue : kValue)};
    }
    return Operand{Operator::kEq,
                   parse_value(false,
                               "a value, an operator and a value, or CONTAINS, STARTS or ENDS "
                               "and a value")};
  }

  // ValueZip = ValueListEntry, ':', ValueListEntry, { ':', ValueListEntry }
  std::vector<Operand> parse_zip() {
    std::vector<Operand> tuple;
    tuple.push_back(parse_operand());
    expect(TokenKind::kColon, "':' (correlated properties take one value per property)");
    tuple.push_back(parse_operand());
    while (accept(TokenKind::kColon)) tuple.push_back(parse_operand());
    return tuple;
  }

  // SetOpRhs and SetZipOpRhs after HAS (already consumed).
  Expression parse_has(std::vector<Property> properties) {
    bool correlated = properties.size() > 1;
    Has has;
    has.properties = std::move(properties);
    switch (lexer_.peek().kind) {
      case TokenKind::kAll:
        has.quantifier = Has::Quantifier::kAll;
        break;
      case TokenKind::kAny:
        has.quantifier = Has::Quantifier::kAny;
        break;
      case TokenKind::kOnly:
        has.quantifier = Has::Quantifier::kOnly;
        break;
      default:
        has.quantifier = Has::Quantifier::kOne;
        break;
    }
    if (has.quantifier == Has::Quantifier::kOne) {
      if (correlated) {
        has.tuples.push_back(parse_zip());
      } else {
        has.tuples.push_back({parse_operand()});
      }
      return Expression(std::move(has));
    }
    lexer_.next();
    do {
      if (correlated) {
        has.tuples.push_back(parse_zip());
      } else {
        has.tuples.push_back({parse_operand()});
      }
    } while (accept(TokenKind::kComma));
    return Expression(std::move(has));
  }

  Lexer lexer_;
};

}  // namespace
}  // namespace optimade

OptimadeFilter parse_optimade_filter(std::string_view filter) {
  if (filter.size() > kMaxOptimadeFilterBytes) {
    throw OptimadeFilterSyntaxError(
        static_cast<int64_t>(kMaxOptimadeFilterBytes) + 1,
        "a filter of at most " + std::to_string(kMaxOptimadeFilterBytes) + " bytes",
        "a filter of " + std::to_string(filter.size()) + " bytes");
  }
  return OptimadeFilter(optimade::Parser(filter).parse_filter());
}

}  // namespace mongostore::records
