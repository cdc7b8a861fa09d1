// `mongostore serve` under many connections (issue 19), side by side in one run.
//
// A durable `mongostore serve --dbpath DIR` child, driven through the project's remote Client
// (libmongoc, one pooled Client with a connection per thread):
//
//   - durable inserts (~200-byte documents, each acknowledged after its fsync) from 1, 16, 64
//     and 256 connections at once; the ratio is against 1 connection. Concurrent durable
//     commits share log flushes (group commit), so the rate should grow with connections.
//     The same on a server started with `--workers 2`, the old design's concurrency (its 2
//     network threads ran every command), as the named baseline.
//   - ping latency on its own connection: on an idle server, and while 64 connections insert
//     durably; the ratio of the p99s says how much a loaded server delays the handshake path.
//
//   build/bench/server_concurrency_bench [--seconds S] [--pings N] [--workers N] [--tool PATH]
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_paths.h"
#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "server_child.h"

using namespace mongostore;
using bson::make_document;
using mongostore::bench::ServerChild;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  double seconds = 3;
  int pings = 2000;
  int workers = 0;  // the measured server's --workers (0: its default)
  std::string tool = mongostore::bench::tool_path();
};

// A durable server in a fresh directory, removed afterwards.
struct DurableServer {
  std::string dir;
  std::unique_ptr<ServerChild> child;
  DurableServer(const Args& a, std::vector<std::string> extra) {
    char pattern[] = "/tmp/mongostore-concurrency-XXXXXX";
    dir = ::mkdtemp(pattern);
    std::vector<std::string> args = {"--dbpath", dir, "--max-connections", "2000"};
    args.insert(args.end(), extra.begin(), extra.end());
    child = std::make_unique<ServerChild>(a.tool, args);
  }
  ~DurableServer() {
    child.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string uri(int pool) const {
    return child->uri() + "?maxPoolSize=" + std::to_string(pool + 4);
  }
};

// Inserts from `connections` threads until `stop`; returns how many were acknowledged.
class Writers {
 public:
  Writers(const std::string& uri, int connections) : client_(client::connect(uri)) {
    static std::atomic<int> runs{0};
    const int run = runs++;  // ids stay distinct across runs on one server
    client_->ping();
    for (int t = 0; t < connections; ++t) {
      threads_.emplace_back([this, t, run] {
        client::Collection c = client_->database("bench").collection("inserts");
        int64_t i = 0;
        while (!stop_.load(std::memory_order_relaxed)) {
          c.insert_one(make_document("_id", make_document("r", run, "t", t, "i", i++), "payload",
                                     std::string(160, 'x')));
          done_.fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
  }
  ~Writers() { stop(); }
  int64_t stop() {
    stop_ = true;
    for (auto& t : threads_) t.join();
    threads_.clear();
    return done_.load();
  }
  int64_t done() const { return done_.load(); }

 private:
  std::shared_ptr<client::Client> client_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> done_{0};
};

double inserts_per_second(const DurableServer& server, int connections, double seconds) {
  Writers w(server.uri(connections), connections);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // every connection open
  int64_t before = w.done();
  auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  int64_t after = w.done();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  w.stop();
  return double(after - before) / elapsed;
}

double p99_ping_us(const std::string& uri, int pings) {
  auto c = client::connect(uri);
  c->ping();
  std::vector<double> us;
  us.reserve(size_t(pings));
  for (int i = 0; i < pings; ++i) {
    auto start = Clock::now();
    c->ping();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::sort(us.begin(), us.end());
  return us[std::min(us.size() - 1, size_t(0.99 * double(us.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--seconds") {
      a.seconds = std::stod(argv[i + 1]);
    } else if (k == "--workers") {
      a.workers = std::stoi(argv[i + 1]);
    } else if (k == "--pings") {
      a.pings = std::stoi(argv[i + 1]);
    } else if (k == "--tool") {
      a.tool = argv[i + 1];
    } else {
      fmt::print(stderr, "unknown option {}\n", k);
      return 2;
    }
  }
  fmt::print(
      "mongostore serve --dbpath (durable: every insert acknowledged after its fsync), "
      "remote Client, {} s per measurement, {} hardware threads\n\n",
      a.seconds, std::thread::hardware_concurrency());

  const std::vector<int> counts = {1, 16, 64, 256};
  std::vector<double> pooled, old_design;
  {
    DurableServer server(a, {"--workers", std::to_string(a.workers)});
    for (int n : counts) pooled.push_back(inserts_per_second(server, n, a.seconds));
  }
  {
    DurableServer server(a, {"--workers", "2"});
    for (int n : counts) old_design.push_back(inserts_per_second(server, n, a.seconds));
  }
  const std::string measured =
      a.workers == 0 ? std::string("default workers") : fmt::format("--workers {}", a.workers);
  fmt::print(
      "| connections | inserts/s ({}) | ÷ 1 connection | inserts/s (--workers 2) "
      "| ÷ 1 connection | ÷ 2 workers |\n|---|---|---|---|---|---|\n",
      measured);
  for (size_t i = 0; i < counts.size(); ++i) {
    fmt::print("| {} | {:.0f} | {:.2f} | {:.0f} | {:.2f} | {:.2f} |\n", counts[i], pooled[i],
               pooled[i] / pooled[0], old_design[i], old_design[i] / old_design[0],
               pooled[i] / old_design[i]);
  }

  DurableServer server(a, {});
  double idle = p99_ping_us(server.uri(1), a.pings);
  double loaded = 0;
  {
    Writers w(server.uri(64), 64);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    loaded = p99_ping_us(server.uri(1), a.pings);
  }
  fmt::print(
      "\n| ping p99 | idle server | under 64 durable writers | loaded ÷ idle |\n"
      "|---|---|---|---|\n| µs | {:.0f} | {:.0f} | {:.2f} |\n",
      idle, loaded, loaded / idle);
  return 0;
}
