#include "optimade/optimade_entry_filter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mongostore/records/errors.h"

namespace mongostore::tool::optimade {
namespace {

namespace o = records::optimade;
using records::CompareOp;
using records::Condition;
using records::FilterTranslationError;

enum class Own { kNone, kId, kImmutableId, kType };

Own own_property(const o::Property& p) {
  if (p.names.size() != 1) return Own::kNone;
  if (p.names[0] == "id") return Own::kId;
  if (p.names[0] == "immutable_id") return Own::kImmutableId;
  if (p.names[0] == "type") return Own::kType;
  return Own::kNone;
}

Own own_value(const o::Value& v) {
  return v.kind() == o::Value::Kind::kProperty ? own_property(v.property_name()) : Own::kNone;
}

const char* name_of(Own p) {
  return p == Own::kId ? "id" : p == Own::kType ? "type" : "immutable_id";
}

// `value op text` for a constant `value`, as OPTIMADE compares strings (byte-wise).
bool holds(const std::string& value, o::Operator op, const std::string& text) {
  switch (op) {
    case o::Operator::kEq:
      return value == text;
    case o::Operator::kNe:
      return value != text;
    case o::Operator::kLt:
      return value < text;
    case o::Operator::kLe:
      return value <= text;
    case o::Operator::kGt:
      return value > text;
    case o::Operator::kGe:
      return value >= text;
    case o::Operator::kContains:
      return value.find(text) != std::string::npos;
    case o::Operator::kStartsWith:
      return value.compare(0, text.size(), text) == 0 && text.size() <= value.size();
    case o::Operator::kEndsWith:
      return text.size() <= value.size() &&
             value.compare(value.size() - text.size(), text.size(), text) == 0;
  }
  return false;
}

class Translator {
 public:
  Translator(const OptimadeEntryType& type, const records::Var& record,
             const records::OptimadeTranslationOptions& options)
      : type_(type), record_(record), options_(options) {}

  Condition expression(const o::Expression& e) {
    if (const auto* l = e.get_if<o::Logical>()) return logical(*l);
    if (std::optional<Condition> c = own(e)) return *c;
    records::OptimadeTranslation t =
        records::translate_optimade_filter(records::OptimadeFilter(e), record_, options_);
    for (std::string& w : t.warnings) warnings.push_back(std::move(w));
    return t.condition;
  }

  std::vector<std::string> warnings;

 private:
  Condition logical(const o::Logical& l) {
    if (l.op == o::Logical::Op::kNot) return ~expression(l.operands[0]);
    std::vector<Condition> parts;
    for (const o::Expression* e : o::chained_operands(l)) parts.push_back(expression(*e));
    return l.op == o::Logical::Op::kAnd ? records::all_of(std::move(parts))
                                        : records::any_of(std::move(parts));
  }

  // The condition of a leaf on `id` or `immutable_id`; nullopt for any other leaf.
  std::optional<Condition> own(const o::Expression& e) {
    if (const auto* c = e.get_if<o::Comparison>()) return comparison(*c);
    if (const auto* b = e.get_if<o::BareProperty>()) {
      Own p = own_property(b->property);
      if (p == Own::kNone) return std::nullopt;
      return known(p, true);
    }
    if (const auto* k = e.get_if<o::Known>()) {
      Own p = own_property(k->property);
      if (p == Own::kNone) return std::nullopt;
      return known(p, k->known);
    }
    if (const auto* h = e.get_if<o::Has>()) {
      for (const o::Property& p : h->properties) {
        Own which = own_property(p);
        if (which != Own::kNone) {
          throw FilterTranslationError("type-mismatch", std::string("HAS on '") + name_of(which) +
                                                            "', a string, not a list");
        }
      }
      return std::nullopt;
    }
    if (const auto* n = e.get_if<o::Length>()) {
      Own which = own_property(n->property);
      if (which != Own::kNone) {
        throw FilterTranslationError("type-mismatch", std::string("LENGTH of '") + name_of(which) +
                                                          "', a string, not a list");
      }
    }
    return std::nullopt;
  }

  Condition known(Own p, bool is_known) {
    if (p != Own::kImmutableId) return is_known ? records::always_true() : records::always_false();
    return record_.content_id().compare(is_known ? CompareOp::kNe : CompareOp::kEq, records::kNull);
  }

  std::optional<Condition> comparison(const o::Comparison& c) {
    Own left = own_value(c.left), right = own_value(c.right);
    if (left == Own::kNone && right == Own::kNone) return std::nullopt;
    Own which = left != Own::kNone ? left : right;
    const o::Value& other = left != Own::kNone ? c.right : c.left;
    if (!other.is_constant()) {
      throw FilterTranslationError("not-implemented", std::string("comparing '") + name_of(which) +
                                                          "' with another property");
    }
    bool fuzzy = c.op == o::Operator::kContains || c.op == o::Operator::kStartsWith ||
                 c.op == o::Operator::kEndsWith;
    if (left == Own::kNone && fuzzy) {
      throw FilterTranslationError(
          "not-implemented",
          std::string(o::operator_text(c.op)) + " with '" + name_of(which) + "' on the right");
    }
    if (other.kind() != o::Value::Kind::kString) {
      throw FilterTranslationError(
          "type-mismatch", std::string("'") + name_of(which) + "' is a string, compared with a " +
                               (other.kind() == o::Value::Kind::kNumber ? "number" : "boolean"));
    }
    o::Operator op = left != Own::kNone ? c.op : o::mirrored(c.op);
    const std::string& text = other.text();
    if (which == Own::kType) {
      return holds(type_.name(), op, text) ? records::always_true() : records::always_false();
    }
    return which == Own::kId ? id(op, text) : immutable_id(op, text);
  }

  Condition immutable_id(o::Operator op, const std::string& text) {
    records::FieldRef content = record_.content_id();
    if (std::optional<CompareOp> compare = o::compare_op(op)) {
      return content.compare(*compare, records::Value(text));
    }
    switch (op) {
      case o::Operator::kContains:
        return content.contains(text);
      case o::Operator::kStartsWith:
        return content.starts_with(text);
      case o::Operator::kEndsWith:
        return content.ends_with(text);
      default:
        break;
    }
    throw FilterTranslationError("internal",
                                 "OPTIMADE filter: an operator neither compares nor "
                                 "matches a string");
  }

  Condition id(o::Operator op, const std::string& text) {
    records::FieldRef sid = record_.sid();
    switch (op) {
      case o::Operator::kEq:
      case o::Operator::kNe: {
        bool eq = op == o::Operator::kEq;
        int64_t n = type_.sid_of(text);
        if (n <= 0) return eq ? records::always_false() : records::always_true();
        return sid.compare(eq ? CompareOp::kEq : CompareOp::kNe, records::Value(n));
      }
      case o::Operator::kStartsWith:
        return id_starts_with(text);
      default:
        throw FilterTranslationError("not-implemented",
                                     "'id' " + std::string(o::operator_text(op)) +
                                         " (ids are compared with =, != and STARTS WITH only)");
    }
  }

  Condition id_starts_with(const std::string& text) {
    std::string head = type_.name() + "-";
    if (head.compare(0, text.size(), text) == 0 && text.size() <= head.size()) {
      return records::always_true();
    }
    if (text.compare(0, head.size(), head) != 0) return records::always_false();
    std::string digits = text.substr(head.size());
    // The id's digits are the sid's, without leading zeros (sids start at 1).
    if (digits.size() > 19 || digits[0] == '0') return records::always_false();
    int64_t lo = 0;
    for (char d : digits) {
      if (d < '0' || d > '9' || lo > (INT64_MAX - (d - '0')) / 10) return records::always_false();
      lo = lo * 10 + (d - '0');
    }
    // The sids written `digits` then k more digits: [lo * 10^k, (lo + 1) * 10^k - 1].
    records::FieldRef sid = record_.sid();
    std::vector<Condition> ranges;
    int64_t hi = lo;
    while (true) {
      ranges.push_back(sid.compare(CompareOp::kGe, records::Value(lo)) &
                       sid.compare(CompareOp::kLe, records::Value(hi)));
      if (lo > INT64_MAX / 10) break;
      lo *= 10;
      hi = hi > (INT64_MAX - 9) / 10 ? INT64_MAX : hi * 10 + 9;
    }
    return records::any_of(std::move(ranges));
  }

  const OptimadeEntryType& type_;
  const records::Var& record_;
  const records::OptimadeTranslationOptions& options_;
};

}  // namespace

records::OptimadeTranslation translate_entry_filter(
    const records::OptimadeFilter& filter, const OptimadeEntryType& type,
    const records::Var& record, const records::OptimadeTranslationOptions& options) {
  Translator t(type, record, options);
  Condition c = t.expression(filter.root());
  return records::OptimadeTranslation{std::move(c), std::move(t.warnings)};
}

}  // namespace mongostore::tool::optimade
