// Compiling a $jsonSchema document into a JsonSchema tree, with mongod's error codes and
// messages for malformed schemas (the checks run in mongod's order, so a schema with several
// faults reports the one mongod reports).
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <string_view>

#include "engine/matcher/json_schema.h"
#include "mongostore/bson/compare.h"
#include "mongostore/error.h"

namespace mongostore::engine::matcher_detail {

namespace {

using bson::BsonType;
using bson::DocumentView;
using bson::Value;

[[noreturn]] void fail(ErrorCode code, std::string message) {
  throw Error(code, std::move(message));
}

std::string keyword_message(std::string_view keyword, std::string_view rest) {
  return "$jsonSchema keyword '" + std::string(keyword) + "' " + std::string(rest);
}

std::string type_name(const Value& v) {
  return std::string(bson::type_alias(v.type()));
}

// The keywords mongod knows, in its own order of translation (see compile_node).
constexpr std::string_view kKeywords[] = {
    "additionalItems",
    "additionalProperties",
    "allOf",
    "anyOf",
    "bsonType",
    "dependencies",
    "description",
    "encrypt",
    "encryptMetadata",
    "enum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "not",
    "oneOf",
    "pattern",
    "patternProperties",
    "properties",
    "required",
    "title",
    "type",
    "uniqueItems",
};
constexpr size_t kKeywordCount = sizeof(kKeywords) / sizeof(kKeywords[0]);

constexpr std::string_view kUnsupportedKeywords[] = {"$ref",        "$schema", "default",
                                                     "definitions", "format",  "id"};

// One schema's keywords, by name.
class KeywordMap {
 public:
  explicit KeywordMap(DocumentView schema) {
    for (const auto& el : schema) {
      size_t i = index_of(el.key);
      if (i == kKeywordCount) {
        for (std::string_view u : kUnsupportedKeywords) {
          if (u == el.key) {
            fail(ErrorCode::kFailedToParse, keyword_message(el.key, "is not currently supported"));
          }
        }
        fail(ErrorCode::kFailedToParse, "Unknown $jsonSchema keyword: " + std::string(el.key));
      }
      if (!values_[i].is_missing()) {
        fail(ErrorCode::kFailedToParse, "Duplicate $jsonSchema keyword: " + std::string(el.key));
      }
      values_[i] = el.value;
    }
  }

  Value operator[](std::string_view keyword) const { return values_[index_of(keyword)]; }

 private:
  static size_t index_of(std::string_view keyword) {
    for (size_t i = 0; i < kKeywordCount; ++i) {
      if (kKeywords[i] == keyword) return i;
    }
    return kKeywordCount;
  }
  Value values_[kKeywordCount];
};

bool decimal_is_zero(const bson::Decimal128& d) {
  if (d.is_nan() || d.is_infinite()) return false;
  for (char c : d.to_string()) {
    if (c == 'E') break;
    if (c >= '1' && c <= '9') return false;
  }
  return true;
}

// mongod's parseIntegerElementToNonNegativeLong: a whole, non-negative number.
long long non_negative_long(std::string_view keyword, const Value& v) {
  std::string element = std::string(keyword) + ": " + v.to_json();
  if (!v.is_number()) fail(ErrorCode::kFailedToParse, "Expected a number in: " + element);
  long long n = 0;
  if (v.type() == BsonType::kInt32) {
    n = v.as_int32();
  } else if (v.type() == BsonType::kInt64) {
    n = v.as_int64();
  } else {
    double d = v.number_as_double();
    if (std::isnan(d))
      fail(ErrorCode::kFailedToParse, "Expected an integer, but found NaN in: " + element);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
      fail(ErrorCode::kFailedToParse, "Cannot represent as a 64-bit integer: " + element);
    }
    if (std::trunc(d) != d) fail(ErrorCode::kFailedToParse, "Expected an integer: " + element);
    n = static_cast<long long>(d);
  }
  if (n < 0) fail(ErrorCode::kFailedToParse, "Expected a positive number in: " + element);
  return n;
}

// The BSON types a `bsonType` alias names ($type's aliases, plus "number").
bool bson_type_alias(std::string_view name, JsonSchema::TypeSet* set) {
  static constexpr BsonType kTypes[] = {
      BsonType::kDouble,    BsonType::kString,    BsonType::kDocument,      BsonType::kArray,
      BsonType::kBinary,    BsonType::kUndefined, BsonType::kObjectId,      BsonType::kBool,
      BsonType::kDateTime,  BsonType::kNull,      BsonType::kRegex,         BsonType::kDbPointer,
      BsonType::kCode,      BsonType::kSymbol,    BsonType::kCodeWithScope, BsonType::kInt32,
      BsonType::kTimestamp, BsonType::kInt64,     BsonType::kDecimal128,    BsonType::kMinKey,
      BsonType::kMaxKey,
  };
  for (BsonType t : kTypes) {
    if (bson::type_alias(t) == name) {
      set->types.set(static_cast<uint8_t>(t));
      return true;
    }
  }
  return false;
}

// The JSON Schema type names MongoDB maps (`integer` is refused earlier).
bool json_type_alias(std::string_view name, JsonSchema::TypeSet* set) {
  BsonType t;
  if (name == "array") {
    t = BsonType::kArray;
  } else if (name == "boolean") {
    t = BsonType::kBool;
  } else if (name == "null") {
    t = BsonType::kNull;
  } else if (name == "object") {
    t = BsonType::kDocument;
  } else if (name == "string") {
    t = BsonType::kString;
  } else {
    return false;
  }
  set->types.set(static_cast<uint8_t>(t));
  return true;
}

JsonSchema::TypeSet parse_type(std::string_view keyword, const Value& v) {
  if (!v.is_string() && !v.is_array()) {
    fail(ErrorCode::kTypeMismatch,
         keyword_message(keyword, "must be either a string or an array of strings"));
  }
  std::set<std::string_view> names;
  auto refuse_integer = [](std::string_view name) {
    if (name == "integer") {
      fail(ErrorCode::kFailedToParse, "$jsonSchema type 'integer' is not currently supported.");
    }
  };
  if (v.is_string()) {
    refuse_integer(v.as_string());
    names.insert(v.as_string());
  } else {
    for (const auto& el : v.as_array()) {
      if (!el.value.is_string()) {
        fail(ErrorCode::kTypeMismatch, keyword_message(keyword, "array elements must be strings"));
      }
      refuse_integer(el.value.as_string());
      if (!names.insert(el.value.as_string()).second) {
        fail(ErrorCode::kFailedToParse,
             keyword_message(keyword, "has duplicate value: " + std::string(el.value.as_string())));
      }
    }
  }
  JsonSchema::TypeSet set;
  // mongod resolves the aliases in sorted order, so the first unknown one is reported.
  for (std::string_view name : names) {
    if (name == "number") {
      set.numbers = true;
      continue;
    }
    bool known = keyword == "bsonType" ? bson_type_alias(name, &set) : json_type_alias(name, &set);
    if (!known) {
      if (name == "missing") {
        fail(ErrorCode::kBadValue,
             "'missing' is not a legal type name. To query for non-existence of a field, use "
             "{$exists:false}.");
      }
      fail(ErrorCode::kBadValue, "Unknown type name alias: " + std::string(name));
    }
  }
  if (names.empty()) {
    fail(ErrorCode::kFailedToParse, keyword_message(keyword, "must name at least one type"));
  }
  return set;
}

class Compiler {
 public:
  std::unique_ptr<const JsonSchema> compile(DocumentView schema) {
    if (++depth_ > JsonSchema::kMaxDepth) {
      fail(ErrorCode::kBadValue, "$jsonSchema is nested too deeply: more than " +
                                     std::to_string(JsonSchema::kMaxDepth) +
                                     " levels of subschemas");
    }
    auto node = std::make_unique<JsonSchema>();
    KeywordMap k(schema);
    metadata(k);
    types(k, node.get());
    scalars(k, node.get());
    arrays(k, node.get());
    encryption(k);
    objects(k, node.get());
    logical(k, node.get());
    --depth_;
    return node;
  }

 private:
  std::unique_ptr<const JsonSchema> subschema(const Value& v) { return compile(v.as_document()); }

  static void metadata(const KeywordMap& k) {
    for (std::string_view name : {"description", "title"}) {
      Value v = k[name];
      if (!v.is_missing() && !v.is_string()) {
        fail(ErrorCode::kTypeMismatch, keyword_message(name, "must be of type string"));
      }
    }
  }

  static void types(const KeywordMap& k, JsonSchema* node) {
    Value type = k["type"];
    Value bson_type = k["bsonType"];
    if (!type.is_missing() && !bson_type.is_missing()) {
      fail(ErrorCode::kFailedToParse,
           "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
    }
    if (!type.is_missing()) node->type = parse_type("type", type);
    if (!bson_type.is_missing()) node->type = parse_type("bsonType", bson_type);
  }

  static void scalars(const KeywordMap& k, JsonSchema* node) {
    if (Value v = k["pattern"]; !v.is_missing()) {
      if (!v.is_string())
        fail(ErrorCode::kTypeMismatch, keyword_message("pattern", "must be a string"));
      node->pattern.emplace(v.as_string(), "");
    }
    if (Value v = k["maxLength"]; !v.is_missing())
      node->max_length = non_negative_long("maxLength", v);
    if (Value v = k["minLength"]; !v.is_missing())
      node->min_length = non_negative_long("minLength", v);
    if (Value v = k["multipleOf"]; !v.is_missing()) {
      if (!v.is_number())
        fail(ErrorCode::kTypeMismatch, keyword_message("multipleOf", "must be a number"));
      // mongod refuses negative and zero divisors only (a NaN is accepted, and matches nothing).
      bool positive;
      if (v.type() == BsonType::kDecimal128) {
        bson::Decimal128 dec = v.as_decimal128();
        positive = !dec.is_negative() && !decimal_is_zero(dec);
      } else if (v.type() == BsonType::kDouble) {
        positive = !std::signbit(v.as_double()) && v.as_double() != 0;
      } else {
        positive = v.number_as_double() > 0;
      }
      if (!positive) {
        fail(ErrorCode::kFailedToParse,
             keyword_message("multipleOf", "must have a positive value"));
      }
      node->multiple_of = v;
    }
    node->maximum = bound(k, "maximum", "exclusiveMaximum", CompareOp::kLte, CompareOp::kLt);
    node->minimum = bound(k, "minimum", "exclusiveMinimum", CompareOp::kGte, CompareOp::kGt);
  }

  static PredicatePtr bound(const KeywordMap& k, std::string_view name,
                            std::string_view exclusive_name, CompareOp inclusive_op,
                            CompareOp exclusive_op) {
    Value v = k[name];
    Value ex = k[exclusive_name];
    if (v.is_missing()) {
      if (!ex.is_missing()) {
        fail(ErrorCode::kFailedToParse,
             keyword_message(
                 name, "must be a present if " + std::string(exclusive_name) + " is present"));
      }
      return nullptr;
    }
    bool exclusive = false;
    if (!ex.is_missing()) {
      if (ex.type() != BsonType::kBool) {
        fail(ErrorCode::kTypeMismatch, keyword_message(exclusive_name, "must be a boolean"));
      }
      exclusive = ex.as_bool();
    }
    if (!v.is_number()) fail(ErrorCode::kTypeMismatch, keyword_message(name, "must be a number"));
    return make_compare(exclusive ? exclusive_op : inclusive_op, v);
  }

  void arrays(const KeywordMap& k, JsonSchema* node) {
    if (Value v = k["minItems"]; !v.is_missing())
      node->min_items = non_negative_long("minItems", v);
    if (Value v = k["maxItems"]; !v.is_missing())
      node->max_items = non_negative_long("maxItems", v);
    if (Value v = k["uniqueItems"]; !v.is_missing()) {
      if (v.type() != BsonType::kBool) {
        fail(ErrorCode::kTypeMismatch, keyword_message("uniqueItems", "must be a boolean"));
      }
      node->unique_items = v.as_bool();
    }
    if (Value v = k["items"]; !v.is_missing()) {
      if (v.is_array()) {
        node->items_is_list = true;
        for (const auto& el : v.as_array()) {
          if (!el.value.is_document()) {
            fail(ErrorCode::kTypeMismatch,
                 keyword_message("items",
                                 "requires that each element of the array is an object, "
                                 "but found a " +
                                     type_name(el.value)));
          }
          node->item_list.push_back(subschema(el.value));
        }
      } else if (v.is_document()) {
        node->items = subschema(v);
      } else {
        fail(ErrorCode::kTypeMismatch,
             keyword_message("items", "must be an array or an object, not " + type_name(v)));
      }
    }
    if (Value v = k["additionalItems"]; !v.is_missing()) {
      std::unique_ptr<const JsonSchema> schema;
      bool allowed = true;
      if (v.type() == BsonType::kBool) {
        allowed = v.as_bool();
      } else if (v.is_document()) {
        schema = subschema(v);
      } else {
        fail(ErrorCode::kTypeMismatch,
             keyword_message("additionalItems",
                             "must be either an object or a boolean, but got a " + type_name(v)));
      }
      // Without an `items` list there are no "additional" items: the keyword has no effect.
      if (node->items_is_list) {
        node->has_additional_items = true;
        node->additional_items_allowed = allowed;
        node->additional_items = std::move(schema);
      }
    }
  }

  static void encryption(const KeywordMap& k) {
    for (std::string_view name : {"encrypt", "encryptMetadata"}) {
      if (!k[name].is_missing()) {
        fail(ErrorCode::kNotImplemented,
             keyword_message(name,
                             "(client-side field level encryption) is not supported by "
                             "mongostore"));
      }
    }
  }

  void objects(const KeywordMap& k, JsonSchema* node) {
    if (Value v = k["required"]; !v.is_missing()) {
      if (!v.is_array()) {
        fail(ErrorCode::kTypeMismatch,
             keyword_message("required",
                             "must be an array, but found an element of type " + type_name(v)));
      }
      std::set<std::string_view> seen;
      for (const auto& el : v.as_array()) {
        if (!el.value.is_string()) {
          fail(ErrorCode::kTypeMismatch,
               keyword_message("required",
                               "must be an array of strings, but found an element of type: " +
                                   type_name(el.value)));
        }
        if (!seen.insert(el.value.as_string()).second) {
          fail(ErrorCode::kFailedToParse,
               keyword_message("required", "array cannot contain duplicate values"));
        }
        node->required.push_back(el.value.as_string());
      }
      if (node->required.empty()) {
        fail(ErrorCode::kFailedToParse, keyword_message("required", "cannot be an empty array"));
      }
    }
    if (Value v = k["properties"]; !v.is_missing()) {
      if (!v.is_document())
        fail(ErrorCode::kTypeMismatch, keyword_message("properties", "must be an object"));
      for (const auto& el : v.as_document()) {
        if (!el.value.is_document()) {
          fail(ErrorCode::kTypeMismatch, "Nested schema for $jsonSchema property '" +
                                             std::string(el.key) + "' must be an object");
        }
        node->properties.emplace_back(el.key, subschema(el.value));
      }
      std::stable_sort(node->properties.begin(), node->properties.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    Value pattern_properties = k["patternProperties"];
    Value additional_properties = k["additionalProperties"];
    if (!pattern_properties.is_missing()) {
      if (!pattern_properties.is_document()) {
        fail(ErrorCode::kTypeMismatch, keyword_message("patternProperties", "must be an object"));
      }
      for (const auto& el : pattern_properties.as_document()) {
        if (!el.value.is_document()) {
          fail(ErrorCode::kTypeMismatch,
               keyword_message("patternProperties", "has property '" + std::string(el.key) +
                                                        "' which is not an object"));
        }
        auto schema = subschema(el.value);
        node->pattern_properties.emplace_back(Regex(el.key, ""), std::move(schema));
      }
      node->check_allowed_properties = true;
    }
    if (!additional_properties.is_missing()) {
      if (additional_properties.type() == BsonType::kBool) {
        node->additional_properties_allowed = additional_properties.as_bool();
      } else if (additional_properties.is_document()) {
        node->additional_properties = subschema(additional_properties);
      } else {
        fail(ErrorCode::kTypeMismatch,
             keyword_message("additionalProperties", "must be an object or a boolean"));
      }
      node->check_allowed_properties = true;
    }
    if (Value v = k["minProperties"]; !v.is_missing()) {
      node->min_properties = non_negative_long("minProperties", v);
    }
    if (Value v = k["maxProperties"]; !v.is_missing()) {
      node->max_properties = non_negative_long("maxProperties", v);
    }
    if (Value v = k["dependencies"]; !v.is_missing()) dependencies(v, node);
  }

  void dependencies(const Value& v, JsonSchema* node) {
    if (!v.is_document())
      fail(ErrorCode::kTypeMismatch, keyword_message("dependencies", "must be an object"));
    for (const auto& el : v.as_document()) {
      std::string where =
          "property '" + std::string(el.key) + "' in $jsonSchema keyword 'dependencies'";
      JsonSchema::Dependency d;
      d.property = el.key;
      if (el.value.is_document()) {
        d.schema = subschema(el.value);
      } else if (el.value.is_array()) {
        std::set<std::string_view> seen;
        for (const auto& name : el.value.as_array()) {
          std::string array =
              "array '" + std::string(el.key) + "' in $jsonSchema keyword 'dependencies'";
          if (!name.value.is_string()) {
            fail(ErrorCode::kTypeMismatch,
                 array + " can only contain strings, but found element of type: " +
                     type_name(name.value));
          }
          if (!seen.insert(name.value.as_string()).second) {
            fail(ErrorCode::kFailedToParse,
                 array + " contains duplicate element: " + std::string(name.value.as_string()));
          }
          d.required.push_back(name.value.as_string());
        }
        if (d.required.empty())
          fail(ErrorCode::kFailedToParse, where + " cannot be an empty array");
      } else {
        fail(ErrorCode::kTypeMismatch, where + " must be either an object or an array");
      }
      node->dependencies.push_back(std::move(d));
    }
  }

  void logical(const KeywordMap& k, JsonSchema* node) {
    list("allOf", k["allOf"], &node->all_of);
    list("anyOf", k["anyOf"], &node->any_of);
    list("oneOf", k["oneOf"], &node->one_of);
    if (Value v = k["not"]; !v.is_missing()) {
      if (!v.is_document()) {
        fail(ErrorCode::kTypeMismatch,
             keyword_message("not",
                             "must be an object, but found an element of type " + type_name(v)));
      }
      node->not_schema = subschema(v);
    }
    if (Value v = k["enum"]; !v.is_missing()) enumeration(v, node);
  }

  void list(std::string_view name, const Value& v,
            std::vector<std::unique_ptr<const JsonSchema>>* out) {
    if (v.is_missing()) return;
    if (!v.is_array()) fail(ErrorCode::kTypeMismatch, keyword_message(name, "must be an array"));
    for (const auto& el : v.as_array()) {
      if (!el.value.is_document()) {
        fail(ErrorCode::kTypeMismatch,
             keyword_message(name, "must be an array of objects, but found an element of type " +
                                       type_name(el.value)));
      }
      out->push_back(subschema(el.value));
    }
    if (out->empty())
      fail(ErrorCode::kBadValue, keyword_message(name, "must be a non-empty array"));
  }

  static void enumeration(const Value& v, JsonSchema* node) {
    if (!v.is_array()) {
      fail(ErrorCode::kTypeMismatch,
           keyword_message("enum",
                           "must be an array, but found an element of type " + type_name(v)));
    }
    for (const auto& el : v.as_array()) {
      JsonSchema::CanonicalValue c = canonical_value(el.value);
      for (const auto& e : node->enum_values) {
        if (bson::values_equal(e.value, c.value)) {
          fail(ErrorCode::kFailedToParse,
               keyword_message("enum", "array cannot contain duplicate values."));
        }
      }
      node->enum_values.push_back(std::move(c));
    }
    if (node->enum_values.empty()) {
      fail(ErrorCode::kFailedToParse, keyword_message("enum", "cannot be an empty array"));
    }
    node->has_enum = true;
  }

  int depth_ = 0;
};

}  // namespace

std::unique_ptr<const JsonSchema> JsonSchema::compile(DocumentView schema) {
  Compiler c;
  return c.compile(schema);
}

}  // namespace mongostore::engine::matcher_detail
