// Execution: the durable state of one workflow / statechart execution.
//
// The store persists it whole (serialized as JSON into the document's `data` field, as harel
// does) and guards every write with `version`: a commit made from version v succeeds only if
// the stored execution is still at v, and leaves it at v + 1.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/exec/event.h"

namespace mongostore::exec {

enum class ExecutionStatus {
  kPending,
  kRunning,
  kDone,
  kCancelled,
  kSuspended,
  kCancelling,
  kFailed
};

/// "PENDING", "RUNNING", "DONE", "CANCELLED", "SUSPENDED", "CANCELLING", "FAILED".
std::string_view status_name(ExecutionStatus status);
/// The inverse of status_name; BadValue (2) for an unknown name.
ExecutionStatus parse_status(std::string_view name);
/// DONE, CANCELLED and FAILED: the execution will not move again.
bool is_terminal(ExecutionStatus status);

/// The join state of a child execution started by an orthogonal fork.
struct ChildState {
  std::string root_path;  // the region the child runs ("Fork.A")
  bool finished = false;
  std::optional<std::string> outcome;
  bson::Document result;
  bool submachine = false;
  std::optional<std::string> key;
  bool operator==(const ChildState& other) const;
};

struct Execution {
  std::string id;
  std::string definition_id;
  std::optional<std::string> definition_fqn;
  /// "" for a root execution; the forked region for a child.
  std::string root_path;
  ExecutionStatus status = ExecutionStatus::kPending;
  std::optional<std::string> outcome;
  std::optional<std::string> error;
  std::optional<std::string> active_path;
  /// History states: region path -> last active path (kept as a document of strings).
  bson::Document history;
  /// The execution's variables.
  bson::Document context;
  int64_t processed_events = 0;
  /// The optimistic-concurrency counter: 0 until first saved.
  int64_t version = 0;
  /// 0 (lowest) .. 4.
  int priority = 0;
  std::optional<std::string> parent_id;
  std::optional<std::string> child_id;
  /// Events deferred for later states.
  std::vector<Event> deferred;
  /// Children by execution id (a std::map: serialized in key order).
  std::map<std::string, ChildState> children;
  /// Per-state invocation counters.
  bson::Document invoke_seq;

  /// Compact JSON with the fields in declaration order, as harel's model dumps it (the
  /// `data` field of the stored document).
  std::string to_json() const;
  /// Parses to_json()'s output; FailedToParse (9) naming the field when it is malformed.
  static Execution from_json(std::string_view json);

  bool operator==(const Execution& other) const;
};

}  // namespace mongostore::exec
