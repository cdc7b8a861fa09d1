// Topology: what the server says it is. By default `mongostore serve` is the primary of a
// one-member replica set (so drivers use sessions, transactions and retryable writes); with
// --standalone it answers as a standalone mongod does.
//
// A one-member set never elects, steps down or changes configuration, so everything here is
// fixed for the life of the process but the cluster time (LogicalClock):
//   - setName (--replSet, default rs0), setVersion 1, term 1;
//   - `me`, `primary` and the one `hosts` entry: the advertised address (--advertise, default
//     the bound address and port), which clients that discover the set connect to;
//   - electionId: ObjectId("7fffffff0000000000000001"), mongod's id for an election in
//     term 1 (it is derived from the term, so it is the same across restarts, as it is on a
//     mongod that never had another election);
//   - topologyVersion: {processId: an ObjectId new per process, counter: 0}; the counter
//     never moves since nothing about the topology ever changes.
//
// Thread safety: set_advertised() is called once before the server serves; every other
// member may be called from any thread at once.
#pragma once

#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/types.h"
#include "server/logical_clock.h"

namespace mongostore::server {

class Topology {
 public:
  /// `standalone`: answer as a standalone mongod (no setName, no cluster time).
  Topology(bool standalone, std::string set_name, std::string advertised);

  bool replica_set() const { return !standalone_; }
  const std::string& set_name() const { return set_name_; }
  const std::string& advertised() const { return advertised_; }
  /// Sets the advertised "host:port" (when the port is known: after binding).
  void set_advertised(std::string host_port) { advertised_ = std::move(host_port); }

  LogicalClock& clock() { return clock_; }
  const LogicalClock& clock() const { return clock_; }
  const bson::ObjectId& process_id() const { return process_id_; }

  /// hello's replica-set fields (setName, setVersion, hosts, primary, me, electionId,
  /// secondary, lastWrite, topologyVersion); nothing for a standalone.
  void append_hello(bson::DocumentBuilder& b) const;

  /// `operationTime` and `$clusterTime` (with the zero signature of a server without keys),
  /// added to every reply in replica-set mode.
  void append_cluster_time(bson::DocumentBuilder& b, bson::Timestamp operation_time) const;

  /// replSetGetStatus's fields for the one member; `uptime_seconds` is the server's.
  void append_status(bson::DocumentBuilder& b, int64_t uptime_seconds) const;

 private:
  void append_op_time(bson::DocumentBuilder& b, std::string_view key, bson::Timestamp t) const;

  const bool standalone_;
  const std::string set_name_;
  std::string advertised_;
  const bson::ObjectId process_id_;
  LogicalClock clock_;  // before started_, which is read from it
  const bson::Timestamp started_;
};

}  // namespace mongostore::server
