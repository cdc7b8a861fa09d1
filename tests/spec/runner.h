// A runner for MongoDB's unified-format specification tests
// (source/unified-test-format/unified-test-format.md in mongodb/specifications), over the
// Client seam with a fresh client per test: embedded in-memory by default, or any other
// (spec_test.cc also runs every file through `mongostore serve` with the remote client).
//
// What it supports: runOnRequirements (as a MongoDB 7.0 "single" server without auth),
// client/database/collection entities, initialData, the CRUD operations the seam has, the
// matching rules of expectResult and expectError, and outcome. bulkWrite and unordered
// insertMany run through client::bulk_write, whose BulkWriteError carries the partial result
// that expectError.expectResult is matched against. Everything else — sessions,
// fail points, options the seam lacks, unacknowledged writes, operations it does not have —
// makes the test skipped with a reason naming it. expectEvents is not checked (there is no
// command monitoring) but does not skip a test.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

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

/// Runs every test of one unified-format file on clients from `fresh_client`.
FileResult run_spec_file(const std::string& path,
                         const ClientFactory& fresh_client = fresh_embedded_client);

}  // namespace mongostore::spec
