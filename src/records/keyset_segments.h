// KeysetSegments: the rows of a keyset page after an anchor, as a short sequence of index
// range scans (Searcher::page; reference §9 "Keyset paging").
//
// A page orders rows by (rank_0, value_0, ..., rank_{m-1}, value_{m-1}, sid), where a key's
// rank puts its nulls first or last. Written as one $expr over computed ranks, that order
// cannot be read from an index, so every page sorts every matching row. Here the rows after
// an anchor are split instead into disjoint segments, each a plain filter that one compound
// index {key_0: ±1, ..., key_{m-1}: ±1, _id: 1} reads as a single key range in the page's
// order:
//   - keys 0..i-1 equal to the anchor's (a point each: the value, or null), key i beyond it
//     (its value beyond the anchor's among the known values, then the other null group when
//     that group comes later), for i = m-1 down to 0;
//   - before those, every key equal to the anchor's and the sid beyond the anchor's sid.
// Without an anchor (the first page) the segments are key 0's two null groups. Run in order,
// each with the rows still wanted as its limit, they give exactly the rows the $expr seek and
// sort give, and each costs O(log n + rows read).
//
// Inside a segment the keys after the branching one are free, so the index must give their
// rank order by itself: a key is "natural" when its nulls come where the index puts them
// (ascending with nulls first, or descending with nulls last). Key 0 may be anything (its two
// null groups are separate segments); when a later key is not natural there are no segments
// (nullopt) and the page falls back to the $expr seek.
//
// A known value is selected by a type-bracketed range that holds every value of the column's
// kind (numbers >= -inf, strings >= "", binData >= empty, bool in [false, true]): stored
// floats are finite (stored_form.h), so no NaN is left out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "records/page_token.h"

namespace mongostore::records {

/// One order key of a page, as the query column it reads.
struct KeysetKey {
  std::string column;  // "f.rank", "_id", "logical_id", ...
  bool descending = false;
  int null_rank = 1;  // where nulls go: 0 first, 1 last
  AnchorKind kind = AnchorKind::kInt;
  /// Whether an index on the column in its direction gives the rank order by itself.
  bool natural() const { return descending == (null_rank == 1); }
};

/// Where a page starts: after (forward) or before (backward) this row.
struct KeysetAnchor {
  bson::DocumentView anchors;  // {"0": v0, ...}: one value per key, null for a null
  int64_t sid = 0;
  bool forward = true;
};

/// The filters (to AND with the query's own) of the segments after `anchor` (the whole order
/// without one), in page order; nullopt when a key after the first is not natural.
std::optional<std::vector<bson::Document>> keyset_segments(
    const std::vector<KeysetKey>& keys, const std::optional<KeysetAnchor>& anchor);

/// The find sort of every segment: each key in its direction, then the sid; all flipped for
/// a backward page. Repeated columns (a key on the sid) appear once.
bson::Document keyset_sort(const std::vector<KeysetKey>& keys, bool forward);

/// The compound index that serves the segments of `keys`: each key in its direction, then
/// `_id: 1` (the sid tie-break), repeated columns once.
bson::Document keyset_index_keys(const std::vector<KeysetKey>& keys);

/// The name of that index on `collection`: `px_<collection>_<column>[_desc]..._id`, bounded
/// to 63 characters (collection_setup.h's bounded_name). Shared by ensure_page_index and the
/// page indexes a record declares, so each finds the other's.
std::string keyset_index_name(const std::string& collection, const bson::Document& index_keys);

}  // namespace mongostore::records
