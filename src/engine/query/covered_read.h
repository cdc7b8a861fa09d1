// covers_read: whether a find through an index can be answered from the index's entries
// alone (a covered read), without fetching the documents.
//
// An index with stored fields (IndexDescriptor::stored_fields) carries, in each document's
// first entry, those top-level fields of the document byte for byte (index_entry_value.h; a
// scan that meets a document at a later entry first reads the document there). A find whose
// filter reads only paths under them and whose result keeps only them gets the same answer
// from that small document as from the stored one: the matcher and a blocking sort see the
// same values at every path they read, and the projection copies the same elements in the same
// order. Anything less certain reads the documents: an unknown filter shape (filter_paths.h), a
// projection that is not a plain inclusion of top-level fields (an identity, exclusion, $slice,
// $elemMatch or positional projection may read any field).
//
// Pure; thread-safe.
#pragma once

#include "engine/index_descriptor.h"
#include "engine/query/planned_query.h"
#include "mongostore/engine/matcher.h"
#include "mongostore/engine/projection.h"

namespace mongostore::engine {

/// Whether a scan of `index` can serve a find with `matcher` whose results are `result`'s
/// projection of each document, sorted by `sort_spec` (a find's sort: {path: 1 | -1, ...}; empty
/// when the read needs no sort key of its own), from the entries' stored fields alone.
bool covers_read(const IndexDescriptor& index, const Matcher& matcher, const Projection& result,
                 bson::DocumentView sort_spec = bson::DocumentView());

/// Whether `plan` reads one secondary index (no OR, no `_id` index or lookup) that
/// covers_read the find (`sort_spec` is left out when the plan's order is the sort). Cheap for
/// an index without stored fields (most): asked first.
bool read_is_covered(const PlannedQuery& plan, const Matcher& matcher, const Projection& result,
                     bson::DocumentView sort_spec = bson::DocumentView());

}  // namespace mongostore::engine
