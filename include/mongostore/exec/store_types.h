// The values the ExecutionStore takes and returns besides Execution and Event.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/exec/event.h"
#include "mongostore/exec/execution.h"

namespace mongostore::exec {

/// An event emitted by a commit, to be delivered to `target_id` (nullopt: no target).
struct Emit {
  std::optional<std::string> target_id;
  Event event;
};

/// A child execution a commit asks to create (an orthogonal fork's region).
struct Spawn {
  std::string child_id;
  std::string root_path;
  bson::Document context;
};

/// Arms or cancels the durable timer of one node path.
struct TimerOp {
  enum class Action { kSchedule, kCancel };
  Action action = Action::kSchedule;
  std::string path;    // node path, dots allowed ("Fork.A")
  double fire_at = 0;  // epoch seconds (kSchedule only)
  static TimerOp schedule(std::string path, double fire_at) {
    return TimerOp{Action::kSchedule, std::move(path), fire_at};
  }
  static TimerOp cancel(std::string path) { return TimerOp{Action::kCancel, std::move(path), 0}; }
};

/// Everything one commit carries besides the execution itself. All of it lands in the same
/// single-document update, or none of it does.
struct CommitBatch {
  std::vector<Emit> emits;
  /// The event this commit handled (recorded for dedupe).
  std::optional<std::string> processed_event_id;
  /// Applied in order: for one path the last op wins.
  std::vector<TimerOp> timers;
  std::vector<Spawn> spawns;
  /// One trace step (any fields; the store stamps `index`).
  std::optional<bson::Document> trace;
};

/// A pending outbox entry: an event waiting for the relay.
struct OutboxEntry {
  int64_t seq = 0;
  std::optional<std::string> target_id;
  Event event;
  /// The execution whose commit emitted it.
  std::string source_id;
};

/// A pending spawn: a child execution waiting to be created.
struct SpawnEntry {
  int64_t seq = 0;
  std::string parent_id;
  std::string child_id;
  std::string root_path;
  bson::Document context;
};

/// A timer that is due.
struct DueTimer {
  std::string execution_id;
  std::string path;
  double fire_at = 0;
};

/// The listing view of an execution (no context, no history).
struct ExecutionSummary {
  std::string id;
  std::string definition_id;
  ExecutionStatus status = ExecutionStatus::kPending;
  std::optional<std::string> outcome;
  std::optional<std::string> active_path;
  int64_t version = 0;
  std::optional<std::string> parent_id;
};

struct ListQuery {
  /// Any of these statuses (empty: all).
  std::vector<ExecutionStatus> statuses;
  std::optional<std::string> definition_id;
  /// Leave out executions with a parent.
  bool roots_only = false;
  /// Items per page, >= 1 (BadValue otherwise).
  int64_t limit = 50;
  /// From a previous page's next_cursor; nullopt starts at the beginning.
  std::optional<std::string> cursor;
};

struct ExecutionPage {
  std::vector<ExecutionSummary> items;  // by id ascending
  /// Set when more matching executions may follow.
  std::optional<std::string> next_cursor;
};

}  // namespace mongostore::exec
