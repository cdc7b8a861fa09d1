// FailCommand: mongod's `failCommand` fail point, the one drivers' test suites configure
// (configureFailPoint: "failCommand"), so a client's error handling can be tested against
// mongostore serve. Available only when the server runs with --enableTestCommands.
//
//   {configureFailPoint: "failCommand",
//    mode: "alwaysOn" | "off" | {times: n} | {skip: n},
//    data: {failCommands: [names], errorCode, errorLabels, closeConnection,
//           blockConnection, blockTimeMS, writeConcernError, appName}}
//
// A command whose name is in failCommands (and, with appName, whose connection's handshake
// named that application) triggers it while the mode allows: it is blocked blockTimeMS first
// (blockConnection), then its connection is closed without a reply (closeConnection), or it
// fails with errorCode (and exactly errorLabels when given; otherwise the labels mongod would
// add), or it runs and its reply carries writeConcernError. {times: n} triggers n times then
// turns off; {skip: n} lets n matching commands through first. Other modes
// (activationProbability, nTimes with skip) fail NotImplemented; malformed data fails as
// mongod's parser does (TypeMismatch, BadValue).
//
// Thread safety: every member may be called from any thread at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"

namespace mongostore::server {

/// What a triggered failCommand does to one command.
struct FailCommandAction {
  std::chrono::milliseconds block{0};
  bool close_connection = false;
  std::optional<int32_t> error_code;
  /// Set when data.errorLabels was given: exactly these labels (possibly none).
  std::optional<std::vector<std::string>> error_labels;
  /// data.writeConcernError, added to the reply of a command that ran.
  std::optional<bson::Document> write_concern_error;
};

class FailCommand {
 public:
  /// configureFailPoint's mode and data; returns how many times the fail point triggered
  /// under its previous configuration (the reply's `count`).
  int64_t configure(const bson::Value& mode, const bson::Value& data);

  /// Whether command `name`, on a connection whose application is `app_name`, is failed, and
  /// how (counting it against times / skip).
  std::optional<FailCommandAction> evaluate(std::string_view name, std::string_view app_name);

  /// True while configured on (a cheap check for the network threads).
  bool active() const { return active_.load(std::memory_order_relaxed); }

 private:
  std::mutex mutex_;
  std::atomic<bool> active_{false};
  int64_t times_left_ = -1;  // -1: alwaysOn
  int64_t skip_left_ = 0;
  int64_t triggered_ = 0;
  std::vector<std::string> commands_;
  std::string app_name_;
  FailCommandAction action_;
};

}  // namespace mongostore::server
