// Leases across OS processes (issue 23): this test process and a child process
// (records_lease_child, tests/records/lease_child/) each open a RecordStore on one database of
// one `mongostore serve`, and
// - fsck waits for the child's live writer lease (a long transaction that keeps saving, so
//   its heartbeat keeps moving past the stale threshold), then completes;
// - the child's save is refused with StoreLockedError while this process's fsck holds the
//   fsck lease, and succeeds after it;
// - a SIGKILLed child's writer lease makes fsck without force wait while it is fresh and
//   refuse once it is stale; fsck(force) then removes it;
// - the child's fsck, stalled holding the fsck lease, is displaced by this process's
//   fsck(force) once its lease is stale, and gets LeaseLostError.
// The processes synchronise through the child's stdin and stdout (lease_child_process.h);
// every wait is bounded and generous and fails loudly; nothing asserts on elapsed time.
// The stale threshold is the store's lease_stale_after, shortened here so a dead lease goes
// stale in 4 s rather than 8.
//
// Server only: two processes cannot open one embedded durable data directory (WiredTiger
// locks it for the process that opened it), so the embedded backends have no second process.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/records/errors.h"
#include "mongostore/records/record_store.h"
#include "records/lease_child_process.h"
#include "records/record_types.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace mongostore::records::testing {
namespace {

using bson::Document;
using bson::make_document;

constexpr const char* kDatabase = "lease_procs";
// A writer renews its lease every stale/4 (1 s here), so only a child stalled for about 3 s
// (a loaded machine, a sanitizer build) would look dead; 1.5 s left too little room for that.
constexpr auto kStale = std::chrono::milliseconds(4000);
constexpr auto kGiveUp = std::chrono::seconds(60);

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Polls `done` every 10 ms for at most kGiveUp; whether it became true.
bool wait_until(const std::function<bool()>& done) {
  auto deadline = std::chrono::steady_clock::now() + kGiveUp;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

class LeaseProcesses : public ::testing::Test {
 protected:
  void SetUp() override { client_ = client::connect(server_.uri()); }

  RecordStore open(bool transactions) {
    RecordStoreOptions o;
    o.database = kDatabase;
    o.transactions = transactions ? TransactionMode::kRequire : TransactionMode::kNever;
    o.lease_stale_after = kStale;
    o.families = std::vector<EntryFamily>{};
    o.warn = [](std::string_view) {};
    return RecordStore::open(client_, o);
  }
  std::unique_ptr<LeaseChild> child(bool transactions) {
    return std::make_unique<LeaseChild>(server_.uri(), kDatabase, kStale, transactions);
  }
  static FsckOptions fsck_options(bool force = false) {
    FsckOptions o;
    o.force = force;
    o.known_types = {schema_of<Author>()};  // the child's type: this process saves it too
    return o;
  }

  client::Collection metadata() const {
    return client_->database(kDatabase).collection("_httk_store_metadata");
  }
  std::optional<Document> fsck_lease() const {
    return metadata().find_one(make_document("_id", "lease/fsck"));
  }
  std::vector<Document> writer_leases() const {
    return metadata().find(make_document("kind", "writer"))->to_vector();
  }
  int64_t generation() const {
    return metadata().find_one(make_document("_id", "layout"))->get("generation").as_int64();
  }
  std::set<std::string> authors() const {
    std::set<std::string> out;
    for (const auto& d :
         client_->database(kDatabase).collection("author").find(Document())->to_vector()) {
      out.insert(std::string(d.get("f").as_document().get("name").as_string()));
    }
    return out;
  }

  // The child saves while this process's fsck holds the fsck lease (its progress callback
  // runs between batches, the lease held): refused; once fsck is done, the same save works.
  void writer_refused_during_fsck(bool transactions) {
    RecordStore store = open(transactions);
    store.save(Author{"root", std::nullopt});
    auto writer = child(transactions);
    ASSERT_EQ(writer->reply(), "ready");
    std::string during;
    FsckOptions o = fsck_options();
    o.progress = [&](const FsckProgress&) {
      if (!during.empty()) return;
      writer->send("save during-fsck");
      during = writer->reply();
    };
    FsckSummary s = store.fsck(o);
    EXPECT_TRUE(s.violations().empty()) << s.violations().front();
    EXPECT_TRUE(starts_with(during, "err StoreLockedError 46 LockBusy ")) << during;
    EXPECT_NE(during.find("locked by fsck"), std::string::npos) << during;
    EXPECT_TRUE(writer_leases().empty());  // the refused save withdrew its lease
    writer->send("save after-fsck");
    std::string after = writer->reply();
    EXPECT_TRUE(starts_with(after, "ok ")) << after;
    std::set<std::string> names = authors();
    EXPECT_FALSE(names.count("during-fsck"));
    EXPECT_TRUE(names.count("after-fsck"));
  }

  mongostore::testing::ServerProcess server_;
  std::shared_ptr<client::Client> client_;
};

// An fsck running on a thread of this process; joined (after killing `writer`, whose lease
// it may be waiting for) when the test leaves early.
class FsckThread {
 public:
  FsckThread(RecordStore& store, FsckOptions options, LeaseChild& writer) : writer_(writer) {
    thread_ = std::thread([this, &store, options] {
      try {
        summary_ = store.fsck(options);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
      done_ = true;
    });
  }
  ~FsckThread() {
    if (!thread_.joinable()) return;
    if (!done_) writer_.kill();  // a live lease would keep it waiting; a dead one goes stale
    thread_.join();
  }
  bool done() const { return done_; }
  // Waits for the end; the summary, or a test failure with fsck's error.
  std::optional<FsckSummary> join() {
    thread_.join();
    if (!summary_) ADD_FAILURE() << "fsck failed: " << error_;
    return summary_;
  }

 private:
  LeaseChild& writer_;
  std::thread thread_;
  std::atomic<bool> done_{false};
  std::optional<FsckSummary> summary_;
  std::string error_;
};

TEST_F(LeaseProcesses, FsckWaitsForAnotherProcesssLiveTransactionThenCompletes) {
  RecordStore store = open(true);
  store.save(Author{"root", std::nullopt});
  auto writer = child(true);
  ASSERT_EQ(writer->reply(), "ready");
  writer->send("hold");  // a transaction that keeps saving (and renewing its lease)
  ASSERT_EQ(writer->reply(), "holding");
  ASSERT_EQ(writer_leases().size(), 1u);
  const Document lease = writer_leases().front();
  const int64_t g0 = generation();

  FsckThread fsck(store, fsck_options(), *writer);
  ASSERT_TRUE(wait_until([&] { return fsck_lease().has_value() || fsck.done(); }));
  // The child's heartbeat moves on past the stale threshold: a lease that had not been
  // renewed since fsck started would count as dead by now.
  const int64_t h0 = lease.get("heartbeat").as_datetime().millis;
  ASSERT_TRUE(wait_until([&] {
    auto now = metadata().find_one(make_document("_id", lease.get("_id")));
    return fsck.done() ||
           (now && now->get("heartbeat").as_datetime().millis > h0 + 2 * kStale.count());
  })) << "the child's writer lease was not renewed";
  // fsck took its lease and waits: it has not bumped the generation, let alone finished.
  EXPECT_FALSE(fsck.done());
  EXPECT_EQ(generation(), g0);
  EXPECT_TRUE(fsck_lease().has_value());

  writer->send("release");  // the transaction commits and the lease is released
  std::string committed = writer->reply();
  ASSERT_TRUE(starts_with(committed, "ok ")) << committed;
  std::optional<FsckSummary> s = fsck.join();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->generation(), g0 + 1);
  EXPECT_TRUE(s->violations().empty()) << s->violations().front();
  EXPECT_FALSE(fsck_lease().has_value());
  EXPECT_TRUE(writer_leases().empty());
  // Everything the transaction saved was committed and kept.
  const int saves = std::stoi(committed.substr(3));
  std::set<std::string> names = authors();
  for (int i = 0; i < saves; ++i) EXPECT_TRUE(names.count("held-" + std::to_string(i))) << i;
}

TEST_F(LeaseProcesses, AnotherProcesssSaveIsRefusedWhileFsckHoldsTheLeaseInTransactionMode) {
  writer_refused_during_fsck(true);
}

TEST_F(LeaseProcesses, AnotherProcesssSaveIsRefusedWhileFsckHoldsTheLeaseInDegradedMode) {
  writer_refused_during_fsck(false);
}

TEST_F(LeaseProcesses, ASigkilledWritersLeaseRefusesFsckOnceStaleUntilForced) {
  RecordStore store = open(true);
  store.save(Author{"root", std::nullopt});
  auto writer = child(true);
  ASSERT_EQ(writer->reply(), "ready");
  writer->send("hold");
  ASSERT_EQ(writer->reply(), "holding");
  writer->kill();  // dies holding its writer lease, in the middle of a transaction
  ASSERT_EQ(writer_leases().size(), 1u);

  // Without force: fsck waits while the dead writer's lease is fresh (it cannot tell a dead
  // writer from a slow one), then refuses once it is stale.
  try {
    store.fsck(fsck_options());
    ADD_FAILURE() << "fsck ran over a SIGKILLed writer's lease";
  } catch (const StoreLockedError& e) {
    EXPECT_EQ(e.code(), 46);
    EXPECT_NE(std::string(e.what()).find("stale writer leases require fsck(force=True)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(writer_leases().size(), 1u);  // left for force
  EXPECT_FALSE(fsck_lease().has_value());
  // Nothing of the killed transaction is visible.
  EXPECT_EQ(authors(), (std::set<std::string>{"root"}));

  FsckSummary forced = store.fsck(fsck_options(/*force=*/true));
  ASSERT_EQ(forced.violations().size(), 1u);
  EXPECT_EQ(forced.violations().front(), "removed 1 stale writer lease(s) (force)");
  EXPECT_TRUE(writer_leases().empty());
  EXPECT_FALSE(fsck_lease().has_value());
  // No force needed any more, and a new process writes again.
  EXPECT_TRUE(store.fsck(fsck_options()).violations().empty());
  auto next = child(true);
  ASSERT_EQ(next->reply(), "ready");
  next->send("save after-kill");
  std::string saved = next->reply();
  EXPECT_TRUE(starts_with(saved, "ok ")) << saved;
}

TEST_F(LeaseProcesses, AStalledFsckIsDisplacedByAForcedOneAndGetsLeaseLost) {
  RecordStore store = open(true);
  store.save(Author{"root", std::nullopt});
  auto slow = child(true);
  ASSERT_EQ(slow->reply(), "ready");
  slow->send("fsck-slow");  // stalls in its first progress report, holding the fsck lease
  ASSERT_EQ(slow->reply(), "fsck-running");
  ASSERT_TRUE(fsck_lease().has_value());
  const std::string displaced_owner(fsck_lease()->get("owner").as_string());

  // force takes over only a stale lease: retry until the stalled one has gone stale.
  std::string displaced;
  std::string usurper;
  FsckOptions o = fsck_options(/*force=*/true);
  o.progress = [&](const FsckProgress&) {
    if (!displaced.empty()) return;
    usurper = std::string(fsck_lease()->get("owner").as_string());
    slow->send("continue");  // the stalled fsck resumes and meets its lost lease
    displaced = slow->reply();
    // It did not release the lease it lost.
    auto now = fsck_lease();
    EXPECT_TRUE(now && now->get("owner").as_string() == usurper);
  };
  std::optional<FsckSummary> s;
  int refused = 0;
  ASSERT_TRUE(wait_until([&] {
    try {
      s = store.fsck(o);
      return true;
    } catch (const StoreLockedError& e) {
      EXPECT_NE(std::string(e.what()).find("the fsck lease is fresh"), std::string::npos)
          << e.what();
      ++refused;
      return false;
    }
  })) << "the stalled fsck's lease never went stale";
  ASSERT_TRUE(s);
  EXPECT_NE(usurper, displaced_owner);
  EXPECT_TRUE(starts_with(displaced, "err LeaseLostError 46 LockBusy ")) << displaced;
  EXPECT_NE(displaced.find("taken over by another process"), std::string::npos) << displaced;
  EXPECT_FALSE(fsck_lease().has_value());  // the usurper released its own
  std::cout << "[ info ] force refused " << refused << " time(s) while the lease was fresh\n";
  // The displaced process goes on: its next save and fsck work.
  slow->send("save after-displacement");
  std::string saved = slow->reply();
  EXPECT_TRUE(starts_with(saved, "ok ")) << saved;
  slow->send("fsck");
  std::string again = slow->reply();
  EXPECT_TRUE(starts_with(again, "ok ")) << again;
}

// Why the embedded durable backend has no two-process variant of the tests above: a second
// process cannot open a data directory another process has open (the engine locks it).
TEST(LeaseProcessesEmbedded, ASecondProcessCannotOpenTheSameDurableDataDirectory) {
  mongostore::testing::TempDir dir;
  RecordStoreOptions o;
  o.database = kDatabase;
  o.families = std::vector<EntryFamily>{};
  RecordStore store = RecordStore::connect("embedded:" + dir.sub("data"), o);
  LeaseChild other("embedded:" + dir.sub("data"), kDatabase, kStale, /*transactions=*/true);
  other.expect_exit_status(1);  // it cannot open the store
  std::string first = other.reply();
  EXPECT_TRUE(starts_with(first, "fatal ")) << first;
  EXPECT_NE(first.find("is locked by another process"), std::string::npos) << first;
}

}  // namespace
}  // namespace mongostore::records::testing
