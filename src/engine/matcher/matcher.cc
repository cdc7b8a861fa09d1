// The public Matcher: owns the filter bytes and the compiled tree.
#include "mongostore/engine/matcher.h"

#include "engine/matcher/expression.h"
#include "mongostore/engine/limits.h"

namespace mongostore::engine {

using matcher_detail::CompiledFilter;

namespace {
std::shared_ptr<const CompiledFilter> empty_filter() {
  static const std::shared_ptr<const CompiledFilter> state = [] {
    auto s = std::make_shared<CompiledFilter>();
    s->root = std::make_unique<matcher_detail::ConstNode>(true);
    return s;
  }();
  return state;
}
}  // namespace

Matcher::Matcher() : state_(empty_filter()) {}

Matcher Matcher::compile(bson::DocumentView filter, const MatcherOptions& options) {
  check_input_depth(filter, "filter");
  auto s = std::make_shared<CompiledFilter>();
  s->filter = bson::Document::copy_of(filter);
  s->collation = options.collation;
  s->root = matcher_detail::parse_filter(s->filter.view(), &s->equalities, options);
  s->empty = true;  // no conditions: empty, or only $comment
  for (const auto& el : s->filter.view()) {
    if (el.key != "$comment") s->empty = false;
  }
  return Matcher(std::move(s));
}

bool Matcher::matches(bson::DocumentView document, MatchDetails* details) const {
  matcher_detail::Input in;
  in.document = document;
  if (!details) return state_->root->matches(in, nullptr);
  details->array_index.reset();
  bool ok = state_->root->matches(in, &details->array_index);
  if (!ok) details->array_index.reset();
  return ok;
}

bool Matcher::is_empty() const {
  return state_->empty;
}

std::optional<bson::Value> Matcher::id_equality() const {
  for (const auto& [path, value] : state_->equalities) {
    if (path == "_id") return value;
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, bson::Value>> Matcher::equality_fields() const {
  return state_->equalities;
}

bson::DocumentView Matcher::filter() const {
  return state_->filter.view();
}

const std::shared_ptr<const Collation>& Matcher::collation() const {
  return state_->collation;
}

}  // namespace mongostore::engine
