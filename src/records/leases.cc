#include "records/leases.h"

#include <cstdio>
#include <random>

#include "mongostore/bson/builder.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/records/errors.h"
#include "records/store_context.h"
#include "records/store_layout.h"

namespace mongostore::records {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;

constexpr auto kRefreshEvery = std::chrono::seconds(2);

// A lease must be renewed well within the time after which it counts as stale, or a live
// holder would look dead: at most every `every`, and at least four times per `stale_after`
// (a store may be configured with a stale threshold shorter than the default renewals).
std::chrono::steady_clock::duration renewal_interval(std::chrono::milliseconds every,
                                                     std::chrono::milliseconds stale_after) {
  return std::min<std::chrono::steady_clock::duration>(every, stale_after / 4);
}

Document heartbeat_compare(const char* op, std::chrono::milliseconds stale_after) {
  return make_document(
      "$expr",
      make_document(
          op, make_array(
                  "$heartbeat",
                  make_document("$subtract", make_array("$$NOW", int64_t{stale_after.count()})))));
}

// `$set {…, heartbeat: $$NOW}` as a one-stage update pipeline.
std::vector<Document> set_now(Document fields) {
  bson::DocumentBuilder b;
  b.open_document("$set").append_elements(fields).append("heartbeat", "$$NOW").close();
  return {b.finish()};
}

}  // namespace

std::string uuid4() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ull) | 0x4000ull;                  // version 4
  lo = (lo & ~(0xC000ull << 48)) | (0x8000ull << 48);  // variant 10
  char out[37];
  std::snprintf(out, sizeof out, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFull));
  return out;
}

bson::Document stale_heartbeat_expr(std::chrono::milliseconds stale_after) {
  // null and missing sort below every Date: a lease never refreshed is stale.
  return heartbeat_compare("$lte", stale_after);
}

bson::Document fresh_heartbeat_expr(std::chrono::milliseconds stale_after) {
  return heartbeat_compare("$gt", stale_after);
}

// --- writer lease -----------------------------------------------------------------------------

WriterLease::WriterLease(StoreContext& store) : store_(store), id_("lease/" + uuid4()) {
  client::Collection metadata = store_.db.collection(kMetadataCollection);
  client::UpdateOptions upsert;
  upsert.upsert = true;
  metadata.update_one(make_document("_id", id_),
                      set_now(make_document("kind", "writer", "owner", store_.lease_owner)),
                      upsert);
  // From here on an fsck that starts waits for this lease; one that started before is seen.
  try {
    // The fsck lease and the layout in one read (an `_id` $in reads just those two keys).
    bool fsck = false;
    std::optional<int64_t> generation;
    for (const Document& d :
         metadata
             .find(make_document("_id", make_document("$in", make_array(kFsckLeaseId, kLayoutId))))
             ->to_vector()) {
      bson::Value id = d.get("_id");
      if (id.is_string() && id.as_string() == kFsckLeaseId) fsck = true;
      int64_t g = 0;
      if (id.is_string() && id.as_string() == kLayoutId &&
          d.get("generation").number_as_exact_int64(&g)) {
        generation = g;
      }
    }
    if (fsck) {
      throw StoreLockedError("database '" + store_.options.database +
                             "' is locked by fsck (lease/fsck exists; if its holder died, "
                             "clear_stale_lock() removes it once stale)");
    }
    if (generation && *generation != store_.seen_generation) {
      // An fsck ran since this process last looked: cached sids may name swept records.
      store_.cache.clear();
      store_.seen_generation = *generation;
    }
  } catch (...) {
    release();
    throw;
  }
  refreshed_ = std::chrono::steady_clock::now();
}

void WriterLease::refresh(bool now) {
  auto t = std::chrono::steady_clock::now();
  if (!now &&
      t - refreshed_ < renewal_interval(kWriterRefreshEvery, store_.options.lease_stale_after)) {
    return;
  }
  auto result =
      store_.db.collection(kMetadataCollection)
          .update_one(make_document("_id", id_, "owner", store_.lease_owner),
                      set_now(make_document("kind", "writer", "owner", store_.lease_owner)));
  if (result.matched_count == 0) {
    throw LeaseLostError("the writer lease " + id_ + " of database '" + store_.options.database +
                         "' is gone (a forced fsck removed it as a dead writer's and may be "
                         "sweeping): this save stops; what it wrote so far is unreachable and "
                         "fsck collects it");
  }
  refreshed_ = t;
}

WriterLease::~WriterLease() {
  release();
}

void WriterLease::release() noexcept {
  try {
    store_.db.collection(kMetadataCollection)
        .delete_one(make_document("_id", id_, "owner", store_.lease_owner));
  } catch (...) {
    // Released or not, the save's outcome stands; a leftover lease goes stale and fsck
    // reports it (force clears it).
  }
}

// --- fsck lease -------------------------------------------------------------------------------

FsckLease::FsckLease(StoreContext& store, bool force, std::chrono::milliseconds stale_after)
    : store_(store), owner_(uuid4()), stale_after_(stale_after) {
  client::Collection metadata = store_.db.collection(kMetadataCollection);
  try {
    metadata.insert_one(
        make_document("_id", kFsckLeaseId, "owner", owner_, "heartbeat", bson::Null{}));
  } catch (const DuplicateKeyError&) {
    if (!force) {
      throw StoreLockedError("database '" + store_.options.database +
                             "' is locked: another fsck holds lease/fsck (fsck(force=true) "
                             "takes over a stale one)");
    }
    bson::DocumentBuilder filter;
    filter.append("_id", kFsckLeaseId).append_elements(stale_heartbeat_expr(stale_after));
    auto took =
        metadata.find_one_and_update(filter.finish(), set_now(make_document("owner", owner_)));
    if (!took) {
      throw StoreLockedError("database '" + store_.options.database +
                             "' is locked: the fsck lease is fresh (its holder is alive); force "
                             "takes over only a stale one");
    }
  }
  refresh(true);
}

void FsckLease::refresh(bool now) {
  auto t = std::chrono::steady_clock::now();
  if (!now && t - refreshed_ < renewal_interval(kRefreshEvery, stale_after_)) return;
  auto result = store_.db.collection(kMetadataCollection)
                    .update_one(make_document("_id", kFsckLeaseId, "owner", owner_),
                                set_now(make_document("owner", owner_)));
  if (result.matched_count == 0) {
    throw LeaseLostError("the fsck lease of database '" + store_.options.database +
                         "' was taken over by another process (fsck(force=true) after it went "
                         "stale): this fsck stops");
  }
  refreshed_ = t;
}

FsckLease::~FsckLease() {
  try {
    store_.db.collection(kMetadataCollection)
        .delete_one(make_document("_id", kFsckLeaseId, "owner", owner_));
  } catch (...) {
    // A lease left behind is stale at once for writers' purposes (they refuse any fsck
    // lease); clear_stale_lock() removes it.
  }
}

bool clear_stale_fsck_lease(StoreContext& store, std::chrono::milliseconds stale_after) {
  bson::DocumentBuilder filter;
  filter.append("_id", kFsckLeaseId).append_elements(stale_heartbeat_expr(stale_after));
  return store.db.collection(kMetadataCollection).delete_one(filter.finish()) > 0;
}

}  // namespace mongostore::records
