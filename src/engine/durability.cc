#include "mongostore/engine/durability.h"

#include <string>

#include "mongostore/error.h"

namespace mongostore::engine {

std::string_view durability_name(Durability d) {
  switch (d) {
    case Durability::kDurable:
      return "durable";
    case Durability::kJournaled:
      return "journaled";
    case Durability::kInMemory:
      return "in-memory";
  }
  return "unknown";
}

Durability parse_durability(std::string_view name) {
  if (name == "durable") return Durability::kDurable;
  if (name == "journaled") return Durability::kJournaled;
  if (name == "in-memory" || name == "memory") return Durability::kInMemory;
  throw Error(ErrorCode::kBadValue, "unknown durability '" + std::string(name) +
                                        "': expected durable, journaled or in-memory");
}

}  // namespace mongostore::engine
