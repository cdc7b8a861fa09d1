#include "engine/write/update_index_data.h"

#include <string_view>
#include <utility>

#include "engine/filter_paths.h"

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

bool UpdateIndexData::affects(const IndexDescriptor& index) const {
  if (!modified_) return true;
  for (const IndexField& f : index.fields()) {
    if (affects_path(f.path)) return true;
  }
  // The entries carry these fields' values (index_entry_value.h).
  for (const std::string& f : index.stored_fields()) {
    if (affects_path(f)) return true;
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
