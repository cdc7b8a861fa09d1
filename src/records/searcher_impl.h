// Searcher::Impl: a searcher's declarations and the aggregation they compile to, shared by
// results (searcher.cc) and keyset paging (search_page.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/document.h"
#include "mongostore/records/searcher.h"
#include "records/canonical_json.h"
#include "records/keyset_segments.h"
#include "records/query_compiler.h"

namespace mongostore::records {

class Searcher::Impl {
 public:
  struct Output {
    std::string name;
    bool record = false;  // a variable's record (path.end == kSid of that variable)
    FieldPath path;
  };
  struct Sort {
    FieldPath path;
    bool descending = false;
    Nulls nulls = Nulls::kLast;
  };
  /// The stages that select the rows (lookups and matches), and where the outputs are.
  struct Plan {
    std::vector<bson::Document> stages;
    std::vector<std::string> output_columns;   // per output: its column (record: the var's _id)
    std::vector<std::string> output_prefixes;  // per output: the owner document's prefix
    std::vector<std::string> sort_columns;
    std::vector<std::string> tie_columns;  // the root's _id, then each joined variable's
    /// The exact (client-verified) conjuncts, and the prefix of each one's owner document.
    std::vector<std::shared_ptr<const CondNode>> exact;
    std::vector<std::string> exact_prefixes;
    std::vector<std::string> exact_rhs_prefixes;  // kExactField: the rhs's owner prefix
    /// The owner prefixes of the lhs's and rhs's field factors ("" without one).
    std::vector<std::pair<std::string, std::string>> exact_factor_prefixes;
    /// The root's own filter (the leading $match's, empty when there is none), and whether
    /// it alone decides the rows: then the stages after it only add fields (reference
    /// lookups), and a page can be read as index ranges of the root collection.
    bson::Document root_filter;
    bool root_filter_decides = false;
    /// With only_latest: whether the root filter and then the latest-only stages (right after
    /// it: a $lookup of a newer record of the lineage, a $match that it found none, an
    /// $unset) alone decide the rows. Then a page reads index ranges too, keeps the lookup on
    /// the server and drops superseded rows on the client.
    bool latest_decides = false;
  };

  Impl(RecordStore& s, SearchOptions o);

  /// Builds the selecting stages. UnsupportedQueryError for a variable not joined to the root.
  Plan plan() const;
  /// The rows of `documents` (pipeline output rows) as result rows.
  ResultSet rows(const std::vector<bson::Document>& documents) const;
  /// The value of output `i` (`o`, one of effective_outputs()) in `row` (records fetched
  /// through the store); `owner_f` is the `f` document of a field output's owner in `row`
  /// (rows() finds it once per row for the outputs that share an owner), unused otherwise;
  /// `field_columns` is that field's columns() (rows() computes them once per result set).
  Value output_value(const Output& o, size_t i, const Plan& plan, bson::DocumentView row,
                     const bson::Value& owner_f, const std::vector<Column>& field_columns) const;
  /// The value of a record output or of a sid, logical_id, store_timestamp or content_id
  /// output, read from its `column` in `row`.
  Value column_value(const Output& o, const std::string& column, bson::DocumentView row) const;
  /// The effective outputs (the root's record as "record" when none was declared).
  std::vector<Output> effective_outputs() const;
  /// Runs `pipeline` on the root collection, counting the query and its rows in `stats`.
  std::vector<bson::Document> run(const std::vector<bson::Document>& pipeline) const;
  /// Whether `row` satisfies every exact conjunct of `plan` (true when there is none).
  bool verified(const Plan& plan, bson::DocumentView row) const;
  /// The rows the server selects and the client verifies, offset and limit applied after
  /// verification (for a plan with exact conjuncts).
  std::vector<bson::Document> verified_rows(const Plan& plan,
                                            const std::vector<bson::Document>& pipeline,
                                            bool apply_window) const;
  const SchemaPtr& root() const;
  /// The order keys of a page as query columns (UnsupportedQueryError for an order or a
  /// query page() refuses); each key's [name, descending, nulls] into `order_json` if given.
  std::vector<KeysetKey> page_keys(const std::vector<PageOrder>& order_by,
                                   std::vector<CanonicalJson>* order_json) const;
  /// Searcher::page; with `explains`, also the explain of each find the page reads.
  ResultPage page(int64_t size, const std::vector<PageOrder>& order_by,
                  const std::optional<std::string>& cursor, bool include_total,
                  std::vector<bson::Document>* explains);

  RecordStore* store;
  SearchOptions options;
  std::optional<int64_t> as_of_units;
  LiteralContext literals;
  std::vector<SchemaPtr> vars;
  std::vector<Condition> conditions;
  std::vector<Output> outputs;
  std::vector<Sort> sorts;
  std::optional<int64_t> limit;
  int64_t offset = 0;
  mutable SearchStats stats;
  /// The store's page token key (page_token_key.h), read by the first page.
  std::optional<std::string> token_key;
};

/// The stages keeping only the latest record of each lineage (as of `as_of_units`), for the
/// documents of `collection` at the top of the rows; `tag` names the helper field.
std::vector<bson::Document> latest_only_stages(const std::string& collection,
                                               const std::string& tag,
                                               std::optional<int64_t> as_of_units);

}  // namespace mongostore::records
