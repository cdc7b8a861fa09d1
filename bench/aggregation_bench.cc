// Aggregation pipelines against the plain client-side implementation of the same question,
// side by side in one run, on an in-memory engine:
//
//   - $match + $group: [{$match: {flag: 1}}, {$group: {_id: "$cat", total: {$sum: "$v"},
//     n: {$sum: 1}}}] over N = 10^4, 10^5, 10^6 documents (100 groups), against
//     find({flag: 1}, {cat, v}) summed into a hash map by the caller;
//   - $lookup: orders joined to customers on the customers' _id over N orders, in the
//     equality form (localField/foreignField) and in the pipeline form with `let` and
//     {$match: {$expr: {$eq: ["$_id", "$$local"]}}} (the RecordStore searcher's joins), each
//     against find(orders) + one find_one per order (--lookup-only: just these);
//   - load_for_event: the ExecutionStore's one-round-trip load + dedupe check, [{$match:
//     {_id}}, {$project: {data: 1, hit: {$in: [event, {$ifNull: ["$processed", []]}]}}}], on a
//     document whose `processed` array holds 10,000 ids, against find_one of the whole
//     document and a membership scan by the caller;
//   - allowDiskUse: a $sort, a leading $sort, a $group (200,000 groups) and a $sample of
//     100,000 over 200,000 documents with a 1 MiB memory limit, so they spill, against the
//     same in memory (for the leading $sort: the find's in-memory sort) (--spill-only: just
//     this).
// Output: microseconds per query for both, the ratio (pipeline / plain; < 1 means the pipeline
// is faster), and how each cost grows with N.
//
//   build/bench/aggregation_bench [--max N] [--spill-only | --lookup-only]
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/aggregation.h"
#include "mongostore/engine/engine.h"

using namespace mongostore;
using bson::Document;
using bson::make_document;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int64_t n_keys() {
  return 1000003;
}

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

std::shared_ptr<engine::Engine> open_memory() {
  engine::EngineOptions o;
  o.durability = engine::Durability::kInMemory;
  o.cache_size_mb = 3072;
  return engine::Engine::open(o);
}

void insert_all(engine::Engine& e, std::string_view coll, int64_t n,
                const std::function<Document(int64_t)>& make) {
  std::vector<Document> batch;
  for (int64_t i = 0; i < n; ++i) {
    batch.push_back(make(i));
    if (batch.size() == 10000) {
      e.insert_many("db", coll, batch);
      batch.clear();
    }
  }
  if (!batch.empty()) e.insert_many("db", coll, batch);
}

struct Row {
  int64_t n;
  double pipeline_us, plain_us;
};

void print_rows(const char* title, const std::vector<Row>& rows) {
  fmt::print("\n{}\n{:>9} | {:>14} {:>14} {:>8}\n", title, "N", "pipeline us", "plain us", "ratio");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    fmt::print("{:>9} | {:>14.1f} {:>14.1f} {:>8.2f}", r.n, r.pipeline_us, r.plain_us,
               r.pipeline_us / r.plain_us);
    if (i > 0) {
      fmt::print("   growth x{:.1f} / x{:.1f}", r.pipeline_us / rows[i - 1].pipeline_us,
                 r.plain_us / rows[i - 1].plain_us);
    }
    fmt::print("\n");
  }
}

std::vector<Row> match_group(int64_t max_n) {
  std::vector<Row> rows;
  std::vector<Document> pipeline = {
      Document::from_json(R"({"$match": {"flag": 1}})"),
      Document::from_json(
          R"({"$group": {"_id": "$cat", "total": {"$sum": "$v"}, "n": {"$sum": 1}}})")};
  for (int64_t n = 10000; n <= max_n; n *= 10) {
    auto e = open_memory();
    insert_all(*e, "c", n, [](int64_t i) {
      return make_document("_id", i, "cat", i % 100, "v", i, "flag", i % 2, "pad",
                           std::string(40, 'p'));
    });
    int64_t check_pipeline = 0, check_plain = 0;
    double budget = n >= 1000000 ? 6.0 : 2.0;
    double pipeline_us = time_per_query(budget, [&](int) {
      check_pipeline = 0;
      for (const auto& d : e->aggregate("db", "c", pipeline, {})->to_vector()) {
        check_pipeline += d.get("n").as_int32();
      }
    });
    engine::FindOptions o;
    o.projection = make_document("cat", 1, "v", 1, "_id", 0);
    o.batch_size = 10000;
    double plain_us = time_per_query(budget, [&](int) {
      std::unordered_map<int64_t, std::pair<int64_t, int64_t>> groups;
      auto cursor = e->find("db", "c", make_document("flag", 1), o);
      while (true) {
        auto batch = cursor->next_batch();
        if (batch.empty()) break;
        for (const auto& d : batch) {
          auto& g = groups[d.get("cat").as_int64()];
          g.first += d.get("v").as_int64();
          g.second += 1;
        }
      }
      check_plain = 0;
      for (auto& [k, g] : groups) check_plain += g.second;
    });
    if (check_pipeline != check_plain || check_plain != n / 2) {
      fmt::print(stderr, "mismatch at N={}: pipeline {} plain {}\n", n, check_pipeline,
                 check_plain);
      std::exit(2);
    }
    rows.push_back({n, pipeline_us, plain_us});
    fmt::print("$match+$group N={}: done\n", n);
  }
  return rows;
}

// The equality form of $lookup (localField/foreignField).
Document equality_lookup() {
  return Document::from_json(
      R"({"$lookup": {"from": "customers", "localField": "cust", "foreignField": "_id",
                      "as": "customer"}})");
}

// The pipeline form with `let` and $expr, as the RecordStore's searcher writes its joins.
Document let_lookup() {
  return Document::from_json(
      R"({"$lookup": {"from": "customers", "let": {"local": "$cust"},
                      "pipeline": [{"$match": {"$expr": {"$eq": ["$_id", "$$local"]}}}],
                      "as": "customer"}})");
}

std::vector<Row> lookup(int64_t max_n, const Document& stage, const char* label) {
  std::vector<Row> rows;
  std::vector<Document> pipeline = {stage};
  for (int64_t n = 1000; n <= std::min<int64_t>(max_n / 10, 100000); n *= 10) {
    auto e = open_memory();
    insert_all(*e, "customers", n / 10 + 1, [](int64_t i) {
      return make_document("_id", i, "name", "customer-" + std::to_string(i));
    });
    insert_all(*e, "orders", n, [n](int64_t i) {
      return make_document("_id", i, "cust", (i * 7) % (n / 10 + 1), "total", i % 1000);
    });
    size_t joined_pipeline = 0, joined_plain = 0;
    double budget = 2.0;
    double pipeline_us = time_per_query(budget, [&](int) {
      joined_pipeline = 0;
      for (const auto& d : e->aggregate("db", "orders", pipeline, {})->to_vector()) {
        joined_pipeline += d.get("customer").as_array().empty() ? 0 : 1;
      }
    });
    engine::FindOptions o;
    o.batch_size = 10000;
    double plain_us = time_per_query(budget, [&](int) {
      joined_plain = 0;
      auto cursor = e->find("db", "orders", Document(), o);
      while (true) {
        auto batch = cursor->next_batch();
        if (batch.empty()) break;
        for (const auto& d : batch) {
          auto c = e->find_one("db", "customers", make_document("_id", d.get("cust")), {});
          joined_plain += c ? 1 : 0;
        }
      }
    });
    if (joined_pipeline != joined_plain || joined_plain != static_cast<size_t>(n)) {
      fmt::print(stderr, "mismatch at N={}: pipeline {} plain {}\n", n, joined_pipeline,
                 joined_plain);
      std::exit(2);
    }
    rows.push_back({n, pipeline_us, plain_us});
    fmt::print("{} N={}: done\n", label, n);
  }
  return rows;
}

Row load_for_event() {
  auto e = open_memory();
  const int64_t ids = 10000;
  bson::DocumentBuilder b;
  b.append("_id", "exe-1").append("version", 7).append("data", std::string(2048, 'd'));
  b.open_array("processed");
  for (int64_t i = 0; i < ids; ++i) {
    b.append(std::to_string(i), fmt::format("{:032x}", i * 2654435761u));
  }
  b.close();
  e->insert_one("db", "executions", b.finish().view());
  // The event looked for is absent: both sides scan the whole array, the worst case.
  const std::string event = "not-a-processed-id";
  bson::DocumentBuilder project;
  project.open_document("$project").append("data", 1).open_document("hit").open_array("$in");
  project.append("0", event).open_document("1").open_array("$ifNull");
  project.append("0", "$processed").open_array("1").close().close().close().close().close();
  std::vector<Document> pipeline = {make_document("$match", make_document("_id", "exe-1")),
                                    project.finish()};
  bool hit_pipeline = true, hit_plain = true;
  double pipeline_us = time_per_query(2.0, [&](int) {
    auto docs = e->aggregate("db", "executions", pipeline, {})->to_vector();
    hit_pipeline = docs.at(0).get("hit").as_bool();
  });
  double plain_us = time_per_query(2.0, [&](int) {
    auto doc = e->find_one("db", "executions", make_document("_id", "exe-1"), {});
    hit_plain = false;
    for (const auto& el : doc->get("processed").as_array()) {
      if (el.value.as_string() == event) hit_plain = true;
    }
  });
  if (hit_pipeline || hit_plain) {
    fmt::print(stderr, "mismatch: an absent id was found\n");
    std::exit(2);
  }
  return {ids, pipeline_us, plain_us};
}

// allowDiskUse spilling: a non-leading $sort of N documents and a $group of N groups, with a
// 1 MiB memory limit (spills) against the default 100 MiB (in memory); the results must match.
// pipeline_us = spilled, plain_us = in memory.
std::vector<Row> spill_rows(int64_t n) {
  auto e = open_memory();
  insert_all(*e, "spill", n, [](int64_t i) {
    return make_document("_id", i, "k", (i * 7919) % n_keys(), "pad", std::string(60, 'p'));
  });
  std::vector<Row> rows;
  struct Case {
    std::vector<Document> pipeline;
    bool ordered;  // the spilled and in-memory outputs come in the same order
  };
  std::vector<Case> cases = {
      {{Document::from_json(R"({"$addFields": {"r": {"$mod": ["$k", 1000]}}})"),
        Document::from_json(R"({"$sort": {"r": 1, "k": -1}})")},
       true},
      // Spilled with allowDiskUse, the find's in-memory sort without it.
      {{Document::from_json(R"({"$sort": {"k": 1, "_id": 1}})")}, true},
      // A spilled $group comes out in _id order, the in-memory one in first-seen order.
      {{Document::from_json(
           R"({"$group": {"_id": "$k", "n": {"$sum": 1}, "p": {"$max": "$pad"}}})")},
       false},
      {{Document::from_json(R"({"$sample": {"size": 100000}})")}, false}};
  for (const Case& c : cases) {
    engine::AggregateOptions spilled;
    spilled.allow_disk_use = true;
    spilled.memory_limit_bytes = 1 << 20;
    engine::SpillStats stats;
    spilled.spill_stats = &stats;
    size_t a = 0, b = 0;
    std::string first_a, first_b;
    double spilled_us = time_per_query(2.0, [&](int) {
      auto docs = e->aggregate("db", "spill", c.pipeline, spilled)->to_vector();
      a = docs.size();
      first_a = docs.at(docs.size() / 2).to_json();
    });
    double memory_us = time_per_query(2.0, [&](int) {
      auto docs = e->aggregate("db", "spill", c.pipeline, {})->to_vector();
      b = docs.size();
      first_b = docs.at(docs.size() / 2).to_json();
    });
    if (a != b || stats.runs == 0 || (c.ordered && first_a != first_b)) {
      fmt::print(stderr, "mismatch: spilled and in-memory results differ (or nothing spilled)\n");
      std::exit(2);
    }
    rows.push_back({n, spilled_us, memory_us});
  }
  return rows;
}

void print_spill(const std::vector<Row>& spill) {
  print_rows("allowDiskUse $sort, 1 MiB limit (pipeline = spilled) vs 100 MiB (plain = in memory)",
             {spill[0]});
  print_rows("allowDiskUse leading $sort, 1 MiB limit (spilled) vs the find's in-memory sort",
             {spill[1]});
  print_rows("allowDiskUse $group, N groups, 1 MiB limit (spilled) vs 100 MiB (in memory)",
             {spill[2]});
  print_rows("allowDiskUse $sample of N/2, 1 MiB limit (spilled) vs 100 MiB (in memory)",
             {spill[3]});
}

}  // namespace

int main(int argc, char** argv) {
  int64_t max_n = 1000000;
  bool spill_only = false;
  bool lookup_only = false;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 < argc && std::strcmp(argv[i], "--max") == 0) max_n = std::stoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--spill-only") == 0) spill_only = true;
    if (std::strcmp(argv[i], "--lookup-only") == 0) lookup_only = true;
  }
  if (spill_only) {
    auto spill = spill_rows(std::min<int64_t>(max_n, 200000));
    print_spill(spill);
    return 0;
  }
  if (lookup_only) {
    auto equality_rows = lookup(max_n, equality_lookup(), "$lookup equality");
    auto let_rows = lookup(max_n, let_lookup(), "$lookup let");
    print_rows("$lookup localField/foreignField vs find + find_one per order", equality_rows);
    print_rows("$lookup let + $expr $eq on _id vs find + find_one per order", let_rows);
    return 0;
  }
  auto group_rows = match_group(max_n);
  auto lookup_rows = lookup(max_n, equality_lookup(), "$lookup equality");
  auto let_rows = lookup(max_n, let_lookup(), "$lookup let");
  Row event_row = load_for_event();
  auto spill = spill_rows(std::min<int64_t>(max_n, 200000));
  print_rows("$match + $group (pipeline) vs find + client-side hash grouping (plain)", group_rows);
  print_rows("$lookup localField/foreignField vs find + find_one per order", lookup_rows);
  print_rows("$lookup let + $expr $eq on _id vs find + find_one per order", let_rows);
  print_rows("load_for_event: $match + $project $in (pipeline) vs find_one + client scan (plain)",
             {event_row});
  print_spill(spill);
  return 0;
}
