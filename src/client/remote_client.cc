#include "client/remote_client.h"

#include <mongoc/mongoc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "client/remote_command.h"
#include "client/remote_session.h"
#include "client/write_validation.h"
#include "mongostore/bson/builder.h"
#include "mongostore/error.h"

namespace mongostore::client {
namespace {

using bson::Document;
using bson::DocumentBuilder;
using bson::DocumentView;

// A single insert command stays under the 16 MiB (+16 KiB) a command body may hold; the
// server's maxWriteBatchSize bounds the count.
constexpr size_t kInsertBatchBytes = 15 * 1024 * 1024;
constexpr size_t kInsertBatchCount = 100000;
constexpr int32_t kDefaultServerSelectionTimeoutMs = 30000;

// libmongoc logs what it also reports as an error ("Port could not be parsed"): the caller
// gets that as a typed exception, so the log line only doubles it (and breaks one-line CLI
// errors). MONGOSTORE_MONGOC_LOG=1 brings the driver's log back for debugging.
void mongoc_log_to_stderr_if_asked(mongoc_log_level_t level, const char* domain,
                                   const char* message, void*) {
  static const bool wanted = std::getenv("MONGOSTORE_MONGOC_LOG") != nullptr;
  if (wanted) std::fprintf(stderr, "%s %s: %s\n", mongoc_log_level_str(level), domain, message);
}

void init_mongoc_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    mongoc_log_set_handler(mongoc_log_to_stderr_if_asked, nullptr);
    mongoc_init();
    // libmongoc is never cleaned up: other static destructors may still use the pool.
  });
}

int64_t int64_of(const bson::Value& v) {
  int64_t out = 0;
  if (v.is_number() && v.number_as_exact_int64(&out)) return out;
  return 0;
}

bool is_write_stage(const std::vector<Document>& pipeline) {
  if (pipeline.empty()) return false;
  auto first = pipeline.back().begin();
  return first != pipeline.back().end() && (first->key == "$out" || first->key == "$merge");
}

// A server-side cursor, read batch by batch with getMore on the server that opened it. Holds
// no pooled client between batches, so open cursors never starve the pool.
class RemoteCursor final : public Cursor {
 public:
  // `reply` is the find / aggregate reply ({cursor: {firstBatch, id, ns}}).
  RemoteCursor(std::shared_ptr<RemoteCommandRunner> runner, std::string db, uint32_t server_id,
               const Document& reply, size_t batch_size)
      : runner_(std::move(runner)),
        db_(std::move(db)),
        server_id_(server_id),
        batch_size_(batch_size) {
    take(reply, "firstBatch");
  }

  ~RemoteCursor() override {
    if (cursor_id_ == 0) return;
    try {
      runner_->run(
          CommandKind::kRead, db_,
          bson::make_document("killCursors", collection_, "cursors", bson::make_array(cursor_id_)),
          server_id_);
    } catch (const Error&) {
      // The server times the cursor out on its own.
    }
  }

  std::vector<Document> next_batch() override {
    if (buffered_.empty() && cursor_id_ != 0) {
      DocumentBuilder command;
      command.append("getMore", cursor_id_).append("collection", collection_);
      if (batch_size_ > 0) command.append("batchSize", static_cast<int64_t>(batch_size_));
      Document reply = runner_->run(CommandKind::kRead, db_, command.finish(), server_id_);
      take(reply, "nextBatch");
    }
    return std::move(buffered_);
  }

  bool exhausted() const override { return buffered_.empty() && cursor_id_ == 0; }

 private:
  void take(const Document& reply, std::string_view batch_field) {
    bson::Value cursor = reply.get("cursor");
    if (!cursor.is_document()) {
      throw Error(ErrorCode::kFailedToParse, "remote backend: reply without a cursor document");
    }
    DocumentView c = cursor.as_document();
    cursor_id_ = int64_of(c.get("id"));
    bson::Value ns = c.get("ns");
    if (ns.is_string()) {
      std::string_view full = ns.as_string();
      size_t dot = full.find('.');
      collection_ = std::string(dot == std::string_view::npos ? full : full.substr(dot + 1));
    }
    buffered_.clear();
    bson::Value batch = c.get(batch_field);
    if (batch.is_array()) {
      for (const bson::Element& e : batch.as_array()) {
        if (e.value.is_document()) buffered_.push_back(Document::copy_of(e.value.as_document()));
      }
    }
  }

  std::shared_ptr<RemoteCommandRunner> runner_;
  std::string db_;
  std::string collection_;
  uint32_t server_id_;
  size_t batch_size_;
  int64_t cursor_id_ = 0;
  std::vector<Document> buffered_;
};

// The default index name MongoDB derives from a key pattern: "a_1_b_-1", "loc_2dsphere".
std::string index_name_for(DocumentView keys) {
  std::string name;
  for (const bson::Element& e : keys) {
    if (!name.empty()) name += '_';
    name.append(e.key).append("_");
    if (e.value.is_string()) {
      name.append(e.value.as_string());
    } else if (e.value.is_number()) {
      double d = e.value.number_as_double();
      int64_t whole = 0;
      if (e.value.number_as_exact_int64(&whole)) {
        name += std::to_string(whole);
      } else {
        std::string text = std::to_string(d);
        text.erase(text.find_last_not_of('0') + 1);
        name += text;
      }
    } else {
      name += "1";
    }
  }
  return name;
}

// An update is a document of $-operators, or a pipeline: then `update` holds the stages'
// array bytes (keys "0", "1", ...) and goes on the wire as a BSON array.
void append_update(DocumentBuilder& b, std::string_view key, DocumentView update,
                   bool is_pipeline) {
  if (is_pipeline) {
    b.append_array(key, update);
  } else {
    b.append(key, update);
  }
}

void append_hint(DocumentBuilder& b, const engine::IndexHint& hint) {
  if (!hint.name.empty()) {
    b.append("hint", hint.name);
  } else if (!hint.keys.empty()) {
    b.append("hint", hint.keys);
  }
}

void append_array_filters(DocumentBuilder& b, const std::vector<Document>& filters) {
  if (filters.empty()) return;
  b.open_array("arrayFilters");
  for (const Document& f : filters) b.push(f.view());
  b.close();
}

class RemoteClient final : public Client {
 public:
  explicit RemoteClient(std::shared_ptr<RemoteCommandRunner> runner) : runner_(std::move(runner)) {}

  std::string_view backend_name() const override { return "remote"; }

  std::shared_ptr<ClientSession> start_session(const SessionOptions& options) override {
    return std::make_shared<RemoteSession>(runner_, options);
  }

  void ping() override {
    runner_->run(CommandKind::kPlain, "admin", bson::make_document("ping", 1));
  }
  bson::Document hello() override {
    return runner_->run(CommandKind::kPlain, "admin", bson::make_document("hello", 1));
  }

  std::vector<std::string> list_database_names() override {
    Document reply = runner_->run(CommandKind::kRead, "admin",
                                  bson::make_document("listDatabases", 1, "nameOnly", true));
    std::vector<std::string> names;
    bson::Value dbs = reply.get("databases");
    if (dbs.is_array()) {
      for (const bson::Element& e : dbs.as_array()) {
        if (!e.value.is_document()) continue;
        bson::Value name = e.value.as_document().get("name");
        if (!name.is_string()) continue;
        std::string_view n = name.as_string();
        // MongoDB's own databases are not the application's (the embedded engine has none).
        if (n == "admin" || n == "config" || n == "local") continue;
        names.emplace_back(n);
      }
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::vector<std::string> list_collection_names(std::string_view db) override {
    Document reply = runner_->run(
        CommandKind::kRead, db,
        bson::make_document("listCollections", 1, "nameOnly", true, "authorizedCollections", true));
    std::vector<std::string> names;
    auto cursor = make_cursor(db, 0, reply, 0);
    for (const Document& d : cursor->to_vector()) {
      bson::Value name = d.get("name");
      if (!name.is_string()) continue;
      if (name.as_string().starts_with("system.")) continue;
      names.emplace_back(name.as_string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  void create_collection(std::string_view db, std::string_view coll,
                         const CollectionOptions& options) override {
    DocumentBuilder command;
    command.append("create", coll);
    command.append_elements(options.to_document().view());
    runner_->run(CommandKind::kWrite, db, command.finish());
  }

  void modify_collection(std::string_view db, std::string_view coll,
                         const CollectionOptions& options) override {
    DocumentBuilder command;
    command.append("collMod", coll);
    command.append_elements(options.to_document().view());
    runner_->run(CommandKind::kWrite, db, command.finish());
  }

  // listCollections' `options` of the one collection; only the validation fields (the
  // embedded engine has no others).
  Document collection_options(std::string_view db, std::string_view coll) override {
    Document reply = runner_->run(
        CommandKind::kRead, db,
        bson::make_document("listCollections", 1, "filter", bson::make_document("name", coll)));
    auto cursor = make_cursor(db, 0, reply, 0);
    for (const Document& d : cursor->to_vector()) {
      bson::Value options = d.get("options");
      DocumentBuilder out;
      if (options.is_document()) {
        for (const bson::Element& e : options.as_document()) {
          if (e.key == "validator" || e.key == "validationLevel" || e.key == "validationAction") {
            out.append(e.key, e.value);
          }
        }
      }
      return out.finish();
    }
    throw Error(ErrorCode::kNamespaceNotFound,
                "ns does not exist: " + std::string(db) + "." + std::string(coll));
  }

  bool drop_collection(std::string_view db, std::string_view coll) override {
    try {
      Document reply = runner_->run(CommandKind::kWrite, db, bson::make_document("drop", coll));
      // mongod 7 answers a drop of a missing collection with a bare {ok: 1}.
      return reply.has("nIndexesWas");
    } catch (const Error& e) {
      if (e.error_code() == ErrorCode::kNamespaceNotFound) return false;  // mongod < 7
      throw;
    }
  }

  void drop_database(std::string_view db) override {
    runner_->run(CommandKind::kWrite, db, bson::make_document("dropDatabase", 1));
  }

  bson::OwnedValue insert_one(std::string_view db, std::string_view coll, DocumentView document,
                              const InsertOptions& options) override {
    std::vector<Document> one;
    one.push_back(with_id(document));
    bson::OwnedValue id(one.front().get("_id"));
    insert_batch(db, coll, one, 0, 1, options);
    return id;
  }

  InsertManyResult insert_many(std::string_view db, std::string_view coll,
                               const std::vector<Document>& documents,
                               const InsertOptions& options) override {
    std::vector<Document> prepared;
    prepared.reserve(documents.size());
    InsertManyResult result;
    for (const Document& d : documents) {
      prepared.push_back(with_id(d.view()));
      result.inserted_ids.emplace_back(prepared.back().get("_id"));
    }
    size_t begin = 0;
    while (begin < prepared.size()) {
      size_t end = begin, bytes = 0;
      while (end < prepared.size() && end - begin < kInsertBatchCount &&
             (end == begin || bytes + prepared[end].size() <= kInsertBatchBytes)) {
        bytes += prepared[end].size();
        ++end;
      }
      insert_batch(db, coll, prepared, begin, end, options);
      begin = end;
    }
    return result;
  }

  std::optional<Document> find_one(std::string_view db, std::string_view coll, DocumentView filter,
                                   const FindOptions& options) override {
    FindOptions one = options;
    one.limit = 1;
    Document reply =
        runner_->run(CommandKind::kRead, db, find_command(coll, filter, one, /*single=*/true));
    auto cursor = make_cursor(db, 0, reply, 1);
    auto batch = cursor->next_batch();
    if (batch.empty()) return std::nullopt;
    return std::move(batch.front());
  }

  std::unique_ptr<Cursor> find(std::string_view db, std::string_view coll, DocumentView filter,
                               const FindOptions& options) override {
    uint32_t server_id = 0;
    Document reply = runner_->run_pinned(CommandKind::kRead, db,
                                         find_command(coll, filter, options, false), &server_id);
    return make_cursor(db, server_id, reply, options.batch_size);
  }

  UpdateResult replace_one(std::string_view db, std::string_view coll, DocumentView filter,
                           DocumentView replacement,
                           const ReplaceOptions& replace_options) override {
    forbid_update_operators(replacement, "replaceOne");
    return update(db, coll, filter, replacement, engine::update_options_for(replace_options),
                  false);
  }

  UpdateResult update_one(std::string_view db, std::string_view coll, DocumentView filter,
                          DocumentView update_doc, const UpdateOptions& options) override {
    return update(db, coll, filter, update_doc, options, false);
  }

  UpdateResult update_many(std::string_view db, std::string_view coll, DocumentView filter,
                           DocumentView update_doc, const UpdateOptions& options) override {
    return update(db, coll, filter, update_doc, options, true);
  }

  int64_t delete_one(std::string_view db, std::string_view coll, DocumentView filter,
                     const DeleteOptions& options) override {
    return remove(db, coll, filter, 1, options);
  }

  int64_t delete_many(std::string_view db, std::string_view coll, DocumentView filter,
                      const DeleteOptions& options) override {
    return remove(db, coll, filter, 0, options);
  }

  std::optional<Document> find_one_and_update(std::string_view db, std::string_view coll,
                                              DocumentView filter, DocumentView update_doc,
                                              const FindAndModifyOptions& options) override {
    return find_and_modify(db, coll, filter, &update_doc, options);
  }

  std::optional<Document> find_one_and_replace(std::string_view db, std::string_view coll,
                                               DocumentView filter, DocumentView replacement,
                                               const FindAndModifyOptions& options) override {
    forbid_update_operators(replacement, "findOneAndReplace");
    return find_and_modify(db, coll, filter, &replacement, options);
  }

  std::optional<Document> find_one_and_delete(std::string_view db, std::string_view coll,
                                              DocumentView filter,
                                              const FindAndModifyOptions& options) override {
    return find_and_modify(db, coll, filter, nullptr, options);
  }

  int64_t count_documents(std::string_view db, std::string_view coll, DocumentView filter,
                          const CountOptions& options) override {
    // As drivers count: an exact $match + $group, never the metadata count.
    std::vector<Document> pipeline;
    pipeline.push_back(bson::make_document("$match", filter));
    pipeline.push_back(bson::make_document(
        "$group", bson::make_document("_id", 1, "n", bson::make_document("$sum", 1))));
    AggregateOptions count_options;
    count_options.collation = options.collation;
    auto cursor = aggregate(db, coll, pipeline, count_options);
    auto rows = cursor->to_vector();
    if (rows.empty()) return 0;
    return int64_of(rows.front().get("n"));
  }

  std::vector<bson::OwnedValue> distinct(std::string_view db, std::string_view coll,
                                         std::string_view field, DocumentView filter,
                                         const DistinctOptions& options) override {
    DocumentBuilder command;
    command.append("distinct", coll).append("key", field).append("query", filter);
    if (!options.collation.empty()) command.append("collation", options.collation);
    Document reply = runner_->run(CommandKind::kRead, db, command.finish());
    std::vector<bson::OwnedValue> values;
    bson::Value array = reply.get("values");
    if (array.is_array()) {
      for (const bson::Element& e : array.as_array()) values.emplace_back(e.value);
    }
    return values;
  }

  int64_t estimated_document_count(std::string_view db, std::string_view coll) override {
    Document reply = runner_->run(CommandKind::kRead, db, bson::make_document("count", coll));
    return int64_of(reply.get("n"));
  }

  std::unique_ptr<Cursor> aggregate(std::string_view db, std::string_view coll,
                                    const std::vector<Document>& pipeline,
                                    const AggregateOptions& options) override {
    DocumentBuilder command;
    if (coll.empty()) {
      command.append("aggregate", 1);  // database-level
    } else {
      command.append("aggregate", coll);
    }
    command.open_array("pipeline");
    for (const Document& stage : pipeline) command.push(stage.view());
    command.close();
    command.open_document("cursor");
    if (options.batch_size > 0) {
      command.append("batchSize", static_cast<int64_t>(options.batch_size));
    }
    command.close();
    if (options.allow_disk_use) command.append("allowDiskUse", true);
    if (!options.let.empty()) command.append("let", options.let);
    if (!options.collation.empty()) command.append("collation", options.collation);
    if (options.bypass_document_validation) command.append("bypassDocumentValidation", true);
    uint32_t server_id = 0;
    CommandKind kind = is_write_stage(pipeline) ? CommandKind::kReadWrite : CommandKind::kRead;
    Document reply = runner_->run_pinned(kind, db, command.finish(), &server_id);
    return make_cursor(db, server_id, reply, options.batch_size);
  }

  std::string create_index(std::string_view db, std::string_view coll, DocumentView keys,
                           DocumentView options) override {
    bson::Value given = options.get("name");
    std::string name = given.is_string() ? std::string(given.as_string()) : index_name_for(keys);
    DocumentBuilder command;
    command.append("createIndexes", coll);
    command.open_array("indexes");
    command.push_document();
    command.append("key", keys);
    command.append("name", name);
    for (const bson::Element& e : options) {
      if (e.key != "name") command.append(e.key, e.value);
    }
    command.close();
    command.close();
    runner_->run(CommandKind::kWrite, db, command.finish());
    return name;
  }

  std::vector<Document> list_indexes(std::string_view db, std::string_view coll) override {
    uint32_t server_id = 0;
    Document reply = runner_->run_pinned(CommandKind::kRead, db,
                                         bson::make_document("listIndexes", coll), &server_id);
    return make_cursor(db, server_id, reply, 0)->to_vector();
  }

  void drop_index(std::string_view db, std::string_view coll, std::string_view name) override {
    runner_->run(CommandKind::kWrite, db, bson::make_document("dropIndexes", coll, "index", name));
  }

  void drop_index(std::string_view db, std::string_view coll, DocumentView keys) override {
    runner_->run(CommandKind::kWrite, db, bson::make_document("dropIndexes", coll, "index", keys));
  }

  Document explain_find(std::string_view db, std::string_view coll, DocumentView filter,
                        const FindOptions& options) override {
    Document reply =
        runner_->run(CommandKind::kRead, db,
                     bson::make_document("explain", find_command(coll, filter, options, false),
                                         "verbosity", "executionStats"));
    // Keep the explain itself, without the reply's envelope (ok, cluster time, ...).
    DocumentBuilder out;
    for (const bson::Element& e : reply) {
      if (e.key == "ok" || e.key.starts_with("$") || e.key == "operationTime") continue;
      out.append(e.key, e.value);
    }
    return out.finish();
  }

 private:
  std::unique_ptr<Cursor> make_cursor(std::string_view db, uint32_t server_id,
                                      const Document& reply, size_t batch_size) {
    return std::make_unique<RemoteCursor>(runner_, std::string(db), server_id, reply, batch_size);
  }

  // The document as the server will store it: a new ObjectId `_id` first when it has none
  // (as drivers do, so the caller learns the id without a round trip).
  static Document with_id(DocumentView document) {
    if (document.size() > engine::kMaxDocumentSize) {
      throw Error(ErrorCode::kBSONObjectTooLarge,
                  "object to insert too large: " + std::to_string(document.size()) +
                      " bytes, the limit is " + std::to_string(engine::kMaxDocumentSize));
    }
    if (document.has("_id")) return Document::copy_of(document);
    DocumentBuilder b;
    b.append("_id", bson::ObjectId::generate());
    b.append_elements(document);
    return b.finish();
  }

  void insert_batch(std::string_view db, std::string_view coll, const std::vector<Document>& docs,
                    size_t begin, size_t end, const InsertOptions& options) {
    DocumentBuilder command;
    command.append("insert", coll);
    command.open_array("documents");
    for (size_t i = begin; i < end; ++i) command.push(docs[i].view());
    command.close();
    command.append("ordered", true);
    if (options.bypass_document_validation) command.append("bypassDocumentValidation", true);
    if (!options.journal) command.open_document("writeConcern").append("j", false).close();
    runner_->run(CommandKind::kWrite, db, command.finish());
  }

  static Document find_command(std::string_view coll, DocumentView filter,
                               const FindOptions& options, bool single_batch) {
    DocumentBuilder command;
    command.append("find", coll);
    command.append("filter", filter);
    if (!options.sort.empty()) command.append("sort", options.sort);
    if (!options.projection.empty()) command.append("projection", options.projection);
    if (options.skip != 0) command.append("skip", options.skip);
    if (options.limit != 0) command.append("limit", options.limit);
    if (options.batch_size > 0) {
      command.append("batchSize", static_cast<int64_t>(options.batch_size));
    }
    if (single_batch) command.append("singleBatch", true);
    if (options.allow_disk_use) command.append("allowDiskUse", true);
    if (!options.let.empty()) command.append("let", options.let);
    if (!options.collation.empty()) command.append("collation", options.collation);
    return command.finish();
  }

  UpdateResult update(std::string_view db, std::string_view coll, DocumentView filter,
                      DocumentView update_doc, const UpdateOptions& options, bool multi) {
    DocumentBuilder command;
    command.append("update", coll);
    command.open_array("updates");
    command.push_document();
    command.append("q", filter);
    append_update(command, "u", update_doc, options.update_is_pipeline);
    command.append("upsert", options.upsert).append("multi", multi);
    append_array_filters(command, options.array_filters);
    append_hint(command, options.hint);
    if (!options.sort.empty()) command.append("sort", options.sort);
    if (!options.collation.empty()) command.append("collation", options.collation);
    command.close();
    command.close();
    command.append("ordered", true);
    if (!options.let.empty()) command.append("let", options.let);
    if (options.bypass_document_validation) command.append("bypassDocumentValidation", true);
    if (!options.journal) command.open_document("writeConcern").append("j", false).close();
    Document reply = runner_->run(CommandKind::kWrite, db, command.finish());
    UpdateResult result;
    int64_t n = int64_of(reply.get("n"));
    result.modified_count = int64_of(reply.get("nModified"));
    bson::Value upserted = reply.get("upserted");
    if (upserted.is_array()) {
      for (const bson::Element& e : upserted.as_array()) {
        if (!e.value.is_document()) continue;
        result.upserted_id = bson::OwnedValue(e.value.as_document().get("_id"));
        --n;  // n counts the upserted document too
      }
    }
    result.matched_count = n;
    return result;
  }

  int64_t remove(std::string_view db, std::string_view coll, DocumentView filter, int limit,
                 const DeleteOptions& options) {
    DocumentBuilder command;
    command.append("delete", coll);
    command.open_array("deletes");
    command.push_document().append("q", filter).append("limit", limit);
    append_hint(command, options.hint);
    if (!options.collation.empty()) command.append("collation", options.collation);
    command.close();
    command.close();
    command.append("ordered", true);
    if (!options.let.empty()) command.append("let", options.let);
    if (!options.journal) command.open_document("writeConcern").append("j", false).close();
    Document reply = runner_->run(CommandKind::kWrite, db, command.finish());
    return int64_of(reply.get("n"));
  }

  // findAndModify; `update_doc` null means remove.
  std::optional<Document> find_and_modify(std::string_view db, std::string_view coll,
                                          DocumentView filter, const DocumentView* update_doc,
                                          const FindAndModifyOptions& options) {
    DocumentBuilder command;
    command.append("findAndModify", coll);
    command.append("query", filter);
    if (!options.sort.empty()) command.append("sort", options.sort);
    if (!options.projection.empty()) command.append("fields", options.projection);
    if (update_doc == nullptr) {
      command.append("remove", true);
    } else {
      append_update(command, "update", *update_doc, options.update_is_pipeline);
      command.append("new", options.return_document == ReturnDocument::kAfter);
      command.append("upsert", options.upsert);
      append_array_filters(command, options.array_filters);
    }
    append_hint(command, options.hint);
    if (!options.collation.empty()) command.append("collation", options.collation);
    if (!options.let.empty()) command.append("let", options.let);
    if (options.bypass_document_validation) command.append("bypassDocumentValidation", true);
    if (!options.journal) command.open_document("writeConcern").append("j", false).close();
    Document reply = runner_->run(CommandKind::kWrite, db, command.finish());
    bson::Value value = reply.get("value");
    if (!value.is_document()) return std::nullopt;
    return Document::copy_of(value.as_document());
  }

  std::shared_ptr<RemoteCommandRunner> runner_;
};

int32_t server_selection_timeout_ms(const mongoc_uri_t* uri) {
  return mongoc_uri_get_option_as_int32(uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS,
                                        kDefaultServerSelectionTimeoutMs);
}

}  // namespace

std::shared_ptr<Client> remote_client_on(std::shared_ptr<RemoteCommandRunner> runner) {
  return std::make_shared<RemoteClient>(std::move(runner));
}

std::shared_ptr<Client> connect_remote(std::string_view uri_text) {
  return connect_remote(uri_text, nullptr);
}

std::shared_ptr<Client> connect_remote(std::string_view uri_text, CommandObserver observer) {
  init_mongoc_once();
  bson_error_t error;
  std::string text(uri_text);
  mongoc_uri_t* uri = mongoc_uri_new_with_error(text.c_str(), &error);
  if (uri == nullptr) {
    throw Error(ErrorCode::kBadValue,
                std::string("connect: invalid MongoDB URI: ") + error.message);
  }
  if (!mongoc_uri_has_option(uri, MONGOC_URI_APPNAME)) {
    mongoc_uri_set_appname(uri, "mongostore");
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(server_selection_timeout_ms(uri));
  mongoc_client_pool_t* pool = mongoc_client_pool_new(uri);
  mongoc_uri_destroy(uri);
  if (pool == nullptr) throw Error(ErrorCode::kBadValue, "connect: cannot open a client pool");
  // Version 2: a server's error reply surfaces with the server's own code.
  mongoc_client_pool_set_error_api(pool, MONGOC_ERROR_API_VERSION_2);
  auto runner = std::make_shared<RemoteCommandRunner>(pool, std::move(observer));
  auto client = std::make_shared<RemoteClient>(runner);

  auto backoff = std::chrono::milliseconds(50);
  for (;;) {
    try {
      client->ping();
      return client;
    } catch (const Error& e) {
      if (e.error_code() != ErrorCode::kHostUnreachable ||
          std::chrono::steady_clock::now() + backoff >= deadline) {
        throw Error(e.code(), std::string(e.what()) + " (connect to " + text + ")");
      }
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
}

}  // namespace mongostore::client
