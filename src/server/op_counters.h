// OpCounters: serverStatus.opcounters, the commands run since the server started by kind
// (mongod's: insert, query, update, delete, getmore, command). The dispatcher counts each
// command it runs once it has passed its checks; a write's statements count as one.
//
// Thread safety: every member may be called from any thread at once (relaxed counters: a
// serverStatus reads each one as it is, not all at one instant, as on mongod).
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace mongostore::server {

struct OpCounters {
  std::atomic<int64_t> insert{0}, query{0}, update{0}, remove{0}, getmore{0}, command{0};

  /// Counts one run of the command named `name` (as sent: an alias counts as its command).
  void count(std::string_view name) {
    if (name == "insert") {
      ++insert;
    } else if (name == "find") {
      ++query;
    } else if (name == "update" || name == "findAndModify" || name == "findandmodify") {
      ++update;
    } else if (name == "delete") {
      ++remove;
    } else if (name == "getMore") {
      ++getmore;
    } else {
      ++command;
    }
  }
};

}  // namespace mongostore::server
