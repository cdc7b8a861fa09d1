// CollectionEntry and IndexEntry: the in-memory catalog's view of one collection and of one
// secondary index, shared (shared_ptr) between the catalog and the operations using them.
//
// Thread safety: the names and table uris are fixed at creation. The index list and the
// validator are immutable snapshots swapped under a mutex (an operation reads one version);
// they change only under the collection's exclusive WriteGate. The flags are atomics.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/catalog/write_gate.h"
#include "engine/collection_validation.h"
#include "engine/index_descriptor.h"
#include "mongostore/bson/builder.h"

namespace mongostore::engine {

/// "db.coll".
inline std::string ns_of(std::string_view db, std::string_view coll) {
  std::string ns;
  ns.reserve(db.size() + 1 + coll.size());
  ns.append(db).append(".").append(coll);
  return ns;
}

// A secondary index: its descriptor, its table (see IndexTable) and whether some document
// gave it several keys.
struct IndexEntry {
  IndexDescriptor descriptor;
  std::string table_uri;
  // Set (never cleared) as soon as a write produces an array key; the planner reads it.
  std::atomic<bool> multikey{false};
  // The catalog record already says multikey (seen in a committed snapshot).
  std::atomic<bool> multikey_persisted{false};
};

using IndexList = std::vector<std::shared_ptr<IndexEntry>>;

struct CollectionEntry {
  std::string db;
  std::string coll;
  std::string table_uri;
  // Document writes hold this shared for their whole transaction; index builds and drops
  // (and collection drops) hold it exclusively, so a write never misses an index that is
  // being built and never writes to one that is gone.
  WriteGate write_gate;
  // Set (under the exclusive gate) when a rename or a drop took this entry out of the
  // catalog: a writer that resolved the name before must resolve it again.
  std::atomic<bool> retired{false};
  // The collection's default collation (create's `collation`; null: simple). Set before the
  // entry is published and never changed: operations without a collation of their own and
  // indexes created without one take it.
  std::shared_ptr<const Collation> default_collation;
  // Set with `retired` when the collection itself is gone (dropped, or replaced by a rename
  // onto its name), not merely renamed: an open cursor on it is killed.
  std::atomic<bool> dropped{false};

  std::shared_ptr<const IndexList> indexes() const {
    std::lock_guard<std::mutex> lock(index_mutex);
    return index_list;
  }
  void set_indexes(std::shared_ptr<const IndexList> list) {
    std::lock_guard<std::mutex> lock(index_mutex);
    index_list = std::move(list);
  }
  // The validator and its options; replaced (by collMod) under the exclusive write gate, so
  // a write reads one version for its whole transaction.
  std::shared_ptr<const CollectionValidation> validation() const {
    std::lock_guard<std::mutex> lock(index_mutex);
    return validation_;
  }
  void set_validation(std::shared_ptr<const CollectionValidation> v) {
    std::lock_guard<std::mutex> lock(index_mutex);
    validation_ = std::move(v);
  }
  /// The create options as listCollections shows them and the catalog record keeps them:
  /// the validator fields, and `collation` in its full form when not simple.
  bson::Document options() const {
    bson::Document validation = this->validation()->options();
    if (!default_collation) return validation;
    bson::DocumentBuilder b;
    b.append_elements(validation.view());
    b.append("collation", default_collation->spec().view());
    return b.finish();
  }

 private:
  std::shared_ptr<const CollectionValidation> validation_ =
      std::make_shared<const CollectionValidation>();
  mutable std::mutex index_mutex;
  std::shared_ptr<const IndexList> index_list = std::make_shared<IndexList>();
};

}  // namespace mongostore::engine
