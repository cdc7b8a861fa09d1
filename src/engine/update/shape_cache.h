// ShapeCache: compiled update shapes, so an update compiles its paths once per shape.
//
// An operator update's operator tree, ops and path checks depend only on its operators, its
// field paths and a $rename's target, never on the other values (UpdateShape). Callers such as
// the ExecutionStore send the same update shape with new values on every call; with this
// cache Update::compile builds the shape once and afterwards only copies the update and
// parses each operator's argument (parse_op_argument), which raises the same errors a full
// compile raises for it, in the same order (a cached shape's paths passed every path check).
//
// Not cached: replacements and pipelines (nothing to reuse), updates with arrayFilters (their
// conditions are compiled from values), and shapes over kMaxKeyBytes or kMaxOps.
// Bounded: at most kMaxEntries shapes; the oldest is evicted first. Memory is therefore at
// most kMaxEntries shapes of at most kMaxOps ops and kMaxKeyBytes of paths each.
// Thread safety: all members may be called from any thread (a shared mutex); a shape, once
// in the cache, is immutable and shared by every Update compiled from it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "engine/update/internal.h"
#include "mongostore/bson/document.h"

namespace mongostore::engine::update_detail {

/// The key of `update`'s shape: each operator with its number of fields, each field path, and
/// a $rename's target (length-prefixed, so no two shapes share a key). nullopt when the update
/// is not an operator update of known operators over documents (compile reports those), or
/// its key would exceed ShapeCache::kMaxKeyBytes.
std::optional<std::string> shape_key(bson::DocumentView update);

class ShapeCache {
 public:
  static constexpr size_t kMaxEntries = 256;
  static constexpr size_t kMaxKeyBytes = 1024;
  static constexpr size_t kMaxOps = 32;

  /// The process-wide cache Update::compile uses.
  static ShapeCache& instance();

  /// The shape compiled for `key`, or null.
  std::shared_ptr<const UpdateShape> find(const std::string& key) const;
  /// Remembers `shape` under `key` (a shape already there stays), evicting the oldest entry
  /// when full. Shapes over kMaxOps are not kept.
  void insert(const std::string& key, std::shared_ptr<const UpdateShape> shape);

  size_t size() const;
  /// Empties the cache and starts a new generation (RecentShapes drops what it kept).
  void clear();
  /// Bumped by clear(): a shape remembered at an older generation is not reused.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const UpdateShape>> shapes_;
  std::deque<std::string> order_;  // keys, oldest first
  std::atomic<uint64_t> generation_{0};
};

}  // namespace mongostore::engine::update_detail
