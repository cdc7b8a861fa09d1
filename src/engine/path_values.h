// The values a dotted path reaches in a document, the way sort and distinct see them.
#pragma once

#include <string_view>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// Appends every value `path` reaches in `doc`: arrays met on the way are traversed (each
/// element's sub-path is followed; a numeric part also indexes the array), and an array at the
/// end of the path contributes its elements. Values point into `doc`.
void collect_path_values(bson::DocumentView doc, std::string_view path,
                         std::vector<bson::Value>* out);

/// Like collect_path_values, but an array at the end of the path also contributes itself
/// when it is empty (so sort can treat `[]` distinctly).
bool path_reaches_empty_array(bson::DocumentView doc, std::string_view path);

}  // namespace mongostore::engine
