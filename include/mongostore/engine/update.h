// Update: MongoDB's update language (operator documents and replacement documents).
//
//   Update u = Update::compile(update_doc, array_filters);
//   Update::Result r = u.apply(stored_doc, positional_index, is_upsert_insert);
//   if (r.modified) write(r.document);
//
// Supported operators: $set $unset $inc $mul $min $max $rename $setOnInsert $currentDate
// $bit, and for arrays $push (with $each $slice $sort $position) $addToSet (with $each) $pop
// $pull $pullAll. Paths may use the positional `$`, all-positional `$[]` and filtered
// `$[<id>]` (with arrayFilters). Errors carry MongoDB's codes and messages.
//
// An update pipeline (a list of $set/$addFields, $unset, $project, $replaceRoot/$replaceWith
// stages, MongoDB 4.2+) is compiled with compile_pipeline(); the aggregation layer, which sits
// above this one, installs the stage compiler (Engine::open does it).
//
// compile() parses and validates once (unknown modifiers, conflicting paths, bad arguments);
// apply() rewrites the document in one pass and never mutates its input. An Update owns a
// copy of the bytes it was compiled from and is cheap to copy.
// compile() builds an operator update's path tree once per shape (its operators and paths,
// not its values) and reuses it for later updates of that shape, parsing only their arguments:
// a bounded, thread-safe, process-wide cache (src/engine/update/shape_cache.h); results and
// errors are those of a full compile.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/collation.h"

namespace mongostore::engine {

/// Turns an update pipeline into the function from stored to updated document.
using UpdatePipelineFunction = std::function<bson::Document(bson::DocumentView original)>;
/// Compiles `stages`; `let` ({name: expression}) defines $$name for the stages' expressions,
/// which compare strings under `collation` (null: simple).
using UpdatePipelineCompiler = UpdatePipelineFunction (*)(
    bson::DocumentView stages, bson::DocumentView let, std::shared_ptr<const Collation> collation);
void install_update_pipeline_compiler(UpdatePipelineCompiler compiler);

class Update {
 public:
  /// `update` is either an operator document ({$set: ..., $inc: ...}) or a replacement
  /// document (no $-keys). `array_filters` is the arrayFilters option (may be empty).
  /// Throws mongostore::Error (FailedToParse, BadValue, ConflictingUpdateOperators, ...).
  /// `collation` (null: simple) decides string equality for $addToSet, $pull, $pullAll and
  /// the arrayFilters and $pull conditions, as in MongoDB.
  static Update compile(bson::DocumentView update,
                        std::span<const bson::DocumentView> array_filters = {},
                        std::shared_ptr<const Collation> collation = nullptr);
  /// As compile, without copying `update`: the caller keeps its bytes alive and unchanged
  /// for as long as the returned Update (or a copy of it) is used. For a write command
  /// that compiles and applies within one call.
  static Update compile_borrowed(bson::DocumentView update,
                                 std::span<const bson::DocumentView> array_filters = {},
                                 std::shared_ptr<const Collation> collation = nullptr);

  /// `stages` is an array of pipeline stages (BSON array bytes, as a DocumentView). Throws
  /// NotImplemented until the aggregation layer installed its compiler, InvalidOptions (72)
  /// for a stage not allowed in an update, and the stages' own parse errors.
  /// `let`: variables ({name: expression}) the stages' expressions can read as $$name.
  /// `collation` (null: simple): the stages' expressions compare strings under it.
  static Update compile_pipeline(bson::DocumentView stages, bson::DocumentView let = {},
                                 std::shared_ptr<const Collation> collation = nullptr);

  /// True when the update is a replacement document.
  bool is_replacement() const;
  /// True when the update is a pipeline.
  bool is_pipeline() const;

  /// The dotted paths an operator update can change ($rename: both source and target), each
  /// cut before its first positional (`$`, `$[]`, `$[id]`) or numeric component, since an
  /// index path walks through arrays ("a.0.b" may change what an index on "a.b" sees).
  /// nullopt when the update may change any field (replacement, pipeline). Used to skip the
  /// indexes an update cannot affect (MongoDB's UpdateIndexData).
  std::optional<std::vector<std::string>> modified_paths() const;
  /// The same paths without a copy: shared with this update's compiled shape (which updates
  /// of the same shape share), null when the update may change any field.
  std::shared_ptr<const std::vector<std::string>> shared_modified_paths() const;

  struct Result {
    bson::Document document;
    bool modified;  // false when `document` is byte-identical to the original
  };

  /// Applies the update to `original`. `positional_index` is the array index matched by the
  /// query (for the `$` positional operator), if any. `is_upsert_insert` is true when applying
  /// to a freshly seeded upsert document ($setOnInsert applies only then).
  Result apply(bson::DocumentView original, std::optional<size_t> positional_index = std::nullopt,
               bool is_upsert_insert = false) const;

  struct Impl;

 private:
  explicit Update(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  static Update compile_impl(bson::DocumentView update,
                             std::span<const bson::DocumentView> array_filters,
                             std::shared_ptr<const Collation> collation, bool borrowed);
  std::shared_ptr<const Impl> impl_;
};

}  // namespace mongostore::engine
