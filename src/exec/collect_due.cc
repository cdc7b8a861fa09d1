#include "exec/collect_due.h"

#include <string_view>

#include "bson/raw.h"
#include "bson/raw_elements.h"
#include "exec/stored_fields.h"
#include "exec/timer_path.h"
#include "mongostore/error.h"
#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {
namespace {

// A sweep of a few due documents appends a few timers: room for them in one allocation
// instead of the doubling from one (each step moving every DueTimer made so far).
constexpr size_t kFirstCapacity = 16;

}  // namespace

std::optional<double> collect_due(bson::DocumentView doc, double now, std::vector<DueTimer>& due,
                                  bson::Value* bound) {
  std::optional<double> earliest;
  bson::Value id, timers, next_fire_at;
  bson::Element e;
  // The first of each field, as DocumentView::get reads it; the walk ends once all three are
  // found. The sweep hands the stored document (~2 KB of other fields), not a projection.
  int found = 0;
  for (bson::RawElements top(doc); found < 3 && top.next(e);) {
    if (id.is_missing() && e.key == "_id") {
      id = e.value;
      ++found;
    } else if (timers.is_missing() && e.key == "timers") {
      timers = e.value;
      ++found;
    } else if (next_fire_at.is_missing() && e.key == "next_fire_at") {
      next_fire_at = e.value;
      ++found;
    }
  }
  if (!next_fire_at.is_missing()) *bound = next_fire_at;
  if (!timers.is_document()) return earliest;
  // Where this document's first due timer went: the later ones copy its execution id.
  size_t first_due = due.size();
  bool any_due = false;
  for (bson::RawElements each(timers.as_document()); each.next(e);) {
    double at;
    if (e.value.type() == bson::BsonType::kDouble) {
      at = bson::raw::read_f64(e.value.data());  // what this store writes
    } else if (e.value.is_number()) {
      at = e.value.number_as_double();
    } else {
      throw Error(ErrorCode::kFailedToParse, "execution " + quoted(id_of(doc)) + ": timer " +
                                                 quoted(decode_timer_path(e.key)) +
                                                 " is not a number");
    }
    if (!earliest || at < *earliest) earliest = at;
    if (at > now) continue;
    if (due.capacity() == 0) due.reserve(kFirstCapacity);
    DueTimer& t = due.emplace_back();
    if (any_due) {
      t.execution_id = due[first_due].execution_id;
    } else {
      first_due = due.size() - 1;
      any_due = true;
      if (id.is_string()) {  // its payload: int32 length (with the NUL), bytes, NUL
        t.execution_id.assign(reinterpret_cast<const char*>(id.data()) + 4,
                              static_cast<size_t>(bson::raw::read_i32(id.data())) - 1);
      } else {
        t.execution_id = id_of(doc);
      }
    }
    t.path = decode_timer_path(e.key);
    t.fire_at = at;
  }
  return earliest;
}

}  // namespace mongostore::exec
