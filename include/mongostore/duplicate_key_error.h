// DuplicateKeyError: the DuplicateKey (11000) error with the index's key pattern and the
// offending key value, as mongod's error response carries them (keyPattern, keyValue), and
// for an index with a collation that collation (its full form): the key value's strings are
// then the collation's sort keys in lowercase hex, and mongod's reply says so with
// `hexEncoded` (one bool per keyValue field) and `collation`.
// Its own header so every layer that can raise it (the engine's indexes, $merge's
// whenMatched: "fail", the remote client decoding a reply) shares one type.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/error.h"

namespace mongostore {

class DuplicateKeyError : public Error {
 public:
  DuplicateKeyError(std::string message, bson::Document key_pattern, bson::Document key_value,
                    bson::Document collation = bson::Document())
      : Error(ErrorCode::kDuplicateKey, std::move(message)),
        key_pattern_(std::move(key_pattern)),
        key_value_(std::move(key_value)),
        collation_(std::move(collation)) {}
  const bson::Document& key_pattern() const { return key_pattern_; }
  const bson::Document& key_value() const { return key_value_; }
  /// The index's collation; empty for the simple one (then nothing is hex encoded).
  const bson::Document& collation() const { return collation_; }
  /// Per keyValue field, whether it is a hex-encoded sort key (a string under a collation).
  std::vector<bool> hex_encoded() const {
    std::vector<bool> out;
    for (const bson::Element& e : key_value_) {
      out.push_back(!collation_.empty() && e.value.is_string());
    }
    return out;
  }

 private:
  bson::Document key_pattern_;
  bson::Document key_value_;
  bson::Document collation_;
};

}  // namespace mongostore
