// The RecordStore in transaction mode (reference §3 and §11): a top-level save is atomic, an
// explicit scope commits all its saves together with one timestamp and one writer lease, scopes
// nest flat, and an abort leaves nothing behind, not even in the identity caches. Run on the
// embedded backends (the ones with transactions today).
#include <gtest/gtest.h>

#include <stdexcept>

#include "mongostore/bson/builder.h"
#include "mongostore/records/record_store.h"
#include "records/record_types.h"
#include "records/store_fixture.h"
#include "records/store_layout.h"

namespace mongostore::records::testing {
namespace {

using bson::Document;
using bson::make_document;

class RecordTransactions : public StoreFixture {
 protected:
  RecordTransactions() : StoreFixture("records_txn_test") {}

  int64_t count(const std::string& collection) {
    return coll(collection).count_documents(Document());
  }
  int64_t writer_leases() {
    return coll(kMetadataCollection).count_documents(make_document("kind", "writer"));
  }
  // Makes the site collection refuse sites of element "Xx": a failure injected mid-save, after
  // the author and the earlier sites of a structure were written.
  void refuse_element_xx() {
    client::CollectionOptions refuse;
    refuse.validator = make_document("f.element", make_document("$ne", "Xx"));
    refuse.validation_level = "strict";
    refuse.validation_action = "error";
    client_->database(database_).modify_collection("site", refuse);
  }
  static Structure with_refused_site(const std::string& formula) {
    Structure s = make_structure(formula, 3, "Fresh author " + formula);
    Site bad = s.sites.back();
    bad.element = "Xx";
    s.sites.push_back(bad);
    return s;
  }
};

TEST_P(RecordTransactions, AFailingSaveLeavesNoPartialGraph) {
  RecordStore store = open();
  ASSERT_TRUE(store.transactions_enabled());
  store.save(make_structure("Seed", 1));  // sets the collections up
  refuse_element_xx();
  const int64_t structures = count("structure"), sites = count("site"), authors = count("author");
  Structure s = with_refused_site("Partial");
  try {
    store.save(s);
    FAIL() << "expected the validator to refuse the site";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), 121) << e.what();  // DocumentValidationFailure: not retried
  }
  EXPECT_EQ(count("structure"), structures);
  EXPECT_EQ(count("site"), sites);
  EXPECT_EQ(count("author"), authors);
  EXPECT_EQ(writer_leases(), 0);
  EXPECT_FALSE(store.sid_of(s));

  // The same failure in degraded mode leaves the earlier part of the graph behind: the
  // injection really fails mid-save.
  RecordStoreOptions never = options();
  never.transactions = TransactionMode::kNever;
  RecordStore degraded = open(never);
  degraded.save(make_structure("Seed", 1));  // its setup restores the validator: refuse again
  refuse_element_xx();
  EXPECT_THROW(degraded.save(with_refused_site("Residue")), Error);
  EXPECT_GT(count("site") + count("author"), sites + authors);
}

TEST_P(RecordTransactions, AScopeCommitsTogetherWithOneTimestampAndOneLease) {
  RecordStore store = open();
  store.save(make_structure("Seed", 1));
  int64_t a = 0, b = 0;
  store.transaction([&](RecordStore& s) {
    a = s.save(make_structure("A", 2, "P"));
    b = s.save(make_structure("B", 2, "Q"));
    // Invisible to others until the commit; the scope reads its own writes.
    EXPECT_FALSE(coll("structure").find_one(make_document("_id", a)));
    EXPECT_EQ(s.fetch<Structure>(b)->formula, "B");
    EXPECT_EQ(writer_leases(), 1);  // one lease for the whole scope
  });
  EXPECT_EQ(writer_leases(), 0);
  auto da = coll("structure").find_one(make_document("_id", a));
  auto db = coll("structure").find_one(make_document("_id", b));
  ASSERT_TRUE(da && db);
  EXPECT_EQ(da->get("store_timestamp").as_int64(), db->get("store_timestamp").as_int64());
  auto author = coll("author").find_one(make_document("f.name", "Q"));
  ASSERT_TRUE(author);
  EXPECT_EQ(author->get("store_timestamp").as_int64(), da->get("store_timestamp").as_int64());
  EXPECT_EQ(store.sid_of(make_structure("A", 2, "P")), a);
}

TEST_P(RecordTransactions, ScopesNestFlatAndAnAbortRollsEverythingBack) {
  RecordStore store = open();
  store.save(make_structure("Seed", 1));
  const int64_t structures = count("structure"), authors = count("author");
  auto outer = std::make_shared<const Structure>(make_structure("Outer", 2, "Outer author"));
  auto inner = std::make_shared<const Structure>(make_structure("Inner", 2, "Inner author"));
  EXPECT_THROW(store.transaction([&](RecordStore& s) {
    s.save(outer);
    s.transaction([&](RecordStore& t) {
      t.save(inner);
      EXPECT_TRUE(t.sid_of(inner));
    });
    // The inner scope committed nothing on its own: it is part of this one.
    EXPECT_EQ(count("structure"), structures);
    throw std::runtime_error("the caller changes its mind");
  }),
               std::runtime_error);
  EXPECT_EQ(count("structure"), structures);
  EXPECT_EQ(count("author"), authors);
  EXPECT_EQ(writer_leases(), 0);
  EXPECT_FALSE(store.sid_of(outer));  // the identity caches forgot the rolled-back sids
  EXPECT_FALSE(store.sid_of(inner));

  // An error inside the inner scope aborts the outer one too.
  refuse_element_xx();
  EXPECT_THROW(store.transaction([&](RecordStore& s) {
    s.save(outer);
    s.transaction([&](RecordStore& t) { t.save(with_refused_site("Bad")); });
  }),
               Error);
  EXPECT_EQ(count("structure"), structures);
  EXPECT_FALSE(store.sid_of(outer));

  // And the store goes on: the next scope commits.
  store.transaction([&](RecordStore& s) { s.save(outer); });
  EXPECT_EQ(count("structure"), structures + 1);
  EXPECT_TRUE(store.sid_of(outer));
}

TEST_P(RecordTransactions, ATypeFirstSavedInsideAScopeIsSetUpOutsideIt) {
  RecordStore store = open();
  store.transaction([&](RecordStore& s) {
    s.save(Account{"root", "first"});
    s.save(make_structure("First", 2));
  });
  EXPECT_EQ(count("account"), 1);
  EXPECT_EQ(count("structure"), 1);
  // The unique index on login was made (outside the transaction) and holds.
  EXPECT_THROW(store.save(Account{"root", "second"}), DuplicateKeyError);
  EXPECT_EQ(count("account"), 1);
}

// A scope's snapshot misses a record another store committed after it began: its insert of the
// same content loses to the committed one, and the scope fails with a TransientTransactionError
// (scopes are not retried); the caller's retry dedups onto the winner. A top-level save
// retries the same way by itself.
TEST_P(RecordTransactions, AConflictWithACommittedWriterIsTransientAndARetryDedups) {
  RecordStore mine = open();
  RecordStore other = open();
  mine.save(make_structure("Seed", 1));
  int64_t winner = 0;
  try {
    mine.transaction([&](RecordStore& s) {
      EXPECT_EQ(s.fetch<Structure>(1)->formula, "Seed");  // the scope's snapshot is taken
      winner = other.save(make_structure("Contended", 2, "Someone"));
      s.save(make_structure("Contended", 2, "Someone"));
    });
    FAIL() << "expected the scope to lose to the committed save";
  } catch (const Error& e) {
    EXPECT_TRUE(e.has_label("TransientTransactionError")) << e.code() << " " << e.what();
  }
  EXPECT_EQ(count("structure"), 2);
  EXPECT_EQ(mine.save(make_structure("Contended", 2, "Someone")), winner);
  EXPECT_EQ(count("structure"), 2);
}

INSTANTIATE_TEST_SUITE_P(Backends, RecordTransactions, transaction_params(), store_param_name);

}  // namespace
}  // namespace mongostore::records::testing
