// ExecutionStore's outbox and spawn queues: the pending entries of every execution, read
// through the seq indexes, and their acknowledgement.
#include <algorithm>
#include <optional>

#include "exec/stored_fields.h"
#include "exec/sweep_queries.h"
#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {
using bson::Document;
using bson::DocumentView;
using bson::make_document;

std::vector<OutboxEntry> ExecutionStore::pending_outbox() {
  require_open();
  std::unique_ptr<client::Cursor> cursor = sweeps_->pending_outbox.find();
  std::vector<OutboxEntry> entries;
  for (const Document& doc : cursor->to_vector()) {
    std::string source = id_of(doc);
    bson::Value outbox = doc.get("outbox");
    if (!outbox.is_array()) continue;
    for (const bson::Element& e : outbox.as_array()) {
      // Built only for an error: the sweep reads many entries and almost never fails.
      auto where = [&](std::optional<int64_t> seq) {
        std::string w = "execution " + quoted(source) + " outbox entry";
        if (seq) w += " " + std::to_string(*seq);
        return w;
      };
      if (!e.value.is_document()) {
        throw Error(ErrorCode::kFailedToParse, where(std::nullopt) + " is not a document");
      }
      DocumentView entry = e.value.as_document();
      OutboxEntry out;
      bson::Value seq = entry.get("seq");
      if (!seq.number_as_exact_int64(&out.seq)) out.seq = integer_field(entry, "seq", where({}));
      bson::Value target = entry.get("target_id");
      if (target.is_string()) {
        out.target_id = std::string(target.as_string());
      } else if (!target.is_null() && !target.is_missing()) {
        throw Error(ErrorCode::kFailedToParse,
                    where(out.seq) + ": `target_id` is not a string or null");
      }
      bson::Value event = entry.get("event");
      if (!event.is_string()) string_field(entry, "event", where(out.seq));  // throws
      try {
        out.event = Event::from_json(event.as_string());
      } catch (const Error& err) {
        throw Error(ErrorCode::kFailedToParse, where(out.seq) + ": " + err.what());
      }
      out.source_id = source;
      entries.push_back(std::move(out));
    }
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const OutboxEntry& a, const OutboxEntry& b) { return a.seq < b.seq; });
  return entries;
}

void ExecutionStore::ack_outbox(int64_t seq) {
  require_open();
  executions_.update_one(
      make_document("outbox.seq", seq),
      make_document("$pull", make_document("outbox", make_document("seq", seq))));
}

std::vector<SpawnEntry> ExecutionStore::pending_spawns() {
  require_open();
  std::unique_ptr<client::Cursor> cursor = sweeps_->pending_spawns.find();
  std::vector<SpawnEntry> entries;
  for (const Document& doc : cursor->to_vector()) {
    std::string parent = id_of(doc);
    bson::Value spawns = doc.get("spawns");
    if (!spawns.is_array()) continue;
    for (const bson::Element& e : spawns.as_array()) {
      std::string where = "execution " + quoted(parent) + " spawn entry";
      if (!e.value.is_document()) {
        throw Error(ErrorCode::kFailedToParse, where + " is not a document");
      }
      DocumentView entry = e.value.as_document();
      SpawnEntry out;
      out.seq = integer_field(entry, "seq", where);
      where += " " + std::to_string(out.seq);
      out.parent_id = entry.has("parent_id") ? string_field(entry, "parent_id", where) : parent;
      out.child_id = string_field(entry, "child_id", where);
      out.root_path = string_field(entry, "root_path", where);
      bson::Value context = entry.get("context");
      if (context.is_document()) {
        out.context = Document::copy_of(context.as_document());
      } else if (!context.is_missing() && !context.is_null()) {
        throw Error(ErrorCode::kFailedToParse, where + ": `context` is not a document");
      }
      entries.push_back(std::move(out));
    }
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const SpawnEntry& a, const SpawnEntry& b) { return a.seq < b.seq; });
  return entries;
}

void ExecutionStore::ack_spawn(int64_t seq) {
  require_open();
  executions_.update_one(
      make_document("spawns.seq", seq),
      make_document("$pull", make_document("spawns", make_document("seq", seq))));
}

}  // namespace mongostore::exec
