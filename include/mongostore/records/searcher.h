// Searcher: a query over a RecordStore, run on the server as ONE aggregation on the root
// variable's collection (reference §9), and its results.
//
//   Searcher search = store.searcher({.only_latest = true});
//   Var s = search.variable<Structure>();
//   search.add(s.field(&Structure::spacegroup) == 225);
//   search.output(s, "structure");
//   search.output(s.field("energy"), "energy");
//   search.add_sort(s.field("energy"), /*descending=*/false, Nulls::kLast);
//   ResultSet rows = search.results();
//   for (const ResultRow& row : rows) use(row["structure"], row["energy"]);
//   ResultPage page = search.page(100, {{"energy"}});        // keyset paging
//   ResultPage more = search.page(100, {{"energy"}}, page.next);
//
// Variables: the first is the root (one row per matching root record); every further one
// must be joined to the root by a positive conjunctive predicate (`ref == var` or a scalar
// `==` between two variables, not under `|` or `~`), else UnsupportedQueryError naming the
// disconnected cartesian product. Every variable sees only records stored at `as_of`
// (store_timestamp <= as_of), only the latest of each lineage with `only_latest`, and only
// main records (not alternatives) with `only_main_alt`; records reached through a reference
// are pinned: only `as_of` applies to them.
//
// Outputs are a variable (its record, fetched through the store's identity cache) or a field
// (decoded from the row: ints, strings, floats, rationals from their exact text, datetimes,
// lists, store_timestamp in nanoseconds). Without an output, results() outputs the root
// variable's record as "record".
//
// Errors: UnsupportedQueryError (disconnected variables, paging restrictions), SchemaError
// (bad fields, see query.h), PaginationCursorError (a malformed, tampered or foreign page
// token), NoResultError / MultipleResultsError (one()), BadValue (a bad size, limit or
// offset, an unknown output name), and backend errors.
//
// Thread safety: a Searcher is used by one thread at a time; result sets are immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/records/query.h"
#include "mongostore/records/record_store.h"

namespace mongostore::records {

/// A point in store time: nanoseconds since the epoch, an aware DateTime, or an RFC 3339
/// string ("2026-01-01T00:00:00Z"); converted to the store's units as ns // resolution.
/// A naive DateTime or a string without an offset is BadValue.
using TimestampOperand = std::variant<int64_t, DateTime, std::string>;
/// The operand in nanoseconds (BadValue for a naive one).
int64_t timestamp_operand_ns(const TimestampOperand& operand);

struct SearchOptions {
  /// Only records stored at or before this time (needs store timestamps: BadValue otherwise).
  std::optional<TimestampOperand> as_of;
  /// Only the latest record of each lineage (at `as_of`), for every variable.
  bool only_latest = false;
  /// Only main records: alternatives (save_alternative) are hidden.
  bool only_main_alt = true;
  /// page() with exact comparisons (or only_latest served by index ranges) reads candidates
  /// and drops the ones the client rejects; one call reads at most this many (or size + 1,
  /// if more). When it runs out, the page is short (possibly empty) and its next token
  /// continues after the last candidate read. Bounds the work of a call, not of a total.
  int64_t page_candidate_budget = 100'000;
};

enum class Nulls { kFirst, kLast };

/// One row: the outputs in declaration order, by index or by name.
class ResultRow {
 public:
  ResultRow(std::shared_ptr<const std::vector<std::string>> names, std::vector<Value> values)
      : names_(std::move(names)), values_(std::move(values)) {}
  size_t size() const { return values_.size(); }
  const std::vector<std::string>& names() const { return *names_; }
  const std::vector<Value>& values() const { return values_; }
  /// BadValue for an index past the end.
  const Value& operator[](size_t i) const;
  /// NoSuchKey (4) for an unknown output name.
  const Value& operator[](std::string_view name) const;
  /// A record output as a typed record (SchemaError when it is not a record of type T).
  template <Declared T>
  std::shared_ptr<const T> record(RecordStore& store, std::string_view name) const {
    const Value& v = (*this)[name];
    if (v.is_null()) return nullptr;
    return store.fetch<T>(*v.as<Value::RecordPtr>()->sid());
  }

 private:
  std::shared_ptr<const std::vector<std::string>> names_;
  std::vector<Value> values_;
};

/// The rows of a query, materialised.
class ResultSet {
 public:
  ResultSet(std::shared_ptr<const std::vector<std::string>> names, std::vector<bool> record_outputs,
            std::vector<ResultRow> rows)
      : names_(std::move(names)),
        record_outputs_(std::move(record_outputs)),
        rows_(std::move(rows)) {}
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  std::vector<ResultRow>::const_iterator begin() const { return rows_.begin(); }
  std::vector<ResultRow>::const_iterator end() const { return rows_.end(); }
  const ResultRow& operator[](size_t i) const;
  const std::vector<std::string>& names() const { return *names_; }
  /// The first row, or nullopt when there is none.
  std::optional<ResultRow> first() const;
  /// The only row: NoResultError when there is none, MultipleResultsError for more.
  const ResultRow& one() const;
  /// The values of one output (the first when `name` is empty), one per row.
  std::vector<Value> scalars(std::string_view name = {}) const;
  /// The values of a scalar output: NoSuchKey for an unknown name, TypeMismatch (14) for a
  /// record output.
  std::vector<Value> column(std::string_view name) const;

 private:
  size_t index_of(std::string_view name) const;
  std::shared_ptr<const std::vector<std::string>> names_;
  std::vector<bool> record_outputs_;
  std::vector<ResultRow> rows_;
};

/// One key of a page's order: a declared scalar output of the root variable.
struct PageOrder {
  std::string name;
  bool descending = false;
  Nulls nulls = Nulls::kLast;
};

/// A page of rows and the tokens of its neighbours (nullopt at an end).
struct ResultPage {
  ResultSet rows;
  std::optional<std::string> next;
  std::optional<std::string> previous;
  std::optional<int64_t> total;  // with include_total: every matching row
};

/// What the last count(), results() or page() of a searcher cost: the aggregations it ran
/// and the rows they sent to the client. Every row a query selects on the server is one row
/// transferred; rows the client drops after transfer (exact comparisons, verified on the
/// client, and superseded versions a page under only_latest reads) are transferred too, so
/// `rows_transferred` minus the rows returned is the prefilter's waste. A page reads size + 1
/// rows (the extra one tells whether there is more) plus the rows the client drops among
/// them, at most SearchOptions::page_candidate_budget in all, and one for its total (with exact
/// comparisons: every candidate, verified). Records named by record outputs are then fetched by sid
/// through the store's identity cache, which is not counted here.
struct SearchStats {
  int64_t queries = 0;
  int64_t rows_transferred = 0;
};

class Searcher {
 public:
  using SchemaPtr = std::shared_ptr<const RecordSchema>;
  Searcher(RecordStore& store, SearchOptions options);
  Searcher(Searcher&&) noexcept;
  Searcher& operator=(Searcher&&) noexcept;
  ~Searcher();

  /// A new variable of this record type; the first is the root.
  Var variable(const SchemaPtr& schema);
  template <Declared T>
  Var variable() {
    return variable(schema_of<T>());
  }
  /// Adds a condition (all conditions must hold).
  void add(const Condition& condition);
  /// Declares an output: a variable's record, or a field's value. BadValue for a repeated or
  /// empty name.
  void output(const Var& var, std::string name);
  void output(const FieldRef& field, std::string name);
  /// Sorts by `field` (after the previous sort keys); rows that tie on every key come in sid
  /// order.
  void add_sort(const FieldRef& field, bool descending = false, Nulls nulls = Nulls::kLast);
  /// At most `n` rows (n >= 0), after `add_offset` rows are skipped (offsets add up).
  void set_limit(int64_t n);
  void add_offset(int64_t n);

  /// How many rows match (ignores offset and limit).
  int64_t count();
  /// The rows (outputs as declared; none declared: the root variable's record as "record").
  ResultSet results();
  /// A keyset page of `size` (1..10,000) rows ordered by `order_by` (1..32 distinct declared
  /// scalar outputs of the root variable; the root's sid breaks ties), after `cursor` (a
  /// token of a previous page of the same query: next or previous). UnsupportedQueryError
  /// with more than one variable, add_sort, an offset or a limit; PaginationCursorError for a
  /// token that is malformed, tampered with, of another query, or not signed by this store
  /// (tokens carry an HMAC under a key kept in the store's metadata collection, made by the
  /// store's first page). With exact comparisons a call reads at most
  /// SearchOptions::page_candidate_budget candidates: the page may then be short, even
  /// empty, with a next (or, backward, previous) token that continues after the last
  /// candidate read; page on while there is a token.
  ResultPage page(int64_t size, const std::vector<PageOrder>& order_by,
                  const std::optional<std::string>& cursor = std::nullopt,
                  bool include_total = false);

  /// The compound index that lets page() with `order_by` read each page as index ranges
  /// (O(size · log n) per page, whatever the page's position): each order key's column in
  /// its direction, then the sid. Created on the root's collection if missing (named
  /// `px_<collection>_<column>[_desc]..._id`, bounded to 63 characters) and returned by name;
  /// "_id_" when the order is the sid alone. The same errors as page() for a bad order, and
  /// the server's "too many compound keys" past 31 distinct key columns. An
  /// index is served when every key after the first has its nulls where the index puts them
  /// (ascending with Nulls::kFirst, descending with Nulls::kLast), also under only_latest
  /// (superseded candidates are dropped on the client); other orders, joins and conditions
  /// through references still page correctly but sort their matching rows on every page. A
  /// record declaration may name its page orders instead (RecordDecl::page_index): the
  /// store creates the same indexes, under the same names, with the collection.
  std::string ensure_page_index(const std::vector<PageOrder>& order_by);

  /// Runs page(size, order_by, cursor) and returns, instead of its rows, the explain
  /// ("executionStats": winningPlan, totalKeysExamined, totalDocsExamined) of each find the
  /// page read, in order: one per index range of an index-served page, or, for a page that
  /// sorts, the find of every row its filter selects. Each find is run twice (once for the
  /// explain): for tests and diagnosis.
  std::vector<bson::Document> explain_page(int64_t size, const std::vector<PageOrder>& order_by,
                                           const std::optional<std::string>& cursor = std::nullopt);

  /// What the last count(), results() or page() cost.
  const SearchStats& stats() const;

  /// The aggregation results() runs, on `collection()` (for explain and tests).
  std::vector<bson::Document> pipeline();
  const std::string& collection() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace mongostore::records
