// The embedded backend: the Client seam straight onto an in-process Engine.
#include "mongostore/client/client.h"

#include "client/embedded_session.h"
#include "mongostore/bson/builder.h"

namespace mongostore::client {
namespace {

class EmbeddedClient final : public Client {
 public:
  /// `session` (null: none) is the session this client's operations run in; it owns the
  /// client.
  EmbeddedClient(std::shared_ptr<engine::Engine> engine, EmbeddedSession* session)
      : engine_(std::move(engine)), session_(session) {}

  std::shared_ptr<ClientSession> start_session(const SessionOptions& options) override {
    return std::make_shared<EmbeddedSession>(engine_, options);
  }

  std::vector<std::string> list_database_names() override { return engine().list_databases(); }
  void ping() override {}
  std::string_view backend_name() const override { return "embedded"; }
  bson::Document hello() override {
    // A standalone server: no setName, as there is no replica set; it has multi-document
    // transactions all the same (start_session), and the RecordStore knows it.
    return bson::make_document("isWritablePrimary", true, "maxBsonObjectSize",
                               static_cast<int32_t>(engine::kMaxDocumentSize), "ok", 1.0);
  }

  std::vector<std::string> list_collection_names(std::string_view db) override {
    return engine().list_collections(db);
  }
  void create_collection(std::string_view db, std::string_view coll,
                         const CollectionOptions& options) override {
    engine().create_collection(db, coll, options.to_document());
  }
  void modify_collection(std::string_view db, std::string_view coll,
                         const CollectionOptions& options) override {
    engine().modify_collection(db, coll, options.to_document());
  }
  bson::Document collection_options(std::string_view db, std::string_view coll) override {
    return engine().collection_options(db, coll);
  }
  bool drop_collection(std::string_view db, std::string_view coll) override {
    return engine().drop_collection(db, coll);
  }
  void drop_database(std::string_view db) override { engine().drop_database(db); }
  bson::OwnedValue insert_one(std::string_view db, std::string_view coll,
                              bson::DocumentView document, const InsertOptions& options) override {
    return engine().insert_one(db, coll, document, options);
  }
  InsertManyResult insert_many(std::string_view db, std::string_view coll,
                               const std::vector<bson::Document>& documents,
                               const InsertOptions& options) override {
    return engine().insert_many(db, coll, documents, options);
  }
  std::optional<bson::Document> find_one(std::string_view db, std::string_view coll,
                                         bson::DocumentView filter,
                                         const FindOptions& options) override {
    return engine().find_one(db, coll, filter, options);
  }
  std::unique_ptr<Cursor> find(std::string_view db, std::string_view coll,
                               bson::DocumentView filter, const FindOptions& options) override {
    return engine().find(db, coll, filter, options);
  }
  std::shared_ptr<const engine::PreparedFind> compile_find(std::string_view db,
                                                           std::string_view coll,
                                                           bson::DocumentView filter,
                                                           const FindOptions& options) override {
    return engine().prepare_find(db, coll, filter, options);
  }
  std::unique_ptr<Cursor> find_compiled(const engine::PreparedFind& compiled,
                                        const bson::DocumentView* filter) override {
    return engine().find_prepared(compiled, filter);
  }
  UpdateResult replace_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView replacement, const ReplaceOptions& options) override {
    return engine().replace_one(db, coll, filter, replacement, options);
  }
  UpdateResult update_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                          bson::DocumentView update, const UpdateOptions& options) override {
    return engine().update_one(db, coll, filter, update, options);
  }
  UpdateResult update_many(std::string_view db, std::string_view coll, bson::DocumentView filter,
                           bson::DocumentView update, const UpdateOptions& options) override {
    return engine().update_many(db, coll, filter, update, options);
  }
  int64_t delete_one(std::string_view db, std::string_view coll, bson::DocumentView filter,
                     const DeleteOptions& options) override {
    return engine().delete_one(db, coll, filter, options);
  }
  int64_t delete_many(std::string_view db, std::string_view coll, bson::DocumentView filter,
                      const DeleteOptions& options) override {
    return engine().delete_many(db, coll, filter, options);
  }
  std::optional<bson::Document> find_one_and_update(std::string_view db, std::string_view coll,
                                                    bson::DocumentView filter,
                                                    bson::DocumentView update,
                                                    const FindAndModifyOptions& options) override {
    return engine().find_one_and_update(db, coll, filter, update, options);
  }
  std::optional<bson::Document> find_one_and_replace(std::string_view db, std::string_view coll,
                                                     bson::DocumentView filter,
                                                     bson::DocumentView replacement,
                                                     const FindAndModifyOptions& options) override {
    return engine().find_one_and_replace(db, coll, filter, replacement, options);
  }
  std::optional<bson::Document> find_one_and_delete(std::string_view db, std::string_view coll,
                                                    bson::DocumentView filter,
                                                    const FindAndModifyOptions& options) override {
    return engine().find_one_and_delete(db, coll, filter, options);
  }
  int64_t count_documents(std::string_view db, std::string_view coll, bson::DocumentView filter,
                          const CountOptions& options) override {
    return engine().count_documents(db, coll, filter, options);
  }
  std::vector<bson::OwnedValue> distinct(std::string_view db, std::string_view coll,
                                         std::string_view field, bson::DocumentView filter,
                                         const DistinctOptions& options) override {
    return engine().distinct(db, coll, field, filter, options);
  }
  int64_t estimated_document_count(std::string_view db, std::string_view coll) override {
    return engine().estimated_document_count(db, coll);
  }
  std::unique_ptr<Cursor> aggregate(std::string_view db, std::string_view coll,
                                    const std::vector<bson::Document>& pipeline,
                                    const AggregateOptions& options) override {
    return engine().aggregate(db, coll, pipeline, options);
  }
  std::string create_index(std::string_view db, std::string_view coll, bson::DocumentView keys,
                           bson::DocumentView options) override {
    return engine().create_index(db, coll, keys, options);
  }
  std::vector<bson::Document> list_indexes(std::string_view db, std::string_view coll) override {
    return engine().list_indexes(db, coll);
  }
  void drop_index(std::string_view db, std::string_view coll, std::string_view name) override {
    engine().drop_index(db, coll, name);
  }
  void drop_index(std::string_view db, std::string_view coll, bson::DocumentView keys) override {
    engine().drop_index(db, coll, keys);
  }
  bson::Document explain_find(std::string_view db, std::string_view coll, bson::DocumentView filter,
                              const FindOptions& options) override {
    return engine().explain_find(db, coll, filter, options);
  }

 private:
  // The engine an operation runs on: the session's transaction's while one is active.
  engine::Engine& engine() {
    if (session_ != nullptr) {
      if (engine::Transaction* txn = session_->transaction()) return txn->engine();
    }
    return *engine_;
  }

  std::shared_ptr<engine::Engine> engine_;
  EmbeddedSession* session_;
};

}  // namespace

std::shared_ptr<Client> embedded_client(std::shared_ptr<engine::Engine> engine) {
  return std::make_shared<EmbeddedClient>(std::move(engine), nullptr);
}

std::shared_ptr<Client> embedded_session_client(std::shared_ptr<engine::Engine> engine,
                                                EmbeddedSession* session) {
  return std::make_shared<EmbeddedClient>(std::move(engine), session);
}

std::shared_ptr<Client> open_embedded(const engine::EngineOptions& options) {
  return embedded_client(engine::Engine::open(options));
}

}  // namespace mongostore::client
