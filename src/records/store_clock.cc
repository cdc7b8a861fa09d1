#include "records/store_clock.h"

#include <chrono>
#include <thread>

#include "mongostore/bson/builder.h"
#include "mongostore/records/errors.h"

namespace mongostore::records {

namespace {
constexpr int64_t kGraceNs = 1'000'000;  // 1 ms (reference §6)
}

StoreClock::StoreClock(Options options) : options_(std::move(options)) {}

int64_t StoreClock::now_ns() const {
  if (options_.clock_ns) return options_.clock_ns();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t StoreClock::capture() {
  int64_t clock = now_ns();
  if (!options_.guard) return clock / options_.resolution;
  int64_t mark = this->mark();
  if (clock / options_.resolution >= mark) return clock / options_.resolution;
  int64_t mark_ns = mark * options_.resolution;
  int64_t deficit = mark_ns - clock;
  if (options_.grace && deficit < kGraceNs) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(deficit));
    clock = now_ns();
    if (clock / options_.resolution >= mark) return clock / options_.resolution;
  }
  throw StoreClockRegressionError(mark_ns, clock);
}

void StoreClock::advance(int64_t units) {
  std::lock_guard lock(mu_);
  if (units > mark_) mark_ = units;
}

void StoreClock::reset(int64_t units) {
  std::lock_guard lock(mu_);
  mark_ = units;
}

int64_t StoreClock::mark() const {
  std::lock_guard lock(mu_);
  return mark_;
}

void StoreClock::seed_from(const client::Collection& collection, bool force) {
  if (!options_.guard) return;
  {
    std::lock_guard lock(mu_);
    if (!force && seeded_.count(collection.name())) return;
  }
  // The index on store_timestamp makes this one key read; a collection not created yet has
  // nothing to contribute.
  client::FindOptions find;
  find.sort = bson::make_document("store_timestamp", -1);
  find.limit = 1;
  find.projection = bson::make_document("store_timestamp", 1, "_id", 0);
  std::optional<bson::Document> top = collection.find_one(
      bson::make_document("store_timestamp", bson::make_document("$exists", true)), find);
  int64_t units = 0;
  std::lock_guard lock(mu_);
  seeded_.insert(collection.name());
  if (top && top->get("store_timestamp").number_as_exact_int64(&units) && units > mark_) {
    mark_ = units;
  }
}

}  // namespace mongostore::records
