#include "mongostore/error.h"

namespace mongostore {

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
    case 13:
      return "Unauthorized";
    case 14:
      return "TypeMismatch";
    case 16:
      return "InvalidLength";
    case 20:
      return "IllegalOperation";
    case 22:
      return "InvalidBSON";
    case 26:
      return "NamespaceNotFound";
    case 27:
      return "IndexNotFound";
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
    case 85:
      return "IndexOptionsConflict";
    case 86:
      return "IndexKeySpecsConflict";
    case 89:
      return "NetworkTimeout";
    case 96:
      return "OperationFailed";
    case 112:
      return "WriteConflict";
    case 238:
      return "NotImplemented";
    case 171:
      return "CannotIndexParallelArrays";
    case 175:
      return "QueryPlanKilled";
    case 276:
      return "IndexBuildAborted";
    case 292:
      return "QueryExceededMemoryLimitNoDiskUseAllowed";
    case 10334:
      return "BSONObjectTooLarge";
    case 11000:
      return "DuplicateKey";
    case 16755:
      return "Location16755";
    case 40415:
      return "Location40415";
    case 10000001:
      return "DataDirectoryInvalid";
    default:
      return "UnknownError";
  }
}

std::string_view code_name(ErrorCode code) {
  return code_name(static_cast<int32_t>(code));
}

}  // namespace mongostore
