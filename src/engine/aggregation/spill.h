// Spilling blocking stages to disk (allowDiskUse): a temporary file of sorted runs, cursors
// over runs, and a k-way merge of them.
//
// A SpillFile holds the runs of one stage: each run is a sequence of records, written in key
// order, of [u32 key length][key bytes][BSON document (its own int32 length prefix)]. Runs are
// read back with buffered preads. The file is created with a unique name in the spill
// directory and removed when the SpillFile is destroyed; I/O failures throw Error.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/aggregation/internal.h"

namespace mongostore::engine::aggregation_detail {

/// A cursor over one sorted run (on disk or in memory).
class RunCursor {
 public:
  virtual ~RunCursor() = default;
  /// Moves to the next record; false at the end of the run.
  virtual bool next() = 0;
  virtual const std::string& key() const = 0;
  /// The current record's document (moved out: call once per record).
  virtual Document take_document() = 0;
};

class SpillFile {
 public:
  /// Creates a unique file in the context's spill directory. Throws Error(OperationFailed).
  SpillFile(const RunContext& ctx, std::string stage);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  /// Appends a record to the current run (keys must come in ascending order).
  void add(std::string_view key, const uint8_t* document, size_t size);
  /// Ends the current run (flushes it to the file).
  void end_run();
  size_t runs() const { return runs_.size(); }
  /// A cursor over run `i`, reading `buffer_bytes` at a time. The file must outlive it.
  std::unique_ptr<RunCursor> open_run(size_t i, size_t buffer_bytes) const;
  const std::string& path() const { return path_; }
  const std::string& stage() const { return stage_; }

 private:
  void flush();

  std::string stage_;
  std::string path_;
  int fd_ = -1;
  std::string buffer_;
  uint64_t written_ = 0;    // bytes in the file
  uint64_t run_start_ = 0;  // offset of the run being written
  uint64_t records_in_run_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> runs_;  // [begin, end) offsets
  SpillStats* stats_ = nullptr;
};

/// A run held in memory (the rows left when the input ended), already sorted.
std::unique_ptr<RunCursor> make_memory_run(std::vector<std::pair<std::string, Document>> rows);

/// Cursors over every run of `file` with read buffers sized so they share the memory limit.
std::vector<std::unique_ptr<RunCursor>> open_all_runs(const SpillFile& file, const RunContext& ctx,
                                                      size_t extra_runs);

/// Merges sorted runs: top() is the cursor with the smallest key, ties going to the lowest
/// run index (earlier runs hold earlier input, so merging stays stable).
class RunMerger {
 public:
  explicit RunMerger(std::vector<std::unique_ptr<RunCursor>> runs);
  /// nullptr when every run is exhausted.
  RunCursor* top() { return heap_.empty() ? nullptr : runs_[heap_.front()].get(); }
  /// Advances the top cursor.
  void pop();

 private:
  bool after(size_t a, size_t b) const;  // heap order: a comes after b
  std::vector<std::unique_ptr<RunCursor>> runs_;
  std::vector<size_t> heap_;
};

/// Keyed documents, sorted by key: what $sort and $sample hold in memory and spill as runs.
using KeyedRows = std::vector<std::pair<std::string, Document>>;

/// Writes `rows` (already in key order) to `file` as one run.
void write_run(SpillFile& file, const KeyedRows& rows);

/// The documents of every run of `file` and of `rest` (the rows still in memory, in key
/// order, taken as the latest run) merged in key order, at most `limit` of them. The source
/// keeps the file alive: it is removed when the source is destroyed.
std::unique_ptr<DocumentSource> merge_runs(std::shared_ptr<SpillFile> file, KeyedRows rest,
                                           const RunContext& ctx, size_t limit = SIZE_MAX);

/// The directory spill files go to: the context's, or (when it is empty) a per-process
/// directory made with mkdtemp under $TMPDIR or /tmp on first use.
std::string spill_directory_for(const AggregationContext& context);

}  // namespace mongostore::engine::aggregation_detail
