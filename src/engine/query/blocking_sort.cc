// QueryExecutor's blocking sorts: the whole result of a find sorted in memory (a top-k sort
// with a limit), and the external merge sort of a find with allowDiskUse.
#include <algorithm>

#include "engine/aggregate_runner.h"
#include "engine/query/covered_read.h"
#include "engine/query/document_scan.h"
#include "engine/query/find_cursor.h"
#include "engine/query/query_executor.h"
#include "engine/storage/wiredtiger_connection.h"
#include "engine/write_conflict_retry.h"
#include "mongostore/error.h"

namespace mongostore::engine {

// A find's blocking sort with allowDiskUse: the aggregation $sort (an external merge sort
// that spills to <dbpath>/_tmp past MongoDB's 100 MB) over the matching documents, read
// unsorted in batches as the same find without a sort reads them (through the planner's
// index, if any). Both sides sort by MongoDB's sort keys; ties keep the read order.
std::unique_ptr<DocumentSource> QueryExecutor::external_sort(
    std::shared_ptr<const void> keep_alive, const std::string& db, const std::string& coll,
    const Matcher& matcher, bson::DocumentView sort_spec, const IndexHint& hint,
    size_t memory_limit) {
  FindOptions unsorted;
  unsorted.hint = hint;
  unsorted.batch_size = 1000;
  auto cursor =
      std::make_unique<FindCursor>(std::move(keep_alive), nullptr, *this, db, coll, matcher,
                                   Projection(), SortSpec::compile(bson::DocumentView()), unsorted);
  AggregationContext context;
  context.allow_disk_use = true;
  context.memory_limit_bytes = memory_limit;
  context.spill_directory = connection_.spill_directory();
  context.collation = matcher.collation();  // the $sort keys strings as the find's filter
  Pipeline sort =
      Pipeline::compile(std::vector<bson::Document>{bson::make_document("$sort", sort_spec)});
  return sort.run(cursor_source(std::move(cursor)), context);
}

std::vector<bson::Document> QueryExecutor::query_results(
    OperationContext& op, const std::string& db, const std::string& coll, const Matcher& matcher,
    const Projection& projection, bson::DocumentView sort_spec, const SortSpec& sort, int64_t skip,
    int64_t limit, const IndexHint& hint, bool allow_disk_use, size_t memory_limit,
    ExecutionStats* stats, PlannedQuery* plan_out) {
  auto entry = collections_.lookup(db, coll);
  if (!entry) return {};
  PlannedQuery plan = plan_for(*entry, matcher, sort_spec, hint);
  struct Row {
    std::string key;
    uint64_t seq;  // scan order: ties keep it (a stable sort)
    bson::Document doc;
    bool operator<(const Row& o) const { return key != o.key ? key < o.key : seq < o.seq; }
  };
  // With a limit only the first skip + limit rows can be returned: a bounded max-heap keeps
  // them (a top-k sort, as MongoDB's), so memory is what the result needs, not the scan.
  const std::optional<size_t> keep =
      limit >= 0 ? std::optional<size_t>(static_cast<size_t>(std::max<int64_t>(skip, 0) + limit))
                 : std::nullopt;
  std::vector<Row> rows;
  std::vector<bson::Document> out;
  bool streaming = true;
  ExecutionStats local;
  write_conflict_retry(op, UnitOfWork::Mode::kReadOnly, [&] {
    streaming = sort.empty() || plan.provides_sort();  // the plan may change on a retry
    rows.clear();
    out.clear();
    local = ExecutionStats();
    size_t bytes = 0;
    uint64_t seq = 0;
    int64_t to_skip = std::max<int64_t>(skip, 0);
    const bool covered = read_is_covered(plan, matcher, projection, sort_spec);
    scan(
        op, *entry, matcher, plan,
        [&](const std::string&, bson::DocumentView doc, const MatchDetails&) {
          if (streaming) {
            if (to_skip > 0) {
              --to_skip;
              return true;
            }
            out.push_back(projection.is_identity() ? bson::Document::copy_of(doc)
                                                   : projection.apply(doc));
            return limit < 0 || static_cast<int64_t>(out.size()) < limit;
          }
          if (keep && *keep == 0) return false;
          Row row{sort.key_for(doc), seq++, bson::Document()};
          if (keep && rows.size() == *keep && !(row < rows.front())) return true;
          row.doc = bson::Document::copy_of(doc);
          bytes += doc.size();
          rows.push_back(std::move(row));
          if (keep) {
            std::push_heap(rows.begin(), rows.end());
            if (rows.size() > *keep) {
              std::pop_heap(rows.begin(), rows.end());
              bytes -= rows.back().doc.size();
              rows.pop_back();
            }
          }
          if (bytes > memory_limit && !allow_disk_use) {
            throw Error(292,
                        "Executor error during find command :: caused by :: Sort exceeded "
                        "memory limit of " +
                            std::to_string(memory_limit) +
                            " bytes, but did not opt in to external sorting.");
          }
          return true;
        },
        &local, covered);
  });
  if (!streaming) {
    std::sort(rows.begin(), rows.end());
    for (size_t i = static_cast<size_t>(std::max<int64_t>(skip, 0)); i < rows.size(); ++i) {
      if (limit >= 0 && static_cast<int64_t>(out.size()) >= limit) break;
      out.push_back(projection.is_identity() ? std::move(rows[i].doc)
                                             : projection.apply(rows[i].doc));
    }
  }
  local.returned = static_cast<int64_t>(out.size());
  if (stats != nullptr) *stats = local;
  if (plan_out != nullptr) *plan_out = std::move(plan);
  return out;
}

}  // namespace mongostore::engine
