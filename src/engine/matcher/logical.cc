// $and, $or, $nor, $not.
#include "engine/matcher/expression.h"

namespace mongostore::engine::matcher_detail {

bool AndNode::matches(const Input& in, std::optional<size_t>* index) const {
  for (const auto& c : children_) {
    if (!c->matches(in, index)) return false;
  }
  return true;
}

bool OrNode::matches(const Input& in, std::optional<size_t>* index) const {
  for (const auto& c : children_) {
    if (!index) {
      if (c->matches(in, nullptr)) return true;
      continue;
    }
    // A branch that fails may have recorded an index on the way; keep only the winner's.
    std::optional<size_t> branch;
    if (c->matches(in, &branch)) {
      if (branch) *index = branch;
      return true;
    }
  }
  return false;
}

bool NorNode::matches(const Input& in, std::optional<size_t>*) const {
  for (const auto& c : children_) {
    if (c->matches(in, nullptr)) return false;
  }
  return true;
}

bool NotNode::matches(const Input& in, std::optional<size_t>*) const {
  return !child_->matches(in, nullptr);
}

}  // namespace mongostore::engine::matcher_detail
