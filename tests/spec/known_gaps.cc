#include "spec/known_gaps.h"

#include <vector>

namespace mongostore::spec {
namespace {

// {file, test description, reason}. Only behaviour MongoDB has and mongostore (or, through
// `mongostore serve`, the libmongoc the remote client is built on) does not; remove an entry
// as soon as it passes (the runner reports stale entries). Every CRUD spec test the runner
// executes passes.
constexpr const char* kCollectionCreation =
    "a collection created in a transaction is created at once, outside it: WiredTiger does not "
    "create tables transactionally (docs/transactions.md)";
constexpr const char* kBackpressure =
    "libmongoc 1.x does not retry on the SystemOverloadedError / RetryableError backpressure "
    "labels (a retry rule newer than the libmongoc here)";
constexpr const char* kCausalWrites =
    "the remote client sends a write outside a transaction through libmongoc's generic "
    "command API, which adds no readConcern.afterClusterTime of a causally consistent session "
    "(nor a retryable write's txnNumber)";
constexpr const char* kBulkBatches =
    "client::bulk_write sends each request as a command of its own; drivers batch consecutive "
    "requests of one kind";
const std::vector<KnownGap> kKnownGaps = {
    {"create-collection.json", "explicitly create collection using create command",
     kCollectionCreation},
    {"create-collection.json", "implicitly create collection using insert", kCollectionCreation},
    {"backpressure-retryable-writes.json", "writes are retried if backpressure labels are added",
     kBackpressure},
    {"backpressure-retryable-writes.json",
     "retry succeeds if backpressure labels are added to the first operation in a transaction",
     kBackpressure},
    {"backpressure-retryable-writes.json",
     "writes are retried maxAttempts=2 times if backpressure labels are added", kBackpressure},
    {"bulk.json", "bulk", kBulkBatches},
    {"commit.json", "reset session state commit", kCausalWrites},
    {"commit.json", "reset session state abort", kCausalWrites},
    {"retryable-writes.json", "increment txnNumber", kCausalWrites},
    {"error-labels.json",
     "add TransientTransactionError label to connection errors, but do not add "
     "RetryableWriteError label",
     "the remote client's aggregate asks for a first batch of 101 (cursor.batchSize); the test "
     "expects an empty cursor document"},
};

}  // namespace

const KnownGap* find_known_gap(std::string_view file, std::string_view description) {
  for (const auto& gap : kKnownGaps) {
    if (file == gap.file && description == gap.description) return &gap;
  }
  return nullptr;
}

}  // namespace mongostore::spec
