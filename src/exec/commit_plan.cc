#include "exec/commit_plan.h"

#include "exec/trace_index.h"
#include "mongostore/bson/builder.h"

namespace mongostore::exec {

bson::Document stamp_trace_index(bson::DocumentView step, int64_t index) {
  bson::DocumentBuilder b;
  bool stamped = false;
  for (const bson::Element& e : step) {
    if (e.key == "index") {
      if (!stamped) b.append("index", index);
      stamped = true;
    } else {
      b.append(e.key, e.value);
    }
  }
  if (!stamped) b.append("index", index);
  return b.finish();
}

std::optional<double> CommitPlan::earliest_armed_timer() const {
  std::optional<double> earliest;
  for (const TimerChange& t : timers) {
    if (t.fire_at && (!earliest || *t.fire_at < *earliest)) earliest = t.fire_at;
  }
  return earliest;
}

namespace {
void append_promoted(bson::DocumentBuilder& b, const CommitPlan& plan) {
  b.append("status", plan.status);
  if (plan.parent_id) {
    b.append("parent_id", *plan.parent_id);
  } else {
    b.append("parent_id", bson::Null{});
  }
}

// The next array element of `b`: the entry's document, the bytes a pushed Document of the
// same fields has.
void push_outbox_item(bson::DocumentBuilder& b, const CommitPlan::OutboxItem& item) {
  b.push_document().append("seq", item.seq);
  if (item.target_id) {
    b.append("target_id", *item.target_id);
  } else {
    b.append("target_id", bson::Null{});
  }
  b.append("event", item.event).close();
}

// An upper bound of an outbox entry's bytes in a document: its fields, keys and headers.
size_t outbox_item_bytes(const CommitPlan::OutboxItem& item) {
  return item.event.size() + (item.target_id ? item.target_id->size() : 0) + 64;
}
}  // namespace

bson::Document CommitPlan::update() const {
  bson::DocumentBuilder b;
  // The snapshot and the pushed entries are most of the bytes: one allocation, not a
  // doubling series that copies the ~1.5 KB snapshot again.
  size_t bytes = data.size() + 512;
  for (const OutboxItem& item : outbox) bytes += outbox_item_bytes(item);
  for (const bson::Document& d : spawns) bytes += d.view().size() + 16;
  if (trace_step) bytes += trace_step->size() + 32;
  b.reserve(bytes);
  b.open_document("$set");
  b.append("data", data).append("version", new_version);
  append_promoted(b, *this);
  for (const TimerChange& t : timers) {
    if (t.fire_at) b.append(t.field, *t.fire_at);
  }
  b.close();
  if (!outbox.empty() || !spawns.empty() || trace_step) {
    b.open_document("$push");
    if (!outbox.empty()) {
      b.open_document("outbox").open_array("$each");
      for (const OutboxItem& item : outbox) push_outbox_item(b, item);
      b.close().close();
    }
    if (!spawns.empty()) {
      b.open_document("spawns").open_array("$each");
      for (const bson::Document& spawn : spawns) b.push(spawn);
      b.close().close();
    }
    if (trace_step) {
      b.open_document("trace").open_array("$each").push(*trace_step).close();
      // The ring is trimmed by the same update that appends: no read-modify-write.
      if (trace_max > 0) b.append("$slice", -trace_max);
      b.close();
    }
    b.close();
  }
  if (processed_event) {
    b.open_document("$addToSet").append("processed", *processed_event).close();
  }
  if (trace_step && count_trace) {
    b.open_document("$inc").append(kTraceNext, int64_t{1}).close();
  }
  if (std::optional<double> earliest = earliest_armed_timer()) {
    b.open_document("$min").append("next_fire_at", *earliest).close();
  }
  bool any_cancel = false;
  for (const TimerChange& t : timers) any_cancel = any_cancel || !t.fire_at;
  if (any_cancel) {
    b.open_document("$unset");
    for (const TimerChange& t : timers) {
      if (!t.fire_at) b.append(t.field, "");
    }
    b.close();
  }
  return b.finish();
}

bson::Document CommitPlan::insert() const {
  bson::DocumentBuilder b;
  b.append("_id", execution_id)
      .append("definition_id", definition_id)
      .append("version", new_version)
      .append("data", data);
  append_promoted(b, *this);
  // Always a number: +infinity stands for "no timer", so a missing or null bound can only
  // come from another writer, and due_timers finds those through the index's null key.
  b.append("next_fire_at", earliest_armed_timer().value_or(kNoTimer));
  b.open_array("outbox");
  for (const OutboxItem& item : outbox) push_outbox_item(b, item);
  b.close();
  b.open_array("spawns");
  for (const bson::Document& s : spawns) b.push(s);
  b.close();
  b.open_array("trace");
  if (trace_step) b.push(*trace_step);
  b.close();
  if (count_trace) b.append(kTraceNext, int64_t{trace_step ? 1 : 0});
  b.open_array("processed");
  if (processed_event) b.push(*processed_event);
  b.close();
  b.open_document("timers");
  for (const TimerChange& t : timers) {
    if (t.fire_at) b.append(t.key(), *t.fire_at);  // a cancel of a timer that never existed
  }
  b.close();
  return b.finish();
}

}  // namespace mongostore::exec
