// Synthetic but realistic crystal structures for `mongostore demo records`, generated
// deterministically from (seed, index): the same batch again is the same records (and the
// same content ids), which is what makes a second import a run of dedup hits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "records_demo_types.h"

namespace mongostore::tool::demo {

class StructureGenerator {
 public:
  explicit StructureGenerator(uint64_t seed);

  /// Structure number `index`: 10 to 50 sites of 1 to 4 real elements, a space group, an
  /// exact rational cell, an energy, and one of the shared calculations and authors.
  Structure structure(int64_t index) const;

  const std::vector<std::shared_ptr<const Author>>& authors() const { return authors_; }
  const std::vector<std::shared_ptr<const Calculation>>& calculations() const {
    return calculations_;
  }

 private:
  uint64_t seed_;
  std::vector<std::shared_ptr<const Author>> authors_;
  std::vector<std::shared_ptr<const Calculation>> calculations_;
};

}  // namespace mongostore::tool::demo
