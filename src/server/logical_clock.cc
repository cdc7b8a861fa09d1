#include "server/logical_clock.h"

#include <chrono>

namespace mongostore::server {
namespace {

uint32_t wall_seconds() {
  return static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

// A fresh server starts at (now, 1): mongod's clusterTime is never the null Timestamp once
// it serves, and drivers treat (0, 0) as "no time".
LogicalClock::LogicalClock() : last_{wall_seconds(), 1} {}

bson::Timestamp LogicalClock::now() const {
  std::lock_guard lock(mutex_);
  return last_;
}

bson::Timestamp LogicalClock::tick() {
  std::lock_guard lock(mutex_);
  uint32_t seconds = wall_seconds();
  if (seconds > last_.seconds) {
    last_ = {seconds, 1};
  } else {
    ++last_.increment;
  }
  return last_;
}

}  // namespace mongostore::server
