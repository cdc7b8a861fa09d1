#include "mongostore/exec/store_errors.h"

namespace mongostore::exec {
namespace {

std::string conflict_message(const std::string& id, int64_t expected,
                             const std::optional<int64_t>& found) {
  return "execution '" + id + "' was not at version " + std::to_string(expected) + " (" +
         (found ? "it is at version " + std::to_string(*found) : std::string("it does not exist")) +
         "): reload and retry";
}

}  // namespace

StoreConflict::StoreConflict(std::string execution_id, int64_t expected,
                             std::optional<int64_t> found)
    : Error(ErrorCode::kWriteConflict, conflict_message(execution_id, expected, found)),
      execution_id_(std::move(execution_id)),
      expected_(expected),
      found_(found) {}

ExecutionAlreadyExists::ExecutionAlreadyExists(std::string execution_id)
    : Error(ErrorCode::kDuplicateKey, "execution '" + execution_id + "' already exists"),
      execution_id_(std::move(execution_id)) {}

}  // namespace mongostore::exec
