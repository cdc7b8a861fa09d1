// Many records of one type written as raw documents shaped like a saved one: the fill of the
// searcher's cost tests and benchmarks (saving 100,000 records one by one would take most of
// a minute, and would measure saves).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"

namespace mongostore::testing {

/// Inserts `n` documents into `collection`: each a copy of `model` (a document a save wrote,
/// so every store key is there) with `_id` and `logical_id` set to first_sid + i and its `f`
/// replaced by the fields `fields(i, f)` appends. In batches of 5,000, with writeConcern
/// j: false (a durable fill would otherwise be one fsync per batch; the fill is not what is
/// measured). The caller keeps the collection's counter past the sids it uses.
inline void insert_raw_records(client::Collection collection, const bson::Document& model, int n,
                               int64_t first_sid,
                               const std::function<void(int, bson::DocumentBuilder&)>& fields) {
  client::InsertOptions unsynced;
  unsynced.journal = false;
  std::vector<bson::Document> batch;
  for (int i = 0; i < n; ++i) {
    int64_t sid = first_sid + i;
    bson::DocumentBuilder d;
    for (const bson::Element& e : model.view()) {
      if (e.key == "_id" || e.key == "logical_id") {
        d.append(e.key, sid);
      } else if (e.key == "f") {
        d.open_document("f");
        fields(i, d);
        d.close();
      } else {
        d.append(e.key, e.value);
      }
    }
    batch.push_back(d.finish());
    if (batch.size() == 5000) {
      collection.insert_many(batch, unsynced);
      batch.clear();
    }
  }
  if (!batch.empty()) collection.insert_many(batch, unsynced);
}

}  // namespace mongostore::testing
