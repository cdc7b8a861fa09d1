// `mongostore workload`: a real embedded workload on a durable data directory.
//
// Several threads insert order documents (durably: each acknowledged insert is fsync'd, with
// concurrent commits sharing fsyncs), every document is read back by _id and checked field by
// field, then the threads race version-guarded replaces ({_id, version} CAS) on a few shared
// counters, and a slice of the orders is deleted. It prints progress and a summary, and checks
// its own results: a mismatch exits non-zero. Running it again on the same directory adds a
// new run beside the earlier ones (runs are numbered in the `runs` collection).
#include <fmt/core.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "commands.h"
#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"

namespace mongostore::tool {
namespace {

using bson::make_array;
using bson::make_document;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bson::Document make_order(int64_t run, int64_t i) {
  return make_document(
      "_id", fmt::format("run{}-order{:06d}", run, i), "run", run, "customer",
      fmt::format("customer-{}", i % 97), "items",
      make_array(make_document("sku", fmt::format("sku-{}", i % 13), "qty", int32_t(1 + i % 4)),
                 make_document("sku", "gift-wrap", "qty", int32_t(1))),
      "total", 10.0 + double(i % 1000) / 10.0, "status", "PLACED");
}

int run_workload(const std::string& data, int64_t documents, int threads, int counters) {
  auto start = Clock::now();
  auto client = client::connect("embedded:" + data);
  auto db = client->database("workload");
  auto orders = db.collection("orders");
  auto runs = db.collection("runs");
  auto counter_coll = db.collection("counters");

  // One atomic $inc-free allocation: the run number is the count of earlier runs plus one,
  // claimed by an insert whose _id uniqueness makes concurrent runs pick distinct numbers.
  int64_t run = runs.count_documents(bson::Document()) + 1;
  while (true) {
    try {
      runs.insert_one(
          make_document("_id", run, "documents", documents, "threads", int32_t(threads)));
      break;
    } catch (const client::DuplicateKeyError&) {
      ++run;
    }
  }
  fmt::print("mongostore workload: run {} on {} (durable), {} documents, {} threads\n", run, data,
             documents, threads);

  // 1. Concurrent durable inserts.
  std::atomic<int64_t> next{0}, inserted{0};
  auto t_insert = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int64_t i; (i = next.fetch_add(1)) < documents;) {
        orders.insert_one(make_order(run, i));
        int64_t n = inserted.fetch_add(1) + 1;
        if (n % 1000 == 0) fmt::print("  inserted {}/{}\n", n, documents);
      }
    });
  }
  for (auto& th : pool) th.join();
  pool.clear();
  double insert_s = seconds_since(t_insert);

  // 2. Read every document back and check it.
  auto t_read = Clock::now();
  int64_t verified = 0, mismatched = 0;
  for (int64_t i = 0; i < documents; ++i) {
    bson::Document expected = make_order(run, i);
    auto got = orders.find_one(make_document("_id", expected.get("_id")));
    if (got && *got == expected) {
      ++verified;
    } else {
      ++mismatched;
      fmt::print(stderr, "  MISMATCH for {}\n", expected.get("_id").to_json());
    }
  }
  double read_s = seconds_since(t_read);

  // 3. Racing version-guarded replaces on shared counters: each win moves version v to v+1.
  for (int c = 0; c < counters; ++c) {
    counter_coll.replace_one(make_document("_id", fmt::format("run{}-counter{}", run, c)),
                             make_document("version", int64_t(0)), /*upsert=*/true);
  }
  std::atomic<int64_t> wins{0}, conflicts{0};
  const int64_t attempts_per_thread = 200;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int64_t k = 0; k < attempts_per_thread; ++k) {
        std::string id = fmt::format("run{}-counter{}", run, (k + t) % counters);
        auto doc = counter_coll.find_one(make_document("_id", id));
        int64_t v = doc->get("version").as_int64();
        auto r = counter_coll.replace_one(make_document("_id", id, "version", v),
                                          make_document("version", v + 1, "writer", int32_t(t)));
        (r.modified_count == 1 ? wins : conflicts).fetch_add(1);
      }
    });
  }
  for (auto& th : pool) th.join();
  int64_t version_sum = 0;
  for (int c = 0; c < counters; ++c) {
    auto doc = counter_coll.find_one(make_document("_id", fmt::format("run{}-counter{}", run, c)));
    version_sum += doc->get("version").as_int64();
  }

  // 4. Delete every tenth order of this run.
  int64_t deleted = 0;
  for (int64_t i = 0; i < documents; i += 10) {
    deleted += orders.delete_one(make_document("_id", fmt::format("run{}-order{:06d}", run, i)));
  }
  int64_t remaining = orders.count_documents(make_document("run", run));

  auto sample = orders.find_one(make_document("_id", fmt::format("run{}-order{:06d}", run, 1)));
  fmt::print("\nsample document: {}\n\n", sample ? sample->to_json() : "<none>");
  fmt::print("summary (run {}):\n", run);
  fmt::print("  inserted          {:>8}  ({:.0f} durable inserts/s over {} threads)\n",
             inserted.load(), double(inserted.load()) / insert_s, threads);
  fmt::print("  read back, equal  {:>8}  ({:.0f} finds by _id/s)\n", verified,
             double(documents) / read_s);
  fmt::print("  mismatched        {:>8}\n", mismatched);
  fmt::print("  CAS wins          {:>8}  (sum of counter versions {})\n", wins.load(), version_sum);
  fmt::print("  CAS conflicts     {:>8}\n", conflicts.load());
  fmt::print("  deleted           {:>8}\n", deleted);
  fmt::print("  remaining         {:>8}\n", remaining);
  fmt::print("  runs in directory {:>8}\n", runs.count_documents(bson::Document()));
  fmt::print("  elapsed           {:>7.2f}s\n", seconds_since(start));
  bool ok = mismatched == 0 && wins.load() == version_sum && remaining == documents - deleted;
  fmt::print("{}\n",
             ok ? "OK: every acknowledged write read back intact; one CAS winner per version"
                : "FAILED: see above");
  return ok ? 0 : 2;
}

}  // namespace

void register_workload_command(CLI::App& app, Action* action) {
  static std::string data = "mongostore-data";
  static int64_t documents = 5000;
  static int threads = 4;
  static int counters = 4;
  auto* cmd = app.add_subcommand("workload", "Run a durable embedded workload and check it");
  cmd->add_option("--data", data, "Data directory (created if absent)")->capture_default_str();
  cmd->add_option("--documents", documents, "Documents to insert")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--threads", threads, "Writer threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--counters", counters, "Shared CAS counters")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->callback(
      [action] { *action = [] { return run_workload(data, documents, threads, counters); }; });
}

}  // namespace mongostore::tool
