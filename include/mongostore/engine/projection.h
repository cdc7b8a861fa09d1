// Projection: which fields of a document a read returns (MongoDB's find projection).
//
// Supported:
// - inclusion ({a: 1, "b.c": 1}) and exclusion ({a: 0}) of fields and dotted paths (through
//   sub-documents and arrays of sub-documents), with MongoDB's `_id` rule (included unless
//   excluded explicitly); mixing the two fails with 31254 naming the field;
// - `{arr: {$slice: n}}` (first n, or last -n) and `{arr: {$slice: [skip, limit]}}`, on any
//   path; $slice neither includes nor excludes, so alone it returns every field;
// - `{arr: {$elemMatch: filter}}`: the first element matching `filter` (the field is left out
//   when none does); top-level fields only (31275), and it counts as an inclusion;
// - the positional `{"arr.$": 1}`: the element of `arr` at which the query matched (the
//   projection must be compiled with that query); one per projection (31276), inclusion only,
//   and a document where the query matched no element of `arr` fails with 51246.
// $meta and projection expressions ({x: "$a"}) fail with NotImplemented (238) naming the field.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/matcher.h"

namespace mongostore::engine {

class Projection {
 public:
  /// The identity projection (whole documents).
  Projection();
  /// Compiles `spec`. `query` is the filter that selected the documents; it is needed (and
  /// copied) only for the positional operator. Throws mongostore::Error for invalid specs.
  static Projection compile(bson::DocumentView spec, const Matcher* query = nullptr);

  bool is_identity() const;
  /// Whether `spec` only keeps or drops plain fields: every value a number or a boolean and no
  /// `$` in a path (no positional projection, $slice, $elemMatch, $meta or computed field).
  /// A stored document then holds every field it keeps, with the same value.
  static bool only_selects(bson::DocumentView spec);
  /// The top-level fields apply() copies when it keeps whole top-level fields and nothing
  /// else ({a: 1, b: 1}; `_id` among them unless excluded), in no particular order. Empty
  /// otherwise: apply() may then read any field of the document.
  const std::vector<std::string>& included_top_level_fields() const { return flat_fields_; }
  /// Whether apply() reads the query it was compiled with (the positional operator): a
  /// projection compiled for one query must then not be applied to another's results.
  bool uses_query() const { return query_ != nullptr; }
  /// Projects `document`, which must be one the query matched.
  bson::Document apply(bson::DocumentView document) const;
  /// Appends the bytes of apply(document) to `out` (whatever it already holds is kept): a
  /// reader projecting a batch of documents into one buffer allocates per batch, not per
  /// document. `out` grows geometrically, so appending n documents copies O(total) bytes.
  void apply_into(bson::DocumentView document, std::vector<uint8_t>& out) const;

  struct Node;

 private:
  static std::vector<std::string> flat_inclusion_fields(const Projection& p);
  // Compiles `spec` into `p` when it is plain top-level inclusions only; false otherwise.
  static bool compile_flat(bson::DocumentView spec, Projection& p);

  std::shared_ptr<const Node> root_;
  bool inclusion_ = false;
  bool include_id_ = true;
  // The query, kept for the positional operator (which re-matches to find the element).
  std::shared_ptr<const Matcher> query_;
  // An inclusion of a few top-level fields and nothing else ({a: 1, b: 1}, `_id` as the spec
  // says): the fields, in no particular order (`root_` is then not built, or not used).
  // apply() copies the matching elements'
  // bytes in one pass instead of walking the tree and rebuilding each value; empty otherwise.
  std::vector<std::string> flat_fields_;
  // The lengths of flat_fields_, one bit each (bit min(length, 63)): an element whose name
  // has none of them is skipped without a comparison.
  uint64_t flat_lengths_ = 0;
};

}  // namespace mongostore::engine
