// Event: something delivered to an execution (a message, a timeout, a child's completion).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "mongostore/bson/document.h"

namespace mongostore::exec {

struct Event {
  /// Unique per event (32 lowercase hex digits for generated ids); the dedupe key.
  std::string id;
  /// What happened ("Pay", "Timeout", "Finished", ...).
  std::string kind;
  /// ISO-8601 times as harel writes them ("2025-01-02T03:04:05.678901Z"), usually unset.
  std::optional<std::string> created_time;
  std::optional<std::string> received_time;
  /// Arbitrary payload.
  bson::Document data;

  /// An event with a fresh random id.
  static Event make(std::string kind, bson::Document data = {});

  /// Compact JSON in declaration order: {"id":…,"kind":…,"created_time":…,"received_time":…,
  /// "data":{…}} (the shape harel stores in outbox entries).
  std::string to_json() const;
  /// Parses to_json()'s output; FailedToParse (9) naming the field when it is malformed.
  static Event from_json(std::string_view json);

  bool operator==(const Event& other) const;
};

/// A fresh random 32-hex-digit id (a UUID4 without dashes).
std::string new_id();

}  // namespace mongostore::exec
