// $expr in find filters: the Matcher calls back into this layer's expression evaluator; a
// command's `let` reaches those expressions by binding its variables into the filter.
#include <algorithm>
#include <string_view>
#include <vector>

#include "engine/aggregation/collation_scope.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/limits.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {
namespace {

ExprPredicate compile_expr(const bson::Value& spec, std::shared_ptr<const Collation> collation) {
  Expression expression = Expression::compile(spec);
  // The filter is evaluated lazily (a getMore may come much later): it keeps the $$NOW of
  // the command that compiled it, and compares strings under the filter's collation.
  bson::DateTime now = NowScope::now();
  return [expression, now, collation](bson::DocumentView document) {
    NowScope scope(now);
    aggregation_detail::CollationScope strings(collation.get());
    return expression.evaluate(document).view().truthy();
  };
}

// A user variable's name, as opposed to a system variable's (NOW, ROOT, CURRENT, ...): the
// only names a $let may bind.
bool user_variable(std::string_view name) {
  unsigned char c = name.empty() ? 0 : static_cast<unsigned char>(name[0]);
  return (c >= 'a' && c <= 'z') || c >= 0x80;
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
  check_input_depth(filter, "filter");
  if (let.empty()) return bson::Document::copy_of(filter);
  // Evaluated once here (names checked, expressions folded).
  return bind_variables_to_filter(filter, evaluate_let(let));
}

bson::Document bind_variables_to_filter(bson::DocumentView filter, const Variables& variables) {
  check_input_depth(filter, "filter");  // bind_vars recurses through $and/$or/$nor
  // Each value goes in as a $literal so it is not read as an expression again; the last
  // value of a name is the innermost scope's.
  bson::DocumentBuilder vars;
  std::vector<std::string_view> bound;
  for (auto it = variables.rbegin(); it != variables.rend(); ++it) {
    const auto& [name, value] = *it;
    if (!user_variable(name) || std::find(bound.begin(), bound.end(), name) != bound.end()) {
      continue;
    }
    bound.push_back(name);
    if (value.view().is_missing()) {
      vars.append(name, "$$REMOVE");
    } else {
      vars.open_document(name).append("$literal", value.view()).close();
    }
  }
  if (bound.empty()) return bson::Document::copy_of(filter);
  bson::Document bound_vars = vars.finish();
  return bind_vars(filter, bound_vars.view());
}

void install_expr_in_find_filters() {
  install_expr_compiler(&compile_expr);
}

}  // namespace mongostore::engine
