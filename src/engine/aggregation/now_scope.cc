// NowScope: one $$NOW per command. A thread-local holds the innermost scope's time; scopes
// nest, each restoring the one it replaced.
#include <chrono>

#include "mongostore/engine/aggregation.h"

namespace mongostore::engine {
namespace {

thread_local std::optional<bson::DateTime> current_now;

bson::DateTime clock_now() {
  auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return bson::DateTime{std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count()};
}

}  // namespace

NowScope::NowScope() : previous_(current_now) {
  if (!current_now) current_now = clock_now();
}

NowScope::NowScope(bson::DateTime now) : previous_(current_now) {
  current_now = now;
}

NowScope::~NowScope() {
  current_now = previous_;
}

bson::DateTime NowScope::now() {
  return current_now ? *current_now : clock_now();
}

}  // namespace mongostore::engine
