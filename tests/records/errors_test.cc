// The RecordStore's typed errors: each is a RecordStoreError and a mongostore::Error with the
// MongoDB code documented in errors.h, and carries the details its callers read.
#include "mongostore/records/errors.h"

#include <gtest/gtest.h>

#include <string>

namespace mongostore::records {
namespace {

template <typename E>
void expect_code(const E& e, ErrorCode code) {
  const RecordStoreError& base = e;
  const Error& error = base;
  EXPECT_EQ(error.error_code(), code) << error.what();
}

TEST(RecordStoreErrors, CarryTheirCodes) {
  expect_code(SchemaError("Structure.sid: reserved"), ErrorCode::kBadValue);
  expect_code(RecordTooLargeError("structures", 17000000, 16777216),
              ErrorCode::kBSONObjectTooLarge);
  expect_code(StorageLayoutUpgradeRequiredError("layout differs", "{}", "call upgrade"),
              ErrorCode::kOperationFailed);
  expect_code(TransactionsUnavailableError("standalone"), ErrorCode::kIllegalOperation);
  expect_code(EntryReplacementError("t", "a", "b"), ErrorCode::kOperationFailed);
  expect_code(StoreClockRegressionError(2, 1), ErrorCode::kOperationFailed);
  expect_code(EntryMetadataConflictError("note", "'a'", "'b'"), ErrorCode::kBadValue);
  expect_code(EntryDispatchIntegrityError("x"), ErrorCode::kOperationFailed);
  expect_code(EntryLayoutBindingError("x"), ErrorCode::kInvalidOptions);
  expect_code(StoreLockedError("x"), ErrorCode::kLockBusy);
  expect_code(LeaseLostError("x"), ErrorCode::kLockBusy);
  expect_code(StorageProjectionCycleError("a.b"), ErrorCode::kBadValue);
  expect_code(UnsupportedQueryError("x"), ErrorCode::kNotImplemented);
  expect_code(PaginationCursorError("x"), ErrorCode::kBadValue);
  expect_code(NoResultError("x"), ErrorCode::kNoSuchKey);
  expect_code(MultipleResultsError("x"), ErrorCode::kOperationFailed);
  expect_code(FilterTranslationError("syntax", "x"), ErrorCode::kBadValue);
  expect_code(RecordNotFound("structures", 7), ErrorCode::kNoSuchKey);
  expect_code(OptimadeFilterSyntaxError(3, "x", "y"), ErrorCode::kBadValue);
}

TEST(RecordStoreErrors, CarryTheirDetails) {
  EntryMetadataConflictError conflict("sites[0].note", "'a'", "'b'");
  EXPECT_EQ(conflict.path(), "sites[0].note");
  EXPECT_STREQ(conflict.what(), "metadata conflict for sites[0].note: stored 'a', received 'b'");
  StorageLayoutUpgradeRequiredError upgrade("layout differs", R"({"structures":{}})", "upgrade");
  EXPECT_EQ(upgrade.diff(), R"({"structures":{}})");
  EXPECT_EQ(upgrade.hint(), "upgrade");
  EntryReplacementError replacement("t", "p", "c");
  EXPECT_EQ(replacement.table_name(), "t");
  EXPECT_EQ(replacement.predecessor_logical_id(), "p");
  EXPECT_EQ(replacement.conflicting_logical_id(), "c");
  StoreClockRegressionError clock(20, 10);
  EXPECT_EQ(clock.mark_ns(), 20);
  EXPECT_EQ(clock.clock_ns(), 10);
  EXPECT_EQ(StorageProjectionCycleError("").path(), "<root>");
  EXPECT_EQ(FilterTranslationError("unknown_property", "x").category(), "unknown_property");
  OptimadeFilterSyntaxError syntax(7, "a value", "'AND'");
  EXPECT_EQ(syntax.column(), 7);
  EXPECT_EQ(syntax.expected(), "a value");
  EXPECT_EQ(syntax.found(), "'AND'");
  EXPECT_EQ(syntax.category(), "syntax");
  EXPECT_STREQ(syntax.what(),
               "OPTIMADE filter syntax error at column 7: expected a value, found 'AND'");
  RecordNotFound missing("structures", 42);
  EXPECT_EQ(missing.sid(), 42);
  EXPECT_EQ(missing.collection(), "structures");
  RecordTooLargeError large("structures", 20, 10);
  EXPECT_EQ(large.size(), 20);
  EXPECT_EQ(large.limit(), 10);
  try {
    throw RecordNotFound("s", 1);
  } catch (const Error& e) {
    EXPECT_EQ(e.code_name(), "NoSuchKey");
  }
}

}  // namespace
}  // namespace mongostore::records
