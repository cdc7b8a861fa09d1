// Crash safety: a child process writes durably and is killed with SIGKILL at random moments.
// After each kill the directory is reopened and every acknowledged write must be present and
// intact, and no document may be torn.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <sstream>

#include "crash/killed_writer.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::make_document;
using testing::complete_lines;
using testing::KilledWriter;
using testing::run_until_killed;

// Deterministic payload for (id, version) so the reader can check every byte.
std::string payload_for(int64_t id, int64_t version) {
  std::mt19937_64 rng(static_cast<uint64_t>(id * 1000003 + version));
  size_t size = 16 + rng() % 40000;
  std::string s(size, '\0');
  for (char& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

bson::Document record(int64_t id, int64_t version) {
  return make_document("_id", id, "version", version, "payload", payload_for(id, version));
}

// The child: inserts new documents and rewrites older ones, reporting each acknowledged
// write on `fd` as "i <id>" or "r <id> <version>". Never returns.
[[noreturn]] void writer(const std::string& path, int64_t first_id, int fd, int threads) {
  EngineOptions o;
  o.path = path;
  o.durability = Durability::kDurable;
  auto e = Engine::open(o);
  std::vector<std::thread> pool;
  std::atomic<int64_t> next{first_id};
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(static_cast<uint64_t>(first_id + t));
      while (true) {
        int64_t id = next.fetch_add(1);
        e->insert_one("crash", "docs", record(id, 0).view());
        std::string line = "i " + std::to_string(id) + "\n";
        if (::write(fd, line.data(), line.size()) < 0) _exit(3);
        // Rewrite an earlier document of this run to a new version.
        int64_t target = first_id + static_cast<int64_t>(rng() % uint64_t(id - first_id + 1));
        auto doc = e->find_by_id("crash", "docs", make_document("_id", target).get("_id"));
        if (!doc) continue;
        int64_t v = doc->get("version").as_int64() + 1;
        auto r =
            e->replace_one("crash", "docs", make_document("_id", target, "version", v - 1).view(),
                           make_document("version", v, "payload", payload_for(target, v)).view());
        if (r.modified_count == 1) {
          line = "r " + std::to_string(target) + " " + std::to_string(v) + "\n";
          if (::write(fd, line.data(), line.size()) < 0) _exit(3);
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  _exit(0);
}

TEST(DurableCrash, EveryAcknowledgedWriteSurvivesSigkill) {
  testing::TempDir dir;
  std::mt19937_64 rng(12345);
  std::map<int64_t, int64_t> acked;  // id -> highest acknowledged version
  constexpr int kRounds = 12;
  int64_t first_id = 0;
  int64_t total_acks = 0;
  for (int round = 0; round < kRounds; ++round) {
    // Whatever reached the pipe before the kill was acknowledged.
    KilledWriter run =
        run_until_killed([&](int fd) { writer(dir.path(), first_id, fd, 1 + round % 3); }, rng,
                         std::chrono::milliseconds(600));
    ASSERT_TRUE(run.killed) << "the writer stopped by itself in round " << round;
    for (const std::string& line : complete_lines(run.output)) {
      std::istringstream f(line);
      char kind;
      int64_t id, version = 0;
      f >> kind >> id;
      if (kind == 'r') f >> version;
      auto [it, inserted] = acked.emplace(id, version);
      if (!inserted) it->second = std::max(it->second, version);
      ++total_acks;
    }

    EngineOptions o;
    o.path = dir.path();
    auto e = Engine::open(o);
    for (const auto& [id, version] : acked) {
      auto doc = e->find_by_id("crash", "docs", make_document("_id", id).get("_id"));
      ASSERT_TRUE(doc) << "acknowledged document " << id << " lost in round " << round;
      int64_t stored = doc->get("version").as_int64();
      ASSERT_GE(stored, version) << "acknowledged rewrite of " << id << " lost";
    }
    int64_t max_id = first_id;
    auto all = e->find("crash", "docs", bson::Document())->to_vector();
    for (const auto& doc : all) {
      int64_t id = doc.get("_id").as_int64();
      int64_t v = doc.get("version").as_int64();
      ASSERT_EQ(doc.get("payload").as_string(), payload_for(id, v)) << "torn document " << id;
      max_id = std::max(max_id, id + 1);
    }
    first_id = max_id;
  }
  EXPECT_GT(total_acks, 100) << "the writer barely ran; the test proved little";
  RecordProperty("acknowledged_writes", static_cast<int>(total_acks));
}

}  // namespace
}  // namespace mongostore::engine
