// The kill loop: `mongostore serve --dbpath` SIGKILLed at random moments under a writer, and
// every write it acknowledged checked after each restart.
//
// Each cycle starts a server on the same data directory, checks what the previous cycles
// acknowledged, then runs a writer through the remote client (a driver's view): durable
// inserts, $inc updates of a few counters, and ExecutionStore commits, one at a time. A random
// 0..800 ms after the writer's first acknowledgement of the cycle the server gets SIGKILL (no
// shutdown, no flush), whatever it is doing. A write counts as acknowledged only when its reply
// arrived; the one in flight at the kill may or may not have been applied, so a counter may
// hold its acknowledged increments or one more, and an execution its acknowledged version or
// the next, never less.
//
// 20 cycles by default (CI); MONGOSTORE_KILL_CYCLES=1000 on demand (docs/testing.md). The
// figures (cycles, writes checked, writes lost) are printed at the end.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/exec/execution_store.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace mongostore::testing {
namespace {

using bson::make_document;

// No retries and short timeouts: after the kill, the write in flight fails at once instead of
// waiting for a server to come back. journal=true: each write is acknowledged once durable.
const char* kUriOptions =
    "journal=true&retryWrites=false&serverSelectionTimeoutMS=2000&connectTimeoutMS=2000&"
    "socketTimeoutMS=10000";
constexpr int kCounters = 4;
constexpr int kExecutions = 4;
constexpr int kMaxKillDelayMs = 800;

int cycles_from_env() {
  const char* env = std::getenv("MONGOSTORE_KILL_CYCLES");
  if (env == nullptr || *env == '\0') return 20;
  return std::max(1, std::atoi(env));
}

std::string counter_id(int k) {
  return "counter-" + std::to_string(k);
}
std::string execution_id(int k) {
  return "exe-" + std::to_string(k);
}

// What the writers were told, across cycles. A counter's stored value must lie in
// [acknowledged, attempted]; so must an execution's version.
struct Ledger {
  std::vector<int64_t> inserted;  // acknowledged insert _ids not yet checked after a restart
  int64_t next_insert_id = 0;
  std::map<std::string, int64_t> acked;      // counter or execution id -> acknowledged
  std::map<std::string, int64_t> attempted;  // ... -> acknowledged + the write in flight
  std::map<std::string, int64_t> checked;    // ... -> what the last restart found stored
  int64_t acknowledgements = 0;              // in the current cycle
};

struct Tally {
  int64_t checked = 0;
  int64_t lost = 0;
};

// Checks, against a freshly restarted server, everything the ledger says was acknowledged.
void check_after_restart(client::Client& client, exec::ExecutionStore& store, Ledger& ledger,
                         Tally& tally) {
  client::Collection inserts = client.database("killloop").collection("inserts");
  for (int64_t id : ledger.inserted) {
    ++tally.checked;
    if (!inserts.find_one(make_document("_id", id))) {
      ++tally.lost;
      ADD_FAILURE() << "acknowledged insert _id " << id << " is gone";
    }
  }
  ledger.inserted.clear();
  client::Collection counters = client.database("killloop").collection("counters");
  for (int k = 0; k < kCounters; ++k) {
    std::string id = counter_id(k);
    int64_t acked = ledger.acked[id];
    auto doc = counters.find_one(make_document("_id", id));
    int64_t n = 0;
    if (doc) {
      EXPECT_TRUE(doc->get("n").number_as_exact_int64(&n)) << id;
    }
    // Each acknowledged increment since the last check is one write checked.
    tally.checked += acked - ledger.checked[id];
    if (n < acked) {
      tally.lost += acked - n;
      ADD_FAILURE() << id << " holds " << n << " but " << acked << " increments were acknowledged";
    }
    EXPECT_LE(n, ledger.attempted[id]) << id << ": more increments than were sent";
    // What survived is the new baseline: the in-flight increment, if applied, is now known.
    ledger.acked[id] = ledger.attempted[id] = ledger.checked[id] = n;
  }
  for (int k = 0; k < kExecutions; ++k) {
    std::string id = execution_id(k);
    int64_t acked = ledger.acked[id];
    std::optional<exec::Execution> exe = store.load(id);
    int64_t version = exe ? exe->version : 0;
    // Each acknowledged create (version 1) or commit since the last check is one write.
    tally.checked += acked - ledger.checked[id];
    if (version < acked) {
      tally.lost += acked - version;
      ADD_FAILURE() << id << " is at version " << version << " but " << acked
                    << " was acknowledged";
    }
    EXPECT_LE(version, ledger.attempted[id]) << id << ": a version that was never committed";
    ledger.acked[id] = ledger.attempted[id] = ledger.checked[id] = version;
  }
}

// One cycle's writer: writes until an operation fails (the kill), recording each
// acknowledgement in the ledger under `mu`. Returns the error that stopped it.
std::string write_until_failure(exec::ExecutionStore& store, client::Client& client, Ledger& ledger,
                                std::mutex& mu, std::condition_variable& first_ack, uint64_t seed) {
  std::mt19937_64 rng(seed);
  client::Collection inserts = client.database("killloop").collection("inserts");
  client::Collection counters = client.database("killloop").collection("counters");
  auto acknowledged = [&](auto&& record) {
    std::lock_guard<std::mutex> lock(mu);
    record();
    ++ledger.acknowledgements;
    first_ack.notify_all();
  };
  try {
    while (true) {
      switch (rng() % 3) {
        case 0: {
          int64_t id;
          {
            std::lock_guard<std::mutex> lock(mu);
            id = ledger.next_insert_id++;
          }
          inserts.insert_one(make_document("_id", id, "pad", std::string(rng() % 500, 'p')));
          acknowledged([&] { ledger.inserted.push_back(id); });
          break;
        }
        case 1: {
          std::string id = counter_id(static_cast<int>(rng() % kCounters));
          {
            std::lock_guard<std::mutex> lock(mu);
            ++ledger.attempted[id];
          }
          engine::UpdateOptions options;
          options.upsert = true;
          counters.update_one(make_document("_id", id),
                              make_document("$inc", make_document("n", 1)), options);
          acknowledged([&] { ++ledger.acked[id]; });
          break;
        }
        default: {
          std::string id = execution_id(static_cast<int>(rng() % kExecutions));
          std::optional<exec::Execution> exe = store.load(id);
          if (!exe) {
            exec::NewExecution spec;
            spec.id = id;
            spec.definition_id = "killloop";
            {
              std::lock_guard<std::mutex> lock(mu);
              ledger.attempted[id] = std::max<int64_t>(ledger.attempted[id], 1);
            }
            store.create(spec);
            acknowledged([&] { ledger.acked[id] = std::max<int64_t>(ledger.acked[id], 1); });
            break;
          }
          int64_t next = exe->version + 1;
          exe->processed_events += 1;
          exe->context = make_document("last", next);
          exec::CommitBatch batch;
          batch.emits.push_back({id, exec::Event::make("E" + std::to_string(next))});
          batch.processed_event_id = id + "@" + std::to_string(next);
          {
            std::lock_guard<std::mutex> lock(mu);
            ledger.attempted[id] = next;
          }
          store.commit(*exe, batch);
          acknowledged([&] { ledger.acked[id] = next; });
          break;
        }
      }
    }
  } catch (const std::exception& e) {
    return e.what();
  }
}

TEST(ServerKillLoop, EveryAcknowledgedWriteSurvivesSigkillOfTheServer) {
  const int cycles = cycles_from_env();
  TempDir dir;
  const std::vector<std::string> args = {"--dbpath", dir.sub("data")};
  std::mt19937_64 rng(19);
  Ledger ledger;
  Tally tally;
  int64_t acknowledged_total = 0;
  for (int cycle = 0; cycle < cycles && !::testing::Test::HasFailure(); ++cycle) {
    ServerProcess server(args);
    auto client = client::connect(server.uri(kUriOptions));
    exec::ExecutionStore store(client);
    check_after_restart(*client, store, ledger, tally);

    std::mutex mu;
    std::condition_variable first_ack;
    ledger.acknowledgements = 0;
    std::atomic<bool> killed{false};
    bool stopped_before_kill = false;
    std::string stopped_by;
    std::thread writer([&, seed = rng()] {
      stopped_by = write_until_failure(store, *client, ledger, mu, first_ack, seed);
      stopped_before_kill = !killed;
    });
    {
      // Armed by the first acknowledgement, so the kill lands in the writes, not the start.
      std::unique_lock<std::mutex> lock(mu);
      first_ack.wait_for(lock, std::chrono::seconds(30),
                         [&] { return ledger.acknowledgements > 0; });
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(static_cast<int64_t>(rng() % (kMaxKillDelayMs + 1))));
    killed = true;
    int status = server.stop(SIGKILL);
    writer.join();
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "cycle " << cycle << ": the server was not killed; it exited with status " << status;
    EXPECT_FALSE(stopped_before_kill)
        << "cycle " << cycle << ": the writer failed before the kill: " << stopped_by;
    EXPECT_GT(ledger.acknowledgements, 0) << "cycle " << cycle << ": nothing was acknowledged";
    acknowledged_total += ledger.acknowledgements;
  }
  {
    ServerProcess server(args);
    auto client = client::connect(server.uri(kUriOptions));
    exec::ExecutionStore store(client);
    check_after_restart(*client, store, ledger, tally);
  }
  std::printf(
      "kill loop: %d cycles, %lld writes acknowledged, %lld checked after restarts, "
      "%lld lost\n",
      cycles, static_cast<long long>(acknowledged_total), static_cast<long long>(tally.checked),
      static_cast<long long>(tally.lost));
  EXPECT_EQ(tally.lost, 0);
  EXPECT_EQ(tally.checked, acknowledged_total) << "every acknowledged write is checked";
}

}  // namespace
}  // namespace mongostore::testing
