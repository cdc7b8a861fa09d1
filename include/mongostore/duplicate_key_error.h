// DuplicateKeyError: the DuplicateKey (11000) error with the index's key pattern and the
// offending key value, as mongod's error response carries them (keyPattern, keyValue).
// Its own header so every layer that can raise it (the engine's indexes, $merge's
// whenMatched: "fail", the remote client decoding a reply) shares one type.
#pragma once

#include <string>
#include <utility>

#include "mongostore/bson/document.h"
#include "mongostore/error.h"

namespace mongostore {

class DuplicateKeyError : public Error {
 public:
  DuplicateKeyError(std::string message, bson::Document key_pattern, bson::Document key_value)
      : Error(ErrorCode::kDuplicateKey, std::move(message)),
        key_pattern_(std::move(key_pattern)),
        key_value_(std::move(key_value)) {}
  const bson::Document& key_pattern() const { return key_pattern_; }
  const bson::Document& key_value() const { return key_value_; }

 private:
  bson::Document key_pattern_;
  bson::Document key_value_;
};

}  // namespace mongostore
