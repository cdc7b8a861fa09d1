// The RecordStore's contract (seed 003; reference httk-store-mongo.md), written once and run on
// every backend: embedded memory, embedded durable, and remote through `mongostore serve`, in
// transaction mode and degraded (store_fixture.h); transaction-only cases are in
// record_transaction_test.cc.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/records/content_id.h"
#include "mongostore/records/record_store.h"
#include "records/record_identity.h"
#include "records/record_types.h"
#include "records/record_validator.h"
#include "records/store_context.h"
#include "records/store_fixture.h"
#include "support/backend.h"

namespace mongostore::records::testing {
namespace {

using bson::Document;
using bson::make_document;
using mongostore::testing::Backend;

class RecordStoreContract : public StoreFixture {
 protected:
  RecordStoreContract() : StoreFixture("records_test") {}

  Document raw(const std::string& collection, int64_t sid) const {
    auto doc = coll(collection).find_one(make_document("_id", sid));
    EXPECT_TRUE(doc) << collection << " " << sid;
    return doc ? *doc : Document();
  }
};

uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// --- save and fetch ---------------------------------------------------------------------------

TEST_P(RecordStoreContract, EveryFieldTypeRoundTripsExactly) {
  RecordStore store = open();
  Structure s = make_structure("TiO2", 3);
  s.charges.push_back(R::parse("123456789012345678901234567890/7"));
  s.magmoms.push_back(std::nextafter(1.0, 2.0));
  s.created = DateTime::from_fields(1999, 12, 31, 23, 59, 59, 0, std::nullopt);  // naive
  int64_t sid = store.save(s);
  auto back = store.fetch<Structure>(sid);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->formula, s.formula);
  EXPECT_EQ(back->spacegroup, 225);
  EXPECT_EQ(back->cell, s.cell);
  ASSERT_EQ(back->sites.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back->sites[i].element, s.sites[i].element);
    EXPECT_EQ(back->sites[i].position, s.sites[i].position);
    EXPECT_EQ(bits(back->sites[i].occupancy), bits(s.sites[i].occupancy));
  }
  ASSERT_TRUE(back->author);
  EXPECT_EQ(back->author->name, "Ada");
  EXPECT_EQ(back->author->email, "ada@example.org");
  EXPECT_EQ(back->energy, -12.5);
  EXPECT_EQ(back->tags, s.tags);
  ASSERT_EQ(back->magmoms.size(), s.magmoms.size());
  for (size_t i = 0; i < s.magmoms.size(); ++i) {
    EXPECT_EQ(bits(back->magmoms[i]), bits(s.magmoms[i])) << i;  // -0.0 and subnormals too
  }
  EXPECT_EQ(back->charges, s.charges);
  EXPECT_EQ(back->created, s.created);
  EXPECT_FALSE(back->created.aware);
  EXPECT_EQ(back->published, s.published);
  EXPECT_EQ(back->blob, s.blob);
  EXPECT_TRUE(back->relaxed);
  EXPECT_EQ(back->forces, s.forces);
  EXPECT_EQ(back->note, "from a test");
  EXPECT_EQ(back->scratch, 7);  // skip: the C++ default, not what was saved

  // An optional left empty, a null reference, empty lists.
  Structure bare;
  bare.formula = "X";
  bare.created = DateTime::from_fields(2020, 1, 1);
  auto bare_back = store.fetch<Structure>(store.save(bare));
  EXPECT_FALSE(bare_back->author);
  EXPECT_FALSE(bare_back->energy);
  EXPECT_FALSE(bare_back->published);
  EXPECT_TRUE(bare_back->sites.empty());
  EXPECT_TRUE(bare_back->forces.empty());
}

TEST_P(RecordStoreContract, DocumentsHaveHttksLayout) {
  RecordStore store = open();
  Structure s = make_structure("SrTiO3", 2);
  int64_t sid = store.save(s);
  Document doc = raw("structure", sid);
  std::vector<std::string> keys;
  for (const auto& e : doc) keys.emplace_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"_id", "_httk_role", "f", "logical_id", "alt_id",
                                            "store_timestamp", "content_id"}));
  EXPECT_EQ(doc.get("alt_id").as_int64(), sid);
  EXPECT_EQ(doc.get("_id").type(), bson::BsonType::kInt64);
  EXPECT_EQ(doc.get("logical_id").as_int64(), sid);
  EXPECT_EQ(doc.get("_httk_role").as_string(), "main");
  EXPECT_EQ(doc.get("content_id").as_string(), store.content_id(s));
  EXPECT_EQ(doc.get("content_id").as_string().size(), 64u);
  EXPECT_EQ(doc.get("store_timestamp").type(), bson::BsonType::kInt64);

  bson::DocumentView f = doc.get("f").as_document();
  std::vector<std::string> fkeys;
  for (const auto& e : f) fkeys.emplace_back(e.key);
  std::vector<std::string> want = {"formula", "spacegroup"};
  for (int i = 0; i < 9; ++i) want.push_back("cell_" + std::to_string(i));
  for (const char* k :
       {"cell_exact", "sites", "author_sid", "energy", "energy_exact", "tags", "magmoms", "charges",
        "created", "published", "blob", "relaxed", "forces", "note"}) {
    want.emplace_back(k);
  }
  EXPECT_EQ(fkeys, want);
  EXPECT_EQ(f.get("spacegroup").type(), bson::BsonType::kInt64);
  EXPECT_EQ(f.get("cell_0").as_double(), 1.0 / 3);
  EXPECT_EQ(f.get("cell_exact").as_string(), "6;2,0,0,0,-21,0,0,0,30");
  EXPECT_EQ(f.get("energy_exact").as_string(), "-0x1.9000000000000p+3");
  EXPECT_EQ(f.get("created").as_string(), "2026-01-02T02:04:05.000600+00:00");
  EXPECT_EQ(f.get("published").as_string(), "2026-02-28");
  EXPECT_EQ(f.get("blob").type(), bson::BsonType::kBinary);
  bson::DocumentView site0 = f.get("sites").as_array().begin()->value.as_document();
  EXPECT_EQ(site0.get("sites_sid").type(), bson::BsonType::kInt64);
  bson::DocumentView tag0 = f.get("tags").as_array().begin()->value.as_document();
  EXPECT_EQ(tag0.get("tags").as_string(), "perovskite");
  bson::DocumentView charge0 = f.get("charges").as_array().begin()->value.as_document();
  EXPECT_EQ(charge0.get("charges_exact").as_string(), "2/3");
  bson::DocumentView force0 = f.get("forces").as_array().begin()->value.as_document();
  EXPECT_EQ(force0.get("forces_exact").as_string(), "10;1,0,-1");
  EXPECT_EQ(force0.get("forces_2").as_double(), -0.1);
  EXPECT_FALSE(f.has("scratch"));

  // Children and references are `dep` documents of their own collections.
  Document author = raw("author", f.get("author_sid").as_int64());
  EXPECT_EQ(author.get("_httk_role").as_string(), "dep");
  EXPECT_EQ(author.get("f").as_document().get("name").as_string(), "Ada");
  // Counters hold the last sid issued, per collection.
  auto counter = coll("_httk_counters").find_one(make_document("_id", "structure"));
  ASSERT_TRUE(counter);
  EXPECT_EQ(counter->get("next").number_as_double(), static_cast<double>(sid));

  // The indexes of reference §1.5.
  std::set<std::string> names;
  for (const Document& ix : coll("structure").list_indexes()) {
    names.insert(std::string(ix.get("name").as_string()));
  }
  for (const char* n :
       {"uq_structure_content_id", "ix_structure__httk_role", "ix_structure_logical_id",
        "ix_structure_store_timestamp", "ix_structure_formula", "ix_structure_spacegroup",
        "ix_structure_spacegroup_formula"}) {
    EXPECT_TRUE(names.count(n)) << n;
  }
}

TEST_P(RecordStoreContract, ContentIdDedupReusesTheSidAndPromotesADependency) {
  RecordStore store = open();
  Structure s = make_structure("BaTiO3", 2, "Grace");
  int64_t first = store.save(s);
  EXPECT_EQ(store.save(s), first);
  EXPECT_EQ(coll("structure").count_documents(Document()), 1);
  EXPECT_EQ(coll("site").count_documents(Document()), 2);  // children not visited again

  // The author is a dependency; saving it at the top promotes it.
  Author grace{"Grace", "ada@example.org"};
  int64_t author_sid = raw("structure", first).get("f").as_document().get("author_sid").as_int64();
  EXPECT_EQ(raw("author", author_sid).get("_httk_role").as_string(), "dep");
  EXPECT_EQ(store.save(grace), author_sid);
  EXPECT_EQ(raw("author", author_sid).get("_httk_role").as_string(), "main");
  EXPECT_EQ(store.sid_of(grace), author_sid);
  EXPECT_EQ(store.fetch_by_content_id<Author>(store.content_id(grace))->name, "Grace");
  EXPECT_FALSE(store.fetch_by_content_id<Author>(std::string(64, '0')));
}

TEST_P(RecordStoreContract, AMetadataConflictNamesThePath) {
  RecordStore store = open();
  Structure s = make_structure("CaTiO3", 1);
  store.save(s);
  Structure other = s;
  other.note = "changed";  // identity_skip: same content id, different metadata
  try {
    store.save(other);
    FAIL() << "expected EntryMetadataConflictError";
  } catch (const EntryMetadataConflictError& e) {
    EXPECT_EQ(e.path(), "mongostore.tests.Structure.note");
    EXPECT_NE(std::string(e.what()).find("from a test"), std::string::npos) << e.what();
  }
  // Metadata of a referenced record is compared too.
  Structure other_author = s;
  other_author.author = std::make_shared<const Author>(Author{"Ada", "other@example.org"});
  EXPECT_THROW(store.save(other_author), EntryMetadataConflictError);
  EXPECT_EQ(coll("structure").count_documents(Document()), 1);
}

TEST_P(RecordStoreContract, ByValueDedupComparesFieldsNotChildren) {
  RecordStore store = open();
  Label a{"x", std::nullopt, {"p"}};
  int64_t sid = store.save(a);
  EXPECT_EQ(store.save(Label{"x", std::nullopt, {"p"}}), sid);
  // None is not a wildcard.
  EXPECT_NE(store.save(Label{"x", 3, {"p"}}), sid);
  // Same label with other child contents dedups to the same sid (httk's rule).
  EXPECT_EQ(store.save(Label{"x", std::nullopt, {"q", "r"}}), sid);
  EXPECT_EQ(coll("label").count_documents(Document()), 2);
  // Same-named shelves with different labels: one shelf, and the losing child stays behind as
  // an unreachable dep (degraded mode: fsck collects it).
  int64_t shelf = store.save(Shelf{"s", {Label{"y", 1, {}}}});
  EXPECT_EQ(store.save(Shelf{"s", {Label{"z", 2, {}}}}), shelf);
  EXPECT_EQ(coll("shelf").count_documents(Document()), 1);
  EXPECT_EQ(coll("label").count_documents(make_document("f.text", "z")), 1);
}

TEST_P(RecordStoreContract, DedupNoneAlwaysInsertsAndSidsAreNeverReused) {
  RecordStore store = open();
  int64_t a = store.save(Event{"boot"});
  int64_t b = store.save(Event{"boot"});
  EXPECT_EQ(b, a + 1);
  coll("event").delete_many(Document());
  EXPECT_EQ(store.save(Event{"boot"}), b + 1);
}

TEST_P(RecordStoreContract, ACycleIsRefused) {
  RecordStore store = open();
  auto a = std::make_shared<Node>();
  auto b = std::make_shared<Node>();
  a->name = "a";
  b->name = "b";
  a->next = b;
  b->next = a;  // a -> b -> a
  EXPECT_THROW(store.save(std::shared_ptr<const Node>(a)), StorageProjectionCycleError);
  b->next = nullptr;  // break the cycle before the shared_ptrs leak
  int64_t sid = store.save(std::shared_ptr<const Node>(a));
  EXPECT_EQ(store.fetch<Node>(sid)->next->name, "b");
}

TEST_P(RecordStoreContract, NonOptionalNoneIsASchemaError) {
  RecordStore store = open();
  Node n;  // nullable next: fine
  n.name = "n";
  EXPECT_NO_THROW(store.save(n));
  Structure s = make_structure("NaCl", 0);
  s.magmoms = {std::nan("")};
  EXPECT_THROW(store.save(s), Error);  // a NaN has no identity
  EXPECT_EQ(coll("structure").count_documents(Document()), 0);
}

TEST_P(RecordStoreContract, ARecordOverTheBsonLimitWritesNothingOfItself) {
  RecordStore store = open();
  Structure s = make_structure("Huge", 1);
  s.note = std::string(17 * 1024 * 1024, 'x');
  try {
    store.save(s);
    FAIL() << "expected RecordTooLargeError";
  } catch (const RecordTooLargeError& e) {
    EXPECT_EQ(e.collection(), "structure");
    EXPECT_GT(e.size(), e.limit());
    EXPECT_EQ(e.code(), 10334);
  }
  EXPECT_EQ(coll("structure").count_documents(Document()), 0);
}

TEST_P(RecordStoreContract, FetchSharesLiveObjectsAndReadsInSidOrder) {
  RecordStore store = open();
  int64_t a = store.save(make_structure("A", 1, "P"));
  int64_t b = store.save(make_structure("B", 1, "Q"));
  auto one = store.fetch<Structure>(a);
  EXPECT_EQ(store.fetch<Structure>(a).get(), one.get());  // the same live object
  EXPECT_EQ(store.sid_of(one), a);
  auto many = store.fetch_many<Structure>({b, a});
  ASSERT_EQ(many.size(), 2u);
  EXPECT_EQ(many[0]->formula, "A");
  EXPECT_EQ(many[1]->formula, "B");
  EXPECT_EQ(many[0].get(), one.get());
  try {
    store.fetch<Structure>(999);
    FAIL();
  } catch (const RecordNotFound& e) {
    EXPECT_EQ(e.sid(), 999);
    EXPECT_EQ(e.code(), 4);
  }
  // referring: the structures whose author is P.
  int64_t p = *store.sid_of(Author{"P", "ada@example.org"});
  auto refs = store.referring<Structure>("author", p);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0]->formula, "A");
  EXPECT_THROW(store.referring<Structure>("formula", p), SchemaError);
  EXPECT_FALSE(store.sid_of(make_structure("never saved")));
}

TEST_P(RecordStoreContract, AUniqueUserIndexHoldsUnderRacingWriters) {
  RecordStore store = open();
  store.save(Account{"root", "first"});
  EXPECT_THROW(store.save(Account{"root", "second"}), DuplicateKeyError);
  std::atomic<int> wins{0}, dups{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      try {
        RecordStore own = RecordStore::open(client_, options());
        own.save(Account{"race", "t" + std::to_string(t)});
        ++wins;
      } catch (const DuplicateKeyError&) {
        ++dups;
      } catch (const std::exception& e) {
        ADD_FAILURE() << "writer " << t << ": " << e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(dups.load(), 3);
}

TEST_P(RecordStoreContract, WritersRacingOnOneContentGetOneSidAndOneDocument) {
  std::vector<int64_t> sids(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      // Separate stores: the per-store write mutex does not serialise them.
      try {
        RecordStore own = RecordStore::open(client_, options());
        sids[t] = own.save(make_structure("Racer", 3, "Same"));
      } catch (const std::exception& e) {
        ADD_FAILURE() << "writer " << t << ": " << e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int64_t sid : sids) EXPECT_EQ(sid, sids[0]);
  EXPECT_EQ(coll("structure").count_documents(Document()), 1);
  EXPECT_EQ(coll("author").count_documents(Document()), 1);
}

std::vector<EntryFamily> materials_family() {
  return {EntryFamily{"Materials Entry",
                      "def:materials",
                      {EntryRecord{"crystal", schema_of<Crystal>(), "def:crystal"},
                       EntryRecord{"molecule", schema_of<Molecule>(), "def:molecule"}}}};
}

// --- validators -------------------------------------------------------------------------------

// The validators of reference §1.4 accept every document the store writes, and refuse a
// document of the wrong shape: run as $jsonSchema filters, and installed on the collections.
TEST_P(RecordStoreContract, EveryDocumentTheStoreWritesSatisfiesItsValidator) {
  RecordStore store = open(options(materials_family()));
  store.save(make_structure("V1", 3));
  Structure bare;
  bare.formula = "bare";
  bare.created = DateTime::from_fields(2020, 1, 1);
  store.save(bare);
  store.save_alternative(make_structure("V1", 3), 1, "conventional");
  store.save(Label{"x", std::nullopt, {"p"}});
  store.save(Event{"e"});
  store.save(Crystal{"NaCl"});
  store.save(Molecule{"H2O", 1});
  for (const auto& schema :
       {schema_of<Structure>(), schema_of<Site>(), schema_of<Author>(), schema_of<Label>(),
        schema_of<Event>(), schema_of<Crystal>(), schema_of<Molecule>()}) {
    int64_t all = coll(schema->storage_name()).count_documents(Document());
    EXPECT_GT(all, 0) << schema->storage_name();
    EXPECT_EQ(coll(schema->storage_name()).count_documents(record_validator(*schema, true)), all)
        << schema->storage_name() << " " << record_validator(*schema, true).to_json();
  }
  std::string dispatch = dispatch_collection_name("Materials Entry");
  EXPECT_EQ(coll(dispatch).count_documents(dispatch_validator({"crystal", "molecule"})), 2);
  EXPECT_EQ(coll(dispatch).count_documents(dispatch_validator({"crystal"})), 1);

  // A tampered document no longer satisfies it.
  auto validator = record_validator(*schema_of<Structure>(), true);
  client::UpdateOptions bypass;
  bypass.bypass_document_validation = true;
  coll("structure")
      .update_one(make_document("_id", int64_t{1}),
                  make_document("$unset", make_document("f.cell_exact", "")), bypass);
  EXPECT_EQ(coll("structure").count_documents(validator),
            coll("structure").count_documents(Document()) - 1);
  coll("structure")
      .update_one(make_document("_id", int64_t{2}),
                  make_document("$set", make_document("extra", 1)), bypass);
  EXPECT_EQ(coll("structure").count_documents(validator),
            coll("structure").count_documents(Document()) - 2);

  // Installed: the server refuses a malformed write to a record or dispatch collection.
  for (const char* name : {"structure", "site", "author", dispatch.c_str()}) {
    Document options = client_->database("records_test").collection_options(name);
    EXPECT_TRUE(options.get("validator").is_document()) << name << " " << options.to_json();
    EXPECT_EQ(options.get("validationLevel").as_string(), "strict") << name;
    EXPECT_EQ(options.get("validationAction").as_string(), "error") << name;
  }
  try {
    coll("structure")
        .update_one(make_document("_id", int64_t{3}),
                    make_document("$set", make_document("_httk_role", "other")));
    FAIL() << "expected DocumentValidationFailure";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 121) << e.what();
  }
  EXPECT_THROW(coll(dispatch).insert_one(make_document("_id", "x", "record", "nope", "sid", 1)),
               Error);
  // Reopening re-applies the same validators (collMod on the existing collections).
  RecordStore again = open(options(materials_family()));
  EXPECT_NO_THROW(again.save(make_structure("V2", 1)));
}

// --- lineages ---------------------------------------------------------------------------------

TEST_P(RecordStoreContract, ReplaceAppendsToTheLineageAndHistoryListsItOldestFirst) {
  RecordStore store = open();
  Structure v1 = make_structure("Fe2O3", 2, "Lin");
  int64_t s1 = store.save(v1);
  Document d1 = raw("structure", s1);
  EXPECT_EQ(d1.get("logical_id").as_int64(), s1);  // a fresh record starts its own lineage
  int64_t author = d1.get("f").as_document().get("author_sid").as_int64();
  EXPECT_EQ(raw("author", author).get("logical_id").as_int64(), author);

  Structure v2 = v1;
  v2.energy = -13.0;  // a correction
  int64_t s2 = store.replace(v1, v2);
  EXPECT_GT(s2, s1);
  EXPECT_EQ(raw("structure", s2).get("logical_id").as_int64(), s1);
  // Nested records keep their own lineage (the author is reused, unchanged).
  EXPECT_EQ(raw("structure", s2).get("f").as_document().get("author_sid").as_int64(), author);
  EXPECT_EQ(store.replace(v1, v2), s2);  // idempotent
  Structure v3 = v2;
  v3.energy = -14.0;
  int64_t s3 = store.replace(v2, v3);
  auto history = store.history(v1);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[0]->energy, -12.5);
  EXPECT_EQ(history[1]->energy, -13.0);
  EXPECT_EQ(history[2]->energy, -14.0);
  EXPECT_EQ(store.history(v3).size(), 3u);
  EXPECT_EQ(coll("structure").count_documents(Document()), 3);  // nothing updated or deleted
  EXPECT_EQ(raw("structure", s1).get("logical_id").as_int64(), s1);
  (void)s3;

  // A dedup hit in another lineage is refused, naming both lineages.
  Structure other = make_structure("Other", 1, "Lin");
  int64_t so = store.save(other);
  try {
    store.replace(v1, other);
    FAIL() << "expected EntryReplacementError";
  } catch (const EntryReplacementError& e) {
    EXPECT_EQ(e.table_name(), "structure");
    EXPECT_EQ(e.predecessor_logical_id(), std::to_string(s1));
    EXPECT_EQ(e.conflicting_logical_id(), std::to_string(so));
  }
  // An unknown predecessor is refused.
  EXPECT_THROW(store.replace(make_structure("never saved"), v3), Error);
  EXPECT_THROW(store.history(make_structure("never saved")), Error);
}

TEST_P(RecordStoreContract, ReplaceWithDedupNoneAlwaysInserts) {
  RecordStore store = open();
  auto first = std::make_shared<const Event>(Event{"v1"});
  int64_t a = store.save(first);
  int64_t b = store.replace(first, Event{"v1"});
  int64_t c = store.replace(first, Event{"v1"});
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_EQ(raw("event", c).get("logical_id").as_int64(), a);
  EXPECT_EQ(store.history(first).size(), 3u);
  // A by_value or none record is known by object only: a copy was never saved or fetched.
  EXPECT_THROW(store.replace(Event{"v1"}, Event{"v2"}), Error);
}

// --- alternatives -----------------------------------------------------------------------------

TEST_P(RecordStoreContract, AlternativesJoinTheirMainsGroupAndNeverDedupOntoIt) {
  RecordStore store = open();
  Structure main = make_structure("ZnO", 2, "Alt");
  int64_t m = store.save(main);
  Document md = raw("structure", m);
  EXPECT_EQ(md.get("alt_id").as_int64(), md.get("logical_id").as_int64());  // its own group
  EXPECT_FALSE(md.has("alt_kind"));

  // The same content as an alternative is a document of its own.
  int64_t a1 = store.save_alternative(main, m, "conventional");
  EXPECT_NE(a1, m);
  Document ad = raw("structure", a1);
  EXPECT_EQ(ad.get("alt_id").as_int64(), m);
  EXPECT_EQ(ad.get("alt_kind").as_string(), "conventional");
  EXPECT_NE(ad.get("content_id").as_string(), md.get("content_id").as_string());
  EXPECT_EQ(store.save_alternative(main, m, "conventional"), a1);  // idempotent

  // One lineage per (main, kind): a later alternative of that kind succeeds the first.
  Structure changed = main;
  changed.energy = -1.0;
  int64_t a2 = store.save_alternative(changed, m, "conventional");
  EXPECT_EQ(raw("structure", a2).get("logical_id").as_int64(), a1);
  EXPECT_EQ(store.fetch_alternative<Structure>(m, "conventional")->energy, -1.0);
  int64_t p1 = store.save_alternative(main, m, "primitive");
  EXPECT_EQ(raw("structure", p1).get("logical_id").as_int64(), p1);
  EXPECT_FALSE(store.fetch_alternative<Structure>(m, "nope"));
  // Saving the main's content plainly still dedups onto the main, not an alternative.
  EXPECT_EQ(store.save(main), m);

  EXPECT_THROW(store.save_alternative(main, m, "a~b"), Error);
  EXPECT_THROW(store.save_alternative(main, m, ""), Error);
  EXPECT_THROW(store.save_alternative(main, 999, "x"), Error);
  EXPECT_THROW(store.save_alternative(main, a1, "x"), Error);  // an alternative is no main

  // A store written before the axis (no alt_id) is refused with a rebuild error.
  coll("structure")
      .update_one(make_document("_id", m), make_document("$unset", make_document("alt_id", "")));
  EXPECT_THROW(store.save_alternative(main, m, "other"), StorageLayoutUpgradeRequiredError);
}

// --- entry families ---------------------------------------------------------------------------

TEST_P(RecordStoreContract, FamiliesDispatchContentIdsToTheirBacking) {
  RecordStore store = open(options(materials_family()));
  std::string dispatch =
      "_httk_entry_dispatch_materials_entry_" + sha256_hex("Materials Entry").substr(0, 8);
  Crystal c{"NaCl"};
  Molecule m{"H2O", 0};
  int64_t cs = store.save(c);
  int64_t ms = store.save(m);
  auto entry = store.fetch_entry("Materials Entry", store.content_id(m));
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->record_name, "molecule");
  EXPECT_EQ(entry->sid, ms);
  EXPECT_EQ(entry->record->get("formula").as<std::string>(), "H2O");
  auto d = coll(dispatch).find_one(make_document("_id", store.content_id(c)));
  ASSERT_TRUE(d) << dispatch;
  EXPECT_EQ(d->to_json(),
            make_document("_id", store.content_id(c), "record", "crystal", "sid", cs).to_json());
  EXPECT_FALSE(store.fetch_entry("Materials Entry", std::string(64, 'a')));
  EXPECT_THROW(store.fetch_entry("nope", store.content_id(c)), Error);

  // A lost dispatch document: fetch_entry raises, a re-save restores it.
  coll(dispatch).delete_one(make_document("_id", store.content_id(c)));
  EXPECT_THROW(store.fetch_entry("Materials Entry", store.content_id(c)),
               EntryDispatchIntegrityError);
  EXPECT_EQ(store.save(c), cs);
  EXPECT_EQ(store.fetch_entry("Materials Entry", store.content_id(c))->sid, cs);
  // A dispatch naming another record is an integrity error, on read and on save.
  coll(dispatch).update_one(
      make_document("_id", store.content_id(c)),
      make_document("$set", make_document("record", "molecule", "sid", int64_t{999})));
  EXPECT_THROW(store.fetch_entry("Materials Entry", store.content_id(c)),
               EntryDispatchIntegrityError);
  EXPECT_THROW(store.save(c), EntryDispatchIntegrityError);
}

TEST_P(RecordStoreContract, FamiliesMustBeSuppliedAgainOnReopen) {
  open(options(materials_family()));
  RecordStoreOptions bare = options();
  bare.families.reset();
  EXPECT_THROW(open(bare), EntryLayoutBindingError);
  EXPECT_NO_THROW(open(options(materials_family())));
  // Other families (here: none) are a declaration difference.
  EXPECT_THROW(open(options()), StorageLayoutUpgradeRequiredError);
  // A backing that does not dedup by content id is refused at declaration.
  std::vector<EntryFamily> bad = {
      EntryFamily{"Events", "def:e", {EntryRecord{"event", schema_of<Event>(), "def:ev"}}}};
  EXPECT_THROW(RecordStore::open(client_,
                                 [&] {
                                   auto o = options(bad);
                                   o.database = "records_test_other";
                                   return o;
                                 }()),
               SchemaError);
}

// --- layout and schema ------------------------------------------------------------------------

TEST_P(RecordStoreContract, TheFirstOpenWritesTheSevenKeyLayout) {
  RecordStoreOptions bare = options();
  bare.families.reset();
  EXPECT_THROW(open(bare), Error);  // an empty database needs a declaration
  open();
  auto layout = coll("_httk_store_metadata").find_one(make_document("_id", "layout"));
  ASSERT_TRUE(layout);
  std::vector<std::string> keys;
  for (const auto& e : *layout) keys.emplace_back(e.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"_id", "protocol", "entry_declaration", "entry_schemas",
                                            "document_layout", "generation", "store_timestamps"}));
  EXPECT_EQ(layout->get("protocol").as_string(), "2");
  EXPECT_EQ(layout->get("entry_declaration").as_string(), R"({"families":[],"format":2})");
  EXPECT_EQ(layout->get("entry_schemas").as_string(), R"({"tables":{}})");
  EXPECT_EQ(layout->get("document_layout").as_string(), "mongo-v2");
  EXPECT_EQ(layout->get("store_timestamps").as_string(), "v1:1000");
  EXPECT_NO_THROW(open(bare));  // a bare reopen trusts it

  RecordStoreOptions off = options();
  off.store_timestamps = false;
  EXPECT_THROW(open(off), StorageLayoutUpgradeRequiredError);
}

TEST_P(RecordStoreContract, ADatabaseWithOtherCollectionsAndNoLayoutIsRefused) {
  coll("somebody_elses").insert_one(make_document("_id", 1));
  try {
    open();
    FAIL();
  } catch (const StorageLayoutUpgradeRequiredError& e) {
    EXPECT_NE(e.diff().find("somebody_elses"), std::string::npos) << e.diff();
    EXPECT_NE(e.diff().find("unversioned"), std::string::npos) << e.diff();
  }
}

// Two runtime declarations of one collection, as two versions of a program would have.
std::shared_ptr<const RecordSchema> gadget_schema(int version) {
  std::vector<FieldSchema> fields;
  fields.push_back(FieldSchema{"name", FieldType{FieldKind::kString}});
  if (version == 2) {  // additive: nullable IdentitySkip
    FieldSchema note{"comment", FieldType{FieldKind::kString}};
    note.optional = true;
    note.identity = Identity::kIdentitySkip;
    fields.push_back(note);
  }
  if (version == 3) {  // not additive: a new identity field
    fields.push_back(FieldSchema{"size", FieldType{FieldKind::kInt}});
  }
  return std::make_shared<const RecordSchema>("mongostore.tests.Gadget", "gadget",
                                              Dedup::kContentId, std::move(fields),
                                              std::vector<std::vector<std::string>>{});
}

TEST_P(RecordStoreContract, ASchemaChangeNeedsAnUpgradeAndOnlyAnAdditiveOneGetsIt) {
  auto v1 = gadget_schema(1);
  int64_t sid;
  {
    RecordStore store = open();
    sid = store.save(std::make_shared<const DynamicRecord>(v1, std::vector<Value>{Value("g")}));
  }
  auto v2 = gadget_schema(2);
  auto rec2 = std::make_shared<const DynamicRecord>(v2, std::vector<Value>{Value("h"), Value()});
  {
    RecordStore store = open();
    try {
      store.save(rec2);
      FAIL();
    } catch (const StorageLayoutUpgradeRequiredError& e) {
      EXPECT_NE(e.diff().find("gadget"), std::string::npos) << e.diff();
      EXPECT_NE(e.hint().find("upgrade"), std::string::npos) << e.hint();
    }
  }
  {
    RecordStoreOptions o = options();
    o.upgrade = true;
    RecordStore store = open(o);
    store.save(rec2);
    auto old = store.fetch(v2, sid);  // old documents read the new field as None
    EXPECT_EQ(old->get("name").as<std::string>(), "g");
    EXPECT_TRUE(old->get("comment").is_null());
  }
  {
    RecordStoreOptions o = options();
    o.upgrade = true;
    RecordStore store = open(o);
    auto v3 = gadget_schema(3);
    EXPECT_THROW(store.save(std::make_shared<const DynamicRecord>(
                     v3, std::vector<Value>{Value("i"), Value(int64_t{1})})),
                 StorageLayoutUpgradeRequiredError);
  }
}

// --- transaction modes ------------------------------------------------------------------------

// The mode a store picks (reference §11): `auto` takes transactions where the client has them
// (the embedded engine always; serve is standalone today), `require` refuses a backend without
// them, `never` degrades; only degraded mode is announced.
TEST_P(RecordStoreContract, ModeSelectionFollowsTheBackend) {
  // Every backend here has transactions: embedded, and serve as a one-member replica set
  // (the standalone case is RecordStoreStandalone below).
  const bool available = true;
  RecordStoreOptions automatic = options();
  automatic.transactions = TransactionMode::kAuto;
  warnings_.clear();
  EXPECT_EQ(open(automatic).transactions_enabled(), available);
  EXPECT_EQ(warnings_.size(), available ? 0u : 1u);
  RecordStoreOptions require = options();
  require.transactions = TransactionMode::kRequire;
  if (available) {
    EXPECT_TRUE(open(require).transactions_enabled());
  } else {
    EXPECT_THROW(open(require), TransactionsUnavailableError);
  }
  warnings_.clear();
  RecordStoreOptions never = options();
  never.transactions = TransactionMode::kNever;
  RecordStore degraded = open(never);
  EXPECT_FALSE(degraded.transactions_enabled());
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("degraded mode"), std::string::npos) << warnings_[0];
  bool ran = false;
  EXPECT_THROW(degraded.transaction([&](RecordStore&) { ran = true; }),
               TransactionsUnavailableError);
  EXPECT_FALSE(ran);
}

INSTANTIATE_TEST_SUITE_P(Backends, RecordStoreContract, store_params(), store_param_name);

// A standalone server (`serve --standalone`) has no transactions: auto degrades, saying so,
// and require is refused.
TEST(RecordStoreStandalone, AutoDegradesAndRequireIsRefused) {
  mongostore::testing::ServerProcess server({"--memory", "--standalone"});
  auto client = client::connect(server.uri());
  std::vector<std::string> warnings;
  RecordStoreOptions o;
  o.database = "records_standalone";
  o.families = std::vector<EntryFamily>{};
  o.warn = [&](std::string_view w) { warnings.emplace_back(w); };
  o.transactions = TransactionMode::kAuto;
  EXPECT_FALSE(RecordStore::open(client, o).transactions_enabled());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("not a replica set"), std::string::npos) << warnings[0];
  o.transactions = TransactionMode::kRequire;
  EXPECT_THROW(RecordStore::open(client, o), TransactionsUnavailableError);
}

// --- two processes on one server -------------------------------------------------------------

// Writers in separate processes, each with its own connection and store, save the same graph
// through one `mongostore serve`: the unique content id index gives them one sid and one
// document per record.
TEST(RecordStoreProcesses, TwoProcessesSavingOneContentGetOneSid) {
  mongostore::testing::ServerProcess server;
  const std::string uri = server.uri();
  {
    RecordStoreOptions o;
    o.database = "records_procs";
    o.families = std::vector<EntryFamily>{};
    o.warn = [](std::string_view) {};
    RecordStore::open(client::connect(uri), o);  // the layout, written once
  }
  constexpr int kProcesses = 2, kRounds = 20;
  int fds[kProcesses][2];
  pid_t pids[kProcesses];
  for (int p = 0; p < kProcesses; ++p) {
    ASSERT_EQ(::pipe(fds[p]), 0);
    pids[p] = ::fork();
    ASSERT_GE(pids[p], 0);
    if (pids[p] == 0) {
      ::close(fds[p][0]);
      try {
        RecordStoreOptions o;
        o.database = "records_procs";
        o.warn = [](std::string_view) {};
        RecordStore store = RecordStore::open(client::connect(uri), o);
        std::string out;
        for (int r = 0; r < kRounds; ++r) {
          out +=
              std::to_string(store.save(make_structure("P" + std::to_string(r), 3, "Both"))) + "\n";
        }
        (void)!::write(fds[p][1], out.data(), out.size());
        _exit(0);
      } catch (...) {
        _exit(1);
      }
    }
    ::close(fds[p][1]);
  }
  std::vector<std::vector<int64_t>> sids(kProcesses);
  for (int p = 0; p < kProcesses; ++p) {
    std::string text;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[p][0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
    ::close(fds[p][0]);
    int status = 0;
    ::waitpid(pids[p], &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer process " << p;
    std::istringstream lines(text);
    for (int64_t sid; lines >> sid;) sids[p].push_back(sid);
  }
  ASSERT_EQ(sids[0].size(), static_cast<size_t>(kRounds));
  EXPECT_EQ(sids[0], sids[1]);
  auto db = client::connect(uri)->database("records_procs");
  EXPECT_EQ(db.collection("structure").count_documents(Document()), kRounds);
  EXPECT_EQ(db.collection("author").count_documents(Document()), 1);
}

// --- declarations (no backend) ----------------------------------------------------------------

struct Bad {
  std::string sid;
  std::string a;
};

TEST(RecordDeclaration, ReservedAndRepeatedNamesFailNamingTheField) {
  auto make = [](std::string name) {
    std::vector<FieldSchema> fields{FieldSchema{name, FieldType{FieldKind::kString}}};
    return RecordSchema("x.Bad", "bad", Dedup::kContentId, fields, {});
  };
  for (const char* reserved :
       {"sid", "content_id", "_httk_role", "store_timestamp", "logical_id"}) {
    try {
      make(reserved);
      FAIL() << reserved;
    } catch (const SchemaError& e) {
      EXPECT_NE(std::string(e.what()).find(reserved), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(make("a.b"), SchemaError);
  EXPECT_THROW(RecordSchema("x.Bad", "_httk_bad", Dedup::kContentId, {}, {}), SchemaError);
  EXPECT_THROW(RecordSchema("x.Bad", "bad", Dedup::kContentId,
                            {FieldSchema{"a", FieldType{FieldKind::kInt}},
                             FieldSchema{"a", FieldType{FieldKind::kInt}}},
                            {}),
               SchemaError);
  EXPECT_THROW(RecordSchema("x.Bad", "bad", Dedup::kContentId,
                            {FieldSchema{"a", FieldType{FieldKind::kInt}}}, {{"b"}}),
               SchemaError);
  EXPECT_EQ(default_storage_name("CrystalStructure"), "crystal_structure");
  EXPECT_EQ(default_storage_name("HTTPServer"), "http_server");
}

struct Modified {
  int64_t n = 0;
  std::vector<int64_t> list;
};

TEST(RecordDeclaration, ModifiersSetTheFieldSchemaAndAsTupleIsForListsOnly) {
  FieldDecl<Modified> plain = field("n", &Modified::n);
  EXPECT_FALSE(plain.schema.indexed);
  EXPECT_FALSE(plain.schema.unique);
  EXPECT_FALSE(plain.schema.optional);
  EXPECT_EQ(plain.schema.identity, Identity::kIncluded);
  FieldDecl<Modified> marked = field("n", &Modified::n, indexed, unique, identity_skip);
  EXPECT_TRUE(marked.schema.indexed);
  EXPECT_TRUE(marked.schema.unique);
  EXPECT_EQ(marked.schema.identity, Identity::kIdentitySkip);
  FieldDecl<Modified> skipped = field("n", &Modified::n, skip, nullable);
  EXPECT_EQ(skipped.schema.identity, Identity::kSkip);
  EXPECT_TRUE(skipped.schema.optional);
  EXPECT_FALSE(field("list", &Modified::list).schema.type.tuple);
  EXPECT_TRUE(field("list", &Modified::list, as_tuple).schema.type.tuple);
  try {
    field("n", &Modified::n, as_tuple);
    FAIL() << "as_tuple on an int field";
  } catch (const SchemaError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'n': as_tuple applies to lists only"),
              std::string::npos)
        << e.what();
  }
}

TEST(RecordDeclaration, ContentIdsFollowHttksCanonicalForm) {
  // A record with one int field, hashed through the schema path, has the content id httk
  // computes for it (case "int_zero" of the shared vectors).
  std::vector<FieldSchema> fields{FieldSchema{"value", FieldType{FieldKind::kInt}}};
  auto schema =
      std::make_shared<const RecordSchema>("httk.vectors.Int1", "int1", Dedup::kContentId, fields,
                                           std::vector<std::vector<std::string>>{});
  DynamicRecord r(schema, {Value(int64_t{0})});
  EXPECT_EQ(RecordIdentity().content_id(r),
            "c291b598f7f09c6f838bdad8f7524838c4f60d2b21ffe2946ca9e176c3044544");
  // Skip and IdentitySkip fields are left out; a None optional is a null node.
  std::vector<FieldSchema> more = fields;
  FieldSchema meta{"meta", FieldType{FieldKind::kString}};
  meta.identity = Identity::kIdentitySkip;
  more.push_back(meta);
  auto schema2 =
      std::make_shared<const RecordSchema>("httk.vectors.Int1", "int1b", Dedup::kContentId, more,
                                           std::vector<std::vector<std::string>>{});
  EXPECT_EQ(RecordIdentity().content_id(DynamicRecord(schema2, {Value(int64_t{0}), Value("x")})),
            RecordIdentity().content_id(r));
}

}  // namespace
}  // namespace mongostore::records::testing
