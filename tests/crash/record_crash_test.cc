// Crash safety of the RecordStore in degraded mode: a child process saves record graphs (a
// structure with child sites and a referenced author) on a durable embedded store and is
// killed with SIGKILL at random moments. After each kill the store is reopened: every
// acknowledged save fetches whole, and no stored document points at a sid that is not there
// (saves are bottom-up, so a crash can only leave unreachable documents behind).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "crash/killed_writer.h"
#include "mongostore/bson/builder.h"
#include "mongostore/records/record_store.h"
#include "records/record_types.h"
#include "support/temp_dir.h"

namespace mongostore::records::testing {
namespace {

using bson::make_document;

RecordStoreOptions crash_options() {
  RecordStoreOptions o;
  o.database = "crash";
  o.families = std::vector<EntryFamily>{};
  o.warn = [](std::string_view) {};
  return o;
}

std::string formula_of(int round, int64_t n) {
  return "R" + std::to_string(round) + "N" + std::to_string(n);
}

// The child: saves graphs forever (some repeating earlier content, so dedup hits happen too)
// and reports "s <sid> <formula> <sites>" on `fd` after each acknowledged save.
[[noreturn]] void saver(const std::string& path, int round, int fd) {
  try {
    RecordStore store = RecordStore::connect("embedded:" + path, crash_options());
    std::mt19937_64 rng(static_cast<uint64_t>(round) * 7919);
    for (int64_t n = 0;; ++n) {
      int64_t which = rng() % 4 == 0 && n > 0 ? static_cast<int64_t>(rng() % n) : n;
      int sites = 1 + static_cast<int>(which % 7);
      Structure s =
          make_structure(formula_of(round, which), sites, "author-" + std::to_string(which % 5));
      int64_t sid = store.save(s);
      std::string line =
          "s " + std::to_string(sid) + " " + s.formula + " " + std::to_string(sites) + "\n";
      if (::write(fd, line.data(), line.size()) < 0) _exit(3);
    }
  } catch (const std::exception& e) {
    std::string line = std::string("e ") + e.what() + "\n";
    (void)!::write(fd, line.data(), line.size());
    _exit(2);
  }
}

struct Ack {
  std::string formula;
  int sites = 0;
};

TEST(RecordStoreCrash, AcknowledgedSavesFetchWholeAndNoReferenceDangles) {
  mongostore::testing::TempDir dir;
  std::mt19937_64 rng(4242);
  std::map<int64_t, Ack> acked;
  constexpr int kRounds = 6;
  for (int round = 0; round < kRounds; ++round) {
    mongostore::testing::KilledWriter run = mongostore::testing::run_until_killed(
        [&](int fd) { saver(dir.path(), round, fd); }, rng, std::chrono::milliseconds(700));
    ASSERT_TRUE(run.killed) << "the saver stopped by itself in round " << round << ": "
                            << run.output;
    for (const std::string& line : mongostore::testing::complete_lines(run.output)) {
      std::istringstream f(line);
      char kind;
      Ack ack;
      int64_t sid = 0;
      f >> kind >> sid >> ack.formula >> ack.sites;
      ASSERT_EQ(kind, 's') << line;
      acked[sid] = ack;
    }

    auto client = client::connect("embedded:" + dir.path());
    RecordStore store = RecordStore::open(client, crash_options());
    for (const auto& [sid, ack] : acked) {
      std::shared_ptr<const Structure> s = store.fetch<Structure>(sid);
      ASSERT_TRUE(s) << sid;
      EXPECT_EQ(s->formula, ack.formula) << sid;
      EXPECT_EQ(static_cast<int>(s->sites.size()), ack.sites) << sid;
      ASSERT_TRUE(s->author) << sid;
    }
    // No document points at a missing sid, acknowledged or not.
    auto db = client->database("crash");
    std::set<int64_t> sites, authors;
    for (const auto& d : db.collection("site").find(bson::Document())->to_vector()) {
      sites.insert(d.get("_id").as_int64());
    }
    for (const auto& d : db.collection("author").find(bson::Document())->to_vector()) {
      authors.insert(d.get("_id").as_int64());
    }
    int64_t structures = 0;
    for (const auto& d : db.collection("structure").find(bson::Document())->to_vector()) {
      ++structures;
      bson::DocumentView f = d.get("f").as_document();
      EXPECT_TRUE(authors.count(f.get("author_sid").as_int64())) << d.to_json();
      for (const auto& e : f.get("sites").as_array()) {
        EXPECT_TRUE(sites.count(e.value.as_document().get("sites_sid").as_int64())) << d.to_json();
      }
    }
    EXPECT_GE(structures, static_cast<int64_t>(acked.size()));
  }
  EXPECT_GT(acked.size(), 0u) << "no save was acknowledged in any round";
}

}  // namespace
}  // namespace mongostore::records::testing
