// Parsing a filter document into the expression tree, with MongoDB's error codes and
// messages for malformed filters.
#include <cmath>
#include <string>
#include <string_view>

#include "engine/matcher/expression.h"
#include "mongostore/bson/compare.h"
#include "mongostore/error.h"

namespace mongostore::engine::matcher_detail {

namespace {

using bson::BsonType;
using bson::DocumentView;
using bson::Value;

using Equalities = std::vector<std::pair<std::string, Value>>;

[[noreturn]] void bad_value(std::string message) {
  throw Error(ErrorCode::kBadValue, std::move(message));
}

[[noreturn]] void not_implemented(std::string_view op) {
  throw Error(ErrorCode::kNotImplemented,
              std::string(op) + " is not supported by mongostore's embedded engine");
}

std::string_view first_key(DocumentView doc) {
  auto it = doc.begin();
  return it == doc.end() ? std::string_view() : it->key;
}

// {$gt: 1, ...}: a document whose first key is an operator (DBRef documents are literals).
bool is_operator_document(const Value& v) {
  if (!v.is_document()) return false;
  std::string_view k = first_key(v.as_document());
  if (k.empty() || k[0] != '$') return false;
  return k != "$ref" && k != "$id" && k != "$db";
}

// Operators that take whole documents rather than one field's values.
bool is_top_level_operator(std::string_view name) {
  return name == "$and" || name == "$or" || name == "$nor" || name == "$where" || name == "$expr" ||
         name == "$comment" || name == "$alwaysTrue" || name == "$alwaysFalse" || name == "$text" ||
         name == "$jsonSchema" || name == "$sampleRate";
}

// A number that is a whole value representable as long long; false otherwise.
bool whole_number(const Value& v, long long* out) {
  if (v.type() == BsonType::kInt32) {
    *out = v.as_int32();
    return true;
  }
  if (v.type() == BsonType::kInt64) {
    *out = v.as_int64();
    return true;
  }
  if (!v.is_number()) return false;
  double d = v.number_as_double();
  if (std::isnan(d) || std::isinf(d) || std::trunc(d) != d || std::fabs(d) > 9.2e18) return false;
  *out = static_cast<long long>(d);
  return true;
}

NodePtr make_and(std::vector<NodePtr> children) {
  if (children.size() == 1) return std::move(children.front());
  if (children.empty()) return std::make_unique<ConstNode>(true);
  return std::make_unique<AndNode>(std::move(children));
}

NodePtr leaf(const FieldPath& path, PredicatePtr pred) {
  return std::make_unique<PathNode>(path, std::move(pred));
}

struct TypeAlias {
  std::string_view name;
  int code;
};
constexpr TypeAlias kTypeAliases[] = {
    {"double", 1},      {"string", 2},     {"object", 3},
    {"array", 4},       {"binData", 5},    {"undefined", 6},
    {"objectId", 7},    {"bool", 8},       {"date", 9},
    {"null", 10},       {"regex", 11},     {"dbPointer", 12},
    {"javascript", 13}, {"symbol", 14},    {"javascriptWithScope", 15},
    {"int", 16},        {"timestamp", 17}, {"long", 18},
    {"decimal", 19},    {"minKey", -1},    {"maxKey", 127},
};

bool valid_type_code(long long c) {
  return (c >= 1 && c <= 19) || c == -1 || c == 127;
}

void parse_type_element(const Value& v, std::vector<int>* codes, bool* number) {
  if (v.is_string()) {
    std::string_view name = v.as_string();
    if (name == "number") {
      *number = true;
      return;
    }
    for (const auto& a : kTypeAliases) {
      if (a.name == name) {
        codes->push_back(a.code);
        return;
      }
    }
    bad_value("Unknown type name alias: " + std::string(name));
  }
  if (v.is_number()) {
    long long c = 0;
    if (!whole_number(v, &c) || !valid_type_code(c)) {
      bad_value("Invalid numerical type code: " + v.to_json());
    }
    codes->push_back(static_cast<int>(c));
    return;
  }
  throw Error(ErrorCode::kTypeMismatch, "type must be represented as a number or a string");
}

class Parser {
 public:
  Parser(Equalities* equalities, const MatcherOptions& options)
      : equalities_(equalities), options_(options) {}

  // A whole filter (or $and/$or/$nor entry, or object-form $elemMatch): an implicit AND.
  NodePtr filter(DocumentView doc, bool top) {
    DepthGuard guard(this);
    std::vector<NodePtr> children;
    for (const auto& el : doc) {
      NodePtr n = (!el.key.empty() && el.key[0] == '$') ? top_level(el.key, el.value, top)
                                                        : field(el.key, el.value, top);
      if (n) children.push_back(std::move(n));
    }
    return make_and(std::move(children));
  }

 private:
  static constexpr int kMaxDepth = 100;  // MongoDB's limit on query tree depth

  struct DepthGuard {
    explicit DepthGuard(Parser* p) : parser(p) {
      if (++parser->depth_ > kMaxDepth) {
        bad_value("exceeded maximum query tree depth of " + std::to_string(kMaxDepth));
      }
    }
    ~DepthGuard() { --parser->depth_; }
    Parser* parser;
  };

  NodePtr top_level(std::string_view name, const Value& v, bool top) {
    if (name == "$and" || name == "$or" || name == "$nor") {
      if (!v.is_array()) bad_value(std::string(name) + " must be an array");
      std::vector<NodePtr> children;
      for (const auto& el : v.as_array()) {
        if (!el.value.is_document()) bad_value("$or/$and/$nor entries need to be full objects");
        children.push_back(filter(el.value.as_document(), top && name == "$and"));
      }
      if (children.empty()) bad_value("$and/$or/$nor must be a nonempty array");
      if (name == "$and") return std::make_unique<AndNode>(std::move(children));
      if (name == "$or") return std::make_unique<OrNode>(std::move(children));
      return std::make_unique<NorNode>(std::move(children));
    }
    if (name == "$comment") return nullptr;
    if (name == "$alwaysTrue" || name == "$alwaysFalse") {
      long long n = 0;
      if (!whole_number(v, &n) || n != 1) {
        throw Error(ErrorCode::kFailedToParse,
                    std::string(name) + " must be an integer value of 1");
      }
      return std::make_unique<ConstNode>(name == "$alwaysTrue");
    }
    if (name == "$expr") {
      if (ExprCompiler compile = installed_expr_compiler())
        return std::make_unique<ExprNode>(compile(v, options_.collation));
    }
    if (name == "$jsonSchema") {
      if (!options_.allow_json_schema) {
        throw Error(ErrorCode::kQueryFeatureNotAllowed,
                    "$jsonSchema is not allowed in this context");
      }
      return make_json_schema(v);
    }
    if (name == "$where" || name == "$text" || name == "$expr" || name == "$sampleRate") {
      not_implemented(name);
    }
    bad_value("unknown top level operator: " + std::string(name) +
              ". If you have a field name that starts with a '$' symbol, consider using "
              "$getField or $setField.");
  }

  void record_equality(std::string_view path, const Value& v, bool top) {
    if (top && equalities_) equalities_->emplace_back(std::string(path), v);
  }

  NodePtr field(std::string_view dotted, const Value& v, bool top) {
    FieldPath path(dotted);
    if (v.type() == BsonType::kRegex) {
      bson::RegexView r = v.as_regex();
      return leaf(path, make_regex(Regex(r.pattern, r.options)));
    }
    if (is_operator_document(v)) return operators(path, v.as_document(), top);
    record_equality(dotted, v, top);
    return leaf(path, make_compare(CompareOp::kEq, v, strings()));
  }

  // {$gt: 1, $lt: 5, ...} for one path (empty inside a value-form $elemMatch).
  NodePtr operators(const FieldPath& path, DocumentView ops, bool top) {
    DepthGuard guard(this);
    Value regex = ops.get("$regex");
    Value options = ops.get("$options");
    if (!options.is_missing() && regex.is_missing()) bad_value("$options needs a $regex");
    std::vector<NodePtr> children;
    for (const auto& el : ops) {
      if (el.key == "$options") continue;
      if (el.key == "$regex") {
        children.push_back(regex_node(path, regex, options));
        continue;
      }
      children.push_back(op(path, el.key, el.value, top));
    }
    return make_and(std::move(children));
  }

  NodePtr regex_node(const FieldPath& path, const Value& regex, const Value& options) {
    std::string_view pattern;
    std::string_view flags;
    if (regex.type() == BsonType::kRegex) {
      bson::RegexView r = regex.as_regex();
      pattern = r.pattern;
      flags = r.options;
    } else if (regex.is_string()) {
      pattern = regex.as_string();
    } else {
      bad_value("$regex has to be a string");
    }
    if (!options.is_missing()) {
      if (!options.is_string()) bad_value("$options has to be a string");
      if (!flags.empty() && !options.as_string().empty()) {
        bad_value("options set in both $regex and $options");
      }
      if (!options.as_string().empty()) flags = options.as_string();
    }
    return leaf(path, make_regex(Regex(pattern, flags)));
  }

  NodePtr compare(const FieldPath& path, CompareOp op, const Value& v) {
    return leaf(path, make_compare(op, v, strings()));
  }

  NodePtr in_node(const FieldPath& path, std::string_view name, const Value& v) {
    if (!v.is_array()) bad_value(std::string(name) + " needs an array");
    std::vector<Value> values;
    std::vector<Regex> regexes;
    for (const auto& el : v.as_array()) {
      if (el.value.type() == BsonType::kRegex) {
        bson::RegexView r = el.value.as_regex();
        regexes.emplace_back(r.pattern, r.options);
      } else if (is_operator_document(el.value)) {
        bad_value("cannot nest $ under " + std::string(name));
      } else {
        values.push_back(el.value);
      }
    }
    return leaf(path, make_in(std::move(values), std::move(regexes), strings()));
  }

  PredicatePtr elem_match(const Value& v) {
    if (!v.is_document()) bad_value("$elemMatch needs an Object");
    DocumentView doc = v.as_document();
    std::string_view k = first_key(doc);
    if (!k.empty() && k[0] == '$' && !is_top_level_operator(k) && is_operator_document(v)) {
      return make_elem_match_value(operators(FieldPath(), doc, false));
    }
    return make_elem_match_object(filter(doc, false));
  }

  NodePtr all_node(const FieldPath& path, const Value& v) {
    if (!v.is_array()) bad_value("$all needs an array");
    DocumentView array = v.as_array();
    auto is_elem_match = [](const Value& e) {
      return e.is_document() && first_key(e.as_document()) == "$elemMatch";
    };
    auto first = array.begin();
    if (first == array.end()) return std::make_unique<ConstNode>(false);
    bool elem_matches = is_elem_match(first->value);
    std::vector<NodePtr> children;
    for (const auto& el : array) {
      if (is_elem_match(el.value) != elem_matches)
        bad_value("$all/$elemMatch has to be consistent");
      if (elem_matches) {
        children.push_back(leaf(path, elem_match(el.value.as_document().get("$elemMatch"))));
      } else if (el.value.type() == BsonType::kRegex) {
        bson::RegexView r = el.value.as_regex();
        children.push_back(leaf(path, make_regex(Regex(r.pattern, r.options))));
      } else if (is_operator_document(el.value)) {
        bad_value("no $ expressions in $all");
      } else {
        children.push_back(compare(path, CompareOp::kEq, el.value));
      }
    }
    return make_and(std::move(children));
  }

  NodePtr type_node(const FieldPath& path, const Value& v) {
    std::vector<int> codes;
    bool number = false;
    if (v.is_array()) {
      for (const auto& el : v.as_array()) parse_type_element(el.value, &codes, &number);
    } else {
      parse_type_element(v, &codes, &number);
    }
    return leaf(path, make_type(std::move(codes), number));
  }

  NodePtr size_node(const FieldPath& path, const Value& v) {
    if (!v.is_number()) bad_value("$size needs a number");
    long long n = 0;
    if (!whole_number(v, &n)) bad_value("$size must be a whole number");
    if (n < 0) bad_value("$size may not be negative");
    return leaf(path, make_size(n));
  }

  NodePtr mod_node(const FieldPath& path, const Value& v) {
    if (!v.is_array()) bad_value("malformed mod, needs to be an array");
    auto it = v.as_array().begin();
    auto end = v.as_array().end();
    if (it == end) bad_value("malformed mod, not enough elements");
    Value divisor = it->value;
    if (++it == end) bad_value("malformed mod, not enough elements");
    Value remainder = it->value;
    if (++it != end) bad_value("malformed mod, too many elements");
    if (!divisor.is_number()) bad_value("malformed mod, divisor not a number");
    if (!remainder.is_number()) bad_value("malformed mod, remainder not a number");
    double d = divisor.number_as_double();
    double r = remainder.number_as_double();
    if (std::isnan(d) || std::isinf(d)) bad_value("malformed mod, divisor value is invalid");
    if (std::isnan(r) || std::isinf(r)) bad_value("malformed mod, remainder value is invalid");
    // A number beyond long long's range is refused as mongod's coercion refuses it (the cast
    // below would be undefined behaviour).
    constexpr double kTwoTo63 = 9223372036854775808.0;
    auto out_of_range = [&](double x) {
      return !(std::trunc(x) >= -kTwoTo63 && std::trunc(x) < kTwoTo63);
    };
    if (divisor.type() != BsonType::kInt64 && out_of_range(d)) {
      bad_value(
          "malformed mod, divisor value is invalid :: caused by :: Out of bounds coercing "
          "to integral value");
    }
    if (remainder.type() != BsonType::kInt64 && out_of_range(r)) {
      bad_value(
          "malformed mod, remainder value is invalid :: caused by :: Out of bounds "
          "coercing to integral value");
    }
    long long dv = divisor.type() == BsonType::kInt64 ? divisor.as_int64()
                                                      : static_cast<long long>(std::trunc(d));
    long long rv = remainder.type() == BsonType::kInt64 ? remainder.as_int64()
                                                        : static_cast<long long>(std::trunc(r));
    if (dv == 0) bad_value("divisor cannot be 0");
    return leaf(path, make_mod(dv, rv));
  }

  NodePtr not_node(const FieldPath& path, const Value& v) {
    if (v.type() == BsonType::kRegex) {
      bson::RegexView r = v.as_regex();
      return std::make_unique<NotNode>(leaf(path, make_regex(Regex(r.pattern, r.options))));
    }
    if (!v.is_document()) bad_value("$not needs a regex or a document");
    DocumentView doc = v.as_document();
    if (doc.empty()) bad_value("$not cannot be empty");
    if (!is_operator_document(v)) {
      bad_value("$not argument must be a regex or an object of operators, not " + v.to_json());
    }
    return std::make_unique<NotNode>(operators(path, doc, false));
  }

  NodePtr op(const FieldPath& path, std::string_view name, const Value& v, bool top) {
    if (name == "$eq") {
      record_equality(path.dotted(), v, top);
      return compare(path, CompareOp::kEq, v);
    }
    if (name == "$ne") {
      if (v.type() == BsonType::kRegex) bad_value("Can't have regex as arg to $ne.");
      return std::make_unique<NotNode>(compare(path, CompareOp::kEq, v));
    }
    if (name == "$gt") return compare(path, CompareOp::kGt, v);
    if (name == "$gte") return compare(path, CompareOp::kGte, v);
    if (name == "$lt") return compare(path, CompareOp::kLt, v);
    if (name == "$lte") return compare(path, CompareOp::kLte, v);
    if (name == "$in") return in_node(path, name, v);
    if (name == "$nin") return std::make_unique<NotNode>(in_node(path, name, v));
    if (name == "$exists") {
      NodePtr exists = leaf(path, make_exists());
      if (v.truthy()) return exists;
      return std::make_unique<NotNode>(std::move(exists));
    }
    if (name == "$type") return type_node(path, v);
    if (name == "$size") return size_node(path, v);
    if (name == "$mod") return mod_node(path, v);
    if (name == "$all") return all_node(path, v);
    if (name == "$elemMatch") return leaf(path, elem_match(v));
    if (name == "$not") return not_node(path, v);
    if (name == "$bitsAllSet") return leaf(path, make_bits(BitsOp::kAllSet, name, v));
    if (name == "$bitsAllClear") return leaf(path, make_bits(BitsOp::kAllClear, name, v));
    if (name == "$bitsAnySet") return leaf(path, make_bits(BitsOp::kAnySet, name, v));
    if (name == "$bitsAnyClear") return leaf(path, make_bits(BitsOp::kAnyClear, name, v));
    if (name == "$near" || name == "$nearSphere" || name == "$geoWithin" ||
        name == "$geoIntersects" || name == "$within" || name == "$maxDistance" ||
        name == "$minDistance") {
      not_implemented(name);
    }
    bad_value("unknown operator: " + std::string(name));
  }

  Equalities* equalities_;
  MatcherOptions options_;
  // The collation string comparisons use ($regex and $type ignore it, as in MongoDB).
  const bson::StringComparator* strings() const { return options_.collation.get(); }
  int depth_ = 0;
};

}  // namespace

NodePtr parse_filter(DocumentView filter, Equalities* equalities, const MatcherOptions& options) {
  Parser p(equalities, options);
  return p.filter(filter, true);
}

}  // namespace mongostore::engine::matcher_detail
