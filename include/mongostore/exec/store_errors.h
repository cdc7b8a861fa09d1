// The typed errors of the ExecutionStore.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mongostore/error.h"

namespace mongostore::exec {

/// A commit lost the version check: the stored execution is not at `expected` (it is at
/// `found`, or absent when `found` is empty). The in-memory execution is left at `expected`;
/// reload and retry. Carries WriteConflict (112).
class StoreConflict : public Error {
 public:
  StoreConflict(std::string execution_id, int64_t expected, std::optional<int64_t> found);
  const std::string& execution_id() const { return execution_id_; }
  int64_t expected() const { return expected_; }
  std::optional<int64_t> found() const { return found_; }

 private:
  std::string execution_id_;
  int64_t expected_;
  std::optional<int64_t> found_;
};

/// create() with a caller-chosen id that is taken. Carries DuplicateKey (11000).
class ExecutionAlreadyExists : public Error {
 public:
  explicit ExecutionAlreadyExists(std::string execution_id);
  const std::string& execution_id() const { return execution_id_; }

 private:
  std::string execution_id_;
};

}  // namespace mongostore::exec
