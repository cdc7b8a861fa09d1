// The writer lease's read (src/records/leases.cc) as released leases pile up: a RecordStore's
// metadata collection keeps two live documents (the layout and the schemas), and every save
// upserts a `lease/<uuid4>` document, reads, and deletes it; the leases' keys all sort between
// `layout` and `lease/fsck`. The read is `{_id: {$in: ["lease/fsck", "layout"]}}`; the
// baseline is the same two documents read by two `_id` point lookups. Each row times
// `--reads` of each shape (in 9 interleaved rounds, the median round's µs per read) after that
// many leases were taken and released.
//
//   build/bench/lease_read_bench [--leases 20000] [--reads 2000] [--uri URI]
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bench_args.h"
#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"

using namespace mongostore;
using Clock = std::chrono::steady_clock;

namespace {

// A `lease/` id shaped as leases.cc's (36 characters of lower-case hex and dashes).
std::string lease_id(std::mt19937_64& rng) {
  return fmt::format("lease/{:016x}-{:019x}", rng(), rng() >> 4);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int leases = 20000, reads = 2000;
  std::string uri = "embedded:memory";
  BenchArgs args;
  args.option("--leases", &leases).option("--reads", &reads).option("--uri", &uri);
  if (!args.parse(argc, argv)) return 1;

  auto client = client::connect(uri);
  client::Database db = client->database("lease_read_bench");
  db.drop();
  client::Collection meta = db.collection("_httk_store_metadata");
  meta.insert_one(bson::make_document("_id", "layout", "generation", int64_t{1}).view());
  meta.insert_one(bson::make_document("_id", "mongostore/schemas").view());
  bson::Document in_read = bson::make_document(
      "_id", bson::make_document("$in", bson::make_array("lease/fsck", "layout")));

  bson::Document layout_read = bson::make_document("_id", "layout");
  bson::Document fsck_read = bson::make_document("_id", "lease/fsck");

  client::UpdateOptions upsert;
  upsert.upsert = true;
  std::mt19937_64 rng(42);
  constexpr int kRounds = 9;
  fmt::print("released leases | $in read us | two point reads us | ratio\n");
  int released = 0;
  for (int target : {0, 20, 200, 2000, 20000, 200000}) {
    if (target > leases) break;
    for (; released < target; ++released) {
      std::string id = lease_id(rng);
      meta.update_one(bson::make_document("_id", id),
                      std::vector<bson::Document>{bson::make_document(
                          "$set", bson::make_document("kind", "writer", "owner", "bench",
                                                      "heartbeat", "$$NOW"))},
                      upsert);
      meta.find(in_read.view())->to_vector();  // as a writer lease reads, its own one live
      meta.delete_one(bson::make_document("_id", id, "owner", "bench"));
    }
    std::vector<double> in_us, point_us;
    int per = std::max(1, reads / kRounds);
    size_t seen = 0;
    for (int r = 0; r < kRounds; ++r) {
      auto start = Clock::now();
      for (int i = 0; i < per; ++i) seen += meta.find(in_read.view())->to_vector().size();
      in_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                      per);
      start = Clock::now();
      for (int i = 0; i < per; ++i) {
        seen += meta.find_one(layout_read.view()).has_value();
        seen += meta.find_one(fsck_read.view()).has_value();
      }
      point_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
                         per);
    }
    if (seen != size_t{2} * kRounds * per) {
      fmt::print(stderr, "unexpected documents read: {}\n", seen);
      return 1;
    }
    double in = median(in_us), point = median(point_us);
    fmt::print("{:>15} | {:>11.1f} | {:>18.1f} | {:.2f}\n", target, in, point, in / point);
  }
  db.drop();
  return 0;
}
