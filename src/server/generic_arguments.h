// The fields any command may carry besides its own (mongod's "generic arguments": $db, lsid,
// $clusterTime, $readPreference, comment, maxTimeMS, apiVersion, apiStrict,
// apiDeprecationErrors, txnNumber, and readConcern / writeConcern where the command takes
// them), checked as a standalone mongod 7.0 checks them.
//
// mongostore serve is a standalone server (hello has no setName), so the write and read
// concerns that only a replica set can honour fail as they do on a standalone mongod:
// `w` > 1 and `w` tag sets fail BadValue (2), `w` outside 0..50 fails FailedToParse (9), and
// readConcern levels "linearizable" and "snapshot" fail NotAReplicaSet (123). Every check
// throws mongostore::Error; none has side effects.
#pragma once

#include <string_view>

#include "mongostore/bson/document.h"

namespace mongostore::server {

/// What a command allows of the generic arguments.
struct GenericArgumentRules {
  std::string_view command;
  /// The command takes `writeConcern` (it writes); otherwise it fails InvalidOptions (72).
  bool write_concern = false;
  /// The command takes `readConcern` (it reads documents); otherwise InvalidOptions (72).
  bool read_concern = false;
  /// The command is in the Stable API, version 1 (else `apiStrict: true` fails 323).
  bool api_v1 = false;
};

/// The generic arguments of one command that its handling reads after the checks (views into
/// the command document; missing when absent).
struct GenericArguments {
  bson::Value write_concern;
  bson::Value read_concern;
};

/// Whether `field` is one of the generic arguments (whether or not this command allows it).
bool is_generic_argument(std::string_view field);

/// Checks the generic arguments of `command` against `rules` and returns those the command's
/// handling reads.
GenericArguments check_generic_arguments(const bson::DocumentView& command,
                                         const GenericArgumentRules& rules);

/// Checks a `writeConcern` value as a standalone mongod does.
void check_write_concern(const bson::Value& write_concern);

/// Checks a `readConcern` value as a standalone mongod does.
void check_read_concern(const bson::Value& read_concern);

}  // namespace mongostore::server
