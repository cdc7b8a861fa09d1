// fsck (issue 23): mark-and-sweep throughput on a store of ~100,000 records of which ~10% are
// orphans, against a plain find that reads every document of the same collections; and the
// cost of a save with writer leases and store timestamps against one without timestamps, with
// the lease's own three commands timed alone (an upsert, one read, a delete: as
// src/records/leases.cc takes and releases a writer lease).
//
// The store: G graphs of a structure with 4 sites of its own and one of 100 shared authors
// (5 records per graph, G = 20,000: 100,100 records); then the structure documents of every
// 8th graph are deleted, which orphans their sites (10,000 of ~97,600 documents).
// Embedded in memory by default; --durable runs on a data directory (fsync per write); --uri
// runs through a server (`mongostore serve` or MongoDB), where each of a lease's commands is a
// round trip. The databases it writes (fsck_bench, save_ts, save_nots) are dropped first.
//
//   build/bench/fsck_bench [--graphs 20000] [--saves 2000] [--durable | --uri URI]
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/records/record_store.h"

using namespace mongostore;
using namespace mongostore::records;
using Clock = std::chrono::steady_clock;

namespace bench {

struct Author {
  std::string name;
};
inline auto declare_record(Tag<Author>) {
  return record<Author>("bench.fsck.Author", field("name", &Author::name));
}
struct Site {
  std::string element;
  std::array<std::array<Rational, 3>, 1> position;
};
inline auto declare_record(Tag<Site>) {
  return record<Site>("bench.fsck.Site", field("element", &Site::element),
                      field("position", &Site::position));
}
struct Structure {
  std::string formula;
  std::vector<Site> sites;
  std::shared_ptr<const Author> author;
};
inline auto declare_record(Tag<Structure>) {
  return record<Structure>("bench.fsck.Structure", field("formula", &Structure::formula),
                           field("sites", &Structure::sites), field("author", &Structure::author))
      .storage_name("structure");
}

Structure graph(int n) {
  Structure s;
  s.formula = "X" + std::to_string(n);
  for (int i = 0; i < 4; ++i) {
    Site site;
    site.element = "E" + std::to_string(n);  // sites of its own
    site.position = {{{Rational(i, 4), Rational(n % 7, 7), Rational(0)}}};
    s.sites.push_back(site);
  }
  s.author = std::make_shared<const Author>(Author{"author-" + std::to_string(n % 100)});
  return s;
}

RecordStoreOptions options(const std::string& db, bool timestamps = true) {
  RecordStoreOptions o;
  o.database = db;
  o.families = std::vector<EntryFamily>{};
  o.warn = [](std::string_view) {};
  o.store_timestamps = timestamps;
  return o;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  int graphs = 20000, saves = 2000;
  bool durable = false;
  std::string uri;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--graphs" && i + 1 < argc)
      graphs = std::atoi(argv[++i]);
    else if (a == "--saves" && i + 1 < argc)
      saves = std::atoi(argv[++i]);
    else if (a == "--durable")
      durable = true;
    else if (a == "--uri" && i + 1 < argc)
      uri = argv[++i];
  }
  std::string tmp = "/tmp/fsck_bench." + std::to_string(::getpid());
  if (uri.empty()) uri = durable ? "embedded:" + tmp : std::string("embedded:memory");
  auto client = client::connect(uri);
  for (const char* db : {"fsck_bench", "save_ts", "save_nots"}) client->database(db).drop();

  // --- fsck against a plain scan -----------------------------------------------------------
  {
    RecordStore store = RecordStore::open(client, options("fsck_bench"));
    auto start = Clock::now();
    for (int n = 0; n < graphs; ++n) store.save(graph(n));
    double fill = seconds_since(start);
    auto db = client->database("fsck_bench");
    // Delete by sid: structure n is the (n+1)-th structure saved (sids from 1).
    int64_t lost =
        db.collection("structure")
            .delete_many(bson::make_document(
                "$expr",
                bson::make_document(
                    "$eq", bson::make_array(
                               bson::make_document("$mod", bson::make_array("$_id", 8)), 1))));
    int64_t total = 0;
    for (const char* c : {"structure", "site", "author"}) {
      total += db.collection(c).count_documents(bson::Document());
    }
    // Plain scan: every document of the three collections, whole, through the same client.
    start = Clock::now();
    int64_t scanned = 0;
    for (const char* c : {"structure", "site", "author"}) {
      auto cursor = db.collection(c).find(bson::Document());
      while (!cursor->exhausted()) {
        auto batch = cursor->next_batch();
        if (batch.empty()) break;
        scanned += static_cast<int64_t>(batch.size());
      }
    }
    double scan = seconds_since(start);
    start = Clock::now();
    FsckSummary s = store.fsck();
    double fsck = seconds_since(start);
    start = Clock::now();
    FsckSummary again = store.fsck();
    double fsck2 = seconds_since(start);
    fmt::print("store: {} graphs saved in {:.2f} s; {} structures removed; {} documents\n", graphs,
               fill, lost, total);
    fmt::print("{:<28} {:>10} {:>12} {:>14}\n", "", "seconds", "documents", "documents/s");
    fmt::print("{:<28} {:>10.3f} {:>12} {:>14.0f}\n", "plain find (whole docs)", scan, scanned,
               scanned / scan);
    fmt::print("{:<28} {:>10.3f} {:>12} {:>14.0f}   ratio {:.2f}x, swept {}\n",
               "fsck (mark + sweep)", fsck, s.totals().examined, total / fsck, fsck / scan,
               s.totals().deleted);
    fmt::print("{:<28} {:>10.3f} {:>12} {:>14.0f}   ratio {:.2f}x, swept {}\n",
               "fsck again (nothing to do)", fsck2, again.totals().examined,
               again.totals().examined / fsck2, fsck2 / scan, again.totals().deleted);
  }

  // --- save cost: leases + timestamps, timestamps off, the lease commands alone --------------
  {
    RecordStore with = RecordStore::open(client, options("save_ts"));
    RecordStore without = RecordStore::open(client, options("save_nots", false));
    with.save(graph(-1));
    without.save(graph(-1));
    // Interleaved rounds (this machine is shared and noisy): the median round of each.
    constexpr int kRounds = 9;
    const int per = std::max(1, saves / kRounds);
    std::vector<double> with_t, without_t;
    for (int r = 0; r < kRounds; ++r) {
      auto start = Clock::now();
      for (int n = r * per; n < (r + 1) * per; ++n) with.save(graph(n));
      with_t.push_back(seconds_since(start) / per);
      start = Clock::now();
      for (int n = r * per; n < (r + 1) * per; ++n) without.save(graph(n));
      without_t.push_back(seconds_since(start) / per);
    }
    std::sort(with_t.begin(), with_t.end());
    std::sort(without_t.begin(), without_t.end());
    double t_with = with_t[kRounds / 2], t_without = without_t[kRounds / 2];
    auto start = Clock::now();
    // A writer lease is: a pipeline upsert, one read of the fsck lease and the layout by
    // `_id: {$in}`, one delete.
    auto meta = client->database("save_ts").collection("_httk_store_metadata");
    client::UpdateOptions upsert;
    upsert.upsert = true;
    start = Clock::now();
    for (int n = 0; n < saves; ++n) {
      std::string id = "lease/bench-" + std::to_string(n);
      meta.update_one(bson::make_document("_id", id),
                      std::vector<bson::Document>{bson::make_document(
                          "$set", bson::make_document("kind", "writer", "owner", "bench",
                                                      "heartbeat", "$$NOW"))},
                      upsert);
      meta.find(bson::make_document(
                    "_id", bson::make_document("$in", bson::make_array("lease/fsck", "layout"))))
          ->to_vector();
      meta.delete_one(bson::make_document("_id", id, "owner", "bench"));
    }
    double t_lease = seconds_since(start) / saves;
    fmt::print("\nsave of a 5-record graph ({} saves, {}):\n", saves, uri);
    fmt::print("  leases + timestamps   {:>8.1f} us\n", t_with * 1e6);
    fmt::print("  leases, no timestamps {:>8.1f} us   (timestamps cost {:+.1f} us)\n",
               t_without * 1e6, (t_with - t_without) * 1e6);
    fmt::print("  the lease's 3 commands alone {:>8.1f} us  ({:.0f}% of a save)\n", t_lease * 1e6,
               100 * t_lease / t_with);
  }
  std::filesystem::remove_all(tmp);
  return 0;
}
