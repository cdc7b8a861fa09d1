// Crash safety of the RecordStore in both modes: a child process saves record graphs (a
// structure with child sites and a referenced author) on a durable embedded store and is
// killed with SIGKILL at random moments. After each kill the store is reopened: every
// acknowledged save fetches whole, and no stored document points at a sid that is not there
// (saves are bottom-up, so in degraded mode a crash can only leave unreachable documents
// behind). In transaction mode a save is atomic: no unreachable document either.
// MONGOSTORE_CRASH_ROUNDS sets the number of kills per mode (6 by default, for CI).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "crash/killed_writer.h"
#include "crash/saved_structures.h"
#include "mongostore/bson/builder.h"
#include "mongostore/records/record_store.h"
#include "records/record_types.h"
#include "support/temp_dir.h"

namespace mongostore::records::testing {
namespace {

using bson::make_document;

RecordStoreOptions crash_options(TransactionMode mode) {
  RecordStoreOptions o;
  o.database = "crash";
  o.transactions = mode;
  o.families = std::vector<EntryFamily>{};
  o.warn = [](std::string_view) {};
  return o;
}

std::string formula_of(int round, int64_t n) {
  return "R" + std::to_string(round) + "N" + std::to_string(n);
}

// The child: saves graphs forever (some repeating earlier content, so dedup hits happen too)
// and reports "s <sid> <formula> <sites>" on `fd` after each acknowledged save.
[[noreturn]] void saver(const std::string& path, TransactionMode mode, int round, int fd) {
  try {
    RecordStore store = RecordStore::connect("embedded:" + path, crash_options(mode));
    std::mt19937_64 rng(static_cast<uint64_t>(round) * 7919);
    for (int64_t n = 0;; ++n) {
      int64_t which = rng() % 4 == 0 && n > 0 ? static_cast<int64_t>(rng() % n) : n;
      int sites = 1 + static_cast<int>(which % 7);
      Structure s =
          make_structure(formula_of(round, which), sites, "author-" + std::to_string(which % 5));
      int64_t sid = store.save(s);
      report_saved(fd, sid, s.formula, sites);
    }
  } catch (const std::exception& e) {
    report_failure(fd, e);
  }
}

int crash_rounds() {
  const char* env = std::getenv("MONGOSTORE_CRASH_ROUNDS");
  int n = env ? std::atoi(env) : 0;
  return n > 0 ? n : 6;
}

// Kills a saver crash_rounds() times; after each kill checks the acknowledged saves and the
// references, and in transaction mode that every site and author is part of a structure.
void crash_rounds_in(TransactionMode mode) {
  const bool atomic = mode == TransactionMode::kRequire;
  mongostore::testing::TempDir dir;
  std::mt19937_64 rng(4242);
  std::map<int64_t, Ack> acked;
  const int rounds = crash_rounds();
  for (int round = 0; round < rounds; ++round) {
    mongostore::testing::KilledWriter run = mongostore::testing::run_until_killed(
        [&](int fd) { saver(dir.path(), mode, round, fd); }, rng, std::chrono::milliseconds(700));
    ASSERT_TRUE(run.killed) << "the saver stopped by itself in round " << round << ": "
                            << run.output;
    ASSERT_NO_FATAL_FAILURE(read_acks(run.output, &acked));

    auto client = client::connect("embedded:" + dir.path());
    RecordStore store = RecordStore::open(client, crash_options(mode));
    ASSERT_EQ(store.transactions_enabled(), atomic);
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
    std::set<int64_t> referenced_sites, referenced_authors;
    for (const auto& d : db.collection("structure").find(bson::Document())->to_vector()) {
      ++structures;
      bson::DocumentView f = d.get("f").as_document();
      referenced_authors.insert(f.get("author_sid").as_int64());
      EXPECT_TRUE(authors.count(f.get("author_sid").as_int64())) << d.to_json();
      for (const auto& e : f.get("sites").as_array()) {
        int64_t site = e.value.as_document().get("sites_sid").as_int64();
        referenced_sites.insert(site);
        EXPECT_TRUE(sites.count(site)) << d.to_json();
      }
    }
    EXPECT_GE(structures, static_cast<int64_t>(acked.size()));
    if (atomic) {
      // No partial graph: what the kill interrupted left nothing at all.
      EXPECT_EQ(sites, referenced_sites) << "round " << round;
      EXPECT_EQ(authors, referenced_authors) << "round " << round;
    }
  }
  EXPECT_GT(acked.size(), 0u) << "no save was acknowledged in any round";
}

TEST(RecordStoreCrash, AcknowledgedSavesFetchWholeAndNoReferenceDangles) {
  crash_rounds_in(TransactionMode::kNever);
}

TEST(RecordStoreCrash, InTransactionModeAKillLeavesNoPartialGraph) {
  crash_rounds_in(TransactionMode::kRequire);
}

}  // namespace
}  // namespace mongostore::records::testing
