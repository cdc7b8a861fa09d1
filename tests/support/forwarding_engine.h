// An Engine that forwards every call to another one: tests derive from it to intercept one
// operation (block it, count it) while the rest behave as the real engine does.
#pragma once

#include <memory>
#include <utility>

#include "mongostore/engine/engine.h"

namespace mongostore::testing {

class ForwardingEngine : public engine::Engine {
 public:
  explicit ForwardingEngine(std::shared_ptr<engine::Engine> inner) : inner_(std::move(inner)) {}

  const engine::EngineOptions& options() const override { return inner_->options(); }
  std::vector<std::string> list_databases() override { return inner_->list_databases(); }
  std::vector<std::string> list_collections(std::string_view db) override {
    return inner_->list_collections(db);
  }
  void create_collection(std::string_view db, std::string_view coll,
                         bson::DocumentView options) override {
    inner_->create_collection(db, coll, options);
  }
  void modify_collection(std::string_view db, std::string_view coll,
                         bson::DocumentView options) override {
    inner_->modify_collection(db, coll, options);
  }
  bson::Document collection_options(std::string_view db, std::string_view coll) override {
    return inner_->collection_options(db, coll);
  }
  bool drop_collection(std::string_view db, std::string_view coll) override {
    return inner_->drop_collection(db, coll);
  }
  void replace_collection_documents(
      std::string_view db, std::string_view coll,
      const std::function<std::optional<bson::Document>()>& next_document,
      bool bypass_document_validation) override {
    inner_->replace_collection_documents(db, coll, next_document, bypass_document_validation);
  }
  void rename_collection(std::string_view from_db, std::string_view from, std::string_view to_db,
                         std::string_view to, bool drop_target) override {
    inner_->rename_collection(from_db, from, to_db, to, drop_target);
  }
  void drop_database(std::string_view db) override { inner_->drop_database(db); }
  bool collection_exists(std::string_view db, std::string_view coll) override {
    return inner_->collection_exists(db, coll);
  }
  bson::OwnedValue insert_one(std::string_view db, std::string_view coll,
                              bson::DocumentView document,
                              const engine::InsertOptions& options) override {
    return inner_->insert_one(db, coll, document, options);
  }
  engine::InsertManyResult insert_many(std::string_view db, std::string_view coll,
                                       const std::vector<bson::Document>& documents,
                                       const engine::InsertOptions& options) override {
    return inner_->insert_many(db, coll, documents, options);
  }
  engine::UpdateResult replace_one(std::string_view db, std::string_view coll,
                                   bson::DocumentView filter, bson::DocumentView replacement,
                                   const engine::ReplaceOptions& options) override {
    return inner_->replace_one(db, coll, filter, replacement, options);
  }
  engine::UpdateResult update_one(std::string_view db, std::string_view coll,
                                  bson::DocumentView filter, bson::DocumentView update,
                                  const engine::UpdateOptions& options) override {
    return inner_->update_one(db, coll, filter, update, options);
  }
  engine::UpdateResult update_many(std::string_view db, std::string_view coll,
                                   bson::DocumentView filter, bson::DocumentView update,
                                   const engine::UpdateOptions& options) override {
    return inner_->update_many(db, coll, filter, update, options);
  }
  int64_t delete_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                     const engine::DeleteOptions& options) override {
    return inner_->delete_one(db, coll, filter, options);
  }
  int64_t delete_many(std::string_view db, std::string_view coll, bson::DocumentView filter,
                      const engine::DeleteOptions& options) override {
    return inner_->delete_many(db, coll, filter, options);
  }
  std::optional<bson::Document> find_one_and_update(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      bson::DocumentView update, const engine::FindAndModifyOptions& options) override {
    return inner_->find_one_and_update(db, coll, filter, update, options);
  }
  std::optional<bson::Document> find_one_and_replace(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      bson::DocumentView replacement, const engine::FindAndModifyOptions& options) override {
    return inner_->find_one_and_replace(db, coll, filter, replacement, options);
  }
  std::optional<bson::Document> find_one_and_delete(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      const engine::FindAndModifyOptions& options) override {
    return inner_->find_one_and_delete(db, coll, filter, options);
  }
  std::optional<bson::Document> find_by_id(std::string_view db, std::string_view coll,
                                           const bson::Value& id) override {
    return inner_->find_by_id(db, coll, id);
  }
  std::optional<bson::Document> find_one(std::string_view db, std::string_view coll,
                                         bson::DocumentView filter,
                                         const engine::FindOptions& options) override {
    return inner_->find_one(db, coll, filter, options);
  }
  std::unique_ptr<engine::Cursor> find(std::string_view db, std::string_view coll,
                                       bson::DocumentView filter,
                                       const engine::FindOptions& options) override {
    return inner_->find(db, coll, filter, options);
  }
  std::shared_ptr<const engine::PreparedFind> prepare_find(
      std::string_view db, std::string_view coll, bson::DocumentView filter,
      const engine::FindOptions& options) override {
    return inner_->prepare_find(db, coll, filter, options);
  }
  std::unique_ptr<engine::Cursor> find_prepared(const engine::PreparedFind& prepared,
                                                const bson::DocumentView* filter) override {
    return inner_->find_prepared(prepared, filter);
  }
  bool index_provides_sort(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView sort, const engine::IndexHint& hint) override {
    return inner_->index_provides_sort(db, coll, filter, sort, hint);
  }
  int64_t count_documents(std::string_view db, std::string_view coll, bson::DocumentView filter,
                          const engine::CountOptions& options = {}) override {
    return inner_->count_documents(db, coll, filter, options);
  }
  std::vector<bson::OwnedValue> distinct(std::string_view db, std::string_view coll,
                                         std::string_view field, bson::DocumentView filter,
                                         const engine::DistinctOptions& options = {}) override {
    return inner_->distinct(db, coll, field, filter, options);
  }
  std::unique_ptr<engine::Cursor> aggregate(std::string_view db, std::string_view coll,
                                            const std::vector<bson::Document>& pipeline,
                                            const engine::AggregateOptions& options) override {
    return inner_->aggregate(db, coll, pipeline, options);
  }
  int64_t estimated_document_count(std::string_view db, std::string_view coll) override {
    return inner_->estimated_document_count(db, coll);
  }
  engine::CollectionStats collection_stats(std::string_view db, std::string_view coll) override {
    return inner_->collection_stats(db, coll);
  }
  engine::ValidateResult validate_collection(std::string_view db, std::string_view coll) override {
    return inner_->validate_collection(db, coll);
  }
  std::string create_index(std::string_view db, std::string_view coll, bson::DocumentView keys,
                           bson::DocumentView options) override {
    return inner_->create_index(db, coll, keys, options);
  }
  std::vector<bson::Document> list_indexes(std::string_view db, std::string_view coll) override {
    return inner_->list_indexes(db, coll);
  }
  void drop_index(std::string_view db, std::string_view coll, std::string_view name) override {
    inner_->drop_index(db, coll, name);
  }
  void drop_index(std::string_view db, std::string_view coll, bson::DocumentView keys) override {
    inner_->drop_index(db, coll, keys);
  }
  bson::Document explain_find(std::string_view db, std::string_view coll, bson::DocumentView filter,
                              const engine::FindOptions& options) override {
    return inner_->explain_find(db, coll, filter, options);
  }
  void flush() override { inner_->flush(); }
  std::shared_ptr<engine::Transaction> begin_transaction(
      const engine::TransactionOptions& options) override {
    return inner_->begin_transaction(options);
  }

 protected:
  std::shared_ptr<engine::Engine> inner_;
};

}  // namespace mongostore::testing
