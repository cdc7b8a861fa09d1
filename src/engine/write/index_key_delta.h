// IndexKeyDelta: how one index's keys change between two versions of a document, found from
// the documents' bytes before any key is generated.
//
//   kUnchanged: every top-level field the index's key paths start with holds byte-identical
//               values in both versions, so the keys are the same (a $set to the value already
//               there, a $min that keeps the old bound): nothing to generate.
//   kAppended:  a single-field, non-unique, non-partial index on "f" or "f.x.y" (no numeric
//               component) whose top-level field f is a non-empty array in the old version and,
//               in the new one, the same elements byte for byte followed by more (a $push, an
//               $addToSet that added). The new version's keys are the old ones plus the keys of
//               the added elements (each element's keys depend on that element alone: no
//               positional component, and a non-empty array adds no null / undefined key of its
//               own), so only the added elements' keys are generated (`appended`, a document
//               {f: [added elements]}) and inserted; the non-unique index ignores a key the old
//               elements already had. No key is removed.
//   kFull:      anything else (wildcard or `$` paths, partial filters, compound or unique
//               indexes changed, other array changes): generate both key sets and diff them.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <optional>

#include "engine/index_descriptor.h"
#include "engine/write/top_level_diff.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine {

struct IndexKeyDelta {
  enum class Kind { kUnchanged, kAppended, kFull };
  Kind kind = Kind::kFull;
  /// kAppended: {f: [the elements added to f]}; its keys are the keys to add.
  std::optional<bson::Document> appended;
};

IndexKeyDelta index_key_delta(const IndexDescriptor& index, bson::DocumentView before,
                              bson::DocumentView after);
/// The same, looking the top-level fields up in `diff`, which walked both versions once:
/// update_document asks it once per affected index.
IndexKeyDelta index_key_delta(const IndexDescriptor& index, const TopLevelDiff& diff);

}  // namespace mongostore::engine
