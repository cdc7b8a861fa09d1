// Crash safety of the ExecutionStore: a child process commits (durable embedded mode) and is
// killed with SIGKILL at random moments. After each kill the store is reopened: every
// acknowledged commit must be there, and every stored execution must be whole, i.e. its
// outbox, dedupe marks, timer, trace ring and snapshot all agree with its version (a commit
// is one single-document update, so no part of one may show without the rest).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "crash/killed_writer.h"
#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution_store.h"
#include "support/temp_dir.h"

namespace mongostore::exec {
namespace {

using bson::make_document;
using testing::complete_lines;
using testing::KilledWriter;
using testing::run_until_killed;

constexpr int64_t kTraceMax = 20;
// Small, so marks move to the archive every few commits and kills land mid-move too.
constexpr int64_t kProcessedInDocument = 3;
constexpr int kExecutionsPerRound = 6;

std::string mark(const std::string& id, int64_t version) {
  return id + "@" + std::to_string(version);
}

// The child: creates this round's executions, then commits to random ones forever, each
// commit carrying an emit, a dedupe mark, a timer re-arm and a trace step, all derived from
// the new version. Reports "c <id> <version>" on `fd` after each acknowledged commit.
[[noreturn]] void committer(const std::string& path, int round, int fd, int threads) {
  ExecutionStoreOptions options;
  options.trace_max = kTraceMax;
  options.processed_in_document = kProcessedInDocument;
  auto store =
      std::make_shared<ExecutionStore>(ExecutionStore::connect("embedded:" + path, options));
  std::vector<std::string> ids;
  for (int i = 0; i < kExecutionsPerRound; ++i) {
    NewExecution spec;
    spec.id = "r" + std::to_string(round) + "-" + std::to_string(i);
    spec.definition_id = "crash";
    Execution exe = store->create(spec);
    std::string line = "c " + exe.id + " 1\n";
    if (::write(fd, line.data(), line.size()) < 0) _exit(3);
    ids.push_back(exe.id);
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<uint64_t>(round * 100 + t));
      while (true) {
        const std::string& id = ids[rng() % ids.size()];
        std::optional<Execution> exe = store->load(id);
        if (!exe) _exit(4);
        int64_t next = exe->version + 1;
        exe->processed_events += 1;
        exe->context = make_document("last", next, "pad", std::string(rng() % 2000, 'p'));
        CommitBatch batch;
        batch.emits.push_back({id, Event::make("E" + std::to_string(next))});
        batch.processed_event_id = mark(id, next);
        batch.timers.push_back(TimerOp::schedule("Wait.T", static_cast<double>(next)));
        batch.trace = make_document("version", next);
        try {
          store->commit(*exe, batch);
        } catch (const StoreConflict&) {
          continue;  // another thread won this version
        }
        std::string line = "c " + id + " " + std::to_string(next) + "\n";
        if (::write(fd, line.data(), line.size()) < 0) _exit(3);
      }
    });
  }
  for (auto& th : pool) th.join();
  _exit(0);
}

// Everything in one stored execution agrees with its version.
void expect_whole(ExecutionStore& store, client::Collection executions, const std::string& id,
                  int64_t version) {
  auto exe = store.load(id);
  ASSERT_TRUE(exe) << id;
  EXPECT_EQ(exe->processed_events, version - 1) << id;
  if (version > 1) {
    EXPECT_EQ(exe->context.get("last").number_as_double(), static_cast<double>(version)) << id;
  }
  auto doc = executions.find_one(make_document("_id", id));
  ASSERT_TRUE(doc);
  int64_t emits = 0;
  // The document's marks and the archived ones together (a mark caught mid-move is in both
  // places and counts once). The document keeps at most twice the bound, plus one move a
  // kill may have cut short, plus a mark per committer thread landing beside a move.
  int64_t marks = store.processed_count(id);
  EXPECT_LE(static_cast<int64_t>(doc->get("processed").as_array().count()),
            3 * kProcessedInDocument + 3)
      << id << ": marks did not move out of the document";
  for (const auto& e : doc->get("outbox").as_array()) {
    ++emits;
    (void)e;
  }
  EXPECT_EQ(marks, version - 1) << id << ": dedupe marks disagree with version " << version;
  EXPECT_EQ(emits, version - 1) << id << ": outbox disagrees with version " << version;
  for (int64_t v = 2; v <= version; ++v) EXPECT_TRUE(store.is_processed(id, mark(id, v)));
  EXPECT_FALSE(store.is_processed(id, mark(id, version + 1))) << id << ": a mark from the future";
  auto trace = store.read_trace(id);
  EXPECT_EQ(static_cast<int64_t>(trace.size()), std::min(version - 1, kTraceMax)) << id;
  // Steps are the last commits' in order. Their indexes grow; a commit that lost its CAS
  // burned one (the index is reserved before the update, as the seed allows), so they may
  // skip, never repeat.
  int64_t previous = -1;
  for (size_t i = 0; i < trace.size(); ++i) {
    double expected_version = static_cast<double>(version - trace.size() + 1 + i);
    EXPECT_EQ(trace[i].get("version").number_as_double(), expected_version) << id;
    int64_t index = -1;
    ASSERT_TRUE(trace[i].get("index").number_as_exact_int64(&index));
    EXPECT_GT(index, previous) << id;
    previous = index;
  }
  if (!trace.empty()) {
    EXPECT_GE(previous, version - 2) << id;
  }
  bool timer_seen = false;
  for (const DueTimer& t : store.due_timers(1e12)) {
    if (t.execution_id != id) continue;
    timer_seen = true;
    EXPECT_EQ(t.path, "Wait.T");
    EXPECT_EQ(t.fire_at, static_cast<double>(version)) << id;
  }
  EXPECT_EQ(timer_seen, version > 1) << id;
}

TEST(ExecutionStoreCrash, EveryAcknowledgedCommitIsWholeAfterSigkill) {
  testing::TempDir dir;
  std::mt19937_64 rng(777);
  std::map<std::string, int64_t> acked;  // id -> highest acknowledged version
  constexpr int kRounds = 8;
  int64_t total = 0;
  for (int round = 0; round < kRounds; ++round) {
    KilledWriter run =
        run_until_killed([&](int fd) { committer(dir.path(), round, fd, 1 + round % 3); }, rng,
                         std::chrono::milliseconds(700));
    ASSERT_TRUE(run.killed) << "the committer stopped by itself in round " << round;
    for (const std::string& line : complete_lines(run.output)) {
      std::istringstream f(line);
      char kind;
      std::string id;
      int64_t version = 0;
      f >> kind >> id >> version;
      int64_t& best = acked[id];
      best = std::max(best, version);
      ++total;
    }

    ExecutionStoreOptions options;
    options.trace_max = kTraceMax;
    options.processed_in_document = kProcessedInDocument;
    auto client = client::connect("embedded:" + dir.path());
    ExecutionStore store(client, options);
    auto executions = client->database("harel").collection("executions");
    for (const auto& [id, version] : acked) {
      auto exe = store.load(id);
      ASSERT_TRUE(exe) << "acknowledged execution " << id << " lost in round " << round;
      ASSERT_GE(exe->version, version) << "acknowledged commit of " << id << " lost";
    }
    // Every stored execution, acknowledged or not (a commit may land without its ack line).
    ListQuery all;
    all.limit = 1000;
    for (const auto& summary : store.list_executions(all).items) {
      expect_whole(store, executions, summary.id, summary.version);
      if (::testing::Test::HasFailure()) return;
    }
    // Seq blocks are reserved unjournaled (see next_seq): whatever a crash lost, no seq
    // that survives is used twice.
    std::set<int64_t> seqs;
    auto outbox = store.pending_outbox();
    for (const auto& e : outbox) seqs.insert(e.seq);
    ASSERT_EQ(seqs.size(), outbox.size()) << "a surviving outbox seq is used twice";
  }
  EXPECT_GT(total, 100) << "the committer barely ran; the test proved little";
  RecordProperty("acknowledged_commits", static_cast<int>(total));
}

}  // namespace
}  // namespace mongostore::exec
