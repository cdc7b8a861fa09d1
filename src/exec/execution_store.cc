#include "mongostore/exec/execution_store.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>

#include "exec/commit_buffers.h"
#include "exec/commit_plan.h"
#include "exec/connect_retry.h"
#include "exec/json_writer.h"
#include "exec/list_cursor.h"
#include "exec/model_json.h"
#include "exec/seq_blocks.h"
#include "exec/stored_fields.h"
#include "exec/sweep_queries.h"
#include "exec/timer_path.h"
#include "exec/trace_index.h"
#include "exec/utf8.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/index_key.h"

namespace mongostore::exec {
namespace {

constexpr ErrorCode kDuplicateKey = ErrorCode::kDuplicateKey;

void check_execution_id(std::string_view id) {
  if (id.empty()) throw Error(ErrorCode::kBadValue, "execution id is empty");
  if (id.find('\0') != std::string_view::npos) {
    throw Error(ErrorCode::kBadValue, "execution id contains a NUL byte");
  }
  check_storable("execution id", id);
}

// The version a conflict reports: the stored one, or nullopt when there is no document.
std::optional<int64_t> stored_version(const std::optional<Document>& doc) {
  if (!doc) return std::nullopt;
  int64_t version = 0;
  if (!doc->get("version").number_as_exact_int64(&version)) return 0;  // never versioned
  return version;
}

// The Execution in a stored document's `data`, at the document's version (the CAS guard is
// the authority; `data` carries the same number).
Execution parse_stored(DocumentView doc, std::string_view id) {
  bson::Value data = doc.get("data");
  if (!data.is_string()) {
    throw Error(ErrorCode::kFailedToParse, "execution " + quoted(id) +
                                               ": stored document has no `data` string (" +
                                               std::string(bson::type_alias(data.type())) + ")");
  }
  Execution exe;
  try {
    exe = Execution::from_json(data.as_string());
  } catch (const Error& e) {
    throw Error(ErrorCode::kFailedToParse,
                "execution " + quoted(id) + ": stored data does not parse: " + e.what());
  }
  int64_t version = 0;
  if (doc.get("version").number_as_exact_int64(&version)) exe.version = version;
  return exe;
}

std::shared_ptr<client::Client> require_client(std::shared_ptr<client::Client> client) {
  if (!client) throw Error(ErrorCode::kBadValue, "ExecutionStore: no client");
  return client;
}

const ExecutionStoreOptions& checked(const ExecutionStoreOptions& options) {
  if (options.database.empty()) {
    throw Error(ErrorCode::kBadValue, "ExecutionStore: the database name is empty");
  }
  if (options.trace_max < 0) {
    throw Error(ErrorCode::kBadValue, "ExecutionStore: trace_max must be >= 0 (0 keeps all)");
  }
  if (options.processed_in_document < 0) {
    throw Error(ErrorCode::kBadValue,
                "ExecutionStore: processed_in_document must be >= 0 (0 keeps all)");
  }
  return options;
}

}  // namespace

ExecutionStore::ExecutionStore(std::shared_ptr<client::Client> client,
                               ExecutionStoreOptions options)
    : client_(require_client(std::move(client))),
      options_(checked(options)),
      executions_(client_->database(options_.database).collection("executions")),
      counters_(client_->database(options_.database).collection("counters")),
      processed_(client_->database(options_.database).collection("processed")),
      sweeps_(SweepQueries::prepare(executions_)) {
  if (options_.create_indexes) {
    // ack_outbox / ack_spawn find their document by the entry's seq: with these indexes that
    // is a point lookup instead of a scan of every execution. Creating an existing index is a
    // no-op, so every process may run this at start.
    // The sweeps read through these too: pending_outbox / pending_spawns scan the seq
    // indexes (only documents with pending entries have keys in range), due_timers scans
    // next_fire_at up to now. 100,000 idle executions cost nothing. On the embedded engine
    // the outbox and timer indexes carry what their sweeps read unless covering_indexes is
    // off (create_sweep_index).
    create_sweep_index(make_document("outbox.seq", 1), {"_id", "outbox"});
    executions_.create_index(make_document("spawns.seq", 1));
    create_sweep_index(make_document("next_fire_at", 1), {"_id", "next_fire_at", "timers"});
    // Archived dedupe marks are found by (execution, mark): one multikey point lookup, however
    // many marks the execution has archived.
    processed_.create_index(make_document("execution_id", 1, "marks", 1));
    // Documents another writer left without a bound (the seed's layout) get one now, before a
    // commit's $min could set it above a timer they already hold (that timer would then fire
    // only when the later one does). due_timers also repairs any that appear after this.
    repair_unbounded_timers();
  }
  // Only the embedded engine's process can own the order of seqs. Every store of the process
  // takes them from the same blocks, whatever its layout: a seed-layout store reserving per
  // commit beside one handing out a block would put an execution's emits out of order.
  if (client_->backend_name() == "embedded") {
    seq_blocks_ = SeqBlocks::for_client(client_, options_.database);
  }
}

void ExecutionStore::create_sweep_index(const Document& keys,
                                        std::initializer_list<std::string_view> stored) {
  if (client_->backend_name() != "embedded") {
    // A server that is the embedded engine (mongostore serve) may already hold the covering
    // index an embedded store made: it serves the sweep as well as a plain one.
    try {
      executions_.create_index(keys);
    } catch (const Error& e) {
      if (e.code() != static_cast<int32_t>(ErrorCode::kIndexOptionsConflict)) throw;
    }
    return;
  }
  // With covering_indexes the embedded engine's entries carry the fields the sweep reads
  // (storedFields, a mongostore option): the sweep reads the index alone, not each document.
  // An index of the other kind on the key (an older store's, one made through a server, or
  // one a store with the other setting made) is replaced. Only this process opens its data
  // directory, and its stores take turns here: none drops the index another has just made,
  // under that other's sweep.
  static std::mutex turns;
  std::lock_guard<std::mutex> lock(turns);
  Document options;
  if (options_.covering_indexes) {
    bson::DocumentBuilder b;
    b.open_array("storedFields");
    for (std::string_view field : stored) b.push(field);
    b.close();
    options = b.finish();
  }
  for (int attempt = 0;; ++attempt) {
    try {
      executions_.create_index(keys, options);
      return;
    } catch (const Error& e) {
      if (e.code() != static_cast<int32_t>(ErrorCode::kIndexOptionsConflict) || attempt == 2) {
        throw;
      }
    }
    try {
      executions_.drop_index(keys.view());
    } catch (const Error& e) {
      if (e.code() != static_cast<int32_t>(ErrorCode::kIndexNotFound)) throw;
    }
  }
}

ExecutionStore ExecutionStore::connect_once(std::string_view uri,
                                            const ExecutionStoreOptions& options) {
  std::shared_ptr<client::Client> c = client::connect(uri);
  c->ping();
  ExecutionStore store(std::move(c), options);
  store.owns_client_ = true;
  return store;
}

ExecutionStore ExecutionStore::connect(std::string_view uri, ExecutionStoreOptions options,
                                       std::chrono::milliseconds deadline) {
  ConnectRetry retry(uri, deadline);
  for (;;) {
    int32_t code = static_cast<int32_t>(ErrorCode::kHostUnreachable);
    std::string message;
    try {
      return connect_once(retry.attempt_uri(), options);
    } catch (const Error& e) {
      code = e.code();
      message = e.what();
    } catch (const std::exception& e) {
      message = e.what();
    }
    std::optional<std::chrono::milliseconds> wait = retry.after_failure(code);
    if (!wait) retry.give_up(code, message);
    std::this_thread::sleep_for(*wait);
  }
}

void ExecutionStore::require_open() const {
  if (!client_) throw Error(ErrorCode::kIllegalOperation, "ExecutionStore is closed");
}

void ExecutionStore::close() {
  // A Client has no close: it goes when its last holder lets go. A client this store opened
  // has no other holder (unless the caller took client()), so dropping it here closes it.
  client_.reset();
  seq_blocks_.reset();
  sweeps_.reset();
  executions_ = client::Collection(nullptr, options_.database, "executions");
  counters_ = client::Collection(nullptr, options_.database, "counters");
  processed_ = client::Collection(nullptr, options_.database, "processed");
}

int64_t ExecutionStore::next_seq(const std::string& name, int64_t count) {
  client::FindAndModifyOptions options;
  options.upsert = true;
  options.return_document = client::ReturnDocument::kAfter;
  // Unjournaled: the commit that uses the block is journaled and comes later in the same
  // ordered log, so a block that a durable commit used is durable too. A crash can lose only
  // blocks no durable commit used (then reused: seqs stay unique among what survives). This
  // makes a commit one fsync instead of three (docs/benchmarks.md).
  options.journal = false;
  Document filter = make_document("_id", name);
  Document update = make_document("$inc", make_document("n", count));
  for (int attempt = 0;; ++attempt) {
    try {
      std::optional<Document> doc = counters_.find_one_and_update(filter, update, options);
      if (!doc) {
        throw Error(ErrorCode::kInternalError,
                    "counter " + quoted(name) + ": upsert returned nothing");
      }
      // n is the new high-water mark: the block is (n - count, n].
      return integer_field(*doc, "n", "counter " + quoted(name)) - count + 1;
    } catch (const Error& e) {
      // The first allocations of one counter can race their upserts; the loser's insert hits
      // the _id index (some servers retry this themselves, not all) and applied nothing.
      if (e.code() != static_cast<int32_t>(kDuplicateKey) || attempt >= 3) throw;
    }
  }
}

int64_t ExecutionStore::commit_seqs(const std::string& name, int64_t count) {
  if (!seq_blocks_) return next_seq(name, count);
  return seq_blocks_->next(name, count, [this](const std::string& counter, int64_t size) {
    return next_seq(counter, size);
  });
}

Execution ExecutionStore::create(const NewExecution& spec) {
  Execution exe;
  exe.id = spec.id ? *spec.id : new_id();
  exe.definition_id = spec.definition_id;
  exe.definition_fqn = spec.definition_fqn;
  exe.root_path = spec.root_path;
  exe.status = spec.status;
  exe.context = spec.context;
  exe.priority = spec.priority;
  exe.parent_id = spec.parent_id;
  exe.child_id = spec.child_id;
  try {
    commit(exe);
  } catch (const StoreConflict&) {
    // A version-0 commit conflicts only when the id is taken.
    throw ExecutionAlreadyExists(exe.id);
  }
  return exe;
}

void ExecutionStore::commit(Execution& exe, const CommitBatch& batch) {
  write_commit(exe, batch);
  // Every processed_in_document versions the document's older marks move to the archive:
  // between two moves the array holds at most twice the bound (one mark per commit).
  const int64_t keep = options_.processed_in_document;
  if (keep > 0 && exe.version % keep == 0) {
    try {
      archive_processed(exe.id);
    } catch (const Error&) {
      // The commit stands and nothing is lost: the marks stay in the document (or in both
      // places) until the next move.
    }
  }
}

void ExecutionStore::archive_processed(std::string_view execution_id) {
  require_open();
  check_storable("execution id", execution_id);
  const int64_t keep = options_.processed_in_document;
  if (keep == 0) return;
  std::optional<Document> doc = stored_marks(execution_id);
  if (!doc) return;
  bson::Value array = doc->get("processed");
  if (!array.is_array()) return;
  std::vector<bson::Value> marks;
  for (const bson::Element& e : array.as_array()) marks.push_back(e.value);
  if (static_cast<int64_t>(marks.size()) <= keep) return;
  // `$addToSet` appends, `$pull` keeps the order: the oldest marks are the first ones.
  const size_t move = marks.size() - static_cast<size_t>(keep);
  // Buckets of at most `keep` marks stay small documents, however large a seed-layout array
  // being migrated is.
  const size_t bucket = static_cast<size_t>(keep);
  client::UpdateOptions upsert;
  upsert.upsert = true;
  for (size_t begin = 0; begin < move; begin += bucket) {
    const size_t end = std::min(move, begin + bucket);
    DocumentBuilder each;
    each.open_array("");
    for (size_t i = begin; i < end; ++i) each.push(marks[i]);
    each.close();
    Document list = each.finish();
    // First into the archive, then out of the document: a crash in between leaves the marks
    // in both places, which reads treat as one. The bucket is named by its first mark, so a
    // rerun after such a crash lands in the same bucket ($addToSet: no second copy).
    DocumentBuilder update;
    update.open_document("$setOnInsert").append("execution_id", execution_id).close();
    update.open_document("$addToSet")
        .open_document("marks")
        .append("$each", list.get(""))
        .close()
        .close();
    processed_.update_one(
        make_document("_id", make_document("execution_id", execution_id, "first", marks[begin])),
        update.finish(), upsert);
    // Not guarded by the version, and not bumping it: the marks are the same set either way,
    // so concurrent commits keep their CAS, and a mark a commit adds meanwhile is not pulled.
    DocumentBuilder pull;
    pull.open_document("$pull")
        .open_document("processed")
        .append("$in", list.get(""))
        .close()
        .close();
    executions_.update_one(make_document("_id", execution_id), pull.finish());
  }
}

std::optional<Document> ExecutionStore::stored_marks(std::string_view execution_id) {
  client::FindOptions only_marks;
  only_marks.projection = make_document("processed", 1);
  return executions_.find_one(make_document("_id", execution_id), only_marks);
}

int64_t ExecutionStore::processed_count(std::string_view execution_id) {
  require_open();
  check_storable("execution id", execution_id);
  // Marks compare as MongoDB compares values ($addToSet's set semantics).
  std::set<std::string> distinct;
  auto add_all = [&](const bson::Value& array) {
    if (!array.is_array()) return;
    for (const bson::Element& e : array.as_array()) {
      distinct.insert(bson::encode_index_key(e.value));
    }
  };
  if (std::optional<Document> doc = stored_marks(execution_id)) add_all(doc->get("processed"));
  client::FindOptions bucket_marks;
  bucket_marks.projection = make_document("marks", 1);
  for (const Document& bucket :
       processed_.find(make_document("execution_id", execution_id), bucket_marks)->to_vector()) {
    add_all(bucket.get("marks"));
  }
  return static_cast<int64_t>(distinct.size());
}

void ExecutionStore::write_commit(Execution& exe, const CommitBatch& batch) {
  require_open();
  check_execution_id(exe.id);
  check_storable("definition_id of execution ", exe.id, exe.definition_id);
  if (exe.version < 0) {
    throw Error(ErrorCode::kBadValue, "execution " + quoted(exe.id) + ": version " +
                                          std::to_string(exe.version) + " is negative");
  }
  if (exe.priority < 0 || exe.priority > 4) {
    throw Error(ErrorCode::kBadValue, "execution " + quoted(exe.id) + ": priority " +
                                          std::to_string(exe.priority) + " is not in 0..4");
  }
  if (batch.processed_event_id) check_storable("processed_event_id", *batch.processed_event_id);
  for (const Emit& emit : batch.emits) {
    if (emit.target_id) check_storable("emit target_id", *emit.target_id);
  }
  for (const Spawn& spawn : batch.spawns) {
    check_storable("spawn child_id", spawn.child_id);
    check_storable("spawn root_path", spawn.root_path);
  }

  CommitPlan plan;
  plan.execution_id = exe.id;
  plan.definition_id = exe.definition_id;
  plan.status = status_name(exe.status);
  plan.parent_id = exe.parent_id;
  if (exe.parent_id) check_storable("parent_id of execution ", exe.id, *exe.parent_id);
  plan.timers = net_timer_changes(batch.timers);  // validates the paths
  plan.processed_event = batch.processed_event_id;
  plan.trace_max = options_.trace_max;
  plan.count_trace = counts_trace();

  const int64_t old = exe.version;
  exe.version = old + 1;
  try {
    // The JSON and the documents go into this thread's buffers, which outlive the writes
    // below: nothing to allocate, zero or free per commit (exec/commit_buffers.h). The bytes
    // are Execution::to_json's and Event::to_json's.
    CommitBuffers::Lease buffers;
    plan.new_version = exe.version;
    {
      JsonWriter out(buffers->data, 0, json_size_estimate(exe));
      write_execution(out, exe);
      plan.data = out.text();
      // The writer saw every byte it wrote: all ASCII (the usual snapshot) is valid UTF-8,
      // with no second pass over the ~1 KB.
      if (out.maybe_non_ascii()) check_storable("execution ", exe.id, plan.data);
    }
    plan.outbox.reserve(batch.emits.size());
    if (buffers->events.size() < batch.emits.size()) buffers->events.resize(batch.emits.size());
    for (size_t i = 0; i < batch.emits.size(); ++i) {
      const Emit& emit = batch.emits[i];
      CommitPlan::OutboxItem& item = plan.outbox.emplace_back();
      JsonWriter out(buffers->events[i], 0, json_size_estimate(emit.event));
      write_event(out, emit.event);
      item.event = out.text();
      if (out.maybe_non_ascii()) check_storable("event ", emit.event.id, item.event);
      item.target_id = emit.target_id;
    }

    // Seqs are reserved before the CAS. A block burned by a commit that then loses is a gap,
    // and seqs only need to grow and be unique.
    if (!batch.emits.empty()) {
      int64_t seq = commit_seqs("outbox", static_cast<int64_t>(batch.emits.size()));
      for (CommitPlan::OutboxItem& item : plan.outbox) item.seq = seq++;
    }
    if (!batch.spawns.empty()) {
      int64_t seq = commit_seqs("spawn", static_cast<int64_t>(batch.spawns.size()));
      for (const Spawn& spawn : batch.spawns) {
        plan.spawns.push_back(make_document("seq", seq++, "parent_id", exe.id, "child_id",
                                            spawn.child_id, "root_path", spawn.root_path, "context",
                                            spawn.context));
      }
    }
    if (batch.trace) {
      if (!plan.count_trace) {
        plan.trace_storage = stamp_trace_index(*batch.trace, next_seq("trace:" + exe.id, 1) - 1);
        plan.trace_step = plan.trace_storage.view();
      } else if (batch.trace->has("index")) {
        plan.trace_storage = unstamped_trace_step(*batch.trace);
        plan.trace_step = plan.trace_storage.view();
      } else {
        plan.trace_step = batch.trace->view();  // goes in as it is: no copy
      }
    }

    if (old == 0) {
      // A first save inserts the whole document: the insert is the atomic create, and the
      // _id index picks one winner among racing first saves.
      try {
        executions_.insert_one(plan.insert());
        return;
      } catch (const Error& e) {
        if (e.code() != static_cast<int32_t>(kDuplicateKey)) throw;
      }
    } else {
      // A counted trace step needs trace_next in the document: one without it (the seed's
      // layout) does not match, is adopted, and the update runs once more.
      const bool needs_trace_next = plan.count_trace && plan.trace_step.has_value();
      DocumentView guard = plan.guard_in(buffers->guard, old, needs_trace_next);
      DocumentView update = plan.update_in(buffers->update);
      for (int attempt = 0;; ++attempt) {
        // Default options, made once: each of their Documents would allocate per commit.
        static const client::UpdateOptions kPlain;
        if (executions_.update_one(guard, update, kPlain).matched_count == 1) return;
        if (!needs_trace_next || attempt > 0 || !adopt_trace_index(exe.id, old)) break;
      }
    }
    // Lost: say what is there now, so the caller knows whether to reload or give up.
    client::FindOptions only_version;
    only_version.projection = make_document("version", 1);
    throw StoreConflict(
        exe.id, old,
        stored_version(executions_.find_one(make_document("_id", exe.id), only_version)));
  } catch (...) {
    exe.version = old;  // the commit did not happen, whatever went wrong
    throw;
  }
}

std::optional<Execution> ExecutionStore::load(std::string_view execution_id) {
  require_open();
  check_storable("execution id", execution_id);
  client::FindOptions options;
  options.projection = make_document("data", 1, "version", 1);
  std::optional<Document> doc = executions_.find_one(make_document("_id", execution_id), options);
  if (!doc) return std::nullopt;
  return parse_stored(*doc, execution_id);
}

std::optional<ExecutionStore::DedupeProbe> ExecutionStore::dedupe_probe(
    std::string_view execution_id, std::string_view event_id, bool with_snapshot) {
  require_open();
  check_storable("execution id", execution_id);
  check_storable("event id", event_id);
  // The membership test runs on the server: only a boolean and at most one bucket's _id
  // come back, however many marks the execution has. The document is read before the
  // archive, and a mark enters the archive before it leaves the document, so a mark being
  // moved meanwhile is seen in one place or the other.
  DocumentBuilder project;
  if (with_snapshot) project.append("data", 1).append("version", 1);
  project.append(
      "hit",
      make_document(
          "$in",
          make_array(event_id, make_document("$ifNull", make_array("$processed", make_array())))));
  std::vector<Document> pipeline = {
      make_document("$match", make_document("_id", execution_id)),
      make_document("$project", project.finish()),
      make_document(
          "$lookup",
          make_document(
              "from", "processed", "pipeline",
              make_array(
                  make_document("$match",
                                make_document("execution_id", execution_id, "marks", event_id)),
                  make_document("$limit", 1), make_document("$project", make_document("_id", 1))),
              "as", "archived")),
  };
  std::vector<Document> docs = executions_.aggregate(pipeline)->to_vector();
  if (docs.empty()) return std::nullopt;
  bson::Value archived = docs.front().get("archived");
  bool hit = docs.front().get("hit").truthy() ||
             (archived.is_array() && archived.as_array().begin() != archived.as_array().end());
  return DedupeProbe{std::move(docs.front()), hit};
}

std::pair<std::optional<Execution>, bool> ExecutionStore::load_for_event(
    std::string_view execution_id, std::string_view event_id) {
  std::optional<DedupeProbe> probe = dedupe_probe(execution_id, event_id, true);
  if (!probe) return {std::nullopt, false};
  return {parse_stored(probe->document, execution_id), probe->hit};
}

bool ExecutionStore::is_processed(std::string_view execution_id, std::string_view event_id) {
  std::optional<DedupeProbe> probe = dedupe_probe(execution_id, event_id, false);
  return probe && probe->hit;
}

ExecutionPage ExecutionStore::list_executions(const ListQuery& query) {
  require_open();
  if (query.limit < 1) {
    throw Error(ErrorCode::kBadValue,
                "list_executions: limit must be >= 1, got " + std::to_string(query.limit));
  }
  // Every filter runs on the server, against the promoted top-level fields each commit
  // writes: a page holds `limit` matches whenever that many exist, and nothing that does not
  // match crosses the wire. (harel filtered status and parent inside `data`, client-side.)
  // A document without the promoted `status` (the seed's layout: it keeps both inside `data`
  // only) cannot be judged on the server, so it is read and judged on its `data` here.
  DocumentBuilder filter;
  if (query.definition_id) filter.append("definition_id", *query.definition_id);
  const bool promoted_filter = !query.statuses.empty() || query.roots_only;
  if (promoted_filter) {
    filter.open_array("$or");
    filter.push(make_document("status", make_document("$exists", false)));
    DocumentBuilder promoted;
    if (!query.statuses.empty()) {
      promoted.open_document("status").open_array("$in");
      for (ExecutionStatus status : query.statuses) promoted.push(status_name(status));
      promoted.close().close();
    }
    // {parent_id: null} also matches a document without the field.
    if (query.roots_only) promoted.append("parent_id", bson::Null{});
    filter.push(promoted.finish());
    filter.close();
  }
  if (query.cursor) {
    filter.open_document("_id").append("$gt", decode_list_cursor(*query.cursor)).close();
  }
  client::FindOptions options;
  options.projection = make_document("version", 1, "data", 1, "status", 1);
  options.sort = make_document("_id", 1);
  // One look-ahead match says whether a next page exists (a cursor is handed out exactly
  // when there is more to see, never a full page followed by an empty one). Seed-layout
  // documents that do not match are skipped, so the read goes on until limit + 1 matches.
  options.batch_size = static_cast<size_t>(std::clamp<int64_t>(query.limit + 1, 2, 1000));
  auto matches = [&](const Execution& exe) {
    if (!query.statuses.empty() && std::find(query.statuses.begin(), query.statuses.end(),
                                             exe.status) == query.statuses.end()) {
      return false;
    }
    return !query.roots_only || !exe.parent_id;
  };
  std::unique_ptr<client::Cursor> cursor = executions_.find(filter.finish(), options);

  ExecutionPage page;
  bool full = false;
  while (!full) {
    std::vector<Document> batch = cursor->next_batch();
    if (batch.empty()) break;
    for (const Document& doc : batch) {
      std::string id = id_of(doc);
      Execution exe = parse_stored(doc, id);
      if (!doc.has("status") && !matches(exe)) continue;
      if (static_cast<int64_t>(page.items.size()) == query.limit) {
        page.next_cursor = encode_list_cursor(page.items.back().id);
        full = true;
        break;
      }
      page.items.push_back(ExecutionSummary{id, exe.definition_id, exe.status, exe.outcome,
                                            exe.active_path, exe.version, exe.parent_id});
    }
  }
  return page;
}

void ExecutionStore::append_trace(std::string_view execution_id, bson::DocumentView entry) {
  require_open();
  check_storable("execution id", execution_id);
  // No upsert anywhere here: harel's upsert left a stub {_id, trace} that load and list then
  // choked on.
  auto push = [&](const Document& step, bool count) {
    DocumentBuilder update;
    update.open_document("$push").open_document("trace").open_array("$each").push(step).close();
    if (options_.trace_max > 0) update.append("$slice", -options_.trace_max);
    update.close().close();
    if (count) update.open_document("$inc").append(kTraceNext, int64_t{1}).close();
    return update.finish();
  };
  if (entry.has("index")) {
    // The caller's index is kept; it takes nothing from trace_next or the counter.
    executions_.update_one(make_document("_id", execution_id),
                           push(Document::copy_of(entry), false));
    return;
  }
  if (!counts_trace()) {
    // Only an existing execution gets an index: allocating for an unknown id would leave a
    // counter behind for a document that is never written.
    client::FindOptions options;
    options.projection = make_document("_id", 1);
    if (!executions_.find_one(make_document("_id", execution_id), options)) return;
    Document step = stamp_trace_index(entry, next_seq("trace:" + std::string(execution_id), 1) - 1);
    executions_.update_one(make_document("_id", execution_id), push(step, false));
    return;
  }
  Document guard = make_document("_id", execution_id, kTraceNext, make_document("$exists", true));
  Document update = push(unstamped_trace_step(entry), true);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (executions_.update_one(guard, update).matched_count == 1) return;
    // Unknown (nothing to do), or a document to adopt first.
    if (attempt > 0 || !adopt_trace_index(execution_id, std::nullopt)) return;
  }
}

bool ExecutionStore::counts_trace() const {
  // The seed's layout (processed_in_document = 0) stays exactly the seed's: stamped steps
  // and the trace:<id> counter, which harel's own store reads.
  return options_.processed_in_document != 0;
}

bool ExecutionStore::adopt_trace_index(std::string_view execution_id,
                                       std::optional<int64_t> version) {
  client::FindOptions options;
  options.projection = make_document("version", 1, "trace", 1, kTraceNext, 1);
  std::optional<Document> doc = executions_.find_one(make_document("_id", execution_id), options);
  if (!doc) return false;
  if (version && stored_version(doc) != version) return false;  // a real conflict
  if (doc->has(kTraceNext)) return true;                        // adopted meanwhile
  std::optional<int64_t> counter;
  if (std::optional<Document> c =
          counters_.find_one(make_document("_id", "trace:" + std::string(execution_id)))) {
    counter = integer_field(*c, "n", "counter 'trace:" + std::string(execution_id) + "'");
  }
  // Guarded on the field's absence: two adopters write the same value, and a step counted
  // meanwhile is not overwritten.
  executions_.update_one(
      make_document("_id", execution_id, kTraceNext, make_document("$exists", false)),
      make_document("$set",
                    make_document(kTraceNext, adopted_trace_next(doc->get("trace"), counter))));
  return true;
}

std::vector<bson::Document> ExecutionStore::read_trace(std::string_view execution_id) {
  require_open();
  check_storable("execution id", execution_id);
  client::FindOptions options;
  options.projection = make_document("trace", 1, kTraceNext, 1);
  std::optional<Document> doc = executions_.find_one(make_document("_id", execution_id), options);
  if (!doc) return {};
  return stamp_trace(doc->get("trace"), doc->get(kTraceNext), execution_id);
}

}  // namespace mongostore::exec