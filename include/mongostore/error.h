// Errors raised by every layer of mongostore.
//
// Each error carries MongoDB's numeric code and code name, so a caller can react to
// `DuplicateKey` the same way whether the store runs on the embedded engine or on a real
// MongoDB deployment. The set of codes is MongoDB's; see
// https://www.mongodb.com/docs/manual/reference/error-codes/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mongostore {

/// MongoDB error codes used by mongostore. The numeric values are MongoDB's own.
enum class ErrorCode : int32_t {
  kOk = 0,
  kInternalError = 1,
  kBadValue = 2,
  kNoSuchKey = 4,
  kFailedToParse = 9,
  kUserNotFound = 11,
  kUnauthorized = 13,
  kTypeMismatch = 14,
  kOverflow = 15,  // nesting deeper than MongoDB's limits
  kInvalidLength = 16,
  kProtocolError = 17,          // a malformed authentication conversation
  kAuthenticationFailed = 18,   // wrong password, unknown user: deliberately indistinguishable
  kMechanismUnavailable = 334,  // an authentication mechanism mongostore does not offer
  kIllegalOperation = 20,
  kNamespaceNotFound = 26,
  kIndexNotFound = 27,
  kPathNotViable = 28,
  kConflictingUpdateOperators = 40,
  kCursorNotFound = 43,
  kNamespaceExists = 48,
  kDollarPrefixedFieldName = 52,
  kEmptyFieldName = 56,
  kInvalidIdField = 53,
  kNotSingleValueField = 54,
  kCommandNotFound = 59,
  kImmutableField = 66,
  kCannotCreateIndex = 67,
  kIndexAlreadyExists = 68,
  kInvalidOptions = 72,
  kInvalidNamespace = 73,
  kUnknownReplWriteConcern = 79,
  kIndexOptionsConflict = 85,
  kIndexKeySpecsConflict = 86,
  kNetworkTimeout = 89,
  kUnsatisfiableWriteConcern = 100,
  kWriteConflict = 112,
  kNoSuchTransaction = 251,
  kTransactionCommitted = 256,
  kTransactionTooOld = 225,
  kOperationNotSupportedInTransaction = 263,
  kTransactionExceededLifetimeLimitSeconds = 290,
  kIncompleteTransactionHistory = 217,
  kNoSuchSession = 206,
  kNotAReplicaSet = 123,
  kDocumentValidationFailure = 121,
  kAPIVersionError = 322,
  kAPIStrictError = 323,
  kExceededMemoryLimit = 146,
  kMaxSubPipelineDepthExceeded = 232,
  kQueryFeatureNotAllowed = 224,
  kNotImplemented = 238,  // "NotImplemented": a feature mongostore does not support
  kInvalidBSON = 22,
  kDataCorruptionDetected = 12,  // stored bytes that cannot be what mongostore wrote
  kHostUnreachable = 6,
  kHostNotFound = 7,
  kUnknownError = 8,
  kCannotBackfillArray = 34,
  kCannotIndexParallelArrays = 171,
  kQueryPlanKilled = 175,
  kAmbiguousIndexKeyPattern = 181,
  kIndexBuildAborted = 276,
  kUnsatisfiableCommitQuorum = 278,
  kQueryExceededMemoryLimitNoDiskUseAllowed = 292,
  kLockBusy = 46,
  kExceededTimeLimit = 50,
  kInvalidPath = 30,
  kRoleNotFound = 31,
  kOperationFailed = 96,
  kDataDirectoryInvalid = 10000001,  // mongostore-specific: the data directory is unusable
  kDuplicateKey = 11000,
  kOutOfDiskSpace = 14031,  // the data directory's filesystem is (nearly) full
  kBSONObjectTooLarge = 10334,
  kLocation16755 = 16755,
  kUnknownField = 40415,  // "Location40415": a command or statement field MongoDB does not know
};

/// MongoDB's code name for `code` ("DuplicateKey", "BadValue", ...). Codes of 10000 and up
/// that have no name are mongod's assertion locations, named "Location<code>" as mongod does;
/// "UnknownError" for any other code mongostore does not know.
std::string_view code_name(ErrorCode code);
std::string_view code_name(int32_t code);

/// MongoDB's error labels: what a client may do about an error, independent of its code.
/// A transaction that failed with TransientTransactionError may be retried from its start;
/// a commit that failed with UnknownTransactionCommitResult may be retried as a commit.
inline constexpr std::string_view kTransientTransactionError = "TransientTransactionError";
inline constexpr std::string_view kUnknownTransactionCommitResult =
    "UnknownTransactionCommitResult";
inline constexpr std::string_view kRetryableWriteError = "RetryableWriteError";

/// The base of every error mongostore raises. `what()` is the human-readable message
/// (MongoDB's `errmsg`); `code()` and `code_name()` identify the condition; `labels()` are
/// MongoDB's `errorLabels`.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message)
      : std::runtime_error(std::move(message)), code_(static_cast<int32_t>(code)) {}
  Error(int32_t code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}

  int32_t code() const { return code_; }
  ErrorCode error_code() const { return static_cast<ErrorCode>(code_); }
  std::string_view code_name() const { return mongostore::code_name(code_); }

  const std::vector<std::string>& labels() const { return labels_; }
  bool has_label(std::string_view label) const {
    return std::find(labels_.begin(), labels_.end(), label) != labels_.end();
  }
  /// Adds `label` once; returns *this so a throw can label in place.
  Error& add_label(std::string_view label) {
    if (!has_label(label)) labels_.emplace_back(label);
    return *this;
  }

 private:
  int32_t code_;
  std::vector<std::string> labels_;
};

}  // namespace mongostore
