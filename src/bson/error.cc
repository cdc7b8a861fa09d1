#include "mongostore/error.h"

#include <map>
#include <mutex>
#include <string>

namespace mongostore {

namespace {

// mongod names a code it raises from one place in its source (an assertion "location", not in
// its list of named codes) "Location<code>"; those codes are all 10000 or more.
std::string_view location_name(int32_t code) {
  static std::mutex mutex;
  static std::map<int32_t, std::string> names;  // never shrinks: the views stay valid
  std::lock_guard<std::mutex> lock(mutex);
  auto it = names.find(code);
  if (it == names.end()) it = names.emplace(code, "Location" + std::to_string(code)).first;
  return it->second;
}

}  // namespace

std::string_view code_name(int32_t code) {
  switch (code) {
    case 0:
      return "OK";
    case 1:
      return "InternalError";
    case 2:
      return "BadValue";
    case 4:
      return "NoSuchKey";
    case 6:
      return "HostUnreachable";
    case 7:
      return "HostNotFound";
    case 8:
      return "UnknownError";
    case 9:
      return "FailedToParse";
    case 11:
      return "UserNotFound";
    case 13:
      return "Unauthorized";
    case 14:
      return "TypeMismatch";
    case 15:
      return "Overflow";
    case 16:
      return "InvalidLength";
    case 17:
      return "ProtocolError";
    case 18:
      return "AuthenticationFailed";
    case 31:
      return "RoleNotFound";
    case 334:
      return "MechanismUnavailable";
    case 20:
      return "IllegalOperation";
    case 22:
      return "InvalidBSON";
    case 12:
      return "DataCorruptionDetected";
    case 26:
      return "NamespaceNotFound";
    case 27:
      return "IndexNotFound";
    case 181:
      return "AmbiguousIndexKeyPattern";
    case 28:
      return "PathNotViable";
    case 30:
      return "InvalidPath";
    case 34:
      return "CannotBackfillArray";
    case 40:
      return "ConflictingUpdateOperators";
    case 43:
      return "CursorNotFound";
    case 46:
      return "LockBusy";
    case 50:
      return "ExceededTimeLimit";
    case 48:
      return "NamespaceExists";
    case 52:
      return "DollarPrefixedFieldName";
    case 53:
      return "InvalidIdField";
    case 56:
      return "EmptyFieldName";
    case 54:
      return "NotSingleValueField";
    case 59:
      return "CommandNotFound";
    case 66:
      return "ImmutableField";
    case 67:
      return "CannotCreateIndex";
    case 68:
      return "IndexAlreadyExists";
    case 72:
      return "InvalidOptions";
    case 73:
      return "InvalidNamespace";
    case 24:
      return "LockTimeout";
    case 76:
      return "NoReplicationEnabled";
    case 91:
      return "ShutdownInProgress";
    case 117:
      return "ConflictingOperationInProgress";
    case 189:
      return "PrimarySteppedDown";
    case 261:
      return "TooManyLogicalSessions";
    case 262:
      return "ExceededTimeLimit";
    case 9001:
      return "SocketException";
    case 79:
      return "UnknownReplWriteConcern";
    case 85:
      return "IndexOptionsConflict";
    case 86:
      return "IndexKeySpecsConflict";
    case 89:
      return "NetworkTimeout";
    case 96:
      return "OperationFailed";
    case 100:
      return "UnsatisfiableWriteConcern";
    case 112:
      return "WriteConflict";
    case 206:
      return "NoSuchSession";
    case 217:
      return "IncompleteTransactionHistory";
    case 225:
      return "TransactionTooOld";
    case 251:
      return "NoSuchTransaction";
    case 256:
      return "TransactionCommitted";
    case 263:
      return "OperationNotSupportedInTransaction";
    case 290:
      return "TransactionExceededLifetimeLimitSeconds";
    case 121:
      return "DocumentValidationFailure";
    case 123:
      return "NotAReplicaSet";
    case 146:
      return "ExceededMemoryLimit";
    case 232:
      return "MaxSubPipelineDepthExceeded";
    case 224:
      return "QueryFeatureNotAllowed";
    case 238:
      return "NotImplemented";
    case 171:
      return "CannotIndexParallelArrays";
    case 175:
      return "QueryPlanKilled";
    case 322:
      return "APIVersionError";
    case 323:
      return "APIStrictError";
    case 276:
      return "IndexBuildAborted";
    case 278:
      return "UnsatisfiableCommitQuorum";
    case 292:
      return "QueryExceededMemoryLimitNoDiskUseAllowed";
    case 10334:
      return "BSONObjectTooLarge";
    case 14031:
      return "OutOfDiskSpace";
    case 11000:
      return "DuplicateKey";
    case 13113:
      return "MergeStageNoMatchingDocument";
    case 10000001:
      return "DataDirectoryInvalid";
    case 10107:
      return "NotWritablePrimary";
    case 11600:
      return "InterruptedAtShutdown";
    case 11601:
      return "Interrupted";
    case 11602:
      return "InterruptedDueToReplStateChange";
    case 13435:
      return "NotPrimaryNoSecondaryOk";
    case 13436:
      return "NotPrimaryOrSecondary";
    default:
      return code >= 10000 ? location_name(code) : "UnknownError";
  }
}

std::string_view code_name(ErrorCode code) {
  return code_name(static_cast<int32_t>(code));
}

}  // namespace mongostore
