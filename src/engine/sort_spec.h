// SortSpec: a compiled sort specification ({a: 1, b: -1}) and the byte keys it sorts by.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/engine/collation.h"

namespace mongostore::engine {

class SortSpec {
 public:
  SortSpec() = default;
  /// Throws BadValue for orders other than 1 / -1 and NotImplemented for {$meta: ...}.
  /// Strings sort under `collation` (null: bytes).
  static SortSpec compile(bson::DocumentView spec,
                          std::shared_ptr<const Collation> collation = nullptr);

  bool empty() const { return fields_.empty(); }
  /// A byte string whose memcmp order is the document's position in this sort: per field the
  /// index key of the smallest (ascending) or largest (descending) value the path reaches,
  /// null when it reaches none, complemented for descending fields. Under a collation,
  /// strings are keyed by their ICU sort keys.
  std::string key_for(bson::DocumentView doc) const;

 private:
  struct Field {
    std::string path;
    bool descending;
  };
  std::vector<Field> fields_;
  std::shared_ptr<const Collation> collation_;
};

}  // namespace mongostore::engine
