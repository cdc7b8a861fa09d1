// The embedded engine's storage: catalog, CRUD by _id, validation, errors, cursors, reopen.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "support/error_code.h"
#include "support/memory_engine.h"
#include "support/temp_dir.h"

namespace mongostore::engine {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

using testing::memory_engine;

std::shared_ptr<Engine> durable_engine(const std::string& path,
                                       Durability d = Durability::kDurable) {
  EngineOptions o;
  o.path = path;
  o.durability = d;
  return Engine::open(o);
}

using testing::code_of;

// The journal's log files are small and written before use (zero-filled), not large reserved
// space: a durable commit's sync then overwrites written blocks (docs/benchmarks.md, "The
// durable commit's sync"). Seen from outside: a fresh durable directory holds a few files of
// at most 8 MB, about 25 MB, where fallocated 100 MB files made it over 300 MB.
TEST(EngineStorage, AFreshDurableDirectoryHoldsSmallJournalFiles) {
  testing::TempDir dir;
  {
    auto e = durable_engine(dir.path());
    for (int i = 0; i < 200; ++i)
      e->insert_one("db", "c", make_document("_id", i, "pad", std::string(512, 'x')));
  }
  auto e = durable_engine(dir.path());  // reopened: recovery runs over the same files
  EXPECT_EQ(e->count_documents("db", "c", Document()), 200);
  uintmax_t total = 0;
  int logs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().filename().string().rfind("WiredTigerLog.", 0) != 0 &&
        entry.path().filename().string().rfind("WiredTigerPreplog.", 0) != 0) {
      continue;
    }
    ++logs;
    EXPECT_LE(entry.file_size(), uintmax_t{8} << 20) << entry.path();
    total += entry.file_size();
  }
  EXPECT_GE(logs, 1);
  EXPECT_LT(total, uintmax_t{64} << 20) << logs << " journal files";
}

TEST(EngineStorage, InsertFindReplaceDeleteById) {
  auto e = memory_engine();
  e->insert_one("db", "c", make_document("_id", 1, "name", "ada"));
  auto got = e->find_by_id("db", "c", make_document("_id", 1).get("_id"));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->get("name").as_string(), "ada");

  auto r = e->replace_one("db", "c", make_document("_id", 1), make_document("name", "grace"));
  EXPECT_EQ(r.matched_count, 1);
  EXPECT_EQ(r.modified_count, 1);
  got = e->find_by_id("db", "c", make_document("_id", 1).get("_id"));
  EXPECT_EQ(got->get("name").as_string(), "grace");
  EXPECT_EQ(got->begin()->key, "_id");  // the replacement keeps _id, first

  EXPECT_EQ(e->delete_one("db", "c", make_document("_id", 1)), 1);
  EXPECT_FALSE(e->find_by_id("db", "c", make_document("_id", 1).get("_id")).has_value());
  EXPECT_EQ(e->delete_one("db", "c", make_document("_id", 1)), 0);
}

TEST(EngineStorage, IdIsGeneratedAndMovedFirst) {
  auto e = memory_engine();
  bson::OwnedValue id = e->insert_one("db", "c", make_document("x", 1));
  EXPECT_EQ(id.view().type(), bson::BsonType::kObjectId);
  auto doc = e->find_by_id("db", "c", id.view());
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->begin()->key, "_id");

  e->insert_one("db", "c", make_document("a", 1, "_id", "later"));
  doc = e->find_by_id("db", "c", make_document("_id", "later").get("_id"));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->begin()->key, "_id");
  EXPECT_EQ(doc->get("a").as_int32(), 1);
}

TEST(EngineStorage, IdEqualityAcrossNumericTypes) {
  // MongoDB treats 1, 1.0 and NumberLong(1) as the same _id.
  auto e = memory_engine();
  e->insert_one("db", "c", make_document("_id", 1));
  EXPECT_EQ(code_of([&] { e->insert_one("db", "c", make_document("_id", 1.0)); }), 11000);
  EXPECT_TRUE(e->find_by_id("db", "c", make_document("_id", int64_t(1)).get("_id")));
}

TEST(EngineStorage, DuplicateKeyNamesTheKey) {
  auto e = memory_engine();
  e->insert_one("shop", "orders", make_document("_id", "a"));
  try {
    e->insert_one("shop", "orders", make_document("_id", "a", "x", 2));
    FAIL() << "expected DuplicateKey";
  } catch (const DuplicateKeyError& err) {
    EXPECT_EQ(err.code(), 11000);
    EXPECT_EQ(err.code_name(), "DuplicateKey");
    EXPECT_NE(std::string(err.what()).find("shop.orders"), std::string::npos);
    EXPECT_NE(std::string(err.what()).find("\"a\""), std::string::npos);
    EXPECT_EQ(err.key_pattern(), make_document("_id", 1));
    EXPECT_EQ(err.key_value(), make_document("_id", "a"));
  }
  // The first document is untouched.
  auto doc = e->find_by_id("shop", "orders", make_document("_id", "a").get("_id"));
  EXPECT_FALSE(doc->has("x"));
}

TEST(EngineStorage, InvalidIdValuesAreRejected) {
  auto e = memory_engine();
  EXPECT_EQ(code_of([&] { e->insert_one("db", "c", make_document("_id", make_array(1, 2))); }), 2);
  EXPECT_EQ(code_of([&] {
              e->insert_one("db", "c", make_document("_id", bson::RegexView{"a.*", "i"}));
            }),
            2);
  EXPECT_EQ(code_of([&] { e->insert_one("db", "c", make_document("_id", bson::Undefined{})); }), 2);
  EXPECT_EQ(
      code_of([&] { e->insert_one("db", "c", make_document("_id", make_document("$bad", 1))); }),
      52);
  // Dotted and $-prefixed names elsewhere are legal since MongoDB 5.0.
  EXPECT_EQ(code_of([&] { e->insert_one("db", "c", make_document("_id", 9, "$a", 1, "b.c", 2)); }),
            0);
  EXPECT_EQ(e->count_documents("db", "c", Document()), 1);
}

TEST(EngineStorage, DocumentSizeLimit) {
  auto e = memory_engine();
  std::string big(kMaxDocumentSize, 'x');
  try {
    e->insert_one("db", "c", make_document("_id", 1, "big", big));
    FAIL() << "expected BSONObjectTooLarge";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), 10334);
    EXPECT_EQ(err.code_name(), "BSONObjectTooLarge");
  }
  // Just under the limit is fine.
  std::string fits(kMaxDocumentSize - 100, 'x');
  e->insert_one("db", "c", make_document("_id", 2, "big", fits));
  EXPECT_EQ(e->count_documents("db", "c", Document()), 1);
  // A replacement over the limit fails too, and leaves the stored document unchanged.
  EXPECT_EQ(code_of([&] {
              e->replace_one("db", "c", make_document("_id", 2), make_document("big", big));
            }),
            10334);
  EXPECT_EQ(
      e->find_by_id("db", "c", make_document("_id", 2).get("_id"))->get("big").as_string().size(),
      fits.size());
}

TEST(EngineStorage, CatalogCreateDropList) {
  auto e = memory_engine();
  e->create_collection("a", "one");
  e->create_collection("a", "two");
  e->create_collection("b", "three");
  EXPECT_EQ(code_of([&] { e->create_collection("a", "one"); }), 48);
  EXPECT_EQ(e->list_databases(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(e->list_collections("a"), (std::vector<std::string>{"one", "two"}));
  e->insert_one("a", "one", make_document("_id", 1));
  EXPECT_TRUE(e->drop_collection("a", "one"));
  EXPECT_FALSE(e->drop_collection("a", "one"));
  EXPECT_FALSE(e->find_by_id("a", "one", make_document("_id", 1).get("_id")));
  // Re-created collections start empty.
  e->create_collection("a", "one");
  EXPECT_EQ(e->count_documents("a", "one", Document()), 0);
  e->drop_database("a");
  EXPECT_EQ(e->list_databases(), (std::vector<std::string>{"b"}));
}

TEST(EngineStorage, InvalidNamespaces) {
  auto e = memory_engine();
  EXPECT_EQ(code_of([&] { e->create_collection("", "c"); }), 73);
  EXPECT_EQ(code_of([&] { e->create_collection("a.b", "c"); }), 73);
  EXPECT_EQ(code_of([&] { e->create_collection("a b", "c"); }), 73);
  EXPECT_EQ(code_of([&] { e->create_collection("db", ""); }), 73);
  EXPECT_EQ(code_of([&] { e->create_collection("db", "c$x"); }), 73);
  EXPECT_EQ(code_of([&] { e->insert_one("db", "", make_document("_id", 1)); }), 73);
}

TEST(EngineStorage, CatalogAndDataSurviveReopen) {
  testing::TempDir dir;
  {
    auto e = durable_engine(dir.path());
    e->create_collection("db", "empty");
    for (int i = 0; i < 100; ++i) e->insert_one("db", "c", make_document("_id", i, "sq", i * i));
    e->insert_one("other", "x", make_document("_id", "k"));
    e->drop_collection("other", "x");
  }
  auto e = durable_engine(dir.path());
  EXPECT_EQ(e->list_databases(), (std::vector<std::string>{"db"}));
  EXPECT_EQ(e->list_collections("db"), (std::vector<std::string>{"c", "empty"}));
  EXPECT_EQ(e->count_documents("db", "c", Document()), 100);
  EXPECT_EQ(e->find_by_id("db", "c", make_document("_id", 7).get("_id"))->get("sq").as_int32(), 49);
}

// renameCollection is one catalog change: documents and indexes move with the name (no
// copy), errors carry mongod's codes, dropTarget replaces the target, and it survives reopen.
TEST(EngineStorage, RenameMovesTheCollectionAtomicallyAndDurably) {
  testing::TempDir dir;
  {
    auto e = durable_engine(dir.path());
    for (int i = 0; i < 50; ++i) e->insert_one("db", "a", make_document("_id", i, "k", i));
    e->create_index("db", "a", make_document("k", 1), make_document("unique", true));
    e->insert_one("db", "b", make_document("_id", "old-target"));
    EXPECT_EQ(code_of([&] { e->rename_collection("db", "nope", "db", "x", false); }), 26);
    EXPECT_EQ(code_of([&] { e->rename_collection("db", "a", "db", "b", false); }), 48);
    EXPECT_EQ(code_of([&] { e->rename_collection("db", "a", "db", "a", true); }), 20);
    EXPECT_EQ(code_of([&] { e->rename_collection("db", "a", "db", "bad$name", false); }), 73);
    e->rename_collection("db", "a", "db2", "moved", false);
    EXPECT_FALSE(e->collection_exists("db", "a"));
    EXPECT_EQ(e->count_documents("db2", "moved", Document()), 50);
    // The unique index came along and still holds.
    EXPECT_EQ(code_of([&] { e->insert_one("db2", "moved", make_document("_id", 99, "k", 3)); }),
              11000);
    // A write to the old name creates a new, empty collection.
    e->insert_one("db", "a", make_document("_id", "fresh"));
    EXPECT_EQ(e->count_documents("db", "a", Document()), 1);
    e->rename_collection("db2", "moved", "db", "b", true);
    EXPECT_FALSE(e->find_by_id("db", "b", make_document("_id", "old-target").get("_id")));
    EXPECT_EQ(e->count_documents("db", "b", Document()), 50);
  }
  auto e = durable_engine(dir.path());
  EXPECT_EQ(e->list_collections("db"), (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(e->collection_exists("db2", "moved"));
  EXPECT_EQ(e->count_documents("db", "b", Document()), 50);
  EXPECT_EQ(code_of([&] { e->insert_one("db", "b", make_document("_id", 99, "k", 3)); }), 11000);
  bool has_k = false;
  for (const Document& ix : e->list_indexes("db", "b"))
    has_k |= ix.get("name").as_string() == "k_1";
  EXPECT_TRUE(has_k);
}

// Writers racing a rename lose nothing: each insert lands before the rename (and moves with
// the collection) or after it (in a new collection under the old name).
TEST(EngineStorage, WritesRacingARenameAreNeitherLostNorMisdirected) {
  auto e = memory_engine();
  e->insert_one("db", "src", make_document("_id", -1));
  constexpr int kInserts = 3000;
  std::thread writer([&] {
    for (int i = 0; i < kInserts; ++i) e->insert_one("db", "src", make_document("_id", i));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  e->rename_collection("db", "src", "db", "dst", false);
  writer.join();
  int64_t moved = e->count_documents("db", "dst", Document());
  int64_t after = e->count_documents("db", "src", Document());
  EXPECT_EQ(moved + after, kInserts + 1);
  EXPECT_TRUE(e->find_by_id("db", "dst", make_document("_id", -1).get("_id")));
  // Inserts are in order: everything in dst precedes everything in src.
  if (after > 0) {
    EXPECT_TRUE(e->find_by_id("db", "src", make_document("_id", kInserts - 1).get("_id")));
    EXPECT_FALSE(e->find_by_id("db", "src", make_document("_id", -1).get("_id")));
  }
}

// $out goes through a temporary collection and a rename: results larger than one batch land
// whole with the target's indexes, and a temporary collection a crash left behind is dropped
// when the engine opens.
TEST(EngineStorage, ReplaceCollectionDocumentsUsesATemporaryCollection) {
  testing::TempDir dir;
  {
    auto e = durable_engine(dir.path());
    e->insert_one("db", "target", make_document("_id", "old"));
    e->create_index("db", "target", make_document("k", 1), make_document("unique", true));
    std::vector<Document> docs;
    const std::string pad(40 * 1024, 'p');
    for (int i = 0; i < 1000; ++i) docs.push_back(make_document("_id", i, "k", i, "pad", pad));
    e->replace_collection_documents("db", "target", docs);  // ~40 MB: several batches
    EXPECT_EQ(e->count_documents("db", "target", Document()), 1000);
    EXPECT_EQ(e->list_collections("db"), (std::vector<std::string>{"target"}));
    docs.push_back(make_document("_id", 5000, "k", 7));  // clashes on the unique index
    EXPECT_EQ(code_of([&] { e->replace_collection_documents("db", "target", docs); }), 11000);
    EXPECT_EQ(e->count_documents("db", "target", Document()), 1000);
    EXPECT_EQ(e->list_collections("db"), (std::vector<std::string>{"target"}));
    // What a crash in the middle of a $out leaves.
    e->insert_one("db", "tmp.agg_out.41", make_document("_id", 1));
  }
  auto e = durable_engine(dir.path());
  EXPECT_EQ(e->list_collections("db"), (std::vector<std::string>{"target"}));
  EXPECT_EQ(e->count_documents("db", "target", Document()), 1000);
}

TEST(EngineStorage, JournaledModeReopens) {
  testing::TempDir dir;
  {
    auto e = durable_engine(dir.path(), Durability::kJournaled);
    e->insert_one("db", "c", make_document("_id", 1));
  }
  auto e = durable_engine(dir.path(), Durability::kJournaled);
  EXPECT_TRUE(e->find_by_id("db", "c", make_document("_id", 1).get("_id")));
}

TEST(EngineStorage, DataDirectoryErrorsNameThePath) {
  testing::TempDir dir;
  auto first = durable_engine(dir.path());
  try {
    durable_engine(dir.path());
    FAIL() << "a second open of a locked directory must fail";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), static_cast<int32_t>(ErrorCode::kDataDirectoryInvalid));
    EXPECT_NE(std::string(err.what()).find(dir.path()), std::string::npos);
    EXPECT_NE(std::string(err.what()).find("locked"), std::string::npos);
  }
  first.reset();

  std::filesystem::create_directories(dir.sub("foreign"));
  std::ofstream(dir.sub("foreign/somefile")) << "not ours";
  try {
    durable_engine(dir.sub("foreign"));
    FAIL() << "a foreign directory must be refused";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("not a mongostore data directory"), std::string::npos);
    EXPECT_NE(std::string(err.what()).find(dir.sub("foreign")), std::string::npos);
  }

  std::ofstream(dir.sub("plainfile")) << "x";
  try {
    durable_engine(dir.sub("plainfile"));
    FAIL() << "a file is not a directory";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("not a directory"), std::string::npos);
  }
  try {
    durable_engine(dir.sub("plainfile/below"));
    FAIL() << "a directory below a file cannot be created";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find(dir.sub("plainfile/below")), std::string::npos);
  }
}

TEST(EngineStorage, CursorsHandOutBatchesWithSkipAndLimit) {
  auto e = memory_engine();
  for (int i = 0; i < 250; ++i) e->insert_one("db", "c", make_document("_id", i));
  FindOptions o;
  o.batch_size = 100;
  auto cursor = e->find("db", "c", Document(), o);
  std::vector<size_t> sizes;
  int expected = 0;
  while (!cursor->exhausted()) {
    auto batch = cursor->next_batch();
    if (batch.empty()) break;
    sizes.push_back(batch.size());
    for (const auto& d : batch) EXPECT_EQ(d.get("_id").as_int32(), expected++);
  }
  EXPECT_EQ(expected, 250);
  EXPECT_EQ(sizes.front(), 100u);

  o.skip = 10;
  o.limit = 5;
  auto page = e->find("db", "c", Document(), o)->to_vector();
  ASSERT_EQ(page.size(), 5u);
  EXPECT_EQ(page.front().get("_id").as_int32(), 10);
}

TEST(EngineStorage, CursorSurvivesWritesBetweenBatches) {
  auto e = memory_engine();
  for (int i = 0; i < 10; ++i) e->insert_one("db", "c", make_document("_id", i * 2));
  FindOptions o;
  o.batch_size = 3;
  auto cursor = e->find("db", "c", Document(), o);
  auto first = cursor->next_batch();
  ASSERT_EQ(first.size(), 3u);                        // 0, 2, 4
  e->insert_one("db", "c", make_document("_id", 5));  // after the resume point: seen
  e->insert_one("db", "c", make_document("_id", 1));  // before it: not seen
  std::vector<int> rest;
  while (!cursor->exhausted()) {
    for (const auto& d : cursor->next_batch()) rest.push_back(d.get("_id").as_int32());
  }
  EXPECT_EQ(rest, (std::vector<int>{5, 6, 8, 10, 12, 14, 16, 18}));
}

TEST(EngineStorage, ConcurrentInsertsAllLand) {
  auto e = memory_engine();
  constexpr int kThreads = 8, kEach = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) e->insert_one("db", "c", make_document("_id", t * kEach + i));
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(e->count_documents("db", "c", Document()), kThreads * kEach);
}

TEST(EngineStorage, ConcurrentInsertsOfOneIdHaveOneWinner) {
  auto e = memory_engine();
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> ok{0}, dup{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        try {
          e->insert_one("db", "race", make_document("_id", round));
          ++ok;
        } catch (const DuplicateKeyError&) {
          ++dup;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(ok.load(), 1);
    EXPECT_EQ(dup.load(), 3);
  }
}

void cas_race(Engine& e) {
  // Threads read the version and replace guarded by {_id, version}: every version is won
  // exactly once, and the final version equals the number of wins.
  e.insert_one("db", "cas", make_document("_id", "doc", "version", int64_t(0)));
  constexpr int kThreads = 8, kAttempts = 300;
  std::vector<std::vector<int64_t>> won(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kAttempts; ++k) {
        auto doc = e.find_by_id("db", "cas", make_document("_id", "doc").get("_id"));
        int64_t v = doc->get("version").as_int64();
        auto r = e.replace_one("db", "cas", make_document("_id", "doc", "version", v),
                               make_document("version", v + 1, "by", t));
        if (r.modified_count == 1) won[t].push_back(v + 1);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<int64_t> all;
  for (auto& w : won) all.insert(all.end(), w.begin(), w.end());
  std::sort(all.begin(), all.end());
  auto final_doc = e.find_by_id("db", "cas", make_document("_id", "doc").get("_id"));
  int64_t final_version = final_doc->get("version").as_int64();
  ASSERT_EQ(static_cast<int64_t>(all.size()), final_version);
  for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], static_cast<int64_t>(i + 1));
  EXPECT_GT(final_version, kAttempts);  // threads really interleaved and several won
}

TEST(EngineStorage, VersionCasHasOneWinnerPerVersionInMemory) {
  auto e = memory_engine();
  cas_race(*e);
}

TEST(EngineStorage, VersionCasHasOneWinnerPerVersionDurable) {
  testing::TempDir dir;
  auto e = durable_engine(dir.path(), Durability::kJournaled);
  cas_race(*e);
}

TEST(EngineStorage, CorruptBsonIsRejectedBeforeStorage) {
  Document good = make_document("_id", 1, "s", "text");
  std::vector<uint8_t> bytes(good.data(), good.data() + good.size());
  std::vector<uint8_t> truncated(bytes.begin(), bytes.end() - 3);
  EXPECT_EQ(code_of([&] { Document::from_bytes(truncated); }), 22);
  std::vector<uint8_t> bad_length = bytes;
  bad_length[0] = 0x7F;
  EXPECT_EQ(code_of([&] { Document::from_bytes(bad_length); }), 22);
  std::vector<uint8_t> bad_type = bytes;
  bad_type[4] = 0x42;  // not a BSON type
  EXPECT_EQ(code_of([&] { Document::from_bytes(bad_type); }), 22);
}

}  // namespace
}  // namespace mongostore::engine

namespace mongostore::engine {
namespace {

TEST(EngineStorage, SeveralInMemoryEnginesCoexist) {
  auto a = memory_engine();
  auto b = memory_engine();
  a->insert_one("db", "c", make_document("_id", 1));
  EXPECT_EQ(a->count_documents("db", "c", Document()), 1);
  EXPECT_EQ(b->count_documents("db", "c", Document()), 0);
}

}  // namespace
}  // namespace mongostore::engine
