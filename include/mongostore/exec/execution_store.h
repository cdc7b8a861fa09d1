// ExecutionStore: durable workflow executions in MongoDB, one document per execution
// (seeds/000: harel's MongoStore, in C++ on the Client seam, so it runs unchanged on the
// embedded engine and on a MongoDB deployment).
//
//   auto store = exec::ExecutionStore::connect("embedded:/var/lib/app");  // or mongodb://...
//   exec::Execution exe = store.create("order", make_document("order", 42));
//   exe.status = exec::ExecutionStatus::kRunning;
//   exec::CommitBatch batch;
//   batch.emits.push_back({"warehouse-1", exec::Event::make("Reserve")});
//   batch.timers.push_back(exec::TimerOp::schedule("Payment", now + 30));
//   store.commit(exe, batch);          // one atomic update; StoreConflict if someone else won
//
// Collections (in database `options.database`, default "harel"):
//   executions: {_id, definition_id, version, data: <Execution JSON>, outbox: [{seq,
//     target_id, event: <Event JSON>}], spawns: [{seq, parent_id, child_id, root_path,
//     context}], processed: [event ids], timers: {<path with "." as U+FF0E>: fire_at},
//     trace: [{...}], trace_next: the index the next trace step gets}; indexes are stamped
//     on read (the seed's layout, processed_in_document = 0, stamps them on write instead)
//   counters: {_id: "outbox" | "spawn", n: last allocated}; "trace:<execution id>" too in
//     the seed's layout
//   processed: {_id: {execution_id, first}, execution_id, marks: [event ids]}: dedupe marks
//     moved out of `executions.processed` (see ExecutionStoreOptions::processed_in_document)
//
// commit() is ONE update_one with the filter {_id, version: old}: snapshot, outbox, spawns,
// dedupe mark, timer ops and trace step land together or not at all (single-document
// atomicity, no replica set needed). All methods are thread-safe; errors are mongostore::Error
// (StoreConflict and ExecutionAlreadyExists are typed).
#pragma once

#include <chrono>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mongostore/client/client.h"
#include "mongostore/exec/event.h"
#include "mongostore/exec/execution.h"
#include "mongostore/exec/store_errors.h"
#include "mongostore/exec/store_types.h"

namespace mongostore::exec {

class SeqBlocks;
struct SweepQueries;

/// harel's DEFAULT_TRACE_MAX.
inline constexpr int64_t kDefaultTraceMax = 200;

struct ExecutionStoreOptions {
  std::string database = "harel";
  /// Trace steps kept per execution (a ring); 0 keeps all.
  int64_t trace_max = kDefaultTraceMax;
  /// Create the indexes that make the sweeps cost what the work costs (outbox.seq,
  /// spawns.seq, next_fire_at, the archive's marks) at construction, and give documents that
  /// lack a `next_fire_at` bound (the seed's layout) one. harel creates none.
  bool create_indexes = true;
  /// Dedupe marks kept in the execution document's `processed` array. Each time a commit
  /// reaches a multiple of this version, the marks beyond the newest `processed_in_document`
  /// move to the `processed` collection, so the document every commit rewrites stays bounded
  /// and a commit costs the same after 10 events or 10,000 (docs/benchmarks.md). Lookups
  /// (load_for_event, is_processed) check both places in one round trip.
  ///
  /// 0 keeps every mark in the document: the seed's exact layout, which its own store can
  /// read back, and whose commits grow with the execution's history. A departure from the
  /// seed: documents written with a bound lose their older marks to a reader that only knows
  /// the seed's layout.
  int64_t processed_in_document = 128;
  /// On the embedded engine, whether the next_fire_at and outbox.seq indexes carry what
  /// due_timers and pending_outbox read (a mongostore index option, storedFields), so a sweep
  /// reads no execution document. The price is on the commit: one that arms a timer later
  /// than the earliest rewrites the execution's next_fire_at entry, and one that emits
  /// rewrites its first outbox.seq entry with the whole pending outbox. false makes both
  /// indexes plain: in-memory commits are cheaper and each sweep reads its documents
  /// (docs/benchmarks.md has the figures). Opening a store replaces an index of the other
  /// kind, so on one database the store opened last decides. Remote, the indexes are plain
  /// either way, and one already on the server is kept whichever kind it is.
  bool covering_indexes = true;
};

/// What a new execution starts with (create()).
struct NewExecution {
  std::string definition_id;
  /// nullopt: a fresh random id. A taken id raises ExecutionAlreadyExists.
  std::optional<std::string> id;
  bson::Document context;
  ExecutionStatus status = ExecutionStatus::kPending;
  std::string root_path;
  std::optional<std::string> parent_id;
  std::optional<std::string> child_id;
  int priority = 0;
  std::optional<std::string> definition_fqn;
};

class ExecutionStore {
 public:
  /// Over an existing client (shared; close() closes nothing it did not open). Not over a
  /// ClientSession's client(): on the embedded engine the store reserves seqs in blocks it
  /// hands out later (exec/seq_blocks.h), and a transaction that aborted would take back a
  /// reservation the block still hands out.
  explicit ExecutionStore(std::shared_ptr<client::Client> client,
                          ExecutionStoreOptions options = {});
  /// Connects to `uri` (see client::connect), pinging and retrying with backoff until
  /// `deadline` so a worker started beside its database waits for it instead of failing.
  static ExecutionStore connect(std::string_view uri, ExecutionStoreOptions options = {},
                                std::chrono::milliseconds deadline = std::chrono::seconds(30));

  /// Creates and saves a new execution (version 1 afterwards).
  Execution create(const NewExecution& spec);

  /// Persists `exe` with everything in `batch` in one atomic update guarded by exe.version.
  /// On success exe.version is one higher. StoreConflict when the stored version differs (or
  /// the execution is gone, or a first save raced another); exe.version is then unchanged,
  /// as it is after any other error.
  void commit(Execution& exe, const CommitBatch& batch = {});
  /// commit() with nothing attached.
  void save(Execution& exe) { commit(exe); }

  /// A fresh copy of the stored execution, or nullopt.
  std::optional<Execution> load(std::string_view execution_id);
  /// load() plus "was this event already processed?" in one round trip; the processed array
  /// stays on the server. (nullopt, false) for an unknown execution.
  std::pair<std::optional<Execution>, bool> load_for_event(std::string_view execution_id,
                                                           std::string_view event_id);
  bool is_processed(std::string_view execution_id, std::string_view event_id);
  /// The number of distinct dedupe marks the execution has (document and archive together).
  int64_t processed_count(std::string_view execution_id);
  /// Moves the dedupe marks beyond the newest `processed_in_document` out of the document
  /// into the `processed` collection now (no-op when that option is 0). commit() does this on
  /// its own; call it to bound a document written with the seed's layout. Safe beside
  /// concurrent commits and itself, and after a crash at any point: a mark is written to the
  /// archive before it leaves the document, so it is always in one place or both.
  void archive_processed(std::string_view execution_id);
  /// A page of executions in id order (see ListQuery). BadValue for a bad cursor or limit.
  ExecutionPage list_executions(const ListQuery& query = {});

  /// Every pending outbox entry of every execution, oldest seq first.
  std::vector<OutboxEntry> pending_outbox();
  /// Removes the entry with this seq (no-op when there is none).
  void ack_outbox(int64_t seq);
  std::vector<SpawnEntry> pending_spawns();
  void ack_spawn(int64_t seq);
  /// Timers with fire_at <= now, across executions, earliest first. Reads only executions
  /// whose `next_fire_at` bound is <= now, plus those with no usable bound (a document in the
  /// seed's layout, or one some other writer left without it), whose bound it then repairs.
  std::vector<DueTimer> due_timers(double now);
  /// Removes the timer only if it still fires at `fire_at` (a re-armed timer survives).
  void delete_timer(std::string_view execution_id, std::string_view path, double fire_at);
  /// The armed timers of one execution, earliest first ([] for an unknown execution). Reads
  /// that execution's document alone.
  std::vector<DueTimer> timers(std::string_view execution_id);

  /// Appends a trace step outside a commit (keeps an `index` already on the entry). No-op
  /// for an unknown execution (it never creates a stub document).
  void append_trace(std::string_view execution_id, bson::DocumentView entry);
  /// The trace ring, oldest first ([] for an unknown execution).
  std::vector<bson::Document> read_trace(std::string_view execution_id);

  /// Releases the client if this store opened it (connect()). Either way the store drops
  /// its handles: later calls fail with IllegalOperation (20). Not to be called while other
  /// threads still use the store.
  void close();

  const ExecutionStoreOptions& options() const { return options_; }
  std::shared_ptr<client::Client> client() const { return client_; }

 private:
  /// Whether trace steps are counted by the document's trace_next (exec/trace_index.h)
  /// rather than stamped from the trace:<id> counter (the seed's layout).
  bool counts_trace() const;
  /// Gives a document without trace_next one (one past the highest index it has used) and
  /// returns true; false when there is no such execution, or (with `version`) when it is no
  /// longer at that version.
  bool adopt_trace_index(std::string_view execution_id, std::optional<int64_t> version);
  /// Reserves `count` consecutive seqs from counter `name` and returns the first.
  int64_t next_seq(const std::string& name, int64_t count);
  /// The seqs of a commit's outbox entries or spawns: from the process's blocks on the
  /// embedded engine (exec/seq_blocks.h), else next_seq (one reservation per commit).
  int64_t commit_seqs(const std::string& name, int64_t count);
  /// IllegalOperation after close() (or on a moved-from store).
  void require_open() const;
  /// The single atomic write of commit() (no archiving).
  void write_commit(Execution& exe, const CommitBatch& batch);
  /// The execution's {_id, data, version} (data and version only `with_snapshot`) and
  /// whether event_id is marked in the document or the archive; nullopt for an unknown
  /// execution. One round trip.
  struct DedupeProbe {
    bson::Document document;
    bool hit = false;
  };
  std::optional<DedupeProbe> dedupe_probe(std::string_view execution_id, std::string_view event_id,
                                          bool with_snapshot);
  /// Creates the index on `keys` a sweep reads: on the embedded engine, with covering_indexes,
  /// one whose entries store the fields `stored` (a covered read: next_fire_at with `_id`,
  /// `next_fire_at` and `timers` for due_timers, outbox.seq with `_id` and `outbox` for
  /// pending_outbox), else a plain one, replacing an index of the other kind; elsewhere a
  /// plain one, unless an index on the key is there already.
  void create_sweep_index(const bson::Document& keys,
                          std::initializer_list<std::string_view> stored);
  /// Sets `next_fire_at` of a document read with its `timers`, `next_fire_at` and `version`
  /// to its earliest timer (+infinity when it has none), unless a commit has changed it since.
  void repair_timer_bound(bson::DocumentView doc);
  /// Repairs every execution that has no usable `next_fire_at` (one indexed read of the null
  /// key); returns the documents it read.
  std::vector<bson::Document> repair_unbounded_timers();
  /// The `processed` array of the stored document (projected alone), or nullopt.
  std::optional<bson::Document> stored_marks(std::string_view execution_id);
  /// One connect attempt (connect, ping, build the store); connect() and the async twin's
  /// connect retry it.
  static ExecutionStore connect_once(std::string_view uri, const ExecutionStoreOptions& options);
  friend class AsyncExecutionStore;

  std::shared_ptr<client::Client> client_;
  ExecutionStoreOptions options_;
  client::Collection executions_;
  client::Collection counters_;
  client::Collection processed_;
  // Null when every commit reserves its own seqs (remote).
  std::shared_ptr<SeqBlocks> seq_blocks_;
  // The sweeps' finds, prepared once (exec/sweep_queries.h); they hold the client, so close()
  // drops them too.
  std::shared_ptr<const SweepQueries> sweeps_;
  bool owns_client_ = false;
};

/// Node paths use "." as separator, which MongoDB reads as a path operator in field names:
/// timer keys store it as U+FF0E (FULLWIDTH FULL STOP), reversibly.
std::string encode_timer_path(std::string_view path);
std::string decode_timer_path(std::string_view key);

}  // namespace mongostore::exec
