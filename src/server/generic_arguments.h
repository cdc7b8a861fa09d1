// The fields any command may carry besides its own (mongod's "generic arguments": $db, lsid,
// $clusterTime, $readPreference, comment, maxTimeMS, apiVersion, apiStrict,
// apiDeprecationErrors, txnNumber, autocommit, startTransaction, and readConcern /
// writeConcern where the command takes them), checked as mongod 7.0 checks them: as the
// primary of a one-member replica set (serve's default) or as a standalone (--standalone).
//
// Standalone: the write and read concerns only a replica set can honour fail as they do on a
// standalone mongod: `w` > 1 and `w` tag sets fail BadValue (2), readConcern levels
// "linearizable" and "snapshot" fail NotAReplicaSet (123), afterClusterTime is refused.
// Replica set: `w` > 1 cannot be satisfied by one member and a named mode or tag set is not
// in its configuration: the command runs and its reply carries a writeConcernError
// (UnsatisfiableWriteConcern 100, UnknownReplWriteConcern 79), as mongod answers;
// "linearizable" is accepted (one member's committed state is linearizable); "snapshot" is
// accepted in a transaction only (mongostore's find and aggregate outside a transaction do
// not read one snapshot across batches, so it is refused there, NotImplemented);
// afterClusterTime must be a Timestamp no later than the server's cluster time
// (InvalidOptions, 72, otherwise, mongod's answer), and there is nothing to wait for.
// In both modes `w` outside 0..50 fails FailedToParse (9). Every check throws
// mongostore::Error; none has side effects.
#pragma once

#include <optional>
#include <string_view>

#include "mongostore/bson/document.h"
#include "mongostore/error.h"

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
  /// The server answers as a replica set member (otherwise as a standalone).
  bool replica_set = false;
  /// The command is a statement of a multi-document transaction (readConcern snapshot is
  /// allowed in it).
  bool in_transaction = false;
  /// The server's cluster time (afterClusterTime may not be later).
  bson::Timestamp cluster_time;
};

/// The topology a concern is checked against.
struct ConcernContext {
  bool replica_set = false;
  bool in_transaction = false;
  bson::Timestamp cluster_time;
};

/// The generic arguments of one command that its handling reads after the checks (views into
/// the command document; missing when absent).
struct GenericArguments {
  bson::Value write_concern;
  bson::Value read_concern;
  /// What the write concern cannot be satisfied with on this server (replica-set mode): the
  /// command runs and its reply carries it as `writeConcernError`.
  std::optional<Error> write_concern_error;
};

/// Whether `field` is one of the generic arguments (whether or not this command allows it).
bool is_generic_argument(std::string_view field);

/// Checks the generic arguments of `command` against `rules` and returns those the command's
/// handling reads.
GenericArguments check_generic_arguments(const bson::DocumentView& command,
                                         const GenericArgumentRules& rules);

/// Checks a `writeConcern` value as mongod does; returns the writeConcernError the command's
/// reply must carry (replica-set mode only), if any.
std::optional<Error> check_write_concern(const bson::Value& write_concern,
                                         const ConcernContext& context = {});

/// Checks a `readConcern` value as mongod does.
void check_read_concern(const bson::Value& read_concern, const ConcernContext& context = {});

}  // namespace mongostore::server
