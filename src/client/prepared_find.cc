#include "mongostore/client/prepared_find.h"

#include "mongostore/error.h"

namespace mongostore::client {
namespace {

// Each batch's documents as views, in order; the batch is dropped before the next is read.
void visit_all(Cursor& cursor, DocumentVisitor visit) {
  while (!cursor.exhausted()) {
    const std::vector<bson::Document> batch = cursor.next_batch();
    for (const bson::Document& doc : batch) visit(doc.view());
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

PreparedFind Collection::prepare_find(bson::DocumentView filter, const FindOptions& options) const {
  std::shared_ptr<const engine::PreparedFind> compiled =
      client_->compile_find(db_, name_, filter, options);
  return PreparedFind(client_, db_, name_, bson::Document::copy_of(filter), options,
                      std::move(compiled));
}

std::unique_ptr<Cursor> PreparedFind::find() const {
  if (compiled_) return client_->find_compiled(*compiled_, nullptr);
  return client_->find(db_, coll_, filter_, options_);
}

std::unique_ptr<Cursor> PreparedFind::find(bson::DocumentView filter) const {
  if (compiled_) return client_->find_compiled(*compiled_, &filter);
  return client_->find(db_, coll_, filter, options_);
}

}  // namespace mongostore::client

namespace mongostore::client {

void PreparedFind::for_each(DocumentVisitor visit) const {
  visit_all(*find(), visit);
}

void PreparedFind::for_each(bson::DocumentView filter, DocumentVisitor visit) const {
  visit_all(*find(filter), visit);
}

}  // namespace mongostore::client
