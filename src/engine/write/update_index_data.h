// UpdateIndexData: which indexes an update can affect (MongoDB's UpdateIndexData idea).
//
// An operator update changes only the paths its operators name; an index whose key paths,
// partialFilterExpression paths and stored fields are all unrelated to them keeps exactly the
// entries it had, so
// the write path need not generate them twice and diff them (about two thirds of an indexed
// update's index cost). Paths relate by prefix on whole components: "a.b" modified affects
// indexes on "a", "a.b" and "a.b.c", not "a.bc". A modified path is cut before its first
// positional or numeric component (Update::modified_paths). A replacement or pipeline update
// affects every index. When in doubt (a partial filter this class does not understand, a
// `$` in an index path) the index counts as affected.
//
// Immutable after construction; safe to share between threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/index_descriptor.h"
#include "mongostore/engine/update.h"

namespace mongostore::engine {

class UpdateIndexData {
 public:
  /// Every index is affected.
  UpdateIndexData() = default;
  /// The paths `update` can change.
  /// (Shares the update's paths: no copy per update.)
  explicit UpdateIndexData(const Update& update) : modified_(update.shared_modified_paths()) {}
  /// `modified`: nullopt for "any field".
  explicit UpdateIndexData(std::optional<std::vector<std::string>> modified)
      : modified_(modified ? std::make_shared<const std::vector<std::string>>(std::move(*modified))
                           : nullptr) {}

  /// False only when no document's keys (or membership, or stored fields) in `index` can
  /// change.
  bool affects(const IndexDescriptor& index) const;

 private:
  bool affects_path(std::string_view path) const;
  std::shared_ptr<const std::vector<std::string>> modified_;  // null: any field
};

}  // namespace mongostore::engine
