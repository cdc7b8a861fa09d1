// Conditions over single values, built on the query Matcher: arrayFilters entries and $pull
// conditions. A value is tested by wrapping it as a one-field document.
#include <string>

#include "engine/update/internal.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine::update_detail {

using bson::DocumentView;
using bson::Value;

namespace {

/// Matches `{<key>: element}` against a filter.
class WrappedCondition : public Condition {
 public:
  WrappedCondition(Matcher matcher, std::string key)
      : matcher_(std::move(matcher)), key_(std::move(key)) {}
  bool matches(const Value& element) const override {
    bson::DocumentBuilder b;
    b.append(key_, element);
    bson::Document wrapped = b.finish();
    return matcher_.matches(wrapped.view());
  }

 private:
  Matcher matcher_;
  std::string key_;
};

/// Matches elements that are documents against a query.
class ObjectCondition : public Condition {
 public:
  explicit ObjectCondition(Matcher matcher) : matcher_(std::move(matcher)) {}
  bool matches(const Value& element) const override {
    return element.is_document() && matcher_.matches(element.as_document());
  }

 private:
  Matcher matcher_;
};

bool is_value_operator(std::string_view key) {
  if (key.empty() || key[0] != '$') return false;
  return key != "$and" && key != "$or" && key != "$nor" && key != "$where" && key != "$expr" &&
         key != "$comment" && key != "$text" && key != "$jsonSchema" && key != "$alwaysTrue" &&
         key != "$alwaysFalse";
}

constexpr std::string_view kWrapKey = "x";

}  // namespace

std::unique_ptr<Condition> Condition::array_filter(DocumentView filter, std::string identifier,
                                                   const MatcherOptions& options) {
  return std::make_unique<WrappedCondition>(Matcher::compile(filter, options),
                                            std::move(identifier));
}

std::unique_ptr<Condition> Condition::pull(const Value& condition, const MatcherOptions& options) {
  bool wrap = condition.type() == bson::BsonType::kRegex;
  if (condition.is_document()) {
    DocumentView doc = condition.as_document();
    auto first = doc.begin();
    wrap = first != doc.end() && is_value_operator(first->key);
    if (!wrap) return std::make_unique<ObjectCondition>(Matcher::compile(doc, options));
  }
  if (!wrap) return nullptr;
  bson::DocumentBuilder b;
  b.append(kWrapKey, condition);
  bson::Document filter = b.finish();
  return std::make_unique<WrappedCondition>(Matcher::compile(filter.view(), options),
                                            std::string(kWrapKey));
}

}  // namespace mongostore::engine::update_detail
