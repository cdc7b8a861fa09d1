#include "client/write_validation.h"

#include <cstring>
#include <string>

#include "bson/raw.h"
#include "mongostore/error.h"

namespace mongostore::client {

void require_update_operators(bson::DocumentView update, std::string_view context) {
  if (update.empty()) {
    throw Error(ErrorCode::kBadValue, std::string(context) + ": update document must not be empty");
  }
  // Only the top-level keys matter: they are read from the (validated) bytes, each value
  // skipped by its size, without a Value per element (every updateOne passes here; the
  // ExecutionStore's commit is one, issue 29).
  const uint8_t* p = update.data() + 4;
  const uint8_t* const end = update.data() + update.size() - 1;  // the trailing NUL
  while (p < end && *p != 0) {
    const auto type = static_cast<bson::BsonType>(*p);
    const char* key = reinterpret_cast<const char*>(p + 1);
    const size_t key_len = std::strlen(key);
    if (key[0] != '$') {
      throw Error(
          ErrorCode::kBadValue,
          std::string(context) +
              ": update document must contain only atomic modifiers ($-operators), found '" +
              std::string(key, key_len) + "'");
    }
    const uint8_t* payload = p + 2 + key_len;
    p = payload + bson::raw::payload_size(type, payload);
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
