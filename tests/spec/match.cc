#include "spec/match.h"

#include <set>
#include <string_view>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/compare.h"
#include "mongostore/bson/types.h"
#include "mongostore/error.h"

namespace mongostore::spec {
namespace {

using bson::BsonType;
using bson::DocumentView;
using bson::Value;

std::string at(const std::string& path) {
  return path.empty() ? std::string("(root)") : path;
}

std::string child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::optional<std::string> fail(const std::string& path, const std::string& why) {
  return at(path) + ": " + why;
}

/// The operator name when `v` is a document whose first and only key starts with "$$".
std::optional<std::string_view> special_operator(const Value& v) {
  if (!v.is_document()) return std::nullopt;
  DocumentView doc = v.as_document();
  auto it = doc.begin();
  if (it == doc.end()) return std::nullopt;
  std::string_view key = it->key;
  if (key.size() < 2 || key.substr(0, 2) != "$$") return std::nullopt;
  if (doc.count() != 1) return std::nullopt;
  return key;
}

Value operand(const Value& v) {
  return v.as_document().begin()->value;
}

bool type_matches(std::string_view alias, const Value& actual) {
  if (alias == "number") return actual.is_number();
  return bson::type_alias(actual.type()) == alias;
}

std::optional<std::string> match_document(DocumentView expected, const Value& actual, bool root,
                                          const std::string& path, const MatchContext* context) {
  if (!actual.is_document()) {
    return fail(path, "expected a document, got " + describe(actual));
  }
  DocumentView doc = actual.as_document();
  std::set<std::string_view> expected_keys;
  for (const auto& el : expected) {
    expected_keys.insert(el.key);
    Value av = doc.get(el.key);
    std::string p = child(path, el.key);
    auto op = special_operator(el.value);
    if (op && *op == "$$exists") {
      bool want = operand(el.value).truthy();
      if (want && av.is_missing()) return fail(p, "expected the field to exist");
      if (!want && !av.is_missing()) {
        return fail(p, "expected no such field, got " + describe(av));
      }
      continue;
    }
    if (op && *op == "$$unsetOrMatches" && av.is_missing()) continue;
    if (av.is_missing()) return fail(p, "missing; expected " + describe(el.value));
    if (auto m = match_value(el.value, av, false, p, context)) return m;
  }
  if (!root) {
    for (const auto& el : doc) {
      if (!expected_keys.contains(el.key)) {
        return fail(child(path, el.key), "unexpected field " + describe(el.value));
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::string describe(const Value& value) {
  if (value.is_missing()) return "(missing)";
  return value.to_json() + " (" + std::string(bson::type_alias(value.type())) + ")";
}

std::optional<std::string> match_value(const Value& expected, const Value& actual, bool root,
                                       const std::string& path, const MatchContext* context) {
  if (auto op = special_operator(expected)) {
    Value arg = operand(expected);
    if (*op == "$$unsetOrMatches") {
      if (actual.is_missing()) return std::nullopt;
      return match_value(arg, actual, root, path, context);
    }
    if (*op == "$$exists") {
      if (arg.truthy() == !actual.is_missing()) return std::nullopt;
      return fail(path,
                  arg.truthy() ? "expected a value" : "expected no value, got " + describe(actual));
    }
    if (*op == "$$type") {
      if (actual.is_missing()) return fail(path, "missing; expected type " + arg.to_json());
      if (arg.is_string()) {
        if (type_matches(arg.as_string(), actual)) return std::nullopt;
      } else if (arg.is_array()) {
        for (const auto& el : arg.as_array()) {
          if (el.value.is_string() && type_matches(el.value.as_string(), actual)) {
            return std::nullopt;
          }
        }
      }
      return fail(path, "expected type " + arg.to_json() + ", got " + describe(actual));
    }
    if (*op == "$$lte") {
      if (!actual.is_number() || !arg.is_number()) {
        return fail(path, "$$lte needs numbers, got " + describe(actual));
      }
      if (bson::compare_values(actual, arg) <= 0) return std::nullopt;
      return fail(path, "expected <= " + arg.to_json() + ", got " + describe(actual));
    }
    if (*op == "$$matchAsDocument") {
      if (!actual.is_string()) return fail(path, "expected a JSON string, got " + describe(actual));
      bson::Document parsed;
      try {
        parsed = bson::Document::from_json(actual.as_string());
      } catch (const Error& e) {
        return fail(path, std::string("not a JSON document: ") + e.what());
      }
      bson::Document holder = bson::make_document("v", parsed);
      return match_value(arg, holder.get("v"), false, path, context);
    }
    if (*op == "$$matchAsRoot") {
      if (!arg.is_document()) return fail(path, "$$matchAsRoot needs a document");
      return match_document(arg.as_document(), actual, true, path, context);
    }
    if (*op == "$$sessionLsid" && context && context->session_lsid) {
      std::string id = arg.is_string() ? std::string(arg.as_string()) : arg.to_json();
      std::optional<bson::Document> lsid = context->session_lsid(id);
      if (!lsid) throw SkipTest("$$sessionLsid: the lsid of session " + id + " is unknown");
      if (actual.is_missing()) return fail(path, "missing; expected the lsid of " + id);
      bson::Document holder = bson::make_document("v", *lsid);
      if (auto m = exact_match(holder.get("v"), actual, path)) {
        return fail(path, "expected the lsid of " + id + " " + lsid->to_json() + ", got " +
                              describe(actual));
      }
      return std::nullopt;
    }
    if (*op == "$$matchesEntity" || *op == "$$sessionLsid" || *op == "$$matchesHexBytes") {
      throw SkipTest("matching operator " + std::string(*op) + " not supported");
    }
    return fail(path, "unknown matching operator " + std::string(*op));
  }

  if (expected.is_document()) {
    return match_document(expected.as_document(), actual, root, path, context);
  }
  if (actual.is_missing()) return fail(path, "missing; expected " + describe(expected));
  if (expected.is_array()) {
    if (!actual.is_array()) return fail(path, "expected an array, got " + describe(actual));
    std::vector<Value> want;
    std::vector<Value> got;
    for (const auto& el : expected.as_array()) want.push_back(el.value);
    for (const auto& el : actual.as_array()) got.push_back(el.value);
    if (want.size() != got.size()) {
      return fail(path, "expected " + std::to_string(want.size()) + " elements, got " +
                            std::to_string(got.size()) + ": " + actual.to_json());
    }
    for (size_t i = 0; i < want.size(); ++i) {
      // Elements of an array of root-level documents (a find's results) are root-level too.
      if (auto m = match_value(want[i], got[i], root, child(path, std::to_string(i)), context)) {
        return m;
      }
    }
    return std::nullopt;
  }
  if (expected.is_number() && actual.is_number() && expected.type() != BsonType::kDecimal128 &&
      actual.type() != BsonType::kDecimal128) {
    if (bson::compare_values(expected, actual) == 0) return std::nullopt;
    return fail(path, "expected " + describe(expected) + ", got " + describe(actual));
  }
  if (expected.type() == actual.type() && bson::compare_values(expected, actual) == 0) {
    return std::nullopt;
  }
  return fail(path, "expected " + describe(expected) + ", got " + describe(actual));
}

std::optional<std::string> exact_match(const Value& expected, const Value& actual,
                                       const std::string& path) {
  if (actual.is_missing()) return fail(path, "missing; expected " + describe(expected));
  if (expected.type() != actual.type()) {
    return fail(path, "expected " + describe(expected) + ", got " + describe(actual));
  }
  if (expected.is_document() || expected.is_array()) {
    bool array = expected.is_array();
    DocumentView want = array ? expected.as_array() : expected.as_document();
    DocumentView got = array ? actual.as_array() : actual.as_document();
    if (array && want.count() != got.count()) {
      return fail(path, "expected " + std::to_string(want.count()) + " elements, got " +
                            std::to_string(got.count()) + ": " + actual.to_json());
    }
    for (const auto& el : want) {
      if (auto m = exact_match(el.value, got.get(el.key), child(path, el.key))) return m;
    }
    if (!array) {
      for (const auto& el : got) {
        if (!want.has(el.key)) {
          return fail(child(path, el.key), "unexpected field " + describe(el.value));
        }
      }
    }
    return std::nullopt;
  }
  if (bson::compare_values(expected, actual) == 0) return std::nullopt;
  return fail(path, "expected " + describe(expected) + ", got " + describe(actual));
}

}  // namespace mongostore::spec
