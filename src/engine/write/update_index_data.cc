#include "engine/write/update_index_data.h"

#include <string_view>
#include <utility>

namespace mongostore::engine {

namespace {

// True when one path is the other or lies below it, on whole components.
bool related(std::string_view a, std::string_view b) {
  // Most pairs differ in their first byte (an update's paths against an index's): decided
  // without the comparison. A non-empty prefix shares its first byte.
  if (!a.empty() && !b.empty() && a[0] != b[0]) return false;
  if (a.size() > b.size()) std::swap(a, b);
  return b.compare(0, a.size(), a) == 0 && (b.size() == a.size() || b[a.size()] == '.');
}

}  // namespace

bool UpdateIndexData::affects_path(std::string_view path) const {
  // A `$` in an index or filter path ("$**" and the like) is beyond what is reasoned about.
  if (path.empty() || path.find('$') != std::string_view::npos) return true;
  for (const std::string& m : *modified_) {
    if (related(m, path)) return true;
  }
  return false;
}

namespace {

// Calls `on_path` for each field path `filter` reads; false when the filter has a top-level
// operator other than $and / $or / $nor over documents (its paths are not known).
template <typename F>
bool for_each_filter_path(bson::DocumentView filter, const F& on_path) {
  for (const bson::Element& e : filter) {
    if (e.key.empty() || e.key[0] != '$') {
      if (on_path(e.key)) return true;
      continue;
    }
    if (e.key != "$and" && e.key != "$or" && e.key != "$nor") return false;
    if (!e.value.is_array()) return false;
    for (const bson::Element& clause : e.value.as_array()) {
      if (!clause.value.is_document()) return false;
      if (!for_each_filter_path(clause.value.as_document(), on_path)) return false;
    }
  }
  return true;
}

}  // namespace

bool UpdateIndexData::affects(const IndexDescriptor& index) const {
  if (!modified_) return true;
  for (const IndexField& f : index.fields()) {
    if (affects_path(f.path)) return true;
  }
  if (!index.partial_filter()) return false;
  // A document may enter or leave a partial index when a path its filter reads changes.
  bool hit = false;
  bool known = for_each_filter_path(index.partial_filter_expression(), [&](std::string_view p) {
    if (affects_path(p)) hit = true;
    return hit;
  });
  return hit || !known;
}

}  // namespace mongostore::engine
