// $expr in find filters: the Matcher calls back into this layer's expression evaluator; a
// command's `let` reaches those expressions by binding its variables into the filter.
#include "mongostore/bson/builder.h"
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

// `filter` with each $expr E (where the matcher accepts one: the top level and the clauses of
// $and/$or/$nor) rewritten to {$let: {vars: <vars>, in: E}}.
bson::Document bind_vars(bson::DocumentView filter, bson::DocumentView vars) {
  bson::DocumentBuilder b;
  for (const bson::Element& e : filter) {
    if (e.key == "$expr") {
      b.open_document("$expr").open_document("$let");
      b.append("vars", vars).append("in", e.value);
      b.close().close();
    } else if ((e.key == "$and" || e.key == "$or" || e.key == "$nor") && e.value.is_array()) {
      b.open_array(e.key);
      for (const bson::Element& clause : e.value.as_array()) {
        if (clause.value.is_document()) {
          b.push(bind_vars(clause.value.as_document(), vars));
        } else {
          b.push(clause.value);  // the matcher reports it
        }
      }
      b.close();
    } else {
      b.append(e.key, e.value);
    }
  }
  return b.finish();
}

}  // namespace

bson::Document bind_let_to_filter(bson::DocumentView filter, bson::DocumentView let) {
  if (let.empty()) return bson::Document::copy_of(filter);
  // Evaluated once here (names checked, expressions folded); each value goes in as a
  // $literal so it is not read as an expression again.
  bson::DocumentBuilder vars;
  for (const auto& [name, value] : evaluate_let(let)) {
    if (value.view().is_missing()) continue;  // $$REMOVE: the variable stays undefined
    vars.open_document(name).append("$literal", value.view()).close();
  }
  bson::Document bound = vars.finish();
  return bind_vars(filter, bound.view());
}

void install_expr_in_find_filters() {
  install_expr_compiler(&compile_expr);
}

}  // namespace mongostore::engine
