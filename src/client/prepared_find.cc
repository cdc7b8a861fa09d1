#include "mongostore/client/prepared_find.h"

#include "mongostore/engine/document_batch.h"
#include "mongostore/engine/projection.h"
#include "mongostore/error.h"

namespace mongostore::client {
namespace {

// A batch buffer kept by the thread between for_each runs, so that a repeated small find (a
// sweep) allocates nothing for its batch: taken by one run at a time (a for_each inside a
// visitor makes its own), and kept back only while small.
class SpareBatch {
 public:
  SpareBatch() : batch_(std::move(spare())) {
    if (!batch_) batch_ = std::make_unique<engine::DocumentBatch>();
  }
  ~SpareBatch() {
    batch_->clear();
    if (!spare() && batch_->capacity_bytes() <= kKeptBytes) spare() = std::move(batch_);
  }
  SpareBatch(const SpareBatch&) = delete;
  SpareBatch& operator=(const SpareBatch&) = delete;
  engine::DocumentBatch& operator*() { return *batch_; }

 private:
  static constexpr size_t kKeptBytes = 64 * 1024;
  static std::unique_ptr<engine::DocumentBatch>& spare() {
    thread_local std::unique_ptr<engine::DocumentBatch> kept;
    return kept;
  }
  std::unique_ptr<engine::DocumentBatch> batch_;
};

// Each batch's documents as views, in order, read into one reused batch buffer (the embedded
// engine's index reads allocate nothing per document; other cursors move their documents in);
// the batch is dropped before the next is read.
void visit_all(Cursor& cursor, DocumentVisitor visit) {
  SpareBatch batch;
  while (!cursor.exhausted()) {
    cursor.next_batch_into(*batch);
    (*batch).for_each(visit);
  }
}

}  // namespace

std::shared_ptr<const engine::PreparedFind> Client::compile_find(std::string_view, std::string_view,
                                                                 bson::DocumentView,
                                                                 const FindOptions&) {
  return nullptr;
}

std::unique_ptr<Cursor> Client::find_compiled(const engine::PreparedFind&,
                                              const bson::DocumentView*) {
  throw Error(ErrorCode::kInternalError,
              "find_compiled: backend '" + std::string(backend_name()) + "' compiles no finds");
}

PreparedFind Collection::prepare_find(bson::DocumentView filter, const FindOptions& options,
                                      VisitedDocuments visited) const {
  std::shared_ptr<const engine::PreparedFind> compiled =
      client_->compile_find(db_, name_, filter, options);
  std::shared_ptr<const engine::PreparedFind> visit = compiled;
  if (compiled && visited == VisitedDocuments::kStoredWhenOnlySelecting &&
      !options.projection.empty() && engine::Projection::only_selects(options.projection)) {
    FindOptions more = options;
    more.results_may_hold_more_fields = true;
    visit = client_->compile_find(db_, name_, filter, more);
  }
  return PreparedFind(client_, db_, name_, bson::Document::copy_of(filter), options,
                      std::move(compiled), std::move(visit));
}

std::unique_ptr<Cursor> PreparedFind::find() const {
  if (compiled_) return client_->find_compiled(*compiled_, nullptr);
  return client_->find(db_, coll_, filter_, options_);
}

std::unique_ptr<Cursor> PreparedFind::find(bson::DocumentView filter) const {
  if (compiled_) return client_->find_compiled(*compiled_, &filter);
  return client_->find(db_, coll_, filter, options_);
}

std::unique_ptr<Cursor> PreparedFind::visit_run(const bson::DocumentView* filter) const {
  if (!visited_) return filter != nullptr ? find(*filter) : find();
  return client_->find_compiled(*visited_, filter);
}

}  // namespace mongostore::client

namespace mongostore::client {

void PreparedFind::for_each(DocumentVisitor visit) const {
  visit_all(*visit_run(nullptr), visit);
}

void PreparedFind::for_each(bson::DocumentView filter, DocumentVisitor visit) const {
  visit_all(*visit_run(&filter), visit);
}

}  // namespace mongostore::client
