#include "records/fsck.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "mongostore/bson/builder.h"
#include "mongostore/duplicate_key_error.h"
#include "mongostore/records/errors.h"
#include "records/leases.h"
#include "records/store_layout.h"
#include "records/stored_form.h"

namespace mongostore::records {
namespace {

using bson::Document;
using bson::make_document;
using SchemaPtr = std::shared_ptr<const RecordSchema>;

constexpr size_t kBatch = 500;                     // sids per $in (reference §7)
constexpr int64_t kFutureSlackNs = 2'000'000'000;  // 2 s (reference §6)
constexpr auto kFirstPoll = std::chrono::milliseconds(20);
constexpr auto kMaxPoll = std::chrono::milliseconds(250);

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

Document with_expr(Document base, const Document& expr) {
  bson::DocumentBuilder b;
  b.append_elements(base).append_elements(expr);
  return b.finish();
}

// The `f` of the documents with sids ids[begin, end) that exist: one `_id` $in (a read of
// those keys on every backend; fsck's batches hold at most kBatch sids, within the planner's
// 4,096 points). The batch is the unit of progress and lease refresh.
std::vector<Document> read_by_sid(const client::Collection& coll, const std::vector<int64_t>& ids,
                                  size_t begin, size_t end) {
  client::FindOptions find;
  find.projection = make_document("f", 1);
  bson::DocumentBuilder in;
  in.open_document("_id").open_array("$in");
  for (size_t i = begin; i < end; ++i) in.push(ids[i]);
  in.close().close();
  return coll.find(in.finish(), find)->to_vector();
}

class Fsck {
 public:
  Fsck(StoreContext& store, const std::vector<SchemaPtr>& prepared, const FsckOptions& options)
      : store_(store), prepared_(prepared), options_(options) {}

  FsckSummary run() {
    const auto stale_after = store_.options.lease_stale_after;
    FsckLease lease(store_, options_.force, stale_after);
    wait_for_writers(lease, stale_after);
    int64_t generation = bump_generation();
    attribute();
    future_timestamps();
    dispatches();
    mark(lease);
    if (options_.collect_garbage) sweep(lease);
    lease.refresh(true);  // a displaced fsck learns it before reporting success
    store_.cache.clear();
    store_.seen_generation = generation;
    return FsckSummary(generation, std::move(counts_), std::move(violations_));
  }

 private:
  client::Collection coll(const std::string& name) const { return store_.collection(name); }

  void note(std::string violation) {
    std::string line = "fsck: " + violation;
    if (store_.options.warn) {
      store_.options.warn(line);
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    violations_.push_back(std::move(violation));
  }

  void report_progress() {
    if (options_.progress) options_.progress(progress_);
  }

  // Step 1 (after the lease): live writers finish first; dead ones need force.
  void wait_for_writers(FsckLease& lease, std::chrono::milliseconds stale_after) {
    client::Collection metadata = coll(kMetadataCollection);
    auto delay = std::chrono::milliseconds(kFirstPoll);
    // A live writer renews its lease while its save runs (leases.h), so this waits for the
    // save to end; a dead one goes stale within stale_after.
    while (metadata.count_documents(
               with_expr(make_document("kind", "writer"), fresh_heartbeat_expr(stale_after))) > 0) {
      std::this_thread::sleep_for(delay);
      delay = std::min<std::chrono::milliseconds>(delay * 2, kMaxPoll);
      lease.refresh();
    }
    Document stale = with_expr(make_document("kind", "writer"), stale_heartbeat_expr(stale_after));
    int64_t dead = metadata.count_documents(stale);
    if (dead == 0) return;
    if (!options_.force) {
      throw StoreLockedError(
          "stale writer leases require fsck(force=True): " + std::to_string(dead) +
          " writer(s) of database '" + store_.options.database +
          "' stopped without releasing their lease (crashed?)");
    }
    int64_t n = metadata.delete_many(stale);
    note("removed " + std::to_string(n) + " stale writer lease(s) (force)");
  }

  int64_t bump_generation() {
    client::FindAndModifyOptions after;
    after.return_document = client::ReturnDocument::kAfter;
    auto layout =
        coll(kMetadataCollection)
            .find_one_and_update(make_document("_id", kLayoutId),
                                 make_document("$inc", make_document("generation", 1)), after);
    int64_t generation = 0;
    if (!layout || !layout->get("generation").number_as_exact_int64(&generation)) {
      throw Error(ErrorCode::kOperationFailed,
                  "fsck: database '" + store_.options.database + "' has no readable layout");
    }
    return generation;
  }

  // Step 3: which collections this fsck understands.
  void attribute() {
    std::vector<SchemaPtr> roots = prepared_;
    for (const FamilyBinding& f : store_.families) {
      for (const EntryRecord& r : f.declaration.records) roots.push_back(r.schema);
    }
    roots.insert(roots.end(), options_.known_types.begin(), options_.known_types.end());
    closure_ = reference_closure(roots);
    std::set<std::string> expected = {kMetadataCollection, kCountersCollection};
    for (const FamilyBinding& f : store_.families) {
      if (!f.dispatch.empty()) expected.insert(f.dispatch);
    }
    for (const std::string& name : store_.db.list_collection_names()) {
      existing_.insert(name);
      if (starts_with(name, "system.") || expected.count(name)) continue;
      if (auto it = closure_.find(name); it != closure_.end()) {
        known_.emplace(name, it->second);
        counts_[name];
        continue;
      }
      if (starts_with(name, "_httk_")) {
        note("collection '" + name + "' is not one this store knows: left untouched");
        continue;
      }
      blocking_.push_back(name);
      note("collection '" + name +
           "' is not attributed to a known record type: it may refer to records the sweep "
           "would delete");
    }
    progress_.collections_total = static_cast<int64_t>(known_.size());
  }

  // Step 4.
  void future_timestamps() {
    if (!store_.options.store_timestamps) return;
    const int64_t res = store_.options.store_timestamp_resolution;
    const int64_t now_ns = store_.clock.now_ns();
    const int64_t limit = (now_ns + kFutureSlackNs) / res;
    const bool clamp = options_.clamp_future_timestamps && options_.repair && blocking_.empty();
    bool clamped = false;
    for (const auto& [table, schema] : known_) {
      Document filter = make_document("store_timestamp", make_document("$gt", limit));
      int64_t n = coll(table).count_documents(filter);
      if (n == 0) continue;
      counts_[table].conflicts += n;
      note(std::to_string(n) + " document(s) of '" + table + "' have a store_timestamp after " +
           std::to_string(limit) + " (now + 2 s)" + (clamp ? ": clamped to now" : ""));
      if (!clamp) continue;
      auto r = coll(table).update_many(
          filter, make_document("$set", make_document("store_timestamp", now_ns / res)));
      counts_[table].repaired += r.modified_count;
      clamped = true;
    }
    if (clamped) {
      // The mark may stand on a timestamp that no longer exists: start again from the data.
      store_.clock.reset(0);
      for (const auto& [table, schema] : known_) store_.clock.seed_from(coll(table), true);
    }
  }

  // Step 5, and the dispatched sids as roots of step 6.
  void dispatches() {
    for (const FamilyBinding& f : store_.families) {
      if (f.dispatch.empty()) continue;
      bool any_backing = false;
      for (const EntryRecord& r : f.declaration.records) {
        any_backing |= existing_.count(r.schema->storage_name()) > 0;
      }
      if (!any_backing && !existing_.count(f.dispatch)) continue;
      FsckCollectionSummary& counts = counts_[f.dispatch];
      client::Collection dispatch = coll(f.dispatch);
      auto cursor = dispatch.find(Document());
      for (const Document& d : cursor->to_vector()) {
        ++counts.examined;
        std::string problem;
        const EntryRecord* backing = nullptr;
        bson::Value id = d.get("_id"), name = d.get("record");
        int64_t sid = 0;
        for (const EntryRecord& r : f.declaration.records) {
          if (name.is_string() && name.as_string() == r.name) backing = &r;
        }
        if (!id.is_string()) {
          problem = "has a non-string _id";
        } else if (!backing) {
          problem = "names an unknown record " + name.to_json();
        } else if (!d.get("sid").number_as_exact_int64(&sid)) {
          problem = "has no integer sid";
        } else {
          std::optional<Document> stored =
              coll(backing->schema->storage_name()).find_one(make_document("_id", sid));
          bson::Value cid = stored ? stored->get("content_id") : bson::Value();
          if (!stored) {
            problem =
                "names " + backing->name + " sid " + std::to_string(sid) + ", which does not exist";
          } else if (!cid.is_string() || cid.as_string() != id.as_string()) {
            problem = "names " + backing->name + " sid " + std::to_string(sid) +
                      ", which holds another content id";
          }
        }
        if (problem.empty()) {
          dispatched_[backing->schema->storage_name()].push_back(sid);
          continue;
        }
        ++counts.conflicts;
        const bool remove = options_.repair && options_.repair_conflicts;
        note("dispatch " + d.get("_id").to_json() + " of family '" + f.declaration.name + "' " +
             problem + (remove ? ": deleted" : " (fsck(repair_conflicts=true) deletes it)"));
        if (remove) counts.deleted += dispatch.delete_one(make_document("_id", d.get("_id")));
        if (backing && problem.find("another content id") != std::string::npos && !remove) {
          dispatched_[backing->schema->storage_name()].push_back(sid);  // still reachable
        }
      }
      if (!options_.repair) continue;
      for (const EntryRecord& r : f.declaration.records) {
        const std::string& table = r.schema->storage_name();
        if (!existing_.count(table)) continue;
        store_.setup.ensure_dispatch(f.dispatch, f.record_names());
        restore_missing(f, r, dispatch, counts);
      }
    }
  }

  // A `main` backing document without its dispatch gets one (a crash between the record's
  // insert and the dispatch's).
  void restore_missing(const FamilyBinding& f, const EntryRecord& r,
                       const client::Collection& dispatch, FsckCollectionSummary& counts) {
    client::FindOptions find;
    find.projection = make_document("_id", 1, "content_id", 1);
    find.batch_size = kBatch;
    auto cursor = coll(r.schema->storage_name())
                      .find(make_document("_httk_role", "main", "content_id",
                                          make_document("$type", "string")),
                            find);
    while (!cursor->exhausted()) {
      std::vector<Document> batch = cursor->next_batch();
      if (batch.empty()) break;
      // Which of the batch's content ids have a dispatch: one `_id` $in.
      std::unordered_set<std::string> present;
      client::FindOptions ids;
      ids.projection = make_document("_id", 1);
      bson::DocumentBuilder in;
      in.open_document("_id").open_array("$in");
      for (const Document& d : batch) in.push(d.get("content_id"));
      in.close().close();
      for (const Document& d : dispatch.find(in.finish(), ids)->to_vector()) {
        if (d.get("_id").is_string()) present.emplace(d.get("_id").as_string());
      }
      for (const Document& d : batch) {
        std::string cid(d.get("content_id").as_string());
        if (present.count(cid)) continue;
        int64_t sid = 0;
        d.get("_id").number_as_exact_int64(&sid);
        try {
          dispatch.insert_one(make_document("_id", cid, "record", r.name, "sid", sid));
          ++counts.repaired;
          note("restored the dispatch of " + r.name + " sid " + std::to_string(sid) + " (family '" +
               f.declaration.name + "')");
        } catch (const DuplicateKeyError&) {
          ++counts.conflicts;
          note("cannot restore the dispatch of " + r.name + " sid " + std::to_string(sid) +
               " (family '" + f.declaration.name + "'): another dispatch names that record");
        }
      }
    }
  }

  void reach(const std::string& table, int64_t sid) {
    if (marked_[table].insert(sid).second) {
      ++progress_.documents_marked;
      frontier_[table].push_back(sid);
    }
  }

  void follow(const SchemaPtr& schema, const Document& doc) {
    bson::Value f = doc.get("f");
    if (!f.is_document()) return;
    referenced_sids(f.as_document(), *schema, [&](const SchemaPtr& target, int64_t sid) {
      reach(target->storage_name(), sid);
    });
  }

  // Step 6: every main document and dispatched sid, then what they reach, breadth-first.
  void mark(FsckLease& lease) {
    client::FindOptions find;
    find.projection = make_document("f", 1);
    find.batch_size = kBatch;
    for (const auto& [table, schema] : known_) {
      auto cursor = coll(table).find(make_document("_httk_role", "main"), find);
      auto& seen = marked_[table];
      while (!cursor->exhausted()) {
        std::vector<Document> batch = cursor->next_batch();
        if (batch.empty()) break;
        for (const Document& d : batch) {
          int64_t sid = 0;
          if (!d.get("_id").number_as_exact_int64(&sid)) continue;
          ++counts_[table].examined;
          if (seen.insert(sid).second) ++progress_.documents_marked;
          follow(schema, d);
        }
        lease.refresh();
      }
      ++progress_.collections_examined;
      report_progress();
    }
    for (const auto& [table, sids] : dispatched_) {
      for (int64_t sid : sids) reach(table, sid);
    }
    while (!frontier_.empty()) {
      auto it = frontier_.begin();
      std::string table = it->first;
      std::vector<int64_t> sids = std::move(it->second);
      frontier_.erase(it);
      auto schema = closure_.find(table);
      if (schema == closure_.end() || !existing_.count(table)) continue;
      for (size_t begin = 0; begin < sids.size(); begin += kBatch) {
        size_t end = std::min(sids.size(), begin + kBatch);
        for (const Document& d : read_by_sid(coll(table), sids, begin, end)) {
          ++counts_[table].examined;
          follow(schema->second, d);
        }
        lease.refresh();
        report_progress();
      }
    }
  }

  // Step 7.
  void sweep(FsckLease& lease) {
    if (!blocking_.empty()) {
      std::string list;
      for (const std::string& c : blocking_) list += (list.empty() ? "" : ", ") + c;
      note("sweep aborted: collection(s) " + list +
           " are not attributed to a known record type; rerun fsck(known_types=(...)) naming "
           "their record types");
      return;
    }
    client::FindOptions find;
    find.projection = make_document("_id", 1);
    find.batch_size = kBatch;
    for (const auto& [table, schema] : known_) {
      const auto& seen = marked_[table];
      // Ids first, deletes after: no cursor runs over a collection being deleted from. A
      // deleted id list of 500 at a time keeps each command small, whatever the store's size.
      std::vector<int64_t> unreachable;
      auto cursor = coll(table).find(make_document("_httk_role", "dep"), find);
      for (const Document& d : cursor->to_vector()) {
        int64_t sid = 0;
        if (d.get("_id").number_as_exact_int64(&sid) && !seen.count(sid)) {
          unreachable.push_back(sid);
        }
      }
      FsckCollectionSummary& counts = counts_[table];
      counts.examined += static_cast<int64_t>(unreachable.size());
      for (size_t begin = 0; begin < unreachable.size(); begin += kBatch) {
        size_t end = std::min(unreachable.size(), begin + kBatch);
        // One `_id` $in per batch, as the mark reads (read_by_sid): one command, not one per
        // sid (a round trip each through a server). The role condition keeps a `main`
        // document out of reach whatever happens.
        bson::DocumentBuilder filter;
        filter.open_document("_id").open_array("$in");
        for (size_t i = begin; i < end; ++i) filter.push(unreachable[i]);
        filter.close().close().append("_httk_role", "dep");
        counts.deleted += coll(table).delete_many(filter.finish());
        lease.refresh();
      }
    }
  }

  StoreContext& store_;
  const std::vector<SchemaPtr>& prepared_;
  const FsckOptions& options_;

  std::map<std::string, SchemaPtr> closure_;
  std::map<std::string, SchemaPtr> known_;  // attributed collections that exist
  std::set<std::string> existing_;
  std::vector<std::string> blocking_;
  std::map<std::string, std::vector<int64_t>> dispatched_;
  std::unordered_map<std::string, std::unordered_set<int64_t>> marked_;
  std::map<std::string, std::vector<int64_t>> frontier_;
  std::map<std::string, FsckCollectionSummary> counts_;
  std::vector<std::string> violations_;
  FsckProgress progress_;
};

}  // namespace

FsckSummary run_fsck(StoreContext& store, const std::vector<SchemaPtr>& prepared,
                     const FsckOptions& options) {
  return Fsck(store, prepared, options).run();
}

}  // namespace mongostore::records
