#include "engine/aggregate_runner.h"

#include <deque>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/aggregation.h"

namespace mongostore::engine {
namespace {

// A find cursor seen as a pipeline input.
class CursorSource final : public DocumentSource {
 public:
  explicit CursorSource(std::unique_ptr<Cursor> cursor) : cursor_(std::move(cursor)) {}
  std::optional<bson::Document> next() override {
    while (buffer_.empty()) {
      if (cursor_->exhausted()) return std::nullopt;
      for (auto& d : cursor_->next_batch()) buffer_.push_back(std::move(d));
    }
    bson::Document d = std::move(buffer_.front());
    buffer_.pop_front();
    return d;
  }

 private:
  std::unique_ptr<Cursor> cursor_;
  std::deque<bson::Document> buffer_;
};

// A pipeline's output handed out in batches.
class PipelineCursor final : public Cursor {
 public:
  PipelineCursor(std::unique_ptr<DocumentSource> source, size_t batch_size)
      : source_(std::move(source)), batch_size_(batch_size == 0 ? 101 : batch_size) {}
  std::vector<bson::Document> next_batch() override {
    std::vector<bson::Document> out;
    while (!done_ && out.size() < batch_size_) {
      auto d = source_->next();
      if (!d) {
        done_ = true;
        break;
      }
      out.push_back(std::move(*d));
    }
    return out;
  }
  bool exhausted() const override { return done_; }

 private:
  std::unique_ptr<DocumentSource> source_;
  size_t batch_size_;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<DocumentSource> cursor_source(std::unique_ptr<Cursor> cursor) {
  return std::make_unique<CursorSource>(std::move(cursor));
}

std::unique_ptr<Cursor> run_aggregate(Engine& engine, std::string_view db, std::string_view coll,
                                      const std::vector<bson::Document>& stages,
                                      const AggregateOptions& options,
                                      const std::string& spill_directory) {
  // One $$NOW for the command: the find below compiles the leading $match's $expr with it,
  // and the pipeline carries it into the stages later getMores run.
  NowScope now;
  Pipeline pipeline = Pipeline::compile(stages);
  std::string database(db);
  AggregationContext context;
  context.allow_disk_use = options.allow_disk_use;
  context.memory_limit_bytes = options.memory_limit_bytes;
  context.spill_directory = spill_directory;
  context.spill_stats = options.spill_stats;
  context.collation = Collation::of_option(options.collation);
  bson::Document collation = options.collation;
  context.read_collection = [&engine, database, collation](
                                std::string_view other,
                                bson::DocumentView filter) -> std::unique_ptr<DocumentSource> {
    // $lookup / $graphLookup / $unionWith match the foreign documents under the command's
    // collation, as in MongoDB.
    FindOptions foreign;
    foreign.collation = collation;
    return std::make_unique<CursorSource>(engine.find(database, other, filter, foreign));
  };
  const bool bypass = options.bypass_document_validation;
  context.replace_collection = [&engine, database, bypass](std::string_view target,
                                                           DocumentSource& documents) {
    // Atomic and index-preserving, as MongoDB's $out: a failure leaves the target as it was.
    engine.replace_collection_documents(
        database, target, [&] { return documents.next(); }, bypass);
  };
  context.merge_document = [&engine, database, bypass](std::string_view target,
                                                       bson::DocumentView filter,
                                                       const MergeDecision& decide) {
    auto existing = engine.find_one(database, target, filter);
    std::optional<bson::Document> result =
        decide(existing ? std::optional<bson::DocumentView>(existing->view()) : std::nullopt);
    if (!result) return;
    if (existing) {
      ReplaceOptions replace;
      replace.bypass_document_validation = bypass;
      engine.replace_one(database, target, bson::make_document("_id", existing->get("_id")),
                         *result, replace);
    } else {
      InsertOptions insert;
      insert.bypass_document_validation = bypass;
      engine.insert_one(database, target, *result, insert);
    }
  };
  Variables variables = evaluate_let(options.let.view());
  auto cursor_over = [&](std::unique_ptr<DocumentSource> output) -> std::unique_ptr<Cursor> {
    auto cursor = std::make_unique<PipelineCursor>(std::move(output), options.batch_size);
    if (pipeline.writes_output()) {
      // $out / $merge: the work is the side effect; finish it before returning.
      while (!cursor->exhausted()) cursor->next_batch();
    }
    return cursor;
  };
  if (coll.empty()) {
    // Database-level ({aggregate: 1}): the first stage makes the documents.
    std::string_view first = stages.empty() || stages.front().empty()
                                 ? std::string_view()
                                 : stages.front().view().begin()->key;
    if (first != "$documents") {
      throw Error(ErrorCode::kInvalidNamespace, "{aggregate: 1} is not valid for '" +
                                                    std::string(first) +
                                                    "'; a collection is required.");
    }
    return cursor_over(pipeline.run(make_vector_source({}), context, variables));
  }
  // The leading $match / $sort / $limit become the find that feeds the rest, so they use
  // indexes and a leading sort streams from an index when one gives the order.
  Pipeline::Prefix prefix = pipeline.find_prefix();
  if (options.allow_disk_use && !prefix.sort.empty() && prefix.limit == 0 &&
      (context.collation != nullptr ||
       !engine.index_provides_sort(db, coll, prefix.filter.view(), prefix.sort.view(),
                                   options.hint))) {
    // The find would sort the whole result in memory; the pipeline's $sort can spill. (With a
    // $limit the find's top-k sort holds only that many documents.)
    prefix.sort = bson::Document();
    prefix.stages = pipeline.leading_match() ? 1 : 0;
  }
  // The leading $match's $expr reads the command's `let` variables.
  if (!variables.empty()) prefix.filter = bind_variables_to_filter(prefix.filter.view(), variables);
  FindOptions read;
  read.hint = options.hint;
  read.sort = std::move(prefix.sort);
  read.limit = prefix.limit;
  read.allow_disk_use = options.allow_disk_use;
  read.memory_limit_bytes = options.memory_limit_bytes;
  read.collation = options.collation;
  // The pipeline drains its input in-process: large batches save a snapshot and a cursor
  // re-seek per 101 documents without holding much more memory.
  read.batch_size = 1000;
  auto input = std::make_unique<CursorSource>(engine.find(db, coll, prefix.filter.view(), read));
  Pipeline rest = pipeline.without_prefix(prefix.stages);
  return cursor_over(rest.run(std::move(input), context, variables));
}

}  // namespace mongostore::engine
