#include "mongostore/records/errors.h"

namespace mongostore::records {

SchemaError::SchemaError(std::string message)
    : RecordStoreError(ErrorCode::kBadValue, std::move(message)) {}

RecordTooLargeError::RecordTooLargeError(std::string collection, int64_t size, int64_t limit)
    : RecordStoreError(ErrorCode::kBSONObjectTooLarge,
                       "record of '" + collection + "' is " + std::to_string(size) +
                           " bytes as BSON, over the limit of " + std::to_string(limit) +
                           " bytes; nothing was written"),
      collection_(std::move(collection)),
      size_(size),
      limit_(limit) {}

StorageLayoutUpgradeRequiredError::StorageLayoutUpgradeRequiredError(std::string message,
                                                                     std::string diff_json,
                                                                     std::string hint)
    : RecordStoreError(ErrorCode::kOperationFailed, message + " (" + hint + ")"),
      diff_(std::move(diff_json)),
      hint_(std::move(hint)) {}

TransactionsUnavailableError::TransactionsUnavailableError(std::string message)
    : RecordStoreError(ErrorCode::kIllegalOperation, std::move(message)) {}

EntryReplacementError::EntryReplacementError(std::string table_name,
                                             std::string predecessor_logical_id,
                                             std::string conflicting_logical_id)
    : RecordStoreError(ErrorCode::kOperationFailed, "cannot replace '" + predecessor_logical_id +
                                                        "' in '" + table_name + "' by '" +
                                                        conflicting_logical_id +
                                                        "': it already has a different successor"),
      table_name_(std::move(table_name)),
      predecessor_logical_id_(std::move(predecessor_logical_id)),
      conflicting_logical_id_(std::move(conflicting_logical_id)) {}

StoreClockRegressionError::StoreClockRegressionError(int64_t mark_ns, int64_t clock_ns)
    : RecordStoreError(ErrorCode::kOperationFailed,
                       "store clock regression: the store's timestamp mark " +
                           std::to_string(mark_ns) + " ns is ahead of the clock " +
                           std::to_string(clock_ns) + " ns"),
      mark_ns_(mark_ns),
      clock_ns_(clock_ns) {}

EntryMetadataConflictError::EntryMetadataConflictError(std::string path, std::string stored,
                                                       std::string received)
    : RecordStoreError(ErrorCode::kBadValue, "metadata conflict for " + path + ": stored " +
                                                 stored + ", received " + received),
      path_(std::move(path)) {}

EntryDispatchIntegrityError::EntryDispatchIntegrityError(std::string message)
    : RecordStoreError(ErrorCode::kOperationFailed, std::move(message)) {}

EntryLayoutBindingError::EntryLayoutBindingError(std::string message)
    : RecordStoreError(ErrorCode::kInvalidOptions, std::move(message)) {}

StoreLockedError::StoreLockedError(std::string message)
    : RecordStoreError(ErrorCode::kLockBusy, std::move(message)) {}

LeaseLostError::LeaseLostError(std::string message)
    : RecordStoreError(ErrorCode::kLockBusy, std::move(message)) {}

StorageProjectionCycleError::StorageProjectionCycleError(std::string path)
    : RecordStoreError(ErrorCode::kBadValue,
                       "cyclic storage projection at " + (path.empty() ? "<root>" : path)),
      path_(path.empty() ? "<root>" : std::move(path)) {}

UnsupportedQueryError::UnsupportedQueryError(std::string message)
    : RecordStoreError(ErrorCode::kNotImplemented, std::move(message)) {}

PaginationCursorError::PaginationCursorError(std::string message)
    : RecordStoreError(ErrorCode::kBadValue, std::move(message)) {}

NoResultError::NoResultError(std::string message)
    : RecordStoreError(ErrorCode::kNoSuchKey, std::move(message)) {}

MultipleResultsError::MultipleResultsError(std::string message)
    : RecordStoreError(ErrorCode::kOperationFailed, std::move(message)) {}

FilterTranslationError::FilterTranslationError(std::string category, std::string message)
    : RecordStoreError(ErrorCode::kBadValue, std::move(message)), category_(std::move(category)) {}

OptimadeFilterSyntaxError::OptimadeFilterSyntaxError(int64_t column, std::string expected,
                                                     std::string found)
    : FilterTranslationError("syntax", "OPTIMADE filter syntax error at column " +
                                           std::to_string(column) + ": expected " + expected +
                                           ", found " + found),
      column_(column),
      expected_(std::move(expected)),
      found_(std::move(found)) {}

RecordNotFound::RecordNotFound(std::string collection, int64_t sid)
    : RecordStoreError(ErrorCode::kNoSuchKey,
                       "no record with sid " + std::to_string(sid) + " in '" + collection + "'"),
      collection_(std::move(collection)),
      sid_(sid) {}

}  // namespace mongostore::records
