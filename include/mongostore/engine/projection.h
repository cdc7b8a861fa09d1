// Projection: which fields of a document a read returns (MongoDB's find projection).
//
// Supported: inclusion ({a: 1, "b.c": 1}) and exclusion ({a: 0}) of fields and dotted paths
// (through sub-documents and arrays of sub-documents), with MongoDB's `_id` rule (included
// unless excluded explicitly). Projection operators ($slice, $elemMatch, positional `$`,
// $meta) and expressions fail with NotImplemented (238) naming the operator.
#pragma once

#include <memory>
#include <string>

#include "mongostore/bson/document.h"

namespace mongostore::engine {

class Projection {
 public:
  /// The identity projection (whole documents).
  Projection();
  /// Throws Error(Location31254/31253-style BadValue) for mixed inclusion and exclusion.
  static Projection compile(bson::DocumentView spec);

  bool is_identity() const;
  bson::Document apply(bson::DocumentView document) const;

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  bool inclusion_ = false;
  bool include_id_ = true;
};

}  // namespace mongostore::engine
