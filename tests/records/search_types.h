// Record types of the searcher suites: items with nullable scalars, a child list, a nullable
// reference, a rational and a datetime, owned by Authors (record_types.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/records/declare.h"
#include "records/record_types.h"

namespace mongostore::records::testing {

struct Item {
  std::string name;
  std::optional<int64_t> rank;
  std::optional<double> score;
  std::vector<std::string> tags;
  std::vector<int64_t> sizes;
  std::shared_ptr<const Author> owner;
  std::optional<Rational> ratio;
  std::optional<int64_t> limit;
};
inline auto declare_record(Tag<Item>) {
  return record<Item>("mongostore.tests.Item", field("name", &Item::name),
                      field("rank", &Item::rank, indexed), field("score", &Item::score),
                      field("tags", &Item::tags), field("sizes", &Item::sizes),
                      field("owner", &Item::owner, nullable), field("ratio", &Item::ratio),
                      field("limit", &Item::limit))
      .dedup(Dedup::kNone);
}

}  // namespace mongostore::records::testing
