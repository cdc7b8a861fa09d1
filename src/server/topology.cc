#include "server/topology.h"

#include <chrono>

namespace mongostore::server {
namespace {

bson::DateTime date_of(bson::Timestamp t) {
  return bson::DateTime{static_cast<int64_t>(t.seconds) * 1000};
}

bson::DateTime wall_now() {
  return bson::DateTime{std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count()};
}

// mongod's electionId under protocol version 1: the maximum timestamp, then the term.
const bson::ObjectId kElectionId = bson::ObjectId::from_hex("7fffffff0000000000000001");
constexpr int64_t kTerm = 1;

}  // namespace

Topology::Topology(bool standalone, std::string set_name, std::string advertised)
    : standalone_(standalone),
      set_name_(std::move(set_name)),
      advertised_(std::move(advertised)),
      process_id_(bson::ObjectId::generate()),
      clock_(),
      started_(clock_.now()) {}

void Topology::append_op_time(bson::DocumentBuilder& b, std::string_view key,
                              bson::Timestamp t) const {
  b.open_document(key).append("ts", t).append("t", kTerm).close();
}

void Topology::append_hello(bson::DocumentBuilder& b) const {
  if (standalone_) return;
  b.open_document("topologyVersion")
      .append("processId", process_id_)
      .append("counter", int64_t{0})
      .close();
  b.open_array("hosts").push(advertised_).close();
  b.append("setName", set_name_);
  b.append("setVersion", int32_t{1});
  b.append("secondary", false);
  b.append("primary", advertised_);
  b.append("me", advertised_);
  b.append("electionId", kElectionId);
  bson::Timestamp last = clock_.now();
  b.open_document("lastWrite");
  append_op_time(b, "opTime", last);
  b.append("lastWriteDate", date_of(last));
  append_op_time(b, "majorityOpTime", last);
  b.append("majorityWriteDate", date_of(last));
  b.close();
}

void Topology::append_cluster_time(bson::DocumentBuilder& b, bson::Timestamp operation_time) const {
  static const uint8_t kZeroHash[20] = {};
  b.append("operationTime", operation_time);
  b.open_document("$clusterTime")
      .append("clusterTime", clock_.now())
      .open_document("signature")
      .append("hash", bson::BinaryView{0, std::span<const uint8_t>(kZeroHash, 20)})
      .append("keyId", int64_t{0})
      .close()
      .close();
}

void Topology::append_status(bson::DocumentBuilder& b, int64_t uptime_seconds) const {
  bson::Timestamp last = clock_.now();
  bson::DateTime now = wall_now();
  b.append("set", set_name_);
  b.append("date", now);
  b.append("myState", int32_t{1});
  b.append("term", kTerm);
  b.append("syncSourceHost", "");
  b.append("syncSourceId", int32_t{-1});
  b.append("heartbeatIntervalMillis", int64_t{2000});
  b.append("majorityVoteCount", int32_t{1});
  b.append("writeMajorityCount", int32_t{1});
  b.append("votingMembersCount", int32_t{1});
  b.append("writableVotingMembersCount", int32_t{1});
  b.open_document("optimes");
  append_op_time(b, "lastCommittedOpTime", last);
  b.append("lastCommittedWallTime", date_of(last));
  append_op_time(b, "readConcernMajorityOpTime", last);
  append_op_time(b, "appliedOpTime", last);
  append_op_time(b, "durableOpTime", last);
  b.append("lastAppliedWallTime", date_of(last));
  b.append("lastDurableWallTime", date_of(last));
  b.close();
  b.open_array("members");
  b.push_document();
  b.append("_id", int32_t{0});
  b.append("name", advertised_);
  b.append("health", 1.0);
  b.append("state", int32_t{1});
  b.append("stateStr", "PRIMARY");
  b.append("uptime", uptime_seconds);
  append_op_time(b, "optime", last);
  b.append("optimeDate", date_of(last));
  b.append("lastAppliedWallTime", date_of(last));
  b.append("lastDurableWallTime", date_of(last));
  b.append("syncSourceHost", "");
  b.append("syncSourceId", int32_t{-1});
  b.append("infoMessage", "");
  b.append("electionTime", started_);
  b.append("electionDate", date_of(started_));
  b.append("configVersion", int32_t{1});
  b.append("configTerm", kTerm);
  b.append("self", true);
  b.append("lastHeartbeatMessage", "");
  b.close();
  b.close();
}

}  // namespace mongostore::server
