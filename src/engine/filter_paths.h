// for_each_filter_path: the field paths a find filter reads, from its bytes.
//
// Used where a decision rests on which fields a filter can look at (whether an update can
// change a partial index's membership, whether an index's stored fields cover a read). It
// answers only for filters whose top level is field conditions and $and / $or / $nor of such
// filters; any other top-level operator ($expr, $where, $text, $jsonSchema, $comment, ...)
// may read anything, and the answer is then "not known". Pure; thread-safe.
#pragma once

#include <string_view>

#include "mongostore/bson/document.h"

namespace mongostore::engine {

/// Calls `on_path(std::string_view path)` for each field path `filter` reads (the keys of its
/// field conditions, dotted as written), until `on_path` returns true. Returns false when the
/// filter has a top-level operator other than $and / $or / $nor over documents (its paths are
/// not known).
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

}  // namespace mongostore::engine
