// The $expr hook: the matcher cannot depend on the aggregation layer (which depends on it),
// so the evaluator is installed from above.
#include <atomic>

#include "engine/matcher/expression.h"

namespace mongostore::engine {
namespace {
std::atomic<ExprCompiler> g_expr_compiler{nullptr};
}  // namespace

void install_expr_compiler(ExprCompiler compiler) {
  g_expr_compiler.store(compiler);
}

namespace matcher_detail {
ExprCompiler installed_expr_compiler() {
  return g_expr_compiler.load();
}
}  // namespace matcher_detail

}  // namespace mongostore::engine
