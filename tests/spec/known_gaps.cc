#include "spec/known_gaps.h"

#include <iterator>

namespace mongostore::spec {
namespace {

// {file, test description, reason}. Only behaviour MongoDB has and the engine does not yet;
// remove an entry as soon as the engine passes it (the runner reports stale entries).
constexpr KnownGap kKnownGaps[] = {
    {"updateOne-validation.json", "UpdateOne requires atomic modifiers",
     "update_one takes a replacement document instead of rejecting it (drivers require "
     "$-operators in updateOne)"},
};

}  // namespace

const KnownGap* find_known_gap(std::string_view file, std::string_view description) {
  for (const auto& gap : kKnownGaps) {
    if (file == gap.file && description == gap.description) return &gap;
  }
  return nullptr;
}

}  // namespace mongostore::spec
