// Array predicates: $elemMatch in its object and value forms. ($all compiles to an AND of
// equality, regex or $elemMatch leaves on the same path; see parser.cc.)
#include "engine/matcher/expression.h"

namespace mongostore::engine::matcher_detail {

namespace {

using bson::Value;

class ElemMatchObjectPredicate final : public Predicate {
 public:
  explicit ElemMatchObjectPredicate(NodePtr sub) : sub_(std::move(sub)) {}
  bool test(const Value& v, std::optional<size_t>* index) const override {
    if (!v.is_array()) return false;
    size_t k = 0;
    for (const auto& el : v.as_array()) {
      Input in;
      if (el.value.is_document()) {
        in.document = el.value.as_document();
      } else if (el.value.is_array()) {
        in.document = el.value.as_array();
      } else {
        ++k;
        continue;
      }
      if (sub_->matches(in, nullptr)) {
        if (index) *index = k;
        return true;
      }
      ++k;
    }
    return false;
  }
  bool expands_arrays() const override { return false; }

 private:
  NodePtr sub_;
};

class ElemMatchValuePredicate final : public Predicate {
 public:
  explicit ElemMatchValuePredicate(NodePtr sub) : sub_(std::move(sub)) {}
  bool test(const Value& v, std::optional<size_t>* index) const override {
    if (!v.is_array()) return false;
    size_t k = 0;
    for (const auto& el : v.as_array()) {
      Input in;
      in.is_value = true;
      in.value = el.value;
      if (sub_->matches(in, nullptr)) {
        if (index) *index = k;
        return true;
      }
      ++k;
    }
    return false;
  }
  bool expands_arrays() const override { return false; }

 private:
  NodePtr sub_;
};

}  // namespace

PredicatePtr make_elem_match_object(NodePtr sub) {
  return std::make_unique<ElemMatchObjectPredicate>(std::move(sub));
}
PredicatePtr make_elem_match_value(NodePtr sub) {
  return std::make_unique<ElemMatchValuePredicate>(std::move(sub));
}

}  // namespace mongostore::engine::matcher_detail
