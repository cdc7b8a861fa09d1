// A runner for MongoDB's unified-format specification tests
// (source/unified-test-format/unified-test-format.md in mongodb/specifications), over the
// Client seam with a fresh client per test: embedded in-memory by default, or a Target that
// names another (spec_test.cc runs the CRUD files through `mongostore serve` too, and the
// transactions files only there).
//
// What it supports: runOnRequirements against the Target's topology (MongoDB 7.0 without
// auth; "single" for the embedded client, "replicaset" for `mongostore serve`),
// client/database/collection/session entities, initialData, the CRUD operations the seam
// has, the `session` argument (the operation runs on the session's client()), the session
// operations startTransaction / commitTransaction / abortTransaction / endSession, the
// testRunner operations failPoint / targetedFailPoint (when the Target can run
// configureFailPoint), assertSessionTransactionState, assertSessionUnpinned (no mongos: a
// session is never pinned), assertCollectionExists / NotExists, the matching rules of
// expectResult and expectError (error labels included), expectEvents for command events
// (when the Target monitors its clients' commands: the remote client), and outcome.
// bulkWrite and unordered insertMany run through client::bulk_write, whose BulkWriteError
// carries the partial result that expectError.expectResult is matched against. Everything
// else — options the seam lacks, unacknowledged writes, operations it does not have, events
// of a client that is not monitored — makes the test skipped with a reason naming it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/command_monitoring.h"
#include "mongostore/bson/document.h"
#include "mongostore/client/client.h"

namespace mongostore::spec {

/// The server version requirements are evaluated against.
inline constexpr const char* kServerVersion = "7.0.0";

enum class Status { kPassed, kFailed, kSkipped };

struct TestResult {
  std::string description;
  Status status = Status::kPassed;
  /// The skip reason, or the failure: the operation and the mismatch path.
  std::string detail;
  /// Set when the test is listed in known_gaps.cc but passed (the entry is stale).
  bool stale_known_gap = false;
};

struct FileResult {
  std::string file;  // base name, e.g. "findOneAndUpdate.json"
  /// Set when the file itself could not be read or parsed (then `tests` is empty).
  std::string error;
  std::vector<TestResult> tests;

  int count(Status s) const {
    int n = 0;
    for (const auto& t : tests) n += t.status == s;
    return n;
  }
};

/// The specs directory: $MONGOSTORE_SPECS_DIR, else the compiled-in default (support/test_paths.h);
/// empty when neither names an existing directory (`*why` then says what was looked for).
std::string specs_dir(std::string* why);

/// The *.json files of `dir`, sorted by name (full paths).
std::vector<std::string> list_spec_files(const std::string& dir);

/// Hands out the client each test runs on, holding no data (initialData then loads it).
using ClientFactory = std::function<std::shared_ptr<client::Client>()>;

/// A fresh embedded in-memory client per test.
std::shared_ptr<client::Client> fresh_embedded_client();

/// Where a file runs.
struct Target {
  /// The topology runOnRequirements are checked against ("single", "replicaset").
  std::string topology = "single";
  /// The client of each test's setup (initialData, outcome, assertCollectionExists), holding
  /// no data.
  ClientFactory fresh_client = fresh_embedded_client;
  /// Makes the client of a client entity, with the entity's uriOptions, reporting every
  /// command it sends to `observer`. Unset: client entities share the setup client, whose
  /// commands are not observed (a test that expects events then skips).
  std::function<std::shared_ptr<client::Client>(bson::DocumentView uri_options,
                                                client::CommandObserver observer)>
      entity_client;
  /// Runs an admin command on the deployment (configureFailPoint for failPoint and
  /// targetedFailPoint); throws mongostore::Error when it fails. Unset: tests with fail
  /// points skip.
  std::function<void(bson::DocumentView command)> admin_command;
};

/// Runs every test of one unified-format file on `target`.
FileResult run_spec_file(const std::string& path, const Target& target);

/// Runs every test of one unified-format file on clients from `fresh_client` (topology
/// "single", no monitoring, no fail points).
FileResult run_spec_file(const std::string& path,
                         const ClientFactory& fresh_client = fresh_embedded_client);

}  // namespace mongostore::spec
