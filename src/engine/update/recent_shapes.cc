#include "engine/update/recent_shapes.h"

#include <algorithm>
#include <array>
#include <utility>

#include "bson/raw_elements.h"
#include "engine/update/shape_cache.h"

namespace mongostore::engine::update_detail {

namespace {

struct Entry {
  std::shared_ptr<const UpdateShape> shape;
  uint64_t generation = 0;
};

// Most recent first.
thread_local std::array<Entry, RecentShapes::kMaxEntries> recent;
thread_local uint64_t hits = 0;

}  // namespace

bool bind_if_same_shape(Update::Impl& impl, const UpdateShape& shape) {
  const auto& ops = shape.ops;
  if (ops.empty()) return false;
  impl.args.reserve(ops.size());
  MatcherOptions matcher_options;
  matcher_options.collation = impl.collation;
  size_t i = 0;
  auto no_match = [&impl] {
    impl.args.clear();
    return false;
  };
  RawElements operators(impl.source);
  bson::Element e;
  while (operators.next(e)) {
    if (!e.value.is_document()) return no_match();
    bool any = false;
    RawElements fields(e.value.as_document());
    bson::Element f;
    while (fields.next(f)) {
      any = true;
      if (i == ops.size()) return no_match();
      const Op& op = *ops[i];
      if (op.op_name != e.key || op.path != f.key) return no_match();
      if (op.kind == OpKind::kRenameFrom) {
        // The pair's kRenameTo follows it; the target is part of the shape.
        if (i + 1 == ops.size() || !f.value.is_string() ||
            ops[i + 1]->path != f.value.as_string()) {
          return no_match();
        }
        impl.args.emplace_back().arg = f.value;
        impl.args.emplace_back().arg = f.value;
        i += 2;
        continue;
      }
      impl.args.emplace_back().arg = f.value;
      // Every path so far is the shape's (which passed a full compile's checks), so a full
      // compile of this update would reach this argument and parse it the same way.
      parse_op_argument(op, impl.args.back(), matcher_options);
      ++i;
    }
    // An empty operator document names an operator no op records: not comparable here.
    if (!any) return no_match();
  }
  if (i != ops.size()) return no_match();
  return true;
}

bool RecentShapes::bind(Update::Impl& impl) {
  const uint64_t generation = ShapeCache::instance().generation();
  for (size_t k = 0; k < recent.size(); ++k) {
    Entry& entry = recent[k];
    if (entry.shape == nullptr) break;
    if (entry.generation != generation) continue;
    if (!bind_if_same_shape(impl, *entry.shape)) continue;
    impl.shape = entry.shape;
    ++hits;
    // Keep the list most recent first.
    if (k != 0) std::rotate(recent.begin(), recent.begin() + k, recent.begin() + k + 1);
    return true;
  }
  return false;
}

uint64_t RecentShapes::hits_on_this_thread() {
  return hits;
}

void RecentShapes::remember(std::shared_ptr<const UpdateShape> shape, uint64_t generation) {
  // Drop the oldest entry, shift the rest, put this one first.
  std::move_backward(recent.begin(), recent.end() - 1, recent.end());
  recent[0] = Entry{std::move(shape), generation};
}

}  // namespace mongostore::engine::update_detail
