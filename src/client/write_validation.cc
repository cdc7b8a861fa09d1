#include "client/write_validation.h"

#include <string>

#include "mongostore/error.h"

namespace mongostore::client {

void require_update_operators(bson::DocumentView update, std::string_view context) {
  if (update.empty()) {
    throw Error(ErrorCode::kBadValue, std::string(context) + ": update document must not be empty");
  }
  for (const auto& el : update) {
    if (!el.key.starts_with('$')) {
      throw Error(
          ErrorCode::kBadValue,
          std::string(context) +
              ": update document must contain only atomic modifiers ($-operators), found '" +
              std::string(el.key) + "'");
    }
  }
}

void forbid_update_operators(bson::DocumentView replacement, std::string_view context) {
  for (const auto& el : replacement) {
    if (el.key.starts_with('$')) {
      throw Error(ErrorCode::kBadValue,
                  std::string(context) +
                      ": replacement document must not contain atomic modifiers, found '" +
                      std::string(el.key) + "'");
    }
  }
}

}  // namespace mongostore::client
