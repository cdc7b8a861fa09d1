// `mongostore serve` (issue 6): what the wire protocol costs, side by side in one run.
//
// A `mongostore serve --memory` child on a free port, reached through the project's remote
// Client (libmongoc, client::connect("mongodb://127.0.0.1:PORT/")), against the embedded
// in-memory Client running the same operations in this process:
//
//   - round trips: a bare `ping` and find_one({_id}) of a ~1 KB document; the ratio
//     find / ping says what a query adds on top of the network round trip itself;
//   - throughput: insert_one of ~1 KB documents and update_one({_id}, {$inc: {n: 1}}), one
//     operation at a time from one thread; ratio remote / embedded ops/s.
//
// Each figure is the best of --trials runs (latencies: the lowest median; throughput: the
// highest rate); both sides alternate within a trial.
//
//   build/bench/server_bench [--ops N] [--docs N] [--trials T] [--tool PATH]
#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_paths.h"
#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "server_child.h"

using namespace mongostore;
using bson::Document;
using bson::make_document;
using Clock = std::chrono::steady_clock;
using mongostore::bench::ServerChild;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Document make_doc(int64_t id) {
  return make_document("_id", id, "n", int64_t(0), "owner", "customer-0042", "payload",
                       std::string(1000, char('a' + id % 26)));
}

/// Per-call latencies in µs of `n` calls of `body(i)`.
std::vector<double> latencies(int64_t n, const std::function<void(int64_t)>& body) {
  std::vector<double> out;
  out.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    auto start = Clock::now();
    body(i);
    out.push_back(seconds_since(start) * 1e6);
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

/// Operations per second of `n` calls of `body(i)`.
double rate(int64_t n, const std::function<void(int64_t)>& body) {
  auto start = Clock::now();
  for (int64_t i = 0; i < n; ++i) body(i);
  return double(n) / seconds_since(start);
}

struct Latency {
  double median_us = 1e18, p99_us = 0;
};
void keep_best(Latency& best, const std::vector<double>& v) {
  double m = median(v);
  if (m < best.median_us) {
    best.median_us = m;
    best.p99_us = percentile(v, 0.99);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int64_t ops = 10000, docs = 1000;
  int trials = 3;
  std::string tool = mongostore::bench::tool_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--ops")
      ops = std::stoll(argv[i + 1]);
    else if (a == "--docs")
      docs = std::stoll(argv[i + 1]);
    else if (a == "--trials")
      trials = std::stoi(argv[i + 1]);
    else if (a == "--tool")
      tool = argv[i + 1];
    else {
      fmt::print(stderr, "unknown option {}\n", a);
      return 1;
    }
  }

  ServerChild server(tool, {"--memory"});
  std::shared_ptr<client::Client> remote = client::connect(server.uri());
  std::shared_ptr<client::Client> embedded = client::connect("embedded:memory");
  remote->ping();
  fmt::print(
      "mongostore serve --memory (child process, 127.0.0.1, libmongoc remote Client) vs the "
      "embedded in-memory Client in this process; {} ops per measurement, best of {} trials\n",
      ops, trials);

  Latency ping_remote, ping_embedded, find_remote, find_embedded;
  double insert_remote = 0, insert_embedded = 0, update_remote = 0, update_embedded = 0;
  int64_t next_id = 0;  // insert ids, distinct across trials
  for (int trial = 0; trial < trials; ++trial) {
    struct Side {
      std::shared_ptr<client::Client> client;
      Latency* ping;
      Latency* find;
      double* insert;
      double* update;
    };
    int64_t first_id = next_id;
    for (Side side :
         {Side{remote, &ping_remote, &find_remote, &insert_remote, &update_remote},
          Side{embedded, &ping_embedded, &find_embedded, &insert_embedded, &update_embedded}}) {
      client::Collection coll =
          side.client->database("bench").collection(fmt::format("docs_{}", trial));
      client::Collection inserts =
          side.client->database("bench").collection(fmt::format("inserts_{}", trial));
      std::vector<Document> batch;
      for (int64_t i = 0; i < docs; ++i) batch.push_back(make_doc(i));
      coll.insert_many(batch);
      // Warm-up: connection setup and first-use costs outside the timed range.
      for (int i = 0; i < 200; ++i) {
        side.client->ping();
        coll.find_one(make_document("_id", int64_t(i % docs)));
      }
      keep_best(*side.ping, latencies(ops, [&](int64_t) { side.client->ping(); }));
      keep_best(*side.find, latencies(ops, [&](int64_t i) {
        if (!coll.find_one(make_document("_id", i % docs))) std::abort();
      }));
      // The documents are built in the loop on both sides: the same client-side work.
      *side.insert = std::max(
          *side.insert, rate(ops, [&](int64_t i) { inserts.insert_one(make_doc(first_id + i)); }));
      Document inc = make_document("$inc", make_document("n", int64_t(1)));
      *side.update = std::max(*side.update, rate(ops, [&](int64_t i) {
        if (coll.update_one(make_document("_id", i % docs), inc).modified_count != 1) {
          std::abort();
        }
      }));
      coll.drop();
      inserts.drop();
    }
    next_id += ops;
  }

  fmt::print("\nround trips (per call, one at a time)\n\n");
  fmt::print(
      "| operation | remote median µs | remote p99 µs | embedded median µs | remote ÷ remote "
      "ping | remote ÷ embedded |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|\n");
  // The embedded ping does nothing (there is no round trip): no ratio for it.
  fmt::print("| ping | {:.1f} | {:.1f} | {:.2f} | 1.00 | — |\n", ping_remote.median_us,
             ping_remote.p99_us, ping_embedded.median_us);
  fmt::print(
      "| find_one by `_id` (~1 KB document) | {:.1f} | {:.1f} | {:.2f} | {:.2f} | {:.0f}x |\n",
      find_remote.median_us, find_remote.p99_us, find_embedded.median_us,
      find_remote.median_us / ping_remote.median_us,
      find_remote.median_us / find_embedded.median_us);

  fmt::print("\nthroughput (one thread, one operation at a time)\n\n");
  fmt::print("| operation | remote ops/s | embedded ops/s | remote / embedded |\n");
  fmt::print("|---|---:|---:|---:|\n");
  fmt::print("| insert_one (~1 KB document) | {:.0f} | {:.0f} | {:.2f} |\n", insert_remote,
             insert_embedded, insert_remote / insert_embedded);
  fmt::print("| update_one `{{_id}}`, `{{$inc: {{n: 1}}}}` | {:.0f} | {:.0f} | {:.2f} |\n",
             update_remote, update_embedded, update_remote / update_embedded);
  return 0;
}
