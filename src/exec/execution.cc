#include "mongostore/exec/execution.h"

#include <array>
#include <utility>

#include "exec/field_reader.h"
#include "exec/json_writer.h"
#include "exec/model_json.h"
#include "mongostore/error.h"

namespace mongostore::exec {
namespace {

constexpr std::array<std::pair<ExecutionStatus, std::string_view>, 7> kStatusNames = {{
    {ExecutionStatus::kPending, "PENDING"},
    {ExecutionStatus::kRunning, "RUNNING"},
    {ExecutionStatus::kDone, "DONE"},
    {ExecutionStatus::kCancelled, "CANCELLED"},
    {ExecutionStatus::kSuspended, "SUSPENDED"},
    {ExecutionStatus::kCancelling, "CANCELLING"},
    {ExecutionStatus::kFailed, "FAILED"},
}};

void write_child(JsonWriter& out, const ChildState& child) {
  out.begin_object();
  out.field("root_path").string(child.root_path);
  out.field("finished").boolean(child.finished);
  out.field("outcome").optional_string(child.outcome);
  out.field("result").document(child.result);
  out.field("submachine").boolean(child.submachine);
  out.field("key").optional_string(child.key);
  out.end_object();
}

ChildState read_child(bson::DocumentView doc, const std::string& what) {
  FieldReader fields(doc, what);
  ChildState child;
  child.root_path = fields.string("root_path");
  child.finished = fields.boolean("finished");
  child.outcome = fields.optional_string("outcome");
  child.result = bson::Document::copy_of(fields.document("result"));
  child.submachine = fields.boolean("submachine");
  child.key = fields.optional_string("key");
  return child;
}

}  // namespace

std::string_view status_name(ExecutionStatus status) {
  for (const auto& [s, name] : kStatusNames) {
    if (s == status) return name;
  }
  return "UNKNOWN";
}

ExecutionStatus parse_status(std::string_view name) {
  for (const auto& [s, n] : kStatusNames) {
    if (n == name) return s;
  }
  throw Error(ErrorCode::kBadValue, "unknown execution status '" + std::string(name) +
                                        "' (expected PENDING, RUNNING, DONE, CANCELLED, "
                                        "SUSPENDED, CANCELLING or FAILED)");
}

bool is_terminal(ExecutionStatus status) {
  return status == ExecutionStatus::kDone || status == ExecutionStatus::kCancelled ||
         status == ExecutionStatus::kFailed;
}

bool ChildState::operator==(const ChildState& other) const {
  return root_path == other.root_path && finished == other.finished && outcome == other.outcome &&
         result == other.result && submachine == other.submachine && key == other.key;
}

size_t json_size_estimate(const Execution& exe) {
  size_t estimate = 384 + exe.id.size() + exe.definition_id.size() + exe.root_path.size() +
                    json_size_estimate(exe.history) + json_size_estimate(exe.context) +
                    json_size_estimate(exe.invoke_seq);
  for (const std::optional<std::string>* s : {&exe.definition_fqn, &exe.outcome, &exe.error,
                                              &exe.active_path, &exe.parent_id, &exe.child_id}) {
    if (*s) estimate += (*s)->size();
  }
  for (const Event& event : exe.deferred) estimate += json_size_estimate(event);
  for (const auto& [child_id_key, child] : exe.children) {
    estimate +=
        128 + child_id_key.size() + child.root_path.size() + json_size_estimate(child.result);
  }
  return estimate;
}

void write_execution(JsonWriter& out, const Execution& exe) {
  out.begin_object();
  out.field("id").string(exe.id);
  out.field("definition_id").string(exe.definition_id);
  out.field("definition_fqn").optional_string(exe.definition_fqn);
  out.field("root_path").string(exe.root_path);
  out.field("status").string(status_name(exe.status));
  out.field("outcome").optional_string(exe.outcome);
  out.field("error").optional_string(exe.error);
  out.field("active_path").optional_string(exe.active_path);
  out.field("history").document(exe.history);
  out.field("context").document(exe.context);
  out.field("processed_events").integer(exe.processed_events);
  out.field("version").integer(exe.version);
  out.field("priority").integer(exe.priority);
  out.field("parent_id").optional_string(exe.parent_id);
  out.field("child_id").optional_string(exe.child_id);
  out.field("deferred").begin_array();
  for (const Event& event : exe.deferred) write_event(out, event);
  out.end_array();
  out.field("children").begin_object();
  for (const auto& [child_id_key, child] : exe.children) {
    out.key(child_id_key);
    write_child(out, child);
  }
  out.end_object();
  out.field("invoke_seq").document(exe.invoke_seq);
  out.end_object();
}

std::string Execution::to_json() const {
  // One buffer of about the right size: the JSON is written on every commit (issue 29).
  JsonWriter out(json_size_estimate(*this));
  write_execution(out, *this);
  return out.take();
}

Execution Execution::from_json(std::string_view json) {
  bson::Document parsed = parse_model_json(json, "Execution");
  FieldReader fields(parsed, "Execution");
  Execution exe;
  exe.id = fields.required_string("id");
  exe.definition_id = fields.required_string("definition_id");
  exe.definition_fqn = fields.optional_string("definition_fqn");
  exe.root_path = fields.string("root_path");
  if (fields.has("status")) {
    std::string status = fields.string("status");
    try {
      exe.status = parse_status(status);
    } catch (const Error&) {
      fields.fail("status", "unknown status '" + status + "'");
    }
  }
  exe.outcome = fields.optional_string("outcome");
  exe.error = fields.optional_string("error");
  exe.active_path = fields.optional_string("active_path");
  exe.history = bson::Document::copy_of(fields.document("history"));
  exe.context = bson::Document::copy_of(fields.document("context"));
  exe.processed_events = fields.integer("processed_events");
  exe.version = fields.integer("version");
  int64_t priority = fields.integer("priority");
  if (priority < 0 || priority > 4) {
    fields.fail("priority", "must be 0..4, got " + std::to_string(priority));
  }
  exe.priority = static_cast<int>(priority);
  exe.parent_id = fields.optional_string("parent_id");
  exe.child_id = fields.optional_string("child_id");
  size_t i = 0;
  for (const bson::Element& e : fields.array("deferred")) {
    std::string what = "Execution.deferred[" + std::to_string(i) + "]";
    if (!e.value.is_document()) {
      fields.fail("deferred", "entry " + std::to_string(i) + " is not an object");
    }
    ++i;
    exe.deferred.push_back(read_event(e.value.as_document(), what));
  }
  for (const bson::Element& e : fields.document("children")) {
    std::string what = "Execution.children[" + std::string(e.key) + "]";
    if (!e.value.is_document())
      fields.fail("children", "entry '" + std::string(e.key) + "' is not an object");
    exe.children.emplace(std::string(e.key), read_child(e.value.as_document(), what));
  }
  exe.invoke_seq = bson::Document::copy_of(fields.document("invoke_seq"));
  return exe;
}

bool Execution::operator==(const Execution& other) const {
  return id == other.id && definition_id == other.definition_id &&
         definition_fqn == other.definition_fqn && root_path == other.root_path &&
         status == other.status && outcome == other.outcome && error == other.error &&
         active_path == other.active_path && history == other.history && context == other.context &&
         processed_events == other.processed_events && version == other.version &&
         priority == other.priority && parent_id == other.parent_id && child_id == other.child_id &&
         deferred == other.deferred && children == other.children && invoke_seq == other.invoke_seq;
}

}  // namespace mongostore::exec
