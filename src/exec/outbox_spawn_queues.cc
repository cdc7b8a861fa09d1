// ExecutionStore's outbox and spawn queues: the pending entries of every execution, read
// through the seq indexes, and their acknowledgement.
#include <algorithm>
#include <optional>

#include "bson/raw_elements.h"
#include "exec/stored_fields.h"
#include "exec/sweep_queries.h"
#include "exec/sweep_reread.h"
#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {
namespace {

// Where an entry is, for an error message ("execution 'x' outbox entry 7"). Built only on an
// error: a sweep reads many entries and almost never fails.
struct EntryAt {
  std::string_view source;  // the execution's id
  std::string_view kind;    // "outbox", "spawn"
  std::string operator()(std::optional<int64_t> seq = std::nullopt) const {
    std::string w = "execution " + quoted(source) + " " + std::string(kind) + " entry";
    if (seq) w += " " + std::to_string(*seq);
    return w;
  }
};

// entry[key] as a string; kFailedToParse naming `at(seq)` otherwise (built only then).
std::string string_at(DocumentView entry, std::string_view key, const EntryAt& at, int64_t seq) {
  bson::Value v = entry.get(key);
  if (!v.is_string()) string_field(entry, key, at(seq));  // throws
  return std::string(v.as_string());
}

constexpr size_t kFirstEntries = 16;

// The pending entries of both queues: every element of the array `field` of each document
// `find` returns, decoded by `decode(entry, source id, at)`, in seq order (stable: entries of
// one seq keep document order). An element that is not a document fails kFailedToParse.
template <class Entry, class Decode>
std::vector<Entry> pending_entries(const client::PreparedFind& find, std::string_view field,
                                   std::string_view kind, Decode decode) {
  std::vector<Entry> entries;
  // Each document read in place: only the entries are copied out of it. Read again from the
  // start if a store opening replaces the index under the read (sweep_reread.h).
  reread_if_plan_killed([&] {
    entries.clear();
    find.for_each([&](DocumentView doc) {
      // `_id` and the array in one pass over the document (the first of a repeated key, as
      // DocumentView::get finds), ended once both are found: the sweep may hand more than the
      // projection keeps (the stored document, ~2 KB of other fields, or on the embedded engine
      // usually the outbox index entry's stored `_id` and `outbox`).
      bson::Value id, array;
      bson::Element e;
      for (bson::RawElements top(doc); (id.is_missing() || array.is_missing()) && top.next(e);) {
        if (id.is_missing() && e.key == "_id") {
          id = e.value;
        } else if (array.is_missing() && e.key == field) {
          array = e.value;
        }
      }
      if (!array.is_array()) return;
      const std::string source = id.is_string() ? std::string(id.as_string()) : id_of(doc);
      const EntryAt at{source, kind};
      // Room for a sweep's few entries at once: each regrowth moves every entry decoded so far.
      if (entries.capacity() == 0) entries.reserve(kFirstEntries);
      for (bson::RawElements elements(array.as_array()); elements.next(e);) {
        if (!e.value.is_document()) {
          throw Error(ErrorCode::kFailedToParse, at() + " is not a document");
        }
        entries.push_back(decode(e.value.as_document(), source, at));
      }
    });
  });
  // Usually in seq order already (the documents come in seq index order, each entry of one
  // in push order): a stable sort of a sorted run changes nothing, and it would still move
  // every entry through a temporary buffer.
  auto by_seq = [](const Entry& a, const Entry& b) { return a.seq < b.seq; };
  if (!std::is_sorted(entries.begin(), entries.end(), by_seq)) {
    std::stable_sort(entries.begin(), entries.end(), by_seq);
  }
  return entries;
}

OutboxEntry outbox_entry(DocumentView entry, const std::string& source, const EntryAt& at) {
  OutboxEntry out;
  // The three fields in one pass over the entry (the first of a repeated key, as
  // DocumentView::get finds), ended once all are found; checked in the same order as before.
  bson::Value seq, target, event;
  bson::Element e;
  for (bson::RawElements fields(entry);
       (seq.is_missing() || target.is_missing() || event.is_missing()) && fields.next(e);) {
    if (seq.is_missing() && e.key == "seq") {
      seq = e.value;
    } else if (target.is_missing() && e.key == "target_id") {
      target = e.value;
    } else if (event.is_missing() && e.key == "event") {
      event = e.value;
    }
  }
  if (!seq.number_as_exact_int64(&out.seq)) out.seq = integer_field(entry, "seq", at());
  if (target.is_string()) {
    out.target_id = std::string(target.as_string());
  } else if (!target.is_null() && !target.is_missing()) {
    throw Error(ErrorCode::kFailedToParse, at(out.seq) + ": `target_id` is not a string or null");
  }
  if (!event.is_string()) string_field(entry, "event", at(out.seq));  // throws
  try {
    out.event = Event::from_json(event.as_string());
  } catch (const Error& err) {
    throw Error(ErrorCode::kFailedToParse, at(out.seq) + ": " + err.what());
  }
  out.source_id = source;
  return out;
}

SpawnEntry spawn_entry(DocumentView entry, const std::string& parent, const EntryAt& at) {
  SpawnEntry out;
  out.seq = integer_field(entry, "seq", at());
  out.parent_id = entry.has("parent_id") ? string_at(entry, "parent_id", at, out.seq) : parent;
  out.child_id = string_at(entry, "child_id", at, out.seq);
  out.root_path = string_at(entry, "root_path", at, out.seq);
  bson::Value context = entry.get("context");
  if (context.is_document()) {
    out.context = Document::copy_of(context.as_document());
  } else if (!context.is_missing() && !context.is_null()) {
    throw Error(ErrorCode::kFailedToParse, at(out.seq) + ": `context` is not a document");
  }
  return out;
}

}  // namespace

std::vector<OutboxEntry> ExecutionStore::pending_outbox() {
  require_open();
  return pending_entries<OutboxEntry>(sweeps_->pending_outbox, "outbox", "outbox", outbox_entry);
}

void ExecutionStore::ack_outbox(int64_t seq) {
  require_open();
  executions_.update_one(
      make_document("outbox.seq", seq),
      make_document("$pull", make_document("outbox", make_document("seq", seq))));
}

std::vector<SpawnEntry> ExecutionStore::pending_spawns() {
  require_open();
  return pending_entries<SpawnEntry>(sweeps_->pending_spawns, "spawns", "spawn", spawn_entry);
}

void ExecutionStore::ack_spawn(int64_t seq) {
  require_open();
  executions_.update_one(
      make_document("spawns.seq", seq),
      make_document("$pull", make_document("spawns", make_document("seq", seq))));
}

}  // namespace mongostore::exec
