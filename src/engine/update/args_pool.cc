// The per-thread spare vector of OpArgs (internal.h): one compiled update's arguments reuse
// the storage of the previous update this thread destroyed, instead of a ~2 KB allocation
// past glibc's per-thread cache on every compile.
#include "internal.h"

namespace mongostore::engine::update_detail {
namespace {

// Bigger vectors (an update of hundreds of operators) are freed rather than kept, so a thread
// never holds more than this many idle OpArgs.
constexpr size_t kMaxSpareArgs = 64;

// Set once this thread's spare is destroyed (thread exit): an Update destroyed later on the
// same thread, from another thread_local or a static destructor, then frees its own vector.
// A plain bool needs no destructor, so it is valid for the thread's whole life.
thread_local bool spare_destroyed = false;

struct Spare {
  std::vector<OpArgs> vector;
  ~Spare() { spare_destroyed = true; }
};

std::vector<OpArgs>* spare() {
  if (spare_destroyed) return nullptr;
  thread_local Spare s;
  return &s.vector;
}

}  // namespace

std::vector<OpArgs> take_spare_args() {
  std::vector<OpArgs>* slot = spare();
  if (slot == nullptr) return {};
  std::vector<OpArgs> out;
  out.swap(*slot);
  return out;
}

void recycle_args(std::vector<OpArgs>&& args) noexcept {
  if (args.capacity() == 0 || args.capacity() > kMaxSpareArgs) return;
  std::vector<OpArgs>* slot = spare();
  if (slot == nullptr) return;
  args.clear();
  // Keep the larger of the two; the caller frees the other with its `args`.
  if (args.capacity() > slot->capacity()) slot->swap(args);
}

}  // namespace mongostore::engine::update_detail
