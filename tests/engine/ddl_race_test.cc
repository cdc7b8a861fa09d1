// DDL racing reads and writes on one Engine (issue 18): an insert racing a drop of its
// collection used to write through a null catalog entry (SIGSEGV). Every DDL operation is
// raced here against every kind of read and write, each race bounded by an iteration count
// and a time cap (the cap only ends the loops; nothing asserts on time). The assertions: no
// crash, every error a mongostore::Error with one of the codes MongoDB gives such a race, and
// afterwards a consistent collection (every secondary index holds exactly the documents the
// collection holds) with no acknowledged write lost that no drop could have removed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

constexpr const char* kDb = "race";
constexpr const char* kColl = "c";
// Each thread stops after this many operations or this long, whichever comes first.
constexpr int kMaxIterations = 4000;
constexpr auto kTimeCap = std::chrono::milliseconds(1200);

// The codes MongoDB answers an operation that lost a race with DDL on its collection:
// NamespaceNotFound (26: renamed/dropped under it; rename of a missing source), IndexNotFound
// (27: an index another thread dropped), NamespaceExists (48: create of an existing one),
// IndexOptionsConflict / IndexKeySpecsConflict (85/86), QueryPlanKilled (175: a cursor whose
// index or collection went away), DuplicateKey (11000: two upserts of one key). Anything else
// (InternalError, a WiredTiger code, a non-Error exception) is a bug.
const std::set<int32_t> kRaceCodes = {26, 27, 48, 85, 86, 175, 11000};

// What the threads of one race saw.
class RaceLog {
 public:
  void error(const std::string& op, const Error& e) {
    if (kRaceCodes.count(e.code())) return;
    std::lock_guard<std::mutex> lock(mutex_);
    unexpected_.push_back(op + ": " + std::to_string(e.code()) + " " + e.what());
  }
  void foreign(const std::string& op, const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    unexpected_.push_back(op + ": not a mongostore::Error: " + what);
  }
  std::vector<std::string> unexpected() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return unexpected_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> unexpected_;
};

// Runs `op` once and classifies what it throws.
void run_once(const std::string& name, RaceLog& log, const std::function<void()>& op) {
  try {
    op();
  } catch (const Error& e) {
    log.error(name, e);
  } catch (const std::exception& e) {
    log.foreign(name, e.what());
  }
}

// Runs `op(i)` for i = 0, 1, ... until kMaxIterations, the time cap, or `stop`.
void run_loop(const std::string& name, RaceLog& log, const std::atomic<bool>& stop,
              std::chrono::steady_clock::time_point deadline, const std::function<void(int)>& op) {
  for (int i = 0; i < kMaxIterations && !stop.load(); ++i) {
    if (std::chrono::steady_clock::now() >= deadline) break;
    run_once(name, log, [&] { op(i); });
  }
}

// Every kind of read and write MongoDB has, on race.c: named so a failure says which.
std::vector<std::pair<std::string, std::function<void(Engine&, int, int)>>> workloads() {
  // (engine, thread, iteration). Documents are {_id, x, y}, x unique per document.
  return {
      {"insert",
       [](Engine& e, int t, int i) {
         int id = t * 1000000 + i;
         e.insert_one(kDb, kColl, make_document("_id", id, "x", id, "y", i % 7));
       }},
      {"update",
       [](Engine& e, int, int i) {
         e.update_many(kDb, kColl, make_document("y", i % 7),
                       make_document("$inc", make_document("n", 1)));
         UpdateOptions upsert;
         upsert.upsert = true;
         int id = 2000000 + i % 50;
         e.update_one(kDb, kColl, make_document("_id", id, "x", id),
                      make_document("$set", make_document("y", i % 7)), upsert);
         e.replace_one(kDb, kColl, make_document("_id", id), make_document("x", id, "y", 3));
       }},
      {"delete",
       [](Engine& e, int, int i) {
         e.delete_one(kDb, kColl, make_document("y", i % 7));
         if (i % 10 == 0)
           e.delete_many(kDb, kColl, make_document("x", make_document("$gte", 2000040)));
       }},
      {"find",
       [](Engine& e, int, int i) {
         FindOptions small;
         small.batch_size = 3;  // several batches: getMore across the DDL
         auto c = e.find(kDb, kColl, make_document("x", make_document("$gte", 0)), small);
         while (!c->exhausted()) c->next_batch();
         FindOptions sorted;
         sorted.sort = make_document("y", -1);
         sorted.batch_size = 2;
         e.find(kDb, kColl, Document(), sorted)->to_vector();
         e.find_one(kDb, kColl, make_document("x", i));
         e.find_by_id(kDb, kColl, make_document("_id", i).get("_id"));
       }},
      {"findAndModify",
       [](Engine& e, int, int i) {
         FindAndModifyOptions upsert;
         upsert.upsert = true;
         upsert.return_document = ReturnDocument::kAfter;
         int id = 3000000 + i % 50;
         e.find_one_and_update(kDb, kColl, make_document("_id", id, "x", id),
                               make_document("$inc", make_document("n", 1)), upsert);
         FindAndModifyOptions sorted;
         sorted.sort = make_document("x", -1);
         e.find_one_and_delete(kDb, kColl, make_document("y", i % 7), sorted);
       }},
      {"aggregate",
       [](Engine& e, int, int) {
         std::vector<Document> pipeline = {
             make_document("$match", make_document("x", make_document("$gte", 0))),
             make_document("$group", make_document("_id", "$y", "n", make_document("$sum", 1)))};
         e.aggregate(kDb, kColl, pipeline)->to_vector();
       }},
      {"count",
       [](Engine& e, int, int i) {
         e.count_documents(kDb, kColl, make_document("y", i % 7));
         e.estimated_document_count(kDb, kColl);
         e.distinct(kDb, kColl, "y", Document());
       }},
  };
}

// The DDL operations, each one iteration of the DDL thread.
std::vector<std::pair<std::string, std::function<void(Engine&, int)>>> ddl_operations() {
  return {
      {"create",
       [](Engine& e, int i) {
         // Explicit creates racing the implicit creates of writes (and a drop to create again).
         if (i % 2 == 0) e.drop_collection(kDb, kColl);
         e.create_collection(kDb, kColl);
       }},
      {"drop", [](Engine& e, int) { e.drop_collection(kDb, kColl); }},
      {"dropDatabase", [](Engine& e, int) { e.drop_database(kDb); }},
      {"rename",
       [](Engine& e, int i) {
         // Away and back, replacing whatever the writers created meanwhile.
         if (i % 2 == 0) {
           e.rename_collection(kDb, kColl, kDb, "renamed", /*drop_target=*/true);
         } else {
           e.rename_collection(kDb, "renamed", kDb, kColl, /*drop_target=*/true);
         }
       }},
      {"createIndexes",
       [](Engine& e, int i) {
         e.create_index(kDb, kColl, make_document("y", 1));
         e.create_index(kDb, kColl, make_document("x", -1, "y", 1));
         e.drop_index(kDb, kColl, std::string_view(i % 2 ? "y_1" : "x_-1_y_1"));
       }},
      {"dropIndexes",
       [](Engine& e, int) {
         e.drop_index(kDb, kColl, std::string_view("*"));
         e.create_index(kDb, kColl, make_document("x", 1));
       }},
      {"$out",
       [](Engine& e, int i) {
         // The target replaced by another collection's documents, and the collection written
         // out elsewhere while it changes.
         if (i % 2 == 0) {
           e.aggregate(kDb, "source", {make_document("$out", kColl)})->to_vector();
         } else {
           e.aggregate(kDb, kColl, {make_document("$out", "copy")})->to_vector();
         }
       }},
  };
}

// The ids a collection scan returns.
std::set<std::string> ids_by_scan(Engine& e, const std::string& coll) {
  std::set<std::string> ids;
  for (const Document& d : e.find(kDb, coll, Document())->to_vector()) {
    ids.insert(d.get("_id").to_json());
  }
  return ids;
}

// After the race: each secondary index of each collection of the database holds exactly one
// entry per document (its keys are all scalars), pointing at the documents the collection
// holds; the counts agree.
void expect_consistent(Engine& e) {
  for (const std::string& coll : e.list_collections(kDb)) {
    SCOPED_TRACE("collection " + coll);
    std::set<std::string> ids = ids_by_scan(e, coll);
    int64_t n = static_cast<int64_t>(ids.size());
    EXPECT_EQ(e.count_documents(kDb, coll, Document()), n);
    EXPECT_EQ(e.estimated_document_count(kDb, coll), n);
    for (const Document& spec : e.list_indexes(kDb, coll)) {
      std::string name(spec.get("name").as_string());
      SCOPED_TRACE("index " + name);
      FindOptions hinted;
      hinted.hint.name = name;
      std::set<std::string> through_index;
      for (const Document& d : e.find(kDb, coll, Document(), hinted)->to_vector()) {
        through_index.insert(d.get("_id").to_json());
      }
      EXPECT_EQ(through_index, ids);
      Document explain = e.explain_find(kDb, coll, Document(), hinted);
      Document stats = Document::copy_of(explain.get("executionStats").as_document());
      if (name != "_id_") {
        // No entry left behind by a write the index missed, none pointing at nothing.
        EXPECT_EQ(stats.get("totalKeysExamined").number_as_double(), static_cast<double>(n));
      }
    }
  }
}

EngineOptions memory_options() {
  EngineOptions o;
  o.durability = Durability::kInMemory;
  return o;
}

// Seeds race.c (with an index on x) and race.source, then runs `ddl` on one thread against
// every workload, each on its own thread.
void race_everything(Engine& e, const std::string& ddl_name,
                     const std::function<void(Engine&, int)>& ddl) {
  e.create_index(kDb, kColl, make_document("x", 1));
  for (int i = 0; i < 20; ++i) {
    e.insert_one(kDb, kColl, make_document("_id", -1 - i, "x", 5000000 + i, "y", i % 7));
    e.insert_one(kDb, "source", make_document("_id", -1 - i, "x", 6000000 + i, "y", i % 7));
  }
  RaceLog log;
  const std::atomic<bool> never{false};
  std::atomic<bool> workers_done{false};
  std::atomic<int> running{0};
  auto deadline = std::chrono::steady_clock::now() + kTimeCap;
  std::vector<std::thread> threads;
  int t = 0;
  for (const auto& [name, op] : workloads()) {
    ++running;
    threads.emplace_back([&, name = name, op = op, t] {
      run_loop(name, log, never, deadline, [&](int i) { op(e, t, i); });
      if (--running == 0) workers_done.store(true);
    });
    ++t;
  }
  // The DDL runs for as long as any workload does (its loop is bounded by the same cap).
  threads.emplace_back([&] {
    for (int i = 0; i < kMaxIterations * 10 && !workers_done.load(); ++i) {
      run_once(ddl_name, log, [&] { ddl(e, i); });
      std::this_thread::yield();
    }
  });
  for (auto& th : threads) th.join();
  for (const std::string& u : log.unexpected()) ADD_FAILURE() << u;
  expect_consistent(e);
}

class DdlRace : public ::testing::TestWithParam<size_t> {};

TEST_P(DdlRace, AgainstEveryReadAndWrite) {
  auto [name, ddl] = ddl_operations()[GetParam()];
  SCOPED_TRACE(name);
  auto e = Engine::open(memory_options());
  race_everything(*e, name, ddl);
}

INSTANTIATE_TEST_SUITE_P(Ddl, DdlRace, ::testing::Range<size_t>(0, ddl_operations().size()),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           std::string n = ddl_operations()[info.param].first;
                           n.erase(std::remove(n.begin(), n.end(), '$'), n.end());
                           return n;
                         });

// The same for the drops on a data directory (tables dropped on disk, a journal).
TEST(DdlRaceDurable, DropAndDropDatabaseAgainstEveryReadAndWrite) {
  testing::TempDir dir;
  EngineOptions o;
  o.path = dir.sub("data");
  o.durability = Durability::kJournaled;
  auto e = Engine::open(o);
  race_everything(*e, "drop or dropDatabase", [](Engine& engine, int i) {
    if (i % 2) {
      engine.drop_collection(kDb, kColl);
    } else {
      engine.drop_database(kDb);
    }
  });
}

// The crash of issue 18, alone: inserters racing drop and dropDatabase of their collection
// (an insert that created the collection looked it up again, and a drop in between left it
// writing through a null entry). More threads than cores, so that an inserter is often
// preempted inside that window. An insert either lands (in the collection, or in a fresh one
// it created after the drop) or fails cleanly. An insert that began when no drop was under
// way and none came after must be there at the end: no write is acknowledged into a dropped
// table.
TEST(DdlRaceInsert, InsertsRacingDropsNeverCrashOrLoseWrites) {
  auto e = Engine::open(memory_options());
  RaceLog log;
  std::atomic<int> drops_started{0}, drops_finished{0}, droppers_running{0};
  std::atomic<bool> ddl_done{false};
  auto deadline = std::chrono::steady_clock::now() + 2 * kTimeCap;
  std::mutex kept_mutex;
  std::vector<std::pair<int, int>> kept;  // (id, drops started when it began)
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      // Runs past the droppers' end, so that some inserts begin after the last drop.
      int after = 0;
      for (int i = 0; after < 20 && i < 100 * kMaxIterations; ++i) {
        if (ddl_done.load()) ++after;
        int finished = drops_finished.load();
        int started = drops_started.load();
        run_once("insert", log, [&] {
          int id = t * 10000000 + i;
          e->insert_one(kDb, kColl, make_document("_id", id, "x", id));
          if (finished == started) {
            std::lock_guard<std::mutex> lock(kept_mutex);
            kept.emplace_back(id, started);
          }
        });
      }
    });
  }
  for (int t = 0; t < 4; ++t) {
    ++droppers_running;
    threads.emplace_back([&, t] {
      auto drop = [&](int i) {
        if (t == 0 && i % 500 == 0) e->create_index(kDb, kColl, make_document("x", 1));
        ++drops_started;
        struct Finished {
          std::atomic<int>& n;
          ~Finished() { ++n; }
        } finished{drops_finished};  // also when the drop throws
        if (i % 2) {
          e->drop_collection(kDb, kColl);
        } else {
          e->drop_database(kDb);
        }
      };
      for (int i = 0; i < 100 * kMaxIterations && std::chrono::steady_clock::now() < deadline;
           ++i) {
        run_once("drop", log, [&] { drop(i); });
      }
      if (--droppers_running == 0) ddl_done.store(true);
    });
  }
  for (auto& th : threads) th.join();
  for (const std::string& u : log.unexpected()) ADD_FAILURE() << u;
  int last = drops_started.load();
  size_t checked = 0;
  for (const auto& [id, started] : kept) {
    if (started != last) continue;  // a later drop may rightly have removed it
    ++checked;
    EXPECT_TRUE(e->find_by_id(kDb, kColl, make_document("_id", id).get("_id")).has_value())
        << "acknowledged insert of _id " << id << " is lost";
  }
  EXPECT_GT(checked, 0u);
  expect_consistent(*e);
}

// A cursor's getMore after its collection was dropped fails QueryPlanKilled (175), as on
// mongod, whether it scans the collection or an index, and even when a writer has created a
// new collection of the same name meanwhile (the old cursor never reads the new one). A
// renamed collection is read on (the contract of rename_collection).
TEST(DdlRaceCursor, GetMoreAfterDropIsQueryPlanKilled) {
  auto e = Engine::open(memory_options());
  e->create_index(kDb, kColl, make_document("x", 1));
  for (int i = 0; i < 4; ++i) e->insert_one(kDb, kColl, make_document("_id", i, "x", i));
  FindOptions one;
  one.batch_size = 1;
  for (bool by_index : {false, true}) {
    SCOPED_TRACE(by_index ? "index scan" : "collection scan");
    Document filter = by_index ? make_document("x", make_document("$gte", 0)) : Document();
    for (bool recreate : {false, true}) {
      SCOPED_TRACE(recreate ? "re-created" : "dropped");
      for (int i = 0; i < 4; ++i) {
        e->replace_one(kDb, kColl, make_document("_id", i), make_document("x", i), true);
      }
      auto cursor = e->find(kDb, kColl, filter, one);
      ASSERT_EQ(cursor->next_batch().size(), 1u);
      ASSERT_TRUE(e->drop_collection(kDb, kColl));
      if (recreate) e->insert_one(kDb, kColl, make_document("_id", 100, "x", 100));
      try {
        cursor->next_batch();
        ADD_FAILURE() << "getMore after the drop did not fail";
      } catch (const Error& err) {
        EXPECT_EQ(err.code(), 175) << err.what();
      }
      e->create_index(kDb, kColl, make_document("x", 1));
    }
  }
  // Renamed under the cursor: the rest of its documents, from the renamed collection.
  e->drop_collection(kDb, kColl);
  for (int i = 0; i < 4; ++i) e->insert_one(kDb, kColl, make_document("_id", i, "x", i));
  auto cursor = e->find(kDb, kColl, Document(), one);
  ASSERT_EQ(cursor->next_batch().size(), 1u);
  e->rename_collection(kDb, kColl, kDb, "moved", false);
  EXPECT_EQ(cursor->to_vector().size(), 3u);
}

// A cursor whose collection is dropped (and re-created by a writer) between its batches ends
// or fails cleanly; find_one racing drops likewise. Run under ASan this catches a cursor used
// after its table is gone.
TEST(DdlRaceCursor, CursorsAcrossDropsEndCleanly) {
  auto e = Engine::open(memory_options());
  RaceLog log;
  std::atomic<bool> stop{false};
  auto deadline = std::chrono::steady_clock::now() + kTimeCap;
  std::thread ddl([&] {
    run_loop("drop", log, stop, deadline, [&](int i) {
      for (int k = 0; k < 10; ++k) {
        e->insert_one(kDb, kColl, make_document("_id", i * 10 + k, "x", k));
      }
      if (i % 3 == 0) e->create_index(kDb, kColl, make_document("x", 1));
      e->drop_collection(kDb, kColl);
    });
    stop.store(true);
  });
  std::thread reader([&] {
    run_loop("cursor", log, stop, deadline, [&](int) {
      FindOptions one;
      one.batch_size = 1;
      auto scan = e->find(kDb, kColl, Document(), one);
      auto by_index = e->find(kDb, kColl, make_document("x", make_document("$gte", 0)), one);
      while (!scan->exhausted() || !by_index->exhausted()) {
        if (!scan->exhausted()) scan->next_batch();
        if (!by_index->exhausted()) by_index->next_batch();
      }
      e->find_one(kDb, kColl, make_document("x", 3));
    });
  });
  ddl.join();
  reader.join();
  for (const std::string& u : log.unexpected()) ADD_FAILURE() << u;
}

}  // namespace
}  // namespace mongostore::engine
