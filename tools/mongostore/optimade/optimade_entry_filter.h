// The OPTIMADE filter of one entry type: the records translation (optimade_filter_searcher.h)
// plus the entry's own `id`, `type` and `immutable_id`, which are no record field and so
// unknown to it. This layer walks the filter's AND / OR / NOT itself, answers the comparisons
// on those three, and hands every other comparison to translate_optimade_filter.
//
// `id` is "<type>-<sid>" (OptimadeEntryType::id_of), never null:
//  - `id = "<type>-<sid>"` is the record's sid; `id != ...` its negation. A string that is
//    not one of this type's ids (another prefix, no number, a leading zero, beyond int64)
//    names no entry: `=` matches nothing and `!=` everything, as for any id that does not
//    exist; never an error.
//  - `id STARTS WITH "<text>"`: every entry when the text is a prefix of "<type>-"; else the
//    sids whose decimal digits start with the text's digits (a union of sid ranges); else
//    nothing.
//  - `IS KNOWN` holds on every entry, `IS UNKNOWN` on none (a bare `id` is `IS KNOWN`).
//  - refused, FilterTranslationError "not-implemented" (OPTIMADE's 501): `<` `<=` `>` `>=`
//    (ids order as strings, "t-10" < "t-9", which sids do not), CONTAINS and ENDS WITH, and a
//    comparison with another property.
// `type` is the entry type's name on every entry: any comparison or string operator with a
// string is decided once, for all entries (`type = "structures"` matches every structure).
// `immutable_id` is the record's content id (a SHA-256 hex string; null for a record without
// one), compared as a string with every comparison and string operator.
// All three: a constant that is not a string, HAS or LENGTH on them, are FilterTranslationError
// "type-mismatch" (OPTIMADE's 501, as the records translation does); a fuzzy operator with
// the constant on the left is "not-implemented".
//
// Thread safety: a pure function of its arguments.
#pragma once

#include "mongostore/records/optimade_filter.h"
#include "mongostore/records/optimade_filter_searcher.h"
#include "mongostore/records/query.h"
#include "optimade/optimade_entry_type.h"

namespace mongostore::tool::optimade {

/// The condition of `filter` on `record` (a variable of `type`'s schema); `options` is the
/// records translation's. Errors as described above, and the records translation's.
records::OptimadeTranslation translate_entry_filter(
    const records::OptimadeFilter& filter, const OptimadeEntryType& type,
    const records::Var& record, const records::OptimadeTranslationOptions& options);

}  // namespace mongostore::tool::optimade
