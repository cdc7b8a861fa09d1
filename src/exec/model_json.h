// The JSON halves of the models that nest inside one another (an Execution holds deferred
// Events), shared between event.cc and execution.cc, and the writers the commit uses to
// serialise straight into its own buffer (execution_store.cc).
#pragma once

#include <string>
#include <string_view>

#include "exec/json_writer.h"
#include "mongostore/bson/document.h"
#include "mongostore/exec/event.h"
#include "mongostore/exec/execution.h"

namespace mongostore::exec {

/// About the length of a BSON document's JSON: its bytes and an eighth (quotes and commas
/// outgrow BSON's length prefixes and type bytes a little); for reserving a writer's buffer.
inline size_t json_size_estimate(bson::DocumentView doc) {
  return doc.size() + doc.size() / 8;
}
/// About the length of `event`'s JSON, for reserving a writer's buffer.
size_t json_size_estimate(const Event& event);
/// Writes `event` as one JSON object value.
void write_event(JsonWriter& out, const Event& event);
/// About the length of `exe`'s JSON, for reserving a writer's buffer.
size_t json_size_estimate(const Execution& exe);
/// Writes `exe` as one JSON object value: Execution::to_json's bytes.
void write_execution(JsonWriter& out, const Execution& exe);
/// Reads an Event from its parsed form; `what` names it in errors ("Event", "deferred[2]").
Event read_event(bson::DocumentView doc, const std::string& what);
/// Parses model JSON into BSON; FailedToParse naming `what` when it is not one JSON object.
bson::Document parse_model_json(std::string_view json, std::string_view what);

}  // namespace mongostore::exec
