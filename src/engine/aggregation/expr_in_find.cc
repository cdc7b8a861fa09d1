// $expr in find filters: the Matcher calls back into this layer's expression evaluator.
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {
namespace {

ExprPredicate compile_expr(const bson::Value& spec) {
  Expression expression = Expression::compile(spec);
  return [expression](bson::DocumentView document) {
    return expression.evaluate(document).view().truthy();
  };
}

}  // namespace

void install_expr_in_find_filters() {
  install_expr_compiler(&compile_expr);
}

}  // namespace mongostore::engine
