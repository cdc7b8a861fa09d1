// The query vocabulary (include/mongostore/records/query.h): building paths and conditions.
// Type checks that need the literal's kind happen when the searcher compiles the query.
#include "mongostore/records/query.h"

#include "mongostore/error.h"

namespace mongostore::records {
namespace {

std::shared_ptr<const CondNode> node(CondNode n) {
  return std::make_shared<const CondNode>(std::move(n));
}

const FieldSchema& stored_field(const RecordSchema& schema, std::string_view name) {
  auto index = schema.field_index(name);
  if (!index) {
    throw SchemaError(schema.identity_name() + " has no field '" + std::string(name) + "'");
  }
  const FieldSchema& f = schema.fields()[*index];
  if (!f.stored()) {
    throw SchemaError(schema.identity_name() + "." + f.name + " is not stored (skip)");
  }
  return f;
}

}  // namespace

std::string FieldPath::describe() const {
  std::string out = "v" + std::to_string(var);
  for (const auto& [schema, index] : hops) out += "." + schema->fields()[index].name;
  switch (end) {
    case PathEnd::kField:
      return out + "." + owner->fields()[field].name;
    case PathEnd::kSid:
      return out + ".sid";
    case PathEnd::kLogicalId:
      return out + ".logical_id";
    case PathEnd::kStoreTimestamp:
      return out + ".store_timestamp";
    case PathEnd::kContentId:
      return out + ".content_id";
  }
  return out;
}

Condition operator&(const Condition& a, const Condition& b) {
  CondNode n;
  n.kind = CondNode::Kind::kAnd;
  n.children = {a.ptr(), b.ptr()};
  return Condition(node(std::move(n)));
}
Condition operator|(const Condition& a, const Condition& b) {
  CondNode n;
  n.kind = CondNode::Kind::kOr;
  n.children = {a.ptr(), b.ptr()};
  return Condition(node(std::move(n)));
}
namespace {

Condition balanced(std::vector<Condition> parts, bool conjunction) {
  if (parts.empty()) return conjunction ? always_true() : always_false();
  while (parts.size() > 1) {
    std::vector<Condition> next;
    next.reserve((parts.size() + 1) / 2);
    for (size_t i = 0; i + 1 < parts.size(); i += 2) {
      next.push_back(conjunction ? (parts[i] & parts[i + 1]) : (parts[i] | parts[i + 1]));
    }
    if (parts.size() % 2) next.push_back(parts.back());
    parts = std::move(next);
  }
  return parts[0];
}

}  // namespace

Condition all_of(std::vector<Condition> parts) {
  return balanced(std::move(parts), true);
}
Condition any_of(std::vector<Condition> parts) {
  return balanced(std::move(parts), false);
}

Condition operator~(const Condition& a) {
  CondNode n;
  n.kind = CondNode::Kind::kNot;
  n.children = {a.ptr()};
  return Condition(node(std::move(n)));
}
Condition always_true() {
  CondNode n;
  n.kind = CondNode::Kind::kTrue;
  return Condition(node(std::move(n)));
}
Condition always_false() {
  CondNode n;
  n.kind = CondNode::Kind::kFalse;
  return Condition(node(std::move(n)));
}

Condition always_unknown() {
  CondNode n;
  n.kind = CondNode::Kind::kUnknown;
  return Condition(node(std::move(n)));
}

FieldRef Var::field(std::string_view name) const {
  const FieldSchema& f = stored_field(*schema_, name);
  FieldPath p;
  p.var = index_;
  p.var_schema = schema_;
  p.owner = schema_;
  p.field = *schema_->field_index(f.name);
  return FieldRef(std::move(p));
}

FieldRef Var::special(PathEnd end) const {
  FieldPath p;
  p.var = index_;
  p.var_schema = schema_;
  p.owner = schema_;
  p.end = end;
  return FieldRef(std::move(p));
}

FieldRef FieldRef::field(std::string_view name) const {
  const FieldSchema* here = path_.field_schema();
  if (!here || here->type.kind != FieldKind::kReference) {
    throw SchemaError(path_.describe() + " is not a reference: it has no field '" +
                      std::string(name) + "'");
  }
  std::shared_ptr<const RecordSchema> target = here->type.target_schema();
  const FieldSchema& f = stored_field(*target, name);
  FieldPath p = path_;
  p.hops.emplace_back(path_.owner, path_.field);
  p.owner = target;
  p.field = *target->field_index(f.name);
  return FieldRef(std::move(p));
}

Condition FieldRef::compare(CompareOp op, Value literal) const {
  CondNode n;
  n.kind = CondNode::Kind::kCompare;
  n.op = op;
  n.lhs = path_;
  n.values = {std::move(literal)};
  return Condition(node(std::move(n)));
}

namespace {
void check_exact_field(const FieldPath& path) {
  const FieldSchema* f = path.field_schema();
  if (!f || (f->type.kind != FieldKind::kRational && f->type.kind != FieldKind::kFloat)) {
    throw SchemaError(path.describe() + ": exact comparisons need a rational or float field");
  }
}
}  // namespace

Condition FieldRef::exact(CompareOp op, Rational value) const {
  check_exact_field(path_);
  CondNode n;
  n.kind = CondNode::Kind::kExact;
  n.op = op;
  n.lhs = path_;
  n.values = {Value(std::move(value))};
  return Condition(node(std::move(n)));
}

ScaleFactor::ScaleFactor(const FieldRef& field) : field_(field.path()) {
  // A factor is multiplied on the server (its query column) and exactly on the client (its
  // decoded value): a number field, not a list of them.
  const FieldSchema* f = field_->field_schema();
  if (!f || (f->type.kind != FieldKind::kRational && f->type.kind != FieldKind::kFloat &&
             f->type.kind != FieldKind::kInt)) {
    throw SchemaError(field_->describe() +
                      ": a scaled comparison's factor must be a rational, float or int field");
  }
}

Condition FieldRef::scaled(const ScaleFactor& factor, CompareOp op, Rational value) const {
  check_exact_field(path_);
  CondNode n;
  n.kind = CondNode::Kind::kExact;
  n.op = op;
  n.lhs = path_;
  n.lhs_factor = factor.field();
  n.values = {Value(std::move(value)), Value(factor.literal())};
  return Condition(node(std::move(n)));
}

Condition FieldRef::scaled(const ScaleFactor& factor, CompareOp op, const FieldRef& other,
                           const ScaleFactor& other_factor) const {
  check_exact_field(path_);
  check_exact_field(other.path_);
  CondNode n;
  n.kind = CondNode::Kind::kExactField;
  n.op = op;
  n.lhs = path_;
  n.rhs = other.path_;
  n.lhs_factor = factor.field();
  n.rhs_factor = other_factor.field();
  n.values = {Value(factor.literal()), Value(other_factor.literal())};
  return Condition(node(std::move(n)));
}

Condition FieldRef::compare(CompareOp op, const FieldRef& other) const {
  CondNode n;
  n.kind = CondNode::Kind::kCompareField;
  n.op = op;
  n.lhs = path_;
  n.rhs = other.path_;
  return Condition(node(std::move(n)));
}

Condition FieldRef::is_in(std::vector<Value> values) const {
  CondNode n;
  n.kind = CondNode::Kind::kIn;
  n.lhs = path_;
  n.values = std::move(values);
  return Condition(node(std::move(n)));
}

namespace {
Condition set_condition(CondNode::Kind kind, const FieldPath& path, std::vector<Value> values) {
  for (const Value& v : values) {
    if (v.is_null()) {
      throw Error(ErrorCode::kBadValue,
                  path.describe() + ": a null member of has/has_any/has_only matches nothing");
    }
  }
  CondNode n;
  n.kind = kind;
  n.lhs = path;
  n.values = std::move(values);
  return Condition(node(std::move(n)));
}
Condition string_condition(StringOp op, const FieldPath& path, std::string text) {
  CondNode n;
  n.kind = CondNode::Kind::kString;
  n.string_op = op;
  n.lhs = path;
  n.text = std::move(text);
  return Condition(node(std::move(n)));
}
}  // namespace

Condition FieldRef::has_any(std::vector<Value> values) const {
  return set_condition(CondNode::Kind::kHasAny, path_, std::move(values));
}
Condition FieldRef::has_only(std::vector<Value> values) const {
  return set_condition(CondNode::Kind::kHasOnly, path_, std::move(values));
}
Condition FieldRef::length(CompareOp op, int64_t n) const {
  const FieldSchema* f = path_.field_schema();
  if (!f || f->type.kind != FieldKind::kList) {
    throw SchemaError(path_.describe() + " is not a list: length needs one");
  }
  CondNode c;
  c.kind = CondNode::Kind::kLength;
  c.op = op;
  c.lhs = path_;
  c.values = {Value(n)};
  return Condition(node(std::move(c)));
}
Condition FieldRef::contains(std::string text) const {
  return string_condition(StringOp::kContains, path_, std::move(text));
}
Condition FieldRef::starts_with(std::string text) const {
  return string_condition(StringOp::kStartsWith, path_, std::move(text));
}
Condition FieldRef::ends_with(std::string text) const {
  return string_condition(StringOp::kEndsWith, path_, std::move(text));
}

}  // namespace mongostore::records
