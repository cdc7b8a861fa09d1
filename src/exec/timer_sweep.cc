// ExecutionStore's timers: the due-timer sweep through the next_fire_at index, the repair of
// bounds another writer left stale or absent, listing and deleting one execution's timers.
#include <algorithm>

#include "exec/collect_due.h"
#include "exec/commit_plan.h"
#include "exec/stored_fields.h"
#include "exec/sweep_queries.h"
#include "exec/sweep_reread.h"
#include "exec/timer_path.h"
#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {
namespace {

// The earliest fire_at of a `timers` sub-document (nullopt when it holds none).
std::optional<double> earliest_timer(const bson::Value& timers) {
  std::optional<double> earliest;
  if (!timers.is_document()) return earliest;
  for (const bson::Element& e : timers.as_document()) {
    if (!e.value.is_number()) continue;
    double at = e.value.number_as_double();
    if (!earliest || at < *earliest) earliest = at;
  }
  return earliest;
}

// Every timer of one execution document as DueTimers (any fire time), in document order.
std::vector<DueTimer> timers_in(DocumentView doc) {
  std::vector<DueTimer> out;
  bson::Value timers = doc.get("timers");
  if (!timers.is_document()) return out;
  for (const bson::Element& e : timers.as_document()) {
    if (!e.value.is_number()) {
      throw Error(ErrorCode::kFailedToParse, "execution " + quoted(id_of(doc)) + ": timer " +
                                                 quoted(decode_timer_path(e.key)) +
                                                 " is not a number");
    }
    out.push_back({id_of(doc), decode_timer_path(e.key), e.value.number_as_double()});
  }
  return out;
}

void sort_timers(std::vector<DueTimer>& timers) {
  auto order = [](const DueTimer& a, const DueTimer& b) {
    if (a.fire_at != b.fire_at) return a.fire_at < b.fire_at;
    if (a.execution_id != b.execution_id) return a.execution_id < b.execution_id;
    return a.path < b.path;
  };
  // A sweep's timers usually come in order already: its documents are read in next_fire_at
  // order, and a document's bound is its earliest timer. Checking costs a compare of two
  // doubles per timer; sorting moves every DueTimer (two strings each) even when nothing is
  // out of place (~2,700 instructions for ten).
  if (!std::is_sorted(timers.begin(), timers.end(), order)) {
    std::sort(timers.begin(), timers.end(), order);
  }
}

// {field: value as read}, or {field: {$exists: false}} when it was absent: a guard that
// matches only if the field is still what this process saw.
void append_unchanged(DocumentBuilder& b, std::string_view field, DocumentView doc) {
  bson::Value v = doc.get(field);
  if (v.is_missing()) {
    b.append(field, make_document("$exists", false));
  } else {
    b.append(field, make_document("$eq", v));
  }
}

}  // namespace

void ExecutionStore::repair_timer_bound(DocumentView doc) {
  // Guarded on version and the bound as read: a commit in between may have armed an earlier
  // timer (it bumps version), and then this must not land.
  DocumentBuilder guard;
  guard.append("_id", doc.get("_id"));
  append_unchanged(guard, "version", doc);
  append_unchanged(guard, "next_fire_at", doc);
  double bound = earliest_timer(doc.get("timers")).value_or(kNoTimer);
  executions_.update_one(guard.finish(),
                         make_document("$set", make_document("next_fire_at", bound)));
}

std::vector<Document> ExecutionStore::repair_unbounded_timers() {
  // The null key of the next_fire_at index holds exactly the documents whose bound is absent
  // or null: this store always writes a number (kNoTimer when there is no timer). Usually
  // none; the few there are copied, to be repaired once the read is over.
  std::vector<Document> unbounded;
  reread_if_plan_killed([&] {
    unbounded.clear();
    sweeps_->unbounded_timers.for_each(
        [&](DocumentView doc) { unbounded.push_back(Document::copy_of(doc)); });
  });
  for (const Document& doc : unbounded) repair_timer_bound(doc);
  return unbounded;
}

std::vector<DueTimer> ExecutionStore::due_timers(double now) {
  require_open();
  // next_fire_at is a lower bound of each document's timers (see CommitPlan): the index
  // range [.., now] holds every document with a due timer, plus documents whose bound went
  // stale when a timer was cancelled. The null key holds the documents without a usable
  // bound (the seed's layout, or another writer's). One scan reads both (due_filter's $or);
  // each document comes once. Both kinds are repaired after the read, so that no write moves
  // a document within the range the cursor still reads; the documents are read in place (no
  // copy each) and only those to repair are copied.
  //
  // The read keeps only _id, timers and next_fire_at. With covering_indexes (the default) the
  // embedded engine's index stores them, so the read visits no document; with it off, each
  // document in range is read (create_sweep_index). A repair is guarded on `version` too, so
  // the few documents to repair are read again, whole, by _id.
  std::vector<DueTimer> due;
  std::vector<bson::OwnedValue> repair;
  reread_if_plan_killed([&] {
    due.clear();
    repair.clear();
    sweeps_->due_timers.for_each(due_filter(now), [&](DocumentView doc) {
      bson::Value bound;
      std::optional<double> earliest = collect_due(doc, now, due, &bound);
      // Unbounded (null or missing: every timer it holds counted above), or stale.
      if (!bound.is_number() || earliest.value_or(kNoTimer) > bound.number_as_double()) {
        repair.emplace_back(doc.get("_id"));
      }
    });
  });
  for (const bson::OwnedValue& id : repair) {
    DocumentBuilder filter;
    filter.append("_id", id.view());
    if (std::optional<Document> doc = executions_.find_one(filter.finish(), timer_fields())) {
      repair_timer_bound(*doc);
    }
  }
  sort_timers(due);
  // The read goes batch by batch, each in its own snapshot: a document another sweeper
  // repaired between two batches has moved further up the scan (from the null key, or from a
  // stale bound), where a later batch meets it again. Its timers are then listed twice, side
  // by side once sorted; one document never holds the same path twice.
  due.erase(std::unique(due.begin(), due.end(),
                        [](const DueTimer& a, const DueTimer& b) {
                          return a.fire_at == b.fire_at && a.execution_id == b.execution_id &&
                                 a.path == b.path;
                        }),
            due.end());
  return due;
}

std::vector<DueTimer> ExecutionStore::timers(std::string_view execution_id) {
  require_open();
  check_storable("execution id", execution_id);
  std::optional<Document> doc =
      executions_.find_one(make_document("_id", execution_id), timer_fields());
  if (!doc) return {};
  std::vector<DueTimer> out = timers_in(*doc);
  sort_timers(out);
  return out;
}

void ExecutionStore::delete_timer(std::string_view execution_id, std::string_view path,
                                  double fire_at) {
  require_open();
  check_storable("execution id", execution_id);
  check_timer_path(path);
  std::string key = "timers." + encode_timer_path(path);
  // Guarded on the stored time: a sweep holding a stale fire_at must not delete the timer
  // the execution has since re-armed. An update pipeline removes the timer and recomputes
  // next_fire_at from what is left in the same atomic write; $min of no timers is null, which
  // becomes kNoTimer (a null bound would keep every later $min at null).
  Document earliest = make_document(
      "$min",
      make_document(
          "$map",
          make_document("input",
                        make_document("$objectToArray",
                                      make_document("$ifNull", make_array("$timers", Document()))),
                        "in", "$$this.v")));
  std::vector<Document> pipeline = {
      make_document("$unset", make_array(key)),
      make_document(
          "$set",
          make_document("next_fire_at", make_document("$ifNull", make_array(earliest, kNoTimer)))),
  };
  executions_.update_one(make_document("_id", execution_id, key, fire_at), pipeline);
}

}  // namespace mongostore::exec
