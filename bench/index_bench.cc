// Indexed reads against collection scans, and how each grows with the collection.
//
// For N = 10^4, 10^5, 10^6 documents ({_id, a: a permutation of 0..N-1, b, 40-byte pad}) in
// an in-memory engine, the same queries run first as collection scans and then through an
// index on `a`, side by side in one run:
//   - equality: find({a: x}) for random x (one result);
//   - range:    find({a: {$gte: x, $lt: x + 100}}) (100 results).
// Output: microseconds per query for both plans, the scan/index ratio, and the growth of
// each plan's cost from one N to the next (an index lookup should stay nearly flat, a scan
// should grow ~10x per 10x documents).
//
//   build/bench/index_bench [--max N]
#include <fmt/core.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"

using namespace mongostore;
using Clock = std::chrono::steady_clock;

namespace {

// Microseconds per call of `query`, running it for about `budget` seconds (at least 3 times).
double time_per_query(double budget, const std::function<void(int)>& query) {
  auto start = Clock::now();
  int n = 0;
  double elapsed = 0;
  while (n < 3 || elapsed < budget) {
    query(n++);
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return elapsed * 1e6 / n;
}

struct Row {
  int64_t n;
  double eq_scan, eq_index, range_scan, range_index, build_seconds;
};

}  // namespace

int main(int argc, char** argv) {
  int64_t max_n = 1000000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--max") == 0) max_n = std::stoll(argv[i + 1]);
  }
  std::vector<Row> rows;
  for (int64_t n = 10000; n <= max_n; n *= 10) {
    engine::EngineOptions o;
    o.durability = engine::Durability::kInMemory;
    o.cache_size_mb = 2048;
    auto e = engine::Engine::open(o);
    std::vector<bson::Document> batch;
    const std::string pad(40, 'p');
    for (int64_t i = 0; i < n; ++i) {
      int64_t a = (i * 7919) % n;  // 7919 is prime and does not divide n: a permutation
      batch.push_back(bson::make_document("_id", i, "a", a, "b", i % 100, "pad", pad));
      if (batch.size() == 10000) {
        e->insert_many("db", "c", batch);
        batch.clear();
      }
    }
    if (!batch.empty()) e->insert_many("db", "c", batch);
    std::mt19937_64 rng(42);
    std::vector<int64_t> probes(4096);
    for (auto& p : probes) p = static_cast<int64_t>(rng() % static_cast<uint64_t>(n - 100));
    size_t sink = 0;
    auto equality = [&](int i) {
      sink += e->find("db", "c", bson::make_document("a", probes[i % probes.size()]))
                  ->to_vector()
                  .size();
    };
    auto range = [&](int i) {
      int64_t x = probes[i % probes.size()];
      sink += e->find("db", "c",
                      bson::make_document("a", bson::make_document("$gte", x, "$lt", x + 100)))
                  ->to_vector()
                  .size();
    };
    Row r{};
    r.n = n;
    r.eq_scan = time_per_query(1.0, equality);
    r.range_scan = time_per_query(1.0, range);
    auto build_start = Clock::now();
    e->create_index("db", "c", bson::make_document("a", 1));
    r.build_seconds = std::chrono::duration<double>(Clock::now() - build_start).count();
    r.eq_index = time_per_query(0.5, equality);
    r.range_index = time_per_query(0.5, range);
    rows.push_back(r);
    fmt::print("N={:>8}: done (sink {})\n", n, sink);
  }
  fmt::print("\n{:>9} | {:>12} {:>11} {:>8} | {:>12} {:>11} {:>8} | {:>9}\n", "documents",
             "eq scan us", "eq ixscan us", "ratio", "range scan us", "range ix us", "ratio",
             "build s");
  for (const Row& r : rows) {
    fmt::print("{:>9} | {:>12.1f} {:>11.1f} {:>7.0f}x | {:>12.1f} {:>11.1f} {:>7.0f}x | {:>9.2f}\n",
               r.n, r.eq_scan, r.eq_index, r.eq_scan / r.eq_index, r.range_scan, r.range_index,
               r.range_scan / r.range_index, r.build_seconds);
  }
  fmt::print("\ngrowth per 10x documents (cost ratio to the previous size):\n");
  for (size_t i = 1; i < rows.size(); ++i) {
    const Row& a = rows[i - 1];
    const Row& b = rows[i];
    fmt::print(
        "  {:>8} -> {:>8}: eq scan {:.1f}x, eq index {:.2f}x, range scan {:.1f}x, range "
        "index {:.2f}x, build {:.1f}x\n",
        a.n, b.n, b.eq_scan / a.eq_scan, b.eq_index / a.eq_index, b.range_scan / a.range_scan,
        b.range_index / a.range_index, b.build_seconds / a.build_seconds);
  }
  return 0;
}
