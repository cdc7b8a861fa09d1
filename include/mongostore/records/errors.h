// The typed errors of the RecordStore (httk-store's MongoStore, reference §12).
//
// Every error is a RecordStoreError, which is a mongostore::Error, so a caller may catch the
// precise class, every RecordStore error at once, or any mongostore error, and may read the
// MongoDB code of each (below, per class) to react the same way as to a server error. httk's
// Python classes carry no codes; the codes are our choice, taken from MongoDB's list
// (include/mongostore/error.h) for the nearest meaning:
//
//   SchemaError                        BadValue (2)
//   RecordTooLargeError                BSONObjectTooLarge (10334)
//   StorageLayoutUpgradeRequiredError  OperationFailed (96)
//   TransactionsUnavailableError       IllegalOperation (20)
//   EntryReplacementError              OperationFailed (96)
//   StoreClockRegressionError          OperationFailed (96)
//   EntryMetadataConflictError         BadValue (2)
//   EntryDispatchIntegrityError        OperationFailed (96)
//   EntryLayoutBindingError            InvalidOptions (72)
//   StoreLockedError                   LockBusy (46)
//   LeaseLostError                     LockBusy (46)
//   StorageProjectionCycleError        BadValue (2)
//   UnsupportedQueryError              NotImplemented (238)
//   PaginationCursorError              BadValue (2)
//   NoResultError                      NoSuchKey (4)
//   MultipleResultsError               OperationFailed (96)
//   FilterTranslationError             BadValue (2)
//   OptimadeFilterSyntaxError          BadValue (2)    (a FilterTranslationError, "syntax")
//   RecordNotFound                     NoSuchKey (4)   (httk: KeyError of a missing sid)
//
// Thread safety: errors are immutable values once thrown.
#pragma once

#include <cstdint>
#include <string>

#include "mongostore/error.h"

namespace mongostore::records {

/// The base of every RecordStore error. `what()` is the message, `code()` MongoDB's code.
class RecordStoreError : public Error {
 public:
  RecordStoreError(ErrorCode code, std::string message) : Error(code, std::move(message)) {}
};

/// A record declaration (or a value given for it) that the store cannot represent: a reserved
/// field name (`sid`, `content_id`, `_httk_role`, `store_timestamp`, `logical_id`, `c_present`
/// beside an optional child `c`), an unsupported shape (unions, mappings, unshaped matrices,
/// fixed-arity tuples), a missing default of a Skip field, a non-optional field given None.
/// Raised at declaration (naming the field) or at save. BadValue (2).
class SchemaError : public RecordStoreError {
 public:
  explicit SchemaError(std::string message);
};

/// The size preflight of a save: the document of `collection` would exceed MongoDB's
/// 16 MiB BSON limit. Raised before anything of the save is written. BSONObjectTooLarge.
class RecordTooLargeError : public RecordStoreError {
 public:
  RecordTooLargeError(std::string collection, int64_t size, int64_t limit);
  const std::string& collection() const { return collection_; }
  int64_t size() const { return size_; }
  int64_t limit() const { return limit_; }

 private:
  std::string collection_;
  int64_t size_;
  int64_t limit_;
};

/// Opening a store whose stored layout or schema fingerprints differ from the declarations
/// in a way `upgrade` must settle (reference §8). `diff()` is the difference as JSON text (an
/// object per collection); `hint()` says what to do (e.g. call upgrade, or that the change is
/// not additive). OperationFailed (96).
class StorageLayoutUpgradeRequiredError : public RecordStoreError {
 public:
  StorageLayoutUpgradeRequiredError(std::string message, std::string diff_json, std::string hint);
  const std::string& diff() const { return diff_; }
  const std::string& hint() const { return hint_; }

 private:
  std::string diff_;
  std::string hint_;
};

/// Transaction mode `require` (or an explicit transaction() scope) on a deployment without
/// multi-document transactions (a standalone server, or the embedded engine before it has
/// them). IllegalOperation (20).
class TransactionsUnavailableError : public RecordStoreError {
 public:
  explicit TransactionsUnavailableError(std::string message);
};

/// A lineage replacement whose predecessor already has a different successor: saving
/// `conflicting_logical_id` as the replacement of `predecessor_logical_id` in `table_name`
/// lost to an earlier replacement. OperationFailed (96).
class EntryReplacementError : public RecordStoreError {
 public:
  EntryReplacementError(std::string table_name, std::string predecessor_logical_id,
                        std::string conflicting_logical_id);
  const std::string& table_name() const { return table_name_; }
  const std::string& predecessor_logical_id() const { return predecessor_logical_id_; }
  const std::string& conflicting_logical_id() const { return conflicting_logical_id_; }

 private:
  std::string table_name_;
  std::string predecessor_logical_id_;
  std::string conflicting_logical_id_;
};

/// The store's timestamp mark (the last issued store_timestamp, `mark_ns`) is ahead of the
/// wall clock (`clock_ns`) by more than the store tolerates: issuing a timestamp would break
/// their monotonicity (reference §6). OperationFailed (96).
class StoreClockRegressionError : public RecordStoreError {
 public:
  StoreClockRegressionError(int64_t mark_ns, int64_t clock_ns);
  int64_t mark_ns() const { return mark_ns_; }
  int64_t clock_ns() const { return clock_ns_; }

 private:
  int64_t mark_ns_;
  int64_t clock_ns_;
};

/// A content_id dedup hit whose IdentitySkip (metadata) values differ from the stored ones:
/// "metadata conflict for <path>: stored X, received Y" (reference §2). BadValue (2).
class EntryMetadataConflictError : public RecordStoreError {
 public:
  EntryMetadataConflictError(std::string path, std::string stored, std::string received);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// An entry family whose dispatch document and backing records disagree on read (a dispatch
/// naming a missing or different record; reference §4). OperationFailed (96).
class EntryDispatchIntegrityError : public RecordStoreError {
 public:
  explicit EntryDispatchIntegrityError(std::string message);
};

/// Reopening a store whose stored entry-family layout was declared explicitly without the same
/// family declarations being supplied again (or with different ones). InvalidOptions (72).
class EntryLayoutBindingError : public RecordStoreError {
 public:
  explicit EntryLayoutBindingError(std::string message);
};

/// Another holder has the store's lock (lease) that this operation needs. LockBusy (46).
class StoreLockedError : public RecordStoreError {
 public:
  explicit StoreLockedError(std::string message);
};

/// A lease this process held has expired or been taken over; the work done under it must not
/// be committed. LockBusy (46).
class LeaseLostError : public RecordStoreError {
 public:
  explicit LeaseLostError(std::string message);
};

/// A record graph that contains itself on the active path (at `path`, "<root>" for the root):
/// it has no content id and cannot be saved bottom-up. BadValue (2).
class StorageProjectionCycleError : public RecordStoreError {
 public:
  explicit StorageProjectionCycleError(std::string path);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// A query the searcher does not support (refused, never ignored). NotImplemented (238).
class UnsupportedQueryError : public RecordStoreError {
 public:
  explicit UnsupportedQueryError(std::string message);
};

/// A pagination cursor (token) that is malformed, belongs to another query, or is stale.
/// BadValue (2).
class PaginationCursorError : public RecordStoreError {
 public:
  explicit PaginationCursorError(std::string message);
};

/// `one()` of a query that matched nothing. NoSuchKey (4).
class NoResultError : public RecordStoreError {
 public:
  explicit NoResultError(std::string message);
};

/// `one()` of a query that matched more than one record. OperationFailed (96).
class MultipleResultsError : public RecordStoreError {
 public:
  explicit MultipleResultsError(std::string message);
};

/// A filter (e.g. an OPTIMADE filter) that cannot be translated into a MongoDB query;
/// `category()` names the kind of failure (e.g. "syntax", "unknown_property", "type").
/// BadValue (2).
class FilterTranslationError : public RecordStoreError {
 public:
  FilterTranslationError(std::string category, std::string message);
  const std::string& category() const { return category_; }

 private:
  std::string category_;
};

/// An OPTIMADE filter that is not a sentence of the specification's grammar, or exceeds the
/// parser's limits (length, nesting; include/mongostore/records/optimade_filter.h). `column()`
/// is the 1-based byte position of the first offending token in the filter (one past its end
/// when the filter ends too early), `expected()` what the grammar allows there. The message is
/// "OPTIMADE filter syntax error at column <c>: expected <expected>, found <found>". A
/// FilterTranslationError of category "syntax" (OPTIMADE's 400 Bad Request). BadValue (2).
class OptimadeFilterSyntaxError : public FilterTranslationError {
 public:
  OptimadeFilterSyntaxError(int64_t column, std::string expected, std::string found);
  int64_t column() const { return column_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }

 private:
  int64_t column_;
  std::string expected_;
  std::string found_;
};

/// fetch of a sid that `collection` does not hold (httk raises KeyError). NoSuchKey (4).
class RecordNotFound : public RecordStoreError {
 public:
  RecordNotFound(std::string collection, int64_t sid);
  const std::string& collection() const { return collection_; }
  int64_t sid() const { return sid_; }

 private:
  std::string collection_;
  int64_t sid_;
};

}  // namespace mongostore::records
