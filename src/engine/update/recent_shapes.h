// RecentShapes: the update shapes this thread compiled against last, tried before the
// process-wide ShapeCache so that a repeated update shape is recognised and bound in one pass.
//
// A ShapeCache hit builds the update's shape key (every operator and path copied into a
// string), hashes it, takes the cache's lock and then walks the update a second time to bind
// its arguments. A caller that sends the same shape again (the ExecutionStore's commit) pays
// that on every update. Here the update is instead compared with a recently used shape while
// its arguments are bound: operator by operator and path by path against the shape's ops, so
// a match needs no key, no hash and no lock.
//
// Same results and errors as a full compile: a match means the update has exactly the shape's
// ops, in order (the same operators on the same paths, the same $rename targets), so the
// shape's path tree and checks are what a full compile would build; an argument is parsed
// (parse_op_argument) only after every path before it matched, in document order, so the
// first bad argument raises what a full compile raises first. Anything else (an operator
// value that is no document, an empty operator document, another path) is no match and takes
// the ShapeCache path.
//
// Bounded: kMaxEntries shapes per thread, most recent first. Entries remember the
// ShapeCache generation they were taken at; ShapeCache::clear() makes them all stale.
// Thread safety: each thread has its own list; the shapes themselves are immutable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/update/internal.h"

namespace mongostore::engine::update_detail {

class RecentShapes {
 public:
  static constexpr size_t kMaxEntries = 4;

  /// If `impl.source` has the shape of one of this thread's recent shapes, binds and parses
  /// its arguments into `impl.args`, sets `impl.shape` and returns true. Otherwise leaves
  /// `impl` as it was and returns false. Throws what a full compile throws for a bad
  /// argument of a matching update.
  static bool bind(Update::Impl& impl);

  /// Remembers `shape` (taken from or put into the ShapeCache at `generation`) as this
  /// thread's most recent one.
  static void remember(std::shared_ptr<const UpdateShape> shape, uint64_t generation);

  /// How many compiles on this thread bind() has answered (for tests: which path ran).
  static uint64_t hits_on_this_thread();
};

/// Binds `impl.source`'s arguments against `shape` in one pass if the update has exactly
/// `shape`'s ops (see RecentShapes); false, with `impl.args` empty, if it does not.
bool bind_if_same_shape(Update::Impl& impl, const UpdateShape& shape);

}  // namespace mongostore::engine::update_detail
