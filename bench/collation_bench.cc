// A sorted find under a collation, with and without an index of that collation, against the
// same find under the simple collation (issue 27).
//
// An in-memory engine holds N documents {_id, s} (`s` a mixed-case name with diacritics,
// shuffled). Each case runs find({}, sort {s: 1}) reading every document:
//   - simple, scan:      the simple collation, a blocking sort;
//   - simple, index:     the simple collation through an index {s: 1} (simple);
//   - collated, scan:    {locale: "en", strength: 2}, a blocking sort on ICU sort keys;
//   - collated, index:   the same collation through an index {s: 1} of that collation.
// Output: milliseconds per find (the best of --trials runs) and each case's ratio to
// "simple, scan"; the same for the first 100 of the sorted order (limit 100, where an index
// that gives the order reads 100 entries and a scan still reads everything); plus the index
// build times.
//
//   build/bench/collation_bench [--n 100000] [--trials 3]
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "bench_args.h"
#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"

using namespace mongostore;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Milliseconds of the best of `trials` sorted finds; checks every document came back.
double best_find_ms(engine::Engine& e, const std::string& coll, const bson::Document& collation,
                    int trials, int64_t n, int64_t limit = 0) {
  double best = 1e300;
  if (limit > 0) n = std::min(n, limit);
  for (int t = 0; t < trials; ++t) {
    engine::FindOptions o;
    o.sort = bson::make_document("s", 1);
    o.collation = collation;
    o.limit = limit;
    auto start = Clock::now();
    size_t got = e.find("db", coll, bson::Document(), o)->to_vector().size();
    best = std::min(best, seconds_since(start) * 1e3);
    if (static_cast<int64_t>(got) != n)
      fmt::print(stderr, "{}: {} of {} documents\n", coll, got, n);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 100000;
  int trials = 3;
  BenchArgs args;
  args.option("--n", &n).option("--trials", &trials);
  if (!args.parse(argc, argv)) return 1;

  engine::EngineOptions o;
  o.durability = engine::Durability::kInMemory;
  o.cache_size_mb = 1024;
  auto e = engine::Engine::open(o);
  const char* stems[] = {"müller",  "Muller", "côté",     "Cote",     "straße",
                         "STRASSE", "Zoë",    "ångström", "Éclair",   "eclair",
                         "naïve",   "Naive",  "ıi",       "İstanbul", "istanbul"};
  std::mt19937_64 rng(27);
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::shuffle(order.begin(), order.end(), rng);
  for (const char* coll : {"plain", "collated"}) {
    std::vector<bson::Document> batch;
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = order[static_cast<size_t>(i)];
      std::string s = std::string(stems[k % std::size(stems)]) + " " + std::to_string(k / 15);
      batch.push_back(bson::make_document("_id", i, "s", s));
      if (batch.size() == 10000) {
        e->insert_many("db", coll, batch);
        batch.clear();
      }
    }
    if (!batch.empty()) e->insert_many("db", coll, batch);
  }
  const bson::Document simple;
  const bson::Document ci = bson::make_document("locale", "en", "strength", 2);

  double simple_scan = best_find_ms(*e, "plain", simple, trials, n);
  double collated_scan = best_find_ms(*e, "collated", ci, trials, n);
  double simple_scan_top = best_find_ms(*e, "plain", simple, trials, n, 100);
  double collated_scan_top = best_find_ms(*e, "collated", ci, trials, n, 100);
  auto start = Clock::now();
  e->create_index("db", "plain", bson::make_document("s", 1));
  double simple_build = seconds_since(start);
  start = Clock::now();
  e->create_index("db", "collated", bson::make_document("s", 1),
                  bson::make_document("collation", ci));
  double collated_build = seconds_since(start);
  engine::FindOptions check;
  check.sort = bson::make_document("s", 1);
  check.collation = ci;
  std::string plan = e->explain_find("db", "collated", bson::Document(), check).view().to_json();
  if (plan.find("IXSCAN") == std::string::npos || plan.find("\"SORT\"") != std::string::npos) {
    fmt::print(stderr, "the collated index does not give the sort: {}\n", plan);
    return 1;
  }
  double simple_index = best_find_ms(*e, "plain", simple, trials, n);
  double collated_index = best_find_ms(*e, "collated", ci, trials, n);
  double simple_index_top = best_find_ms(*e, "plain", simple, trials, n, 100);
  double collated_index_top = best_find_ms(*e, "collated", ci, trials, n, 100);

  fmt::print("{} documents, sorted find of all, best of {} (ms; ratio to simple scan)\n", n,
             trials);
  fmt::print("  simple,   scan + sort : {:>9.1f}  1.00x\n", simple_scan);
  fmt::print("  simple,   index       : {:>9.1f}  {:.2f}x\n", simple_index,
             simple_index / simple_scan);
  fmt::print("  collated, scan + sort : {:>9.1f}  {:.2f}x\n", collated_scan,
             collated_scan / simple_scan);
  fmt::print("  collated, index       : {:>9.1f}  {:.2f}x\n", collated_index,
             collated_index / simple_scan);
  fmt::print("  collated index / simple index: {:.2f}x; collated scan / collated index: {:.2f}x\n",
             collated_index / simple_index, collated_scan / collated_index);
  fmt::print("first 100 of the sorted order (limit 100), best of {} (ms; ratio to simple scan)\n",
             trials);
  fmt::print("  simple,   scan + top-k: {:>9.2f}  1.00x\n", simple_scan_top);
  fmt::print("  simple,   index       : {:>9.2f}  {:.3f}x\n", simple_index_top,
             simple_index_top / simple_scan_top);
  fmt::print("  collated, scan + top-k: {:>9.2f}  {:.2f}x\n", collated_scan_top,
             collated_scan_top / simple_scan_top);
  fmt::print("  collated, index       : {:>9.2f}  {:.3f}x\n", collated_index_top,
             collated_index_top / simple_scan_top);
  fmt::print("  index build: simple {:.2f} s, collated {:.2f} s ({:.2f}x)\n", simple_build,
             collated_build, collated_build / simple_build);
  return 0;
}
