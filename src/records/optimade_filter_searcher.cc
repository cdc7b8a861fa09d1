// The translation of OPTIMADE filters onto the searcher
// (include/mongostore/records/optimade_filter_searcher.h): property names resolved to field
// paths with an OPTIMADE type, each node of the syntax tree to a searcher condition.
#include "mongostore/records/optimade_filter_searcher.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "mongostore/error.h"
#include "mongostore/records/errors.h"
#include "mongostore/records/record_store.h"

namespace mongostore::records {
namespace {

namespace o = optimade;

[[noreturn]] void fail(const char* category, const std::string& message) {
  throw FilterTranslationError(category, "OPTIMADE filter: " + message);
}
[[noreturn]] void not_implemented(const std::string& message) {
  fail("not-implemented", message + " is not supported");
}
[[noreturn]] void type_mismatch(const std::string& message) {
  fail("type-mismatch", message);
}

std::string name_of(const o::Property& p) {
  std::string out;
  for (const std::string& n : p.names) out += (out.empty() ? "" : ".") + n;
  return out;
}

// The OPTIMADE type of a property, as far as the translation needs it.
enum class Type {
  kInteger,
  kFloat,
  kString,
  kBoolean,
  kTimestamp,       // a datetime field: ISO text in UTC
  kStoreTimestamp,  // the store's own timestamp: integer units
  kDate,
  kReference,  // a reference field: the referenced sid
  kList,
  kRelationship,  // <type>.id: the list of the related records' ids
  kUnsupported,   // bytes, matrices, lists of records: the searcher cannot query them
};

std::string_view type_name(Type t) {
  switch (t) {
    case Type::kInteger:
      return "integer";
    case Type::kFloat:
      return "float";
    case Type::kString:
      return "string";
    case Type::kBoolean:
      return "boolean";
    case Type::kTimestamp:
    case Type::kStoreTimestamp:
      return "timestamp";
    case Type::kDate:
      return "date";
    case Type::kReference:
      return "reference";
    case Type::kList:
    case Type::kRelationship:
      return "list";
    case Type::kUnsupported:
      break;
  }
  return "unsupported";
}

Type scalar_type(const FieldType& t) {
  switch (t.kind) {
    case FieldKind::kInt:
      return Type::kInteger;
    case FieldKind::kFloat:
    case FieldKind::kRational:
      return Type::kFloat;
    case FieldKind::kString:
      return Type::kString;
    case FieldKind::kBool:
      return Type::kBoolean;
    case FieldKind::kDateTime:
      return Type::kTimestamp;
    case FieldKind::kDate:
      return Type::kDate;
    case FieldKind::kReference:
      return Type::kReference;
    case FieldKind::kBytes:
    case FieldKind::kMatrix:
    case FieldKind::kList:
      break;
  }
  return Type::kUnsupported;
}

// A resolved property: its field path and type, or unknown (another database's).
struct Prop {
  std::string name;
  std::optional<FieldRef> ref;  // empty: unknown on every record
  Type type = Type::kUnsupported;
  Type element = Type::kUnsupported;  // kList: the elements' type
  bool through_reference = false;
  // kRelationship: the entry type, and whether the field is a list of records (else one
  // reference).
  std::string related_type;
  bool many = false;

  bool unknown() const { return !ref.has_value(); }
  // The comparable kind of two properties.
  std::string_view family() const {
    if (type == Type::kInteger || type == Type::kFloat) return "number";
    return type_name(type);
  }
};

class Translator {
 public:
  Translator(const Var& var, const OptimadeTranslationOptions& options)
      : var_(var), options_(options) {}

  std::vector<std::string> warnings;

  Condition expression(const o::Expression& e) {
    return std::visit([this](const auto& node) { return this->node(node); }, e.node());
  }

 private:
  // --- property names ---------------------------------------------------------------------

  static bool stored_field(const RecordSchema& schema, const std::string& name) {
    auto index = schema.field_index(name);
    return index && schema.fields()[*index].stored();
  }

  std::string known_names() const {
    std::string out;
    for (const FieldSchema& f : var_.schema()->fields()) {
      if (f.stored()) out += (out.empty() ? "" : ", ") + options_.prefix + "custom_" + f.name;
    }
    for (const char* own : {"sid", "logical_id", "store_timestamp"}) {
      out += ", " + options_.prefix + own;
    }
    for (const auto& [name, path] : options_.properties) out += ", " + name;
    return out;
  }

  std::optional<FieldRef> special(const std::string& name, Type* type) const {
    if (name == "sid") {
      *type = Type::kInteger;
      return var_.sid();
    }
    if (name == "logical_id") {
      *type = Type::kInteger;
      return var_.logical_id();
    }
    if (name == "store_timestamp") {
      *type = Type::kStoreTimestamp;
      return var_.store_timestamp();
    }
    return std::nullopt;
  }

  // Follows `field` from `ref` (a reference) or, without one, from the variable.
  FieldRef follow(const std::optional<FieldRef>& ref, const std::string& field,
                  const std::string& whole) const {
    if (!ref) {
      if (!stored_field(*var_.schema(), field)) {
        fail("unrecognized-property",
             "'" + whole + "' names no stored field of " + var_.schema()->storage_name());
      }
      return var_.field(field);
    }
    const FieldSchema* here = ref->path().field_schema();
    if (!here || here->type.kind != FieldKind::kReference) {
      not_implemented("'" + whole + "': a nested name through a property that is not a reference");
    }
    std::shared_ptr<const RecordSchema> target = here->type.target_schema();
    if (!stored_field(*target, field)) {
      fail("unrecognized-property",
           "'" + whole + "': " + target->storage_name() + " has no stored field '" + field + "'");
    }
    return ref->field(field);
  }

  Prop relationship(const o::Property& property, const std::string& field) {
    Prop p;
    p.name = name_of(property);
    const std::string& type = property.names[0];
    if (property.names.size() != 2 || property.names[1] != "id") {
      not_implemented("'" + p.name + "': of a relationship only " + type +
                      ".id is translated (a nested name through the reference field '" + field +
                      "' reaches the related record's fields)");
    }
    if (!stored_field(*var_.schema(), field)) {
      throw SchemaError("relationship '" + type + "': " + var_.schema()->storage_name() +
                        " has no stored field '" + field + "'");
    }
    const FieldSchema& f = var_.schema()->fields()[*var_.schema()->field_index(field)];
    bool one = f.type.kind == FieldKind::kReference;
    bool many = f.type.kind == FieldKind::kList && f.type.element->kind == FieldKind::kReference;
    if (!one && !many) {
      throw SchemaError("relationship '" + type + "': " + field +
                        " is not a reference or a list of records");
    }
    p.ref = var_.field(field);
    p.type = Type::kRelationship;
    p.related_type = type;
    p.many = many;
    return p;
  }

  Prop resolve(const o::Property& property) {
    const std::string& first = property.names[0];
    if (auto rel = options_.relationships.find(first); rel != options_.relationships.end()) {
      return relationship(property, rel->second);
    }
    Prop p;
    p.name = name_of(property);
    std::optional<FieldRef> ref;
    Type type = Type::kUnsupported;
    auto mapped = options_.properties.find(first);
    const std::string& prefix = options_.prefix;
    if (mapped != options_.properties.end()) {
      const std::string& path = mapped->second;
      ref = special(path, &type);
      if (!ref) {
        size_t start = 0;
        while (true) {
          size_t dot = path.find('.', start);
          ref = follow(ref, path.substr(start, dot - start), p.name);
          if (dot == std::string::npos) break;
          p.through_reference = true;
          start = dot + 1;
        }
      }
    } else if (first.compare(0, prefix.size(), prefix) == 0) {
      std::string rest = first.substr(prefix.size());
      ref = special(rest, &type);
      if (!ref) {
        if (rest.rfind("custom_", 0) != 0) {
          fail("unrecognized-property", "'" + first + "' is not a property of " +
                                            var_.schema()->storage_name() +
                                            " (its properties: " + known_names() + ")");
        }
        ref = follow(std::nullopt, rest.substr(7), first);
      }
    } else if (first.size() > 2 && first[0] == '_' && first.find('_', 1) != std::string::npos &&
               first.find('_', 1) > 1) {
      // Another database's property (`_exmpl_x`): unknown here, as the specification says.
      warnings.push_back("'" + p.name + "' has another database's prefix: treated as unknown");
      return p;
    } else {
      fail("unrecognized-property", "'" + first + "' is not a property of " +
                                        var_.schema()->storage_name() +
                                        " (its properties: " + known_names() + ")");
    }
    for (size_t i = 1; i < property.names.size(); ++i) {
      if (type != Type::kUnsupported) {
        not_implemented("'" + p.name + "': a nested name after " + first);
      }
      ref = follow(ref, property.names[i], p.name);
      p.through_reference = true;
    }
    p.ref = ref;
    if (type != Type::kUnsupported) {
      p.type = type;
      return p;
    }
    const FieldSchema& f = *ref->path().field_schema();
    if (f.type.kind == FieldKind::kList) {
      p.type = Type::kList;
      p.element = scalar_type(*f.type.element);
      if (p.element == Type::kReference) p.element = Type::kUnsupported;  // records
    } else {
      p.type = scalar_type(f.type);
    }
    if (p.type == Type::kUnsupported ||
        (p.type == Type::kList && p.element == Type::kUnsupported)) {
      not_implemented("'" + p.name + "' (" + f.type.describe() + "): a filter on this type");
    }
    if (p.type == Type::kList && p.through_reference) {
      not_implemented("'" + p.name + "': a list reached through a reference");
    }
    return p;
  }

  // --- constants --------------------------------------------------------------------------

  static std::optional<int64_t> integer(const std::string& text) {
    std::string_view t = text;
    if (!t.empty() && t[0] == '+') t.remove_prefix(1);
    if (t.empty()) return std::nullopt;
    for (size_t i = 0; i < t.size(); ++i) {
      char c = t[i];
      if (!(c >= '0' && c <= '9') && !(i == 0 && c == '-')) return std::nullopt;
    }
    int64_t v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
    return v;
  }

  static bool integer_syntax(const std::string& text) {
    for (char c : text) {
      if (c == '.' || c == 'e' || c == 'E') return false;
    }
    return true;
  }

  static double real(const std::string& text, const std::string& name) {
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v) || errno == ERANGE) {
      if (!std::isfinite(v) || errno == ERANGE) {
        not_implemented("'" + name + "' compared with " + text +
                        ": a number beyond the range of a double");
      }
      type_mismatch("'" + text + "' is not a number");
    }
    return v;
  }

  // The searcher literal for constant `v` compared with values of type `t`.
  Value literal(Type t, const o::Value& v, const std::string& name) {
    if (v.kind() == o::Value::Kind::kProperty) {
      not_implemented("'" + name_of(v.property_name()) + "' as a value here (a property)");
    }
    auto mismatch = [&]() {
      std::string what = v.kind() == o::Value::Kind::kString   ? "a string"
                         : v.kind() == o::Value::Kind::kNumber ? "a number"
                                                               : "a boolean";
      type_mismatch("'" + name + "' is " + std::string(type_name(t)) + ", compared with " + what);
    };
    switch (t) {
      case Type::kInteger:
      case Type::kReference:
        if (v.kind() != o::Value::Kind::kNumber) mismatch();
        if (integer_syntax(v.text())) {
          if (auto i = integer(v.text())) return Value(*i);
          not_implemented("'" + name + "' compared with " + v.text() +
                          ": an integer beyond the range of int64");
        }
        if (t == Type::kReference) type_mismatch("'" + name + "' is a sid: an integer");
        return Value(real(v.text(), name));
      case Type::kFloat:
        if (v.kind() != o::Value::Kind::kNumber) mismatch();
        if (integer_syntax(v.text())) {
          if (auto i = integer(v.text())) return Value(static_cast<double>(*i));
        }
        return Value(real(v.text(), name));
      case Type::kString:
        if (v.kind() != o::Value::Kind::kString) mismatch();
        return Value(v.text());
      case Type::kBoolean:
        if (v.kind() != o::Value::Kind::kBoolean) mismatch();
        return Value(v.boolean_value());
      case Type::kTimestamp:
      case Type::kStoreTimestamp: {
        if (v.kind() != o::Value::Kind::kString) mismatch();
        DateTime d;
        try {
          d = DateTime::parse_iso(v.text());
        } catch (const Error&) {
          type_mismatch("'" + name + "' is a timestamp: \"" + v.text() +
                        "\" is not an RFC 3339 timestamp");
        }
        if (!d.aware) {
          type_mismatch("'" + name + "' is a timestamp: \"" + v.text() +
                        "\" has no UTC offset (RFC 3339 needs one)");
        }
        if (t == Type::kStoreTimestamp &&
            (d.micros > INT64_MAX / 1000 || d.micros < INT64_MIN / 1000)) {
          not_implemented("'" + name + "' compared with \"" + v.text() +
                          "\": a store time outside 1677..2262 (nanoseconds in 64 bits)");
        }
        return Value(d);
      }
      case Type::kDate: {
        if (v.kind() != o::Value::Kind::kString) mismatch();
        try {
          return Value(Date::parse_iso(v.text()));
        } catch (const Error&) {
          type_mismatch("'" + name + "' is a date: \"" + v.text() + "\" is not YYYY-MM-DD");
        }
      }
      case Type::kList:
      case Type::kRelationship:
      case Type::kUnsupported:
        break;
    }
    type_mismatch("'" + name + "' cannot be compared with a constant");
  }

  // --- nodes ------------------------------------------------------------------------------

  static bool fuzzy(o::Operator op) {
    return op == o::Operator::kContains || op == o::Operator::kStartsWith ||
           op == o::Operator::kEndsWith;
  }
  // Callers have dealt with the fuzzy operators before: one reaching here is a bug.
  static CompareOp compare_op(o::Operator op) {
    if (std::optional<CompareOp> compare = o::compare_op(op)) return *compare;
    throw FilterTranslationError("internal", "OPTIMADE filter: not a comparison operator");
  }
  static std::string op_text(o::Operator op) { return std::string(o::operator_text(op)); }

  Condition property_vs_constant(const Prop& p, o::Operator op, const o::Value& c) {
    if (p.unknown()) return always_unknown();
    if (p.type == Type::kList || p.type == Type::kRelationship) {
      type_mismatch("'" + p.name + "' is a list: compare its elements with HAS, not " +
                    op_text(op));
    }
    if (fuzzy(op)) {
      if (p.type != Type::kString) {
        type_mismatch("'" + p.name + "' is " + std::string(type_name(p.type)) + ": " + op_text(op) +
                      " needs a string property");
      }
      if (c.kind() == o::Value::Kind::kProperty) {
        not_implemented(op_text(op) + " with a property on the right");
      }
      Value text = literal(p.type, c, p.name);
      const std::string& s = text.as<std::string>();
      if (op == o::Operator::kContains) return p.ref->contains(s);
      if (op == o::Operator::kStartsWith) return p.ref->starts_with(s);
      return p.ref->ends_with(s);
    }
    if (p.type == Type::kBoolean && op != o::Operator::kEq && op != o::Operator::kNe) {
      not_implemented("'" + p.name + "' " + op_text(op) + ": booleans compare only with = and !=");
    }
    return p.ref->compare(compare_op(op), literal(p.type, c, p.name));
  }

  Condition property_vs_property(const Prop& a, o::Operator op, const Prop& b) {
    if (fuzzy(op)) not_implemented(op_text(op) + " with a property on the right");
    if (a.unknown() || b.unknown()) return always_unknown();
    if (a.type == Type::kList || b.type == Type::kList || a.type == Type::kRelationship ||
        b.type == Type::kRelationship) {
      not_implemented("'" + a.name + "' " + op_text(op) + " '" + b.name +
                      "': a comparison involving a list property");
    }
    if (a.family() != b.family()) {
      type_mismatch("'" + a.name + "' (" + std::string(type_name(a.type)) + ") and '" + b.name +
                    "' (" + std::string(type_name(b.type)) + ") are of different types");
    }
    if (a.type == Type::kBoolean && op != o::Operator::kEq && op != o::Operator::kNe) {
      not_implemented("'" + a.name + "' " + op_text(op) + ": booleans compare only with = and !=");
    }
    return a.ref->compare(compare_op(op), *b.ref);
  }

  Condition node(const o::Comparison& c) {
    bool left_property = c.left.kind() == o::Value::Kind::kProperty;
    bool right_property = c.right.kind() == o::Value::Kind::kProperty;
    if (!left_property && !right_property) {
      not_implemented("a comparison of two constants");
    }
    if (left_property && right_property) {
      return property_vs_property(resolve(c.left.property_name()), c.op,
                                  resolve(c.right.property_name()));
    }
    if (left_property) return property_vs_constant(resolve(c.left.property_name()), c.op, c.right);
    if (fuzzy(c.op)) not_implemented(op_text(c.op) + " with a constant on the left");
    return property_vs_constant(resolve(c.right.property_name()), o::mirrored(c.op), c.left);
  }

  Condition node(const o::BareProperty& b) {
    Prop p = resolve(b.property);
    if (p.unknown()) return always_unknown();
    if (p.type == Type::kBoolean) return p.ref->compare(CompareOp::kEq, Value(true));
    if (p.type == Type::kList || p.type == Type::kRelationship) return always_true();
    return p.ref->compare(CompareOp::kNe, kNull);
  }

  Condition node(const o::Known& k) {
    Prop p = resolve(k.property);
    if (p.unknown()) return k.known ? always_false() : always_true();
    if (p.type == Type::kList || p.type == Type::kRelationship) {
      return k.known ? always_true() : always_false();
    }
    return p.ref->compare(k.known ? CompareOp::kNe : CompareOp::kEq, kNull);
  }

  Condition element(const Prop& p, const o::Operand& operand) {
    if (fuzzy(operand.op)) not_implemented(op_text(operand.op) + " inside a HAS list");
    if (p.element == Type::kBoolean && operand.op != o::Operator::kEq &&
        operand.op != o::Operator::kNe) {
      not_implemented("'" + p.name + "' HAS " + op_text(operand.op) +
                      ": booleans compare only with = and !=");
    }
    Value v = literal(p.element, operand.value, p.name);
    if (operand.op == o::Operator::kEq) return p.ref->has(std::move(v));
    return p.ref->compare(compare_op(operand.op), std::move(v));
  }

  Condition node(const o::Has& h) {
    if (h.properties.size() != 1) {
      not_implemented("a HAS on correlated lists (" + name_of(h.properties[0]) + ":...)");
    }
    Prop p = resolve(h.properties[0]);
    for (const auto& tuple : h.tuples) {
      if (tuple.size() != 1) not_implemented("a HAS with correlated values (a:b)");
    }
    if (p.unknown()) return always_unknown();
    if (p.type == Type::kRelationship) return related(p, h);
    if (p.type != Type::kList) {
      type_mismatch("'" + p.name + "' is " + std::string(type_name(p.type)) +
                    ": HAS needs a list property");
    }
    using Q = o::Has::Quantifier;
    if (h.quantifier == Q::kOnly) {
      std::vector<Value> values;
      for (const auto& tuple : h.tuples) {
        if (tuple[0].op != o::Operator::kEq) {
          not_implemented("HAS ONLY with an operator (" + op_text(tuple[0].op) + ")");
        }
        values.push_back(literal(p.element, tuple[0].value, p.name));
      }
      return p.ref->has_only(std::move(values));
    }
    std::vector<Condition> parts;
    for (const auto& tuple : h.tuples) parts.push_back(element(p, tuple[0]));
    return h.quantifier == Q::kAll ? all_of(std::move(parts)) : any_of(std::move(parts));
  }

  // The sid of a related record's id "<type>-<sid>", or -1 (no record) for another form.
  static int64_t related_sid(const Prop& p, const o::Operand& operand) {
    if (operand.op != o::Operator::kEq) {
      not_implemented("'" + p.name + "' HAS with an operator (" + op_text(operand.op) + ")");
    }
    if (operand.value.kind() != o::Value::Kind::kString) {
      type_mismatch("'" + p.name + "' holds ids: strings \"" + p.related_type + "-<sid>\"");
    }
    const std::string& id = operand.value.text();
    std::string head = p.related_type + "-";
    if (id.compare(0, head.size(), head) != 0) return -1;
    std::string digits = id.substr(head.size());
    if (digits.empty() || digits[0] == '+' || digits[0] == '-') return -1;
    std::optional<int64_t> sid = integer(digits);
    return sid && *sid > 0 ? *sid : -1;
  }

  // HAS on `<type>.id`: a list of one (a set reference) or none, or the ids of a list of
  // records. Two-valued, as every list: a null reference is the empty list.
  Condition related(const Prop& p, const o::Has& h) {
    using Q = o::Has::Quantifier;
    std::vector<Value> sids;
    for (const auto& tuple : h.tuples) sids.emplace_back(related_sid(p, tuple[0]));
    const FieldRef& ref = *p.ref;
    if (p.many) {
      if (h.quantifier == Q::kOnly) return ref.has_only(sids);
      if (h.quantifier != Q::kAll) return ref.has_any(sids);
      std::vector<Condition> all;
      for (const Value& sid : sids) all.push_back(ref.has(sid));
      return all_of(std::move(all));
    }
    if (h.quantifier == Q::kOnly) {
      sids.insert(sids.begin(), kNull);  // the empty list has only what is listed
      return ref.is_in(sids);
    }
    if (h.quantifier == Q::kAll) {
      for (const Value& sid : sids) {
        if (!(sid == sids[0])) return always_false();  // one reference is not two records
      }
    }
    // `is_in` is unknown on a null reference; `!= null` makes it false there, so that
    // `NOT <type>.id HAS x` holds for a record without a related one.
    return ref.is_in(sids) & ref.compare(CompareOp::kNe, kNull);
  }

  Condition node(const o::Length& l) {
    Prop p = resolve(l.property);
    if (l.value.kind() == o::Value::Kind::kProperty) {
      not_implemented("LENGTH compared with a property");
    }
    if (p.unknown()) return always_unknown();
    if (p.type != Type::kList && p.type != Type::kRelationship) {
      type_mismatch("'" + p.name + "' is " + std::string(type_name(p.type)) +
                    ": LENGTH needs a list property");
    }
    if (l.value.kind() != o::Value::Kind::kNumber || !integer_syntax(l.value.text())) {
      type_mismatch("LENGTH of '" + p.name + "' compares with an integer");
    }
    std::optional<int64_t> n = integer(l.value.text());
    if (!n) not_implemented("LENGTH " + l.value.text() + ": beyond the range of int64");
    if (p.type == Type::kRelationship && !p.many) {
      // One reference: a list of 1 when set, of 0 when null.
      auto holds = [&](int64_t length) {
        switch (compare_op(l.op)) {
          case CompareOp::kEq:
            return length == *n;
          case CompareOp::kNe:
            return length != *n;
          case CompareOp::kLt:
            return length < *n;
          case CompareOp::kLe:
            return length <= *n;
          case CompareOp::kGt:
            return length > *n;
          case CompareOp::kGe:
            return length >= *n;
        }
        return false;
      };
      bool empty = holds(0), set = holds(1);
      if (empty && set) return always_true();
      if (!empty && !set) return always_false();
      return p.ref->compare(set ? CompareOp::kNe : CompareOp::kEq, kNull);
    }
    return p.ref->length(compare_op(l.op), *n);
  }

  Condition node(const o::Logical& l) {
    if (l.op == o::Logical::Op::kNot) return ~expression(l.operands[0]);
    std::vector<Condition> parts;
    for (const o::Expression* e : o::chained_operands(l)) parts.push_back(expression(*e));
    return l.op == o::Logical::Op::kAnd ? all_of(std::move(parts)) : any_of(std::move(parts));
  }

  const Var& var_;
  const OptimadeTranslationOptions& options_;
};

}  // namespace

OptimadeTranslation translate_optimade_filter(const OptimadeFilter& filter, const Var& record,
                                              const OptimadeTranslationOptions& options) {
  if (options.prefix.size() < 3 || options.prefix.front() != '_' || options.prefix.back() != '_') {
    throw Error(ErrorCode::kBadValue,
                "an OPTIMADE database prefix is `_name_`, not '" + options.prefix + "'");
  }
  Translator t(record, options);
  Condition c = t.expression(filter.root());
  return OptimadeTranslation{std::move(c), std::move(t.warnings)};
}

OptimadeSearch optimade_filter_searcher(RecordStore& store,
                                        const std::shared_ptr<const RecordSchema>& schema,
                                        std::string_view filter,
                                        const OptimadeTranslationOptions& options,
                                        SearchOptions search_options) {
  OptimadeFilter parsed = parse_optimade_filter(filter);
  Searcher searcher = store.searcher(std::move(search_options));
  Var record = searcher.variable(schema);
  OptimadeTranslation t = translate_optimade_filter(parsed, record, options);
  searcher.add(t.condition);
  return OptimadeSearch{std::move(searcher), record, std::move(t.warnings)};
}

}  // namespace mongostore::records
