// OperationRegistry: the commands running on this server now, for currentOp and killOp.
//
// The dispatcher enters each command for the length of its run (an Operation handle, RAII);
// describe() answers with one currentOp document per running command. The registry keeps a
// view of the command document, not a copy (an insert's documents can be 48 MB): the
// Operation handle must not outlive the command document it was given, and since the entry
// leaves the registry (under the registry's mutex) when the handle is destroyed, describe()
// never reads a command that is gone.
//
// Thread safety: every member may be called from any thread at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::server {

class OperationRegistry {
 public:
  class Operation {
   public:
    ~Operation();
    Operation(const Operation&) = delete;
    Operation& operator=(const Operation&) = delete;
    int64_t opid() const { return opid_; }

   private:
    friend class OperationRegistry;
    Operation(OperationRegistry& registry, int64_t opid) : registry_(registry), opid_(opid) {}
    OperationRegistry& registry_;
    int64_t opid_;
  };

  /// Registers a command (`name` is its first field, `db` its database) until the returned
  /// handle is destroyed. `command` must outlive the handle.
  Operation enter(bson::DocumentView command, std::string db, std::string name,
                  int64_t connection_id, std::string client);

  /// currentOp's description of each running command ({type, opid, active, op, ns, command,
  /// secs_running, microsecs_running, connectionId, client, desc, host}), in opid order.
  /// Commands larger than 1 KB are shown cut, as mongod shows them.
  std::vector<bson::Document> describe() const;

  /// Whether `opid` is running now.
  bool running(int64_t opid) const;

 private:
  struct Entry {
    bson::DocumentView command;
    std::string db;
    std::string name;
    int64_t connection_id;
    std::string client;
    std::chrono::steady_clock::time_point start;
  };

  mutable std::mutex mutex_;
  std::map<int64_t, Entry> entries_;
  int64_t next_opid_ = 1;
};

}  // namespace mongostore::server
