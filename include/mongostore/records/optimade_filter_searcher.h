// The translation of an OPTIMADE filter (optimade_filter.h) onto the searcher (searcher.h):
// a filter over one record type's runtime schema becomes one searcher condition, compiled
// into the same server-side aggregation as any other search (reference §10).
//
//   OptimadeSearch search = optimade_filter_searcher(
//       store, schema_of<Structure>(),
//       R"(_httk_custom_spacegroup = 225 AND _httk_custom_tags HAS "cubic")");
//   search.searcher.output(search.record.sid(), "sid");
//   ResultPage page = search.searcher.page(100, {{"sid"}});
//
// Property names. A stored field `f` of the record is `<prefix>custom_f` (prefix "_httk_" by
// default, as httk names them); `<prefix>sid`, `<prefix>logical_id` and
// `<prefix>store_timestamp` are the record's own keys; `properties` adds names of your own
// (e.g. "chemical_formula_reduced" -> "formula"). A nested name follows references: with
// `author` a reference field, `_httk_custom_author.name` is the referenced record's `name`
// (any depth, each further component a field name of the record reached).
//
// Types (OPTIMADE's, per field): int -> integer; float and rational -> float (compared by the
// stored nearest double); str -> string; bool -> boolean; datetime -> timestamp (an RFC 3339
// string with its offset, compared as an instant); date -> a "YYYY-MM-DD" string; a list of
// those -> list; a reference -> integer (the referenced sid; `IS KNOWN` tests it is set);
// sid, logical_id -> integer; store_timestamp -> timestamp.
//
// Semantics are OPTIMADE's, which are the searcher's three-valued logic: a comparison
// involving an unknown (null) value matches neither itself nor its negation
// (`NOT x = 1` does not match a record whose x is null); only `IS KNOWN` / `IS UNKNOWN` see
// nulls. A list is never null (an absent list is empty). A property with another database's
// prefix (`_exmpl_x`, any `_name_` prefix that is not ours) is unknown on every record, as
// the specification requires, and noted in `warnings`.
//
// What is translated: AND, OR, NOT; `=` `!=` `<` `<=` `>` `>=` between a property and a
// constant (either side) or between two scalar properties of the same kind; booleans with `=`
// / `!=` only, and a bare boolean property as `= TRUE` (a bare non-boolean one is `IS
// KNOWN`); CONTAINS, STARTS [WITH], ENDS [WITH] with a string constant on string
// properties (literal, case-sensitive); `HAS`, `HAS ALL`, `HAS ANY` on lists with values
// optionally preceded by a comparison operator (`HAS ANY > 3, = 6`), `HAS ONLY` with plain
// values; `LENGTH` with an optional comparison operator; `IS KNOWN`, `IS UNKNOWN`;
// `<type>.id` of a relationship (options.relationships) with HAS, HAS ALL, HAS ANY, HAS ONLY,
// LENGTH.
//
// What is refused, as FilterTranslationError with its category (never a different result):
//  - "unrecognized-property": a name without a prefix, or with ours, that is no property
//    (OPTIMADE's 400 Bad Request);
//  - "type-mismatch": a constant of another type than the property's (`x = "1"` on an
//    integer), a string operator on a non-string, HAS on a non-list, a naive timestamp, a
//    non-integer LENGTH (OPTIMADE's 501);
//  - "not-implemented": `<type>.` anything but `id` on a relationship (`<type>.target.x`:
//    use a nested name through the reference instead), constant-versus-constant comparisons,
//    string operators or HAS values with a property on the right, correlated lists
//    (`a:b HAS 1:2`), `HAS ONLY` (or a relationship's HAS) with an operator, fuzzy operators
//    inside HAS lists, ordering of booleans, numbers beyond int64 or double range on integer
//    properties, properties of a type the searcher cannot query (bytes, matrices, lists of
//    records, lists reached through a reference), nested names through a non-reference
//    (OPTIMADE's 501);
//  - "syntax": the filter is not OPTIMADE's grammar (OptimadeFilterSyntaxError, from the
//    parser).
//
// Thread safety: pure functions of their arguments; the returned Searcher is used by one
// thread at a time.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/records/optimade_filter.h"
#include "mongostore/records/query.h"
#include "mongostore/records/searcher.h"

namespace mongostore::records {

struct OptimadeTranslationOptions {
  /// The database-specific prefix of this store's property names, `_name_`.
  std::string prefix = "_httk_";
  /// Further property names: OPTIMADE name -> a field path of the record: a stored field
  /// ("formula"), a chain through references ("author.name"), or one of "sid",
  /// "logical_id", "store_timestamp". A path that does not exist is a SchemaError when the
  /// name is used.
  std::map<std::string, std::string> properties;
  /// OPTIMADE relationships: an entry type (e.g. "calculations") -> a reference field or a
  /// list-of-records field of the record. `<type>.id` is then the list of the related
  /// records' ids, each "<type>-<sid>" (an id of another form matches no record), for HAS,
  /// HAS ALL, HAS ANY, HAS ONLY (plain values), LENGTH and IS KNOWN (always: a record without
  /// a related one has an empty list). A field that is neither is a SchemaError when used.
  std::map<std::string, std::string> relationships;
};

/// A condition and what the translation noted on the way.
struct OptimadeTranslation {
  Condition condition;
  /// One line per property of another database treated as unknown.
  std::vector<std::string> warnings;
};

/// The condition of `filter` on the records of variable `record` (of any searcher).
/// FilterTranslationError as described above.
OptimadeTranslation translate_optimade_filter(const OptimadeFilter& filter, const Var& record,
                                              const OptimadeTranslationOptions& options = {});

/// A searcher over `schema`'s records (the root variable `record`) with the filter's
/// condition added; declare outputs, sorts or page it as any searcher.
struct OptimadeSearch {
  Searcher searcher;
  Var record;
  std::vector<std::string> warnings;
};

/// Parses `filter` (OptimadeFilterSyntaxError) and translates it (FilterTranslationError) onto
/// a new searcher of `store` with `search_options`.
OptimadeSearch optimade_filter_searcher(RecordStore& store,
                                        const std::shared_ptr<const RecordSchema>& schema,
                                        std::string_view filter,
                                        const OptimadeTranslationOptions& options = {},
                                        SearchOptions search_options = {});

}  // namespace mongostore::records
