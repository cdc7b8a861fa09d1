// Crash + fsck (issue 23): a child process saves record graphs on a durable embedded store in
// degraded mode and is killed with SIGKILL at random moments, N times (10 by default;
// MONGOSTORE_CRASH_ROUNDS=100 on demand). Each graph's sites are new, so a kill between a
// site's insert and its structure's leaves unreachable `dep` documents, and the killed
// writer's lease is left behind. Then fsck(force): every orphan is swept (the store holds
// exactly what is reachable from its `main` documents, computed here from the raw documents),
// every acknowledged save still fetches whole, and a second fsck finds nothing to do.
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

using bson::Document;

RecordStoreOptions crash_options() {
  RecordStoreOptions o;
  o.database = "crash_fsck";
  o.transactions = TransactionMode::kNever;  // degraded: a kill leaves orphans for fsck
  o.families = std::vector<EntryFamily>{};
  o.warn = [](std::string_view) {};
  // The killed writer's lease goes stale quickly, so fsck(force) need not wait 8 s.
  o.lease_stale_after = std::chrono::milliseconds(200);
  return o;
}

int rounds() {
  const char* env = std::getenv("MONGOSTORE_CRASH_ROUNDS");
  int n = env ? std::atoi(env) : 0;
  return n > 0 ? n : 10;
}

// The child: saves graphs until killed, reporting "s <sid> <formula> <sites>" on `fd` after
// each acknowledged save.
[[noreturn]] void saver(const std::string& path, int round, int fd) {
  try {
    RecordStore store = RecordStore::connect("embedded:" + path, crash_options());
    std::mt19937_64 rng(static_cast<uint64_t>(round) * 104729 + 1);
    for (int64_t n = 0;; ++n) {
      int64_t which = rng() % 4 == 0 && n > 0 ? static_cast<int64_t>(rng() % n) : n;  // dedup
      int sites = 1 + static_cast<int>(which % 5);
      std::string formula = "R" + std::to_string(round) + "N" + std::to_string(which);
      Structure s = make_structure(formula, sites, "author-" + std::to_string(which % 5));
      for (Site& site : s.sites) site.element = formula;  // sites of its own
      int64_t sid = store.save(s);
      report_saved(fd, sid, formula, sites);
    }
  } catch (const std::exception& e) {
    report_failure(fd, e);
  }
}

std::map<std::string, std::set<int64_t>> all_ids(const client::Database& db) {
  std::map<std::string, std::set<int64_t>> out;
  for (const char* c : {"structure", "site", "author"}) {
    for (const auto& d : db.collection(c).find(Document())->to_vector()) {
      out[c].insert(d.get("_id").as_int64());
    }
  }
  return out;
}

// What `main` documents reach, from the raw documents (structure -> sites, author).
std::map<std::string, std::set<int64_t>> reachable(const client::Database& db) {
  std::map<std::string, std::set<int64_t>> out;
  for (const auto& d : db.collection("site").find(Document())->to_vector()) {
    if (d.get("_httk_role").as_string() == "main") out["site"].insert(d.get("_id").as_int64());
  }
  for (const auto& d : db.collection("author").find(Document())->to_vector()) {
    if (d.get("_httk_role").as_string() == "main") out["author"].insert(d.get("_id").as_int64());
  }
  for (const auto& d : db.collection("structure").find(Document())->to_vector()) {
    if (d.get("_httk_role").as_string() != "main") continue;  // nothing refers to structures
    out["structure"].insert(d.get("_id").as_int64());
    bson::DocumentView f = d.get("f").as_document();
    if (f.get("author_sid").is_number()) out["author"].insert(f.get("author_sid").as_int64());
    for (const auto& e : f.get("sites").as_array()) {
      out["site"].insert(e.value.as_document().get("sites_sid").as_int64());
    }
  }
  return out;
}

TEST(RecordStoreCrashFsck, FsckSweepsWhatKilledWritersLeftAndKeepsEveryAcknowledgedSave) {
  mongostore::testing::TempDir dir;
  std::mt19937_64 rng(777);
  std::map<int64_t, Ack> acked;
  const int n = rounds();
  for (int round = 0; round < n; ++round) {
    // The kill lands at a random moment after the child's first acknowledged save (opening
    // a durable store takes a while; the open itself is the other crash test's business).
    mongostore::testing::KilledWriter run = mongostore::testing::run_until_killed(
        [&](int fd) { saver(dir.path(), round, fd); }, rng, std::chrono::milliseconds(299));
    ASSERT_TRUE(run.killed) << "the saver stopped by itself in round " << round << ": "
                            << run.output;
    ASSERT_NO_FATAL_FAILURE(read_acks(run.output, &acked));
  }
  ASSERT_GT(acked.size(), 0u) << "no save was acknowledged in any round";

  auto client = client::connect("embedded:" + dir.path());
  auto db = client->database("crash_fsck");
  RecordStore store = RecordStore::open(client, crash_options());
  auto expected = reachable(db);
  auto before = all_ids(db);
  FsckOptions o;
  o.force = true;                            // the last writer died holding its lease
  o.known_types = {schema_of<Structure>()};  // this process saved nothing itself
  FsckSummary s = store.fsck(o);
  int64_t orphans = 0;
  for (const auto& [c, sids] : before) {
    std::set<int64_t> want;
    for (int64_t sid : sids) {
      if (expected[c].count(sid)) want.insert(sid);
    }
    orphans += static_cast<int64_t>(sids.size() - want.size());
    EXPECT_EQ(all_ids(db)[c], want) << c;
  }
  EXPECT_EQ(s.totals().deleted, orphans);
  std::cout << "[ info ] " << n << " kills, " << acked.size() << " acknowledged saves, " << orphans
            << " orphans swept\n";
  for (const auto& [sid, ack] : acked) {
    std::shared_ptr<const Structure> st = store.fetch<Structure>(sid);
    ASSERT_TRUE(st) << sid;
    EXPECT_EQ(st->formula, ack.formula) << sid;
    ASSERT_EQ(static_cast<int>(st->sites.size()), ack.sites) << sid;
    for (const Site& site : st->sites) EXPECT_EQ(site.element, ack.formula) << sid;
    ASSERT_TRUE(st->author) << sid;
  }
  FsckOptions again;
  again.known_types = o.known_types;
  FsckSummary second = store.fsck(again);  // no force: no stale lease is left
  EXPECT_EQ(second.totals().deleted, 0);
  EXPECT_EQ(second.totals().repaired, 0);
  EXPECT_TRUE(second.violations().empty()) << second.violations().front();
}

}  // namespace
}  // namespace mongostore::records::testing
