#include "engine/query/covered_read.h"

#include <algorithm>
#include <string_view>

#include "engine/filter_paths.h"

namespace mongostore::engine {

bool covers_read(const IndexDescriptor& index, const Matcher& matcher, const Projection& result,
                 bson::DocumentView sort_spec) {
  const std::vector<std::string>& stored = index.stored_fields();
  if (stored.empty()) return false;
  const std::vector<std::string>& kept = result.included_top_level_fields();
  if (kept.empty() || !index.stores_all(kept)) return false;
  // A path is read from the entry when its first component is a stored field.
  auto outside = [&](std::string_view path) {
    std::string_view top = path.substr(0, path.find('.'));
    return std::find(stored.begin(), stored.end(), top) == stored.end();
  };
  for (const bson::Element& e : sort_spec) {
    if (!e.value.is_number() || outside(e.key)) return false;  // {$meta: ...} and the like too
  }
  bool missed = false;
  const bool known = for_each_filter_path(matcher.filter(), [&](std::string_view path) {
    missed = outside(path);
    return missed;
  });
  return known && !missed;
}

bool read_is_covered(const PlannedQuery& plan, const Matcher& matcher, const Projection& result,
                     bson::DocumentView sort_spec) {
  if (plan.id_key || !plan.index_plan || plan.id_index || plan.index == nullptr) return false;
  const IndexDescriptor& d = plan.index->descriptor;
  if (d.stored_fields().empty()) return false;
  // An index order that is the sort needs no sort key of the documents.
  return covers_read(d, matcher, result, plan.provides_sort() ? bson::DocumentView() : sort_spec);
}

}  // namespace mongostore::engine
