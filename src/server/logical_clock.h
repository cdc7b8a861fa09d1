// LogicalClock: the server's cluster time, the Timestamp replies carry as `operationTime`
// and `$clusterTime.clusterTime` in replica-set mode.
//
// On a replica set the cluster time is the optime of the last oplog entry; mongostore has no
// oplog, so the clock advances by one tick per acknowledged write instead: seconds follow the
// wall clock, the increment orders writes within a second, and the value never goes back
// (a wall clock stepping backwards keeps the last seconds and bumps the increment). A client
// that read `operationTime` after a write and sends it back as readConcern.afterClusterTime
// therefore always names a time this server has reached.
//
// Thread safety: every member may be called from any thread at once.
#pragma once

#include <mutex>

#include "mongostore/bson/types.h"

namespace mongostore::server {

class LogicalClock {
 public:
  LogicalClock();

  /// The latest time reached (a write acknowledged at or before now has a time <= this).
  bson::Timestamp now() const;

  /// Advances the clock for one write and returns the write's time (strictly greater than
  /// every time returned before).
  bson::Timestamp tick();

 private:
  mutable std::mutex mutex_;
  bson::Timestamp last_;
};

}  // namespace mongostore::server
