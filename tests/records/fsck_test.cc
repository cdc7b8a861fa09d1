// fsck, leases and store timestamps of the RecordStore (reference §6, §7; §13 items 8, 9, 14),
// on every backend: embedded memory, embedded durable, remote through `mongostore serve`.
// "Another process" is a second RecordStore on the same database: each store has its own
// lease owner, identity caches and clock guard, exactly as a process does.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/records/content_id.h"
#include "mongostore/records/record_store.h"
#include "records/leases.h"
#include "records/record_types.h"
#include "records/store_context.h"
#include "records/store_fixture.h"
#include "support/backend.h"

namespace mongostore::records::testing {
namespace {

using bson::Document;
using bson::make_document;
using mongostore::testing::Backend;

std::vector<EntryFamily> materials_family() {
  return {EntryFamily{"Materials Entry",
                      "def:materials",
                      {EntryRecord{"crystal", schema_of<Crystal>(), "def:crystal"},
                       EntryRecord{"molecule", schema_of<Molecule>(), "def:molecule"}}}};
}

const std::string kDispatch =
    "_httk_entry_dispatch_materials_entry_" + sha256_hex("Materials Entry").substr(0, 8);

bool mentions(const FsckSummary& s, const std::string& text) {
  for (const auto& v : s.violations()) {
    if (v.find(text) != std::string::npos) return true;
  }
  return false;
}

class FsckContract : public StoreFixture {
 protected:
  FsckContract() : StoreFixture("fsck_test") {}

  std::set<int64_t> ids(const std::string& name) const {
    std::set<int64_t> out;
    for (const auto& d : coll(name).find(Document())->to_vector())
      out.insert(d.get("_id").as_int64());
    return out;
  }
  int64_t generation() const {
    return coll("_httk_store_metadata")
        .find_one(make_document("_id", "layout"))
        ->get("generation")
        .as_int64();
  }
  // A lease document with a heartbeat of now on the server's clock (a live holder).
  void fresh_lease(const std::string& id, const std::string& kind) {
    client::UpdateOptions upsert;
    upsert.upsert = true;
    bson::DocumentBuilder set;
    set.open_document("$set").append("owner", "someone-else").append("heartbeat", "$$NOW");
    if (!kind.empty()) set.append("kind", kind);
    set.close();
    coll("_httk_store_metadata")
        .update_one(make_document("_id", id), std::vector<Document>{set.finish()}, upsert);
  }
  // A lease whose holder died long ago.
  void stale_lease(const std::string& id, const std::string& kind) {
    bson::DocumentBuilder d;
    d.append("_id", id);
    if (!kind.empty()) d.append("kind", kind);
    d.append("owner", "dead").append("heartbeat", bson::DateTime{1000});
    coll("_httk_store_metadata").insert_one(d.finish());
  }
  // Another connection to the same data: a second client for `serve`; the embedded engines
  // are per process, so they share the client.
  std::shared_ptr<client::Client> other_client() {
    return backend_.server() ? client::connect(backend_.server()->uri()) : client_;
  }
  bool has_lease(const std::string& id) const {
    return coll("_httk_store_metadata").find_one(make_document("_id", id)).has_value();
  }
};

// --- mark and sweep ---------------------------------------------------------------------------

TEST_P(FsckContract, SweepsOnlyUnreachableDepsKeepsMainsAndLeavesCounters) {
  RecordStore store = open();
  int64_t kept = store.save(make_structure("TiO2", 3, "Ada"));
  Structure d = make_structure("SrTiO3", 2, "Grace");
  for (Site& site : d.sites) site.element = "Sr";  // sites of its own (equal sites are shared)
  int64_t doomed = store.save(d);
  int64_t shared = store.save(make_structure("BaTiO3", 2, "Ada"));  // shares Ada
  int64_t lone_author = store.save(Author{"Lone", std::nullopt});   // a main author
  std::set<int64_t> sites_before = ids("site"), authors_before = ids("author");
  // The structure's own document is gone (as if its insert had been the one a crash lost):
  // its sites and its author Grace are unreachable dependencies now.
  auto doomed_doc = coll("structure").find_one(make_document("_id", doomed));
  std::set<int64_t> doomed_sites;
  for (const auto& e : doomed_doc->get("f").as_document().get("sites").as_array()) {
    doomed_sites.insert(e.value.as_document().get("sites_sid").as_int64());
  }
  int64_t grace = doomed_doc->get("f").as_document().get("author_sid").as_int64();
  coll("structure").delete_one(make_document("_id", doomed));
  std::vector<Document> counters = coll("_httk_counters").find(Document())->to_vector();
  int64_t g0 = generation();

  FsckSummary s = store.fsck();
  EXPECT_EQ(s.generation(), g0 + 1);
  EXPECT_EQ(generation(), g0 + 1);
  EXPECT_TRUE(s.violations().empty()) << s.violations().front();
  EXPECT_EQ(s.collections().at("site").deleted, static_cast<int64_t>(doomed_sites.size()));
  EXPECT_EQ(s.collections().at("author").deleted, 1);
  EXPECT_EQ(s.collections().at("structure").deleted, 0);
  std::set<int64_t> sites_after = ids("site");
  for (int64_t sid : sites_before)
    EXPECT_EQ(sites_after.count(sid), doomed_sites.count(sid) ? 0u : 1u) << sid;
  std::set<int64_t> authors_after = ids("author");
  EXPECT_EQ(authors_after.size(), authors_before.size() - 1);
  EXPECT_FALSE(authors_after.count(grace));
  EXPECT_TRUE(authors_after.count(lone_author));
  EXPECT_EQ(ids("structure"), (std::set<int64_t>{kept, shared}));
  EXPECT_EQ(store.fetch<Structure>(kept)->sites.size(), 3u);
  EXPECT_EQ(store.fetch<Structure>(shared)->author->name, "Ada");
  // Counters untouched: the next sid is past every sid ever issued, swept ones included.
  EXPECT_EQ(coll("_httk_counters").find(Document())->to_vector().size(), counters.size());
  for (const auto& c : counters) {
    auto now = coll("_httk_counters").find_one(make_document("_id", c.get("_id")));
    EXPECT_EQ(now->to_json(), c.to_json());
  }
  int64_t fresh = store.save(Author{"New", std::nullopt});
  EXPECT_GT(fresh, *authors_before.rbegin());
  // A second run has nothing to do.
  FsckSummary again = store.fsck();
  EXPECT_EQ(again.generation(), g0 + 2);
  EXPECT_EQ(again.totals().deleted, 0);
  EXPECT_EQ(again.totals().repaired, 0);
}

TEST_P(FsckContract, CollectGarbageOffDeletesNothingAndProgressIsReported) {
  RecordStore store = open();
  int64_t sid = store.save(make_structure("TiO2", 3));
  coll("structure").delete_one(make_document("_id", sid));
  FsckOptions o;
  o.collect_garbage = false;
  std::vector<FsckProgress> seen;
  o.progress = [&](const FsckProgress& p) { seen.push_back(p); };
  FsckSummary s = store.fsck(o);
  EXPECT_EQ(s.totals().deleted, 0);
  EXPECT_EQ(ids("site").size(), 3u);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().collections_total, 3);  // structure, site, author
  EXPECT_EQ(seen.back().collections_examined, 3);
}

TEST_P(FsckContract, RepairsDispatchesOfMainBackingsOnlyAndDeletesConflictsOnlyWhenAsked) {
  RecordStore store = open(options(materials_family()));
  Crystal c{"NaCl"};
  int64_t cs = store.save(c);
  std::string cid = store.content_id(c);
  coll(kDispatch).delete_one(make_document("_id", cid));
  // A dep backing (never saved at the top) has no dispatch and gets none.
  Crystal dep{"KCl"};
  std::string dep_cid = store.content_id(dep);
  coll("crystal").insert_one(make_document(
      "_id", int64_t{9000}, "_httk_role", "dep", "f", make_document("formula", "KCl"), "logical_id",
      int64_t{9000}, "store_timestamp", int64_t{1}, "content_id", dep_cid));
  // A bogus dispatch naming a record that does not exist.
  std::string bogus(64, 'a');
  coll(kDispatch).insert_one(make_document("_id", bogus, "record", "crystal", "sid", int64_t{777}));

  FsckOptions keep;
  keep.collect_garbage = false;
  FsckSummary s = store.fsck(keep);
  EXPECT_EQ(s.collections().at(kDispatch).repaired, 1);
  EXPECT_EQ(s.collections().at(kDispatch).conflicts, 1);
  EXPECT_EQ(s.collections().at(kDispatch).deleted, 0);
  EXPECT_TRUE(mentions(s, bogus));
  auto restored = coll(kDispatch).find_one(make_document("_id", cid));
  ASSERT_TRUE(restored);
  EXPECT_EQ(restored->to_json(),
            make_document("_id", cid, "record", "crystal", "sid", cs).to_json());
  EXPECT_EQ(store.fetch_entry("Materials Entry", cid)->sid, cs);
  EXPECT_FALSE(coll(kDispatch).find_one(make_document("_id", dep_cid)));
  EXPECT_TRUE(coll(kDispatch).find_one(make_document("_id", bogus)));

  FsckOptions repair = keep;
  repair.repair_conflicts = true;
  FsckSummary r = store.fsck(repair);
  EXPECT_EQ(r.collections().at(kDispatch).deleted, 1);
  EXPECT_EQ(r.collections().at(kDispatch).repaired, 0);
  EXPECT_FALSE(coll(kDispatch).find_one(make_document("_id", bogus)));
  // Without repair nothing is written, though conflicts are still reported.
  coll(kDispatch).delete_one(make_document("_id", cid));
  FsckOptions look = keep;
  look.repair = false;
  EXPECT_EQ(store.fsck(look).totals().repaired, 0);
  EXPECT_FALSE(coll(kDispatch).find_one(make_document("_id", cid)));
}

TEST_P(FsckContract, AnUnattributedCollectionBlocksTheSweepUntilKnownTypesNamesIt) {
  {
    RecordStore writer = open();
    int64_t sid = writer.save(make_structure("TiO2", 2));
    coll("structure").delete_one(make_document("_id", sid));
    writer.save(Event{"written by a process that is gone"});
  }
  coll("_httk_mystery").insert_one(make_document("_id", 1));
  // This store never saved an Event: the `event` collection is nobody's as far as it knows.
  RecordStore store = open();
  FsckOptions o;
  o.known_types = {schema_of<Structure>()};
  FsckSummary s = store.fsck(o);
  EXPECT_TRUE(mentions(s, "'event'"));
  EXPECT_TRUE(mentions(s, "known_types"));
  EXPECT_TRUE(mentions(s, "_httk_mystery"));
  EXPECT_EQ(s.totals().deleted, 0);
  EXPECT_EQ(ids("site").size(), 2u);

  o.known_types.push_back(schema_of<Event>());
  FsckSummary t = store.fsck(o);
  EXPECT_FALSE(mentions(t, "known_types"));
  EXPECT_TRUE(mentions(t, "_httk_mystery"));  // reported, left alone, not blocking
  EXPECT_EQ(t.collections().at("site").deleted, 2);
  EXPECT_EQ(ids("event").size(), 1u);
  EXPECT_TRUE(coll("_httk_mystery").find_one(make_document("_id", 1)));
}

// --- a randomized graph ------------------------------------------------------------------------

// Every document reachable from a `main` document, per collection, computed from the raw
// documents with the test's own knowledge of the layout (structure -> author, sites; node ->
// next), independently of fsck's code.
std::map<std::string, std::set<int64_t>> reachable_by_hand(
    const std::function<client::Collection(const std::string&)>& coll) {
  std::map<std::string, std::map<int64_t, Document>> docs;
  for (const char* c : {"structure", "site", "author", "node"}) {
    for (auto& d : coll(c).find(Document())->to_vector()) {
      docs[c][d.get("_id").as_int64()] = std::move(d);
    }
  }
  std::map<std::string, std::set<int64_t>> seen;
  std::vector<std::pair<std::string, int64_t>> todo;
  for (const auto& [c, by_id] : docs) {
    for (const auto& [sid, d] : by_id) {
      if (d.get("_httk_role").as_string() == "main") todo.emplace_back(c, sid);
    }
  }
  while (!todo.empty()) {
    auto [c, sid] = todo.back();
    todo.pop_back();
    if (!seen[c].insert(sid).second) continue;
    auto it = docs[c].find(sid);
    if (it == docs[c].end()) continue;
    bson::DocumentView f = it->second.get("f").as_document();
    if (c == "structure") {
      if (f.get("author_sid").is_number())
        todo.emplace_back("author", f.get("author_sid").as_int64());
      for (const auto& e : f.get("sites").as_array()) {
        todo.emplace_back("site", e.value.as_document().get("sites_sid").as_int64());
      }
    } else if (c == "node" && f.get("next_sid").is_number()) {
      todo.emplace_back("node", f.get("next_sid").as_int64());
    }
  }
  return seen;
}

std::map<std::string, std::set<int64_t>> all_documents(
    const std::function<client::Collection(const std::string&)>& coll) {
  std::map<std::string, std::set<int64_t>> out;
  for (const char* c : {"structure", "site", "author", "node"}) {
    for (const auto& d : coll(c).find(Document())->to_vector())
      out[c].insert(d.get("_id").as_int64());
  }
  return out;
}

TEST_P(FsckContract, ARandomGraphKeepsExactlyWhatIsReachableFromMainRoots) {
  RecordStore store = open();
  std::mt19937_64 rng(20261205);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  auto random_structure = [&] {
    Structure s = make_structure("F" + std::to_string(pick(10)), 0);
    int sites = pick(4);
    for (int i = 0; i < sites; ++i) {
      Site site;
      site.element = std::vector<std::string>{"Ti", "O", "Sr"}[pick(3)];
      site.position = {{{R(pick(3), 4), R(1, 2), R(0)}}};
      s.sites.push_back(site);
    }
    if (pick(5) == 0) {
      s.author = nullptr;
    } else {
      s.author =
          std::make_shared<const Author>(Author{"A" + std::to_string(pick(4)), std::nullopt});
    }
    return s;
  };
  std::vector<Structure> saved;
  std::vector<int64_t> saved_sids;
  int64_t orphan_sid = 1'000'000;
  int orphans_made = 0;
  auto cid = [&] {
    std::string h;
    for (int i = 0; i < 64; ++i) h += "0123456789abcdef"[pick(16)];
    return h;
  };
  for (int op = 0; op < 160; ++op) {
    switch (pick(6)) {
      case 0:
      case 1: {  // a structure, often repeating content (dedup hits, shared children)
        Structure s = random_structure();
        saved_sids.push_back(store.save(s));
        saved.push_back(std::move(s));
        break;
      }
      case 2: {  // a chain of nodes; saving a dep node at the top promotes it
        std::shared_ptr<const Node> head;
        for (int n = pick(3) + 1; n > 0; --n) {
          head = std::make_shared<const Node>(Node{"n" + std::to_string(pick(5)), head});
        }
        store.save(head);
        break;
      }
      case 3: {  // a replacement in an existing lineage
        if (saved.empty()) break;
        const Structure& pred = saved[static_cast<size_t>(pick(static_cast<int>(saved.size())))];
        try {
          store.replace(pred, random_structure());
        } catch (const Error&) {
          // a cross-lineage dedup hit, or a predecessor whose document this test deleted
        }
        break;
      }
      case 4: {  // a parent lost (a crash between a child's insert and its parent's)
        if (saved_sids.empty()) break;
        int64_t sid = saved_sids[static_cast<size_t>(pick(static_cast<int>(saved_sids.size())))];
        orphans_made += static_cast<int>(coll("structure").delete_one(make_document("_id", sid)));
        break;
      }
      case 5: {  // dependencies nothing refers to, one of them referring to a live node
        ++orphans_made;
        // Residue only has to be what fsck reads: the collections' validators are bypassed.
        client::InsertOptions raw;
        raw.bypass_document_validation = true;
        coll("site").insert_one(
            make_document("_id", ++orphan_sid, "_httk_role", "dep", "f",
                          make_document("element", "X"), "logical_id", orphan_sid,
                          "store_timestamp", int64_t{1}, "content_id", cid()),
            raw);
        auto some_node = coll("node").find_one(Document());
        if (some_node) {
          coll("node").insert_one(
              make_document("_id", ++orphan_sid, "_httk_role", "dep", "f",
                            make_document("name", "orphan", "next_sid", some_node->get("_id")),
                            "logical_id", orphan_sid, "store_timestamp", int64_t{1}, "content_id",
                            cid()),
              raw);
        }
        break;
      }
    }
  }
  auto c = [this](const std::string& name) { return coll(name); };
  auto expected = reachable_by_hand(c);
  auto before = all_documents(c);
  ASSERT_GT(orphans_made, 0);
  ASSERT_NE(expected, before) << "the random run left nothing to collect";
  FsckSummary s = store.fsck();
  EXPECT_TRUE(s.violations().empty()) << s.violations().front();
  auto after = all_documents(c);
  for (const char* name : {"structure", "site", "author", "node"}) {
    // Every reachable sid exists (nothing reachable is lost) and nothing else remains.
    std::set<int64_t> want;
    for (int64_t sid : expected[name]) {
      if (before[name].count(sid)) want.insert(sid);
    }
    EXPECT_EQ(after[name], want) << name;
  }
  EXPECT_EQ(store.fsck().totals().deleted, 0);
  // Every structure still stored fetches whole.
  for (int64_t sid : after["structure"]) EXPECT_TRUE(store.fetch<Structure>(sid)) << sid;
}

// --- leases -----------------------------------------------------------------------------------

TEST_P(FsckContract, AWriterOfAnotherConnectionIsRefusedWhileFsckHoldsTheLease) {
  RecordStore fsck_side = open();
  RecordStore writer = RecordStore::open(other_client(), options());
  FsckOptions o;
  bool refused = false;
  o.progress = [&](const FsckProgress&) {
    if (refused) return;
    try {
      writer.save(Author{"during fsck", std::nullopt});
    } catch (const StoreLockedError&) {
      refused = true;
    }
  };
  fsck_side.save(make_structure("TiO2", 1));
  fsck_side.fsck(o);
  EXPECT_TRUE(refused);
  EXPECT_NO_THROW(writer.save(Author{"after fsck", std::nullopt}));
}

TEST_P(FsckContract, AnFsckLeaseFreshOrStaleBlocksWriters) {
  RecordStore store = open();
  fresh_lease("lease/fsck", "");
  EXPECT_THROW(store.save(Author{"A", std::nullopt}), StoreLockedError);
  EXPECT_FALSE(store.clear_stale_lock());  // a live fsck keeps its lease
  EXPECT_TRUE(has_lease("lease/fsck"));
  coll("_httk_store_metadata").delete_one(make_document("_id", "lease/fsck"));
  stale_lease("lease/fsck", "");
  EXPECT_THROW(store.save(Author{"A", std::nullopt}), StoreLockedError);
  // The refused writer withdrew its own lease.
  EXPECT_EQ(coll("_httk_store_metadata").count_documents(make_document("kind", "writer")), 0);
  EXPECT_FALSE(coll("author").find_one(Document()));
  EXPECT_TRUE(store.clear_stale_lock());
  EXPECT_FALSE(has_lease("lease/fsck"));
  EXPECT_NO_THROW(store.save(Author{"A", std::nullopt}));
  EXPECT_EQ(coll("_httk_store_metadata").count_documents(make_document("kind", "writer")), 0);
}

TEST_P(FsckContract, FsckIsASingletonAndForceTakesOverOnlyAStaleLease) {
  RecordStore store = open();
  fresh_lease("lease/fsck", "");
  EXPECT_THROW(store.fsck(), StoreLockedError);
  FsckOptions force;
  force.force = true;
  try {
    store.fsck(force);
    ADD_FAILURE() << "force replaced a fresh fsck lease";
  } catch (const StoreLockedError& e) {
    EXPECT_NE(std::string(e.what()).find("fresh"), std::string::npos) << e.what();
  }
  coll("_httk_store_metadata").delete_one(make_document("_id", "lease/fsck"));
  stale_lease("lease/fsck", "");
  EXPECT_THROW(store.fsck(), StoreLockedError);
  EXPECT_NO_THROW(store.fsck(force));
  EXPECT_FALSE(has_lease("lease/fsck"));  // released
}

TEST_P(FsckContract, AStaleWriterLeaseNeedsForce) {
  RecordStore store = open();
  stale_lease("lease/dead-writer", "writer");
  try {
    store.fsck();
    ADD_FAILURE() << "fsck ran over a stale writer lease";
  } catch (const StoreLockedError& e) {
    EXPECT_NE(std::string(e.what()).find("stale writer leases require fsck(force=True)"),
              std::string::npos);
  }
  EXPECT_FALSE(has_lease("lease/fsck"));  // released on error
  FsckOptions force;
  force.force = true;
  EXPECT_NO_THROW(store.fsck(force));
  EXPECT_FALSE(has_lease("lease/dead-writer"));
  EXPECT_NO_THROW(store.fsck());
}

TEST_P(FsckContract, FsckWaitsForALiveWriter) {
  RecordStore store = open();
  fresh_lease("lease/live-writer", "writer");
  std::atomic<bool> done{false};
  int64_t g0 = generation();
  std::thread fsck([&] {
    store.fsck();
    done = true;
  });
  while (!has_lease("lease/fsck")) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Still waiting (the writer's lease is fresh for 8 s): the generation is not bumped yet.
  EXPECT_FALSE(done.load());
  EXPECT_EQ(generation(), g0);
  coll("_httk_store_metadata").delete_one(make_document("_id", "lease/live-writer"));
  fsck.join();
  EXPECT_TRUE(done.load());
  EXPECT_EQ(generation(), g0 + 1);
}

TEST_P(FsckContract, ADisplacedFsckGetsLeaseLost) {
  RecordStore store = open();
  store.save(make_structure("TiO2", 1));
  FsckOptions o;
  o.progress = [&](const FsckProgress&) {
    // Another process took the lease over (force, after it looked stale).
    coll("_httk_store_metadata")
        .update_one(make_document("_id", "lease/fsck"),
                    make_document("$set", make_document("owner", "usurper")));
  };
  EXPECT_THROW(store.fsck(o), LeaseLostError);
  // The usurper's lease is not ours to release.
  EXPECT_TRUE(has_lease("lease/fsck"));
}

// A writer renews its lease while its save runs (at most once a second), and a renewal that
// finds the lease gone (a forced fsck took it for a dead writer's) stops the save.
TEST_P(FsckContract, AWriterLeaseRenewsItsHeartbeatAndIsLostOnceAForcedFsckRemovesIt) {
  RecordStore store = open();
  store.save(make_structure("TiO2", 1));
  StoreContext writer(client_, options());
  auto heartbeat = [&](const std::string& id) {  // millis (the document is gone after this)
    return coll("_httk_store_metadata")
        .find_one(make_document("_id", id))
        ->get("heartbeat")
        .as_datetime()
        .millis;
  };
  WriterLease lease(writer);
  ASSERT_TRUE(has_lease(lease.id()));
  // The writer stalled: its heartbeat is long past.
  coll("_httk_store_metadata")
      .update_one(make_document("_id", lease.id()),
                  make_document("$set", make_document("heartbeat", bson::DateTime{1000})));
  lease.refresh();  // renewed less than a second ago: nothing to do yet
  EXPECT_EQ(heartbeat(lease.id()), 1000);
  lease.refresh(/*now=*/true);
  EXPECT_GT(heartbeat(lease.id()), 1000);

  // Stale again, and this time a forced fsck removes it as a dead writer's.
  coll("_httk_store_metadata")
      .update_one(make_document("_id", lease.id()),
                  make_document("$set", make_document("heartbeat", bson::DateTime{1000})));
  FsckOptions forced;
  forced.force = true;
  store.fsck(forced);
  EXPECT_FALSE(has_lease(lease.id()));
  EXPECT_THROW(lease.refresh(/*now=*/true), LeaseLostError);
}

// With a stale threshold shorter than the default renewal (1 s), a live writer renews at
// least four times per threshold, so it never looks dead to fsck.
TEST_P(FsckContract, AWriterRenewsWithinAShortStaleThreshold) {
  RecordStore store = open();
  RecordStoreOptions quick = options();
  quick.lease_stale_after = std::chrono::milliseconds(40);
  StoreContext writer(client_, quick);
  WriterLease lease(writer);
  coll("_httk_store_metadata")
      .update_one(make_document("_id", lease.id()),
                  make_document("$set", make_document("heartbeat", bson::DateTime{1000})));
  std::this_thread::sleep_for(std::chrono::milliseconds(15));  // past 40 ms / 4
  lease.refresh();
  EXPECT_GT(coll("_httk_store_metadata")
                .find_one(make_document("_id", lease.id()))
                ->get("heartbeat")
                .as_datetime()
                .millis,
            1000);
}

TEST_P(FsckContract, AGenerationBumpClearsAnotherStoresCachesAtItsNextSave) {
  RecordStore a = open();
  // Remote: the other store has a connection of its own to the server, as another process.
  RecordStore b = RecordStore::open(other_client(), options());
  int64_t sid = a.save(make_structure("TiO2", 1));
  auto first = b.fetch<Structure>(sid);
  EXPECT_EQ(b.fetch<Structure>(sid), first);  // the live object is shared
  a.fsck();
  EXPECT_EQ(b.fetch<Structure>(sid), first);  // b has not looked yet
  b.save(Author{"anyone", std::nullopt});     // its writer lease sees the new generation
  EXPECT_NE(b.fetch<Structure>(sid), first);
  // a ran the fsck itself: its caches were cleared then, and its next save keeps them.
  auto mine = a.fetch<Structure>(sid);
  a.save(Author{"again", std::nullopt});
  EXPECT_EQ(a.fetch<Structure>(sid), mine);
}

// --- timestamps -------------------------------------------------------------------------------

struct FakeClock {
  std::shared_ptr<std::vector<int64_t>> script = std::make_shared<std::vector<int64_t>>();
  std::shared_ptr<int64_t> now = std::make_shared<int64_t>(1'700'000'000'123'456'789);
  // Returns the scripted values first, then `now`.
  std::function<int64_t()> fn() const {
    auto s = script;
    auto n = now;
    return [s, n] {
      if (!s->empty()) {
        int64_t v = s->front();
        s->erase(s->begin());
        return v;
      }
      return *n;
    };
  }
};

TEST_P(FsckContract, TimestampsAreClockUnitsAndADedupHitKeepsTheFirst) {
  FakeClock clock;
  RecordStoreOptions o = options();
  o.clock_ns = clock.fn();
  RecordStore store = open(o);
  int64_t sid = store.save(Author{"Ada", std::nullopt});
  auto doc = coll("author").find_one(make_document("_id", sid));
  EXPECT_EQ(doc->get("store_timestamp").as_int64(), *clock.now / 1000);
  int64_t first = *clock.now / 1000;
  *clock.now += 5'000'000'000;
  EXPECT_EQ(store.save(Author{"Ada", std::nullopt}), sid);
  EXPECT_EQ(coll("author").find_one(make_document("_id", sid))->get("store_timestamp").as_int64(),
            first);
  // One timestamp for every document a save inserts.
  int64_t s2 = store.save(make_structure("TiO2", 2, "Eve"));
  int64_t ts = *clock.now / 1000;
  EXPECT_EQ(coll("structure").find_one(make_document("_id", s2))->get("store_timestamp").as_int64(),
            ts);
  for (const auto& d : coll("site").find(Document())->to_vector()) {
    EXPECT_EQ(d.get("store_timestamp").as_int64(), ts);
  }
  // The marker is strict on reopen.
  RecordStoreOptions other = options();
  other.store_timestamp_resolution = 1;
  EXPECT_THROW(open(other), StorageLayoutUpgradeRequiredError);
}

TEST_P(FsckContract, ReopenSeedsTheMarkSoARegressionRaises) {
  FakeClock clock;
  RecordStoreOptions o = options({});
  o.clock_ns = clock.fn();
  int64_t t = *clock.now;
  open(o).save(make_structure("TiO2", 1));
  // A new process whose clock is 10 ms behind what the store holds.
  *clock.now = t - 10'000'000;
  RecordStore behind = open(o);
  try {
    behind.save(make_structure("TiO2", 1));  // even a dedup hit issues no timestamp below
    ADD_FAILURE() << "no StoreClockRegressionError";
  } catch (const StoreClockRegressionError& e) {
    EXPECT_EQ(e.mark_ns(), t / 1000 * 1000);
    EXPECT_EQ(e.clock_ns(), t - 10'000'000);
    EXPECT_EQ(e.code(), static_cast<int>(ErrorCode::kOperationFailed));
  }
  RecordStoreOptions allow = o;
  allow.allow_clock_regression = true;
  EXPECT_NO_THROW(open(allow).save(Author{"late", std::nullopt}));
}

TEST_P(FsckContract, ASubMillisecondRegressionIsSleptOutWithGraceAndTheMarkMovesOnlyOnSuccess) {
  FakeClock clock;
  RecordStoreOptions o = options();
  o.clock_ns = clock.fn();
  RecordStore store = open(o);
  int64_t t = *clock.now;
  store.save(Author{"first", std::nullopt});
  // 0.5 ms behind, then caught up after the sleep: the save goes through.
  clock.script->assign({t - 500'000, t + 1000});
  *clock.now = t + 1000;
  EXPECT_NO_THROW(store.save(Author{"second", std::nullopt}));
  // 0.5 ms behind and still behind after the sleep: refused.
  clock.script->assign({t - 500'000, t - 400'000});
  EXPECT_THROW(store.save(Author{"third", std::nullopt}), StoreClockRegressionError);
  // Without grace even 0.5 ms is refused.
  RecordStoreOptions strict = o;
  strict.clock_regression_grace = false;
  RecordStore no_grace = open(strict);
  *clock.now = t - 500'000;
  EXPECT_THROW(no_grace.save(Author{"fourth", std::nullopt}), StoreClockRegressionError);
  // A failed save does not move the mark: far in the future, then refused by the schema...
  *clock.now = t + 100'000'000'000;
  auto loop = std::make_shared<Node>(Node{"a", nullptr});
  loop->next = loop;
  EXPECT_THROW(store.save(std::shared_ptr<const Node>(loop)), StorageProjectionCycleError);
  loop->next = nullptr;
  // ...so a save back at t + 2 us still passes.
  *clock.now = t + 2000;
  EXPECT_NO_THROW(store.save(Author{"fifth", std::nullopt}));
}

TEST_P(FsckContract, FutureTimestampsAreReportedAndClampedOnRequest) {
  FakeClock clock;
  *clock.now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count() +
               3'600'000'000'000;  // an hour ahead
  RecordStoreOptions ahead = options();
  ahead.clock_ns = clock.fn();
  int64_t sid = open(ahead).save(Author{"from the future", std::nullopt});

  RecordStore store = open();  // the system clock
  EXPECT_THROW(store.save(Author{"now", std::nullopt}), StoreClockRegressionError);
  FsckSummary s = store.fsck();
  EXPECT_EQ(s.collections().at("author").conflicts, 1);
  EXPECT_EQ(s.collections().at("author").repaired, 0);
  EXPECT_TRUE(mentions(s, "store_timestamp after"));
  FsckOptions clamp;
  clamp.clamp_future_timestamps = true;
  FsckSummary c = store.fsck(clamp);
  EXPECT_EQ(c.collections().at("author").repaired, 1);
  int64_t now_units = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  EXPECT_LE(coll("author").find_one(make_document("_id", sid))->get("store_timestamp").as_int64(),
            now_units);
  // The mark was re-seeded from the clamped data: saves go through again.
  EXPECT_NO_THROW(store.save(Author{"now", std::nullopt}));
  EXPECT_EQ(store.fsck().totals().conflicts, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, FsckContract, store_params(), store_param_name);

}  // namespace
}  // namespace mongostore::records::testing
