#include "client/remote_command.h"

#include <mongoc/mongoc.h>

#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/error.h"

namespace mongostore::client {
namespace {

// A client borrowed from the pool for one command, returned on every path.
class PooledClient {
 public:
  explicit PooledClient(mongoc_client_pool_t* pool)
      : pool_(pool), client_(mongoc_client_pool_pop(pool)) {}
  ~PooledClient() { mongoc_client_pool_push(pool_, client_); }
  PooledClient(const PooledClient&) = delete;
  PooledClient& operator=(const PooledClient&) = delete;
  mongoc_client_t* get() const { return client_; }

 private:
  mongoc_client_pool_t* pool_;
  mongoc_client_t* client_;
};

bson_t borrow(bson::DocumentView view) {
  bson_t b;
  // The view is valid BSON by construction; bson_init_static only records the pointer.
  bson_init_static(&b, view.data(), view.size());
  return b;
}

bson::Document own(const bson_t* reply) {
  return bson::Document::from_bytes({bson_get_data(reply), reply->len});
}

std::string string_or(const bson::Value& v, std::string fallback) {
  return v.is_string() ? std::string(v.as_string()) : std::move(fallback);
}

int32_t code_of(const bson::Value& v) {
  int64_t code = 0;
  if (v.is_number() && v.number_as_exact_int64(&code)) return static_cast<int32_t>(code);
  return static_cast<int32_t>(ErrorCode::kUnknownError);
}

bson::Document document_or_empty(const bson::Value& v) {
  return v.is_document() ? bson::Document::copy_of(v.as_document()) : bson::Document();
}

// {code, errmsg, keyPattern, keyValue}: an error reply or one writeErrors entry.
[[noreturn]] void throw_server_error(bson::DocumentView error, const std::string& fallback) {
  int32_t code = code_of(error.get("code"));
  std::string message = string_or(error.get("errmsg"), fallback);
  if (code == static_cast<int32_t>(ErrorCode::kDuplicateKey)) {
    throw engine::DuplicateKeyError(std::move(message), document_or_empty(error.get("keyPattern")),
                                    document_or_empty(error.get("keyValue")),
                                    document_or_empty(error.get("collation")));
  }
  if (code == static_cast<int32_t>(ErrorCode::kDocumentValidationFailure)) {
    throw DocumentValidationError(document_or_empty(error.get("errInfo")), std::move(message));
  }
  throw Error(code, std::move(message));
}

[[noreturn]] void throw_transport_error(const bson_error_t& error) {
  std::string message = std::string("remote backend: ") + error.message;
  switch (error.domain) {
    case MONGOC_ERROR_SERVER_SELECTION:
    case MONGOC_ERROR_STREAM:
    case MONGOC_ERROR_STREAM_SOCKET:
      throw Error(ErrorCode::kHostUnreachable, std::move(message));
    case MONGOC_ERROR_BSON:
      throw Error(ErrorCode::kInvalidBSON, std::move(message));
    case MONGOC_ERROR_COMMAND:
      // Client-side command checks (e.g. a command over the size limit).
      throw Error(error.code == MONGOC_ERROR_COMMAND_INVALID_ARG ? ErrorCode::kBadValue
                                                                 : ErrorCode::kOperationFailed,
                  std::move(message));
    default:
      throw Error(ErrorCode::kInternalError, std::move(message));
  }
}

// The reply's errorLabels, onto `e`.
void add_labels(Error& e, const bson::Document& reply) {
  bson::Value labels = reply.get("errorLabels");
  if (!labels.is_array()) return;
  for (const bson::Element& l : labels.as_array()) {
    if (l.value.is_string()) e.add_label(l.value.as_string());
  }
}

}  // namespace

RemoteCommandRunner::RemoteCommandRunner(mongoc_client_pool_t* pool, CommandObserver observer)
    : pool_(pool) {
  if (observer) {
    observer_ = std::make_unique<CommandObserver>(std::move(observer));
    install_command_observer(pool_, observer_.get());
  }
}

RemoteCommandRunner::RemoteCommandRunner(std::shared_ptr<RemoteCommandRunner> base,
                                         mongoc_client_t* client, mongoc_client_session_t* session)
    : pool_(base->pool_), base_(std::move(base)), session_client_(client), session_(session) {}

RemoteCommandRunner::~RemoteCommandRunner() {
  if (!base_) mongoc_client_pool_destroy(pool_);
}

bson::Document RemoteCommandRunner::run(CommandKind kind, std::string_view db,
                                        bson::DocumentView command, uint32_t server_id) {
  if (session_client_ != nullptr) return run_on(session_client_, kind, db, command, server_id);
  PooledClient client(pool_);
  return run_on(client.get(), kind, db, command, server_id);
}

bson::Document RemoteCommandRunner::run_on(mongoc_client_t* client, CommandKind kind,
                                           std::string_view db, bson::DocumentView command,
                                           uint32_t server_id) {
  bson_t cmd = borrow(command);
  bson_t opts = BSON_INITIALIZER;
  bson_t reply;
  bson_error_t error;
  if (server_id != 0) BSON_APPEND_INT32(&opts, "serverId", static_cast<int32_t>(server_id));
  if (session_ != nullptr && !mongoc_client_session_append(session_, &opts, &error)) {
    bson_destroy(&opts);
    throw_transport_error(error);
  }
  std::string db_name(db);
  bool ok = false;
  switch (kind) {
    case CommandKind::kRead:
      ok = mongoc_client_read_command_with_opts(client, db_name.c_str(), &cmd, nullptr, &opts,
                                                &reply, &error);
      break;
    case CommandKind::kWrite:
      ok = mongoc_client_write_command_with_opts(client, db_name.c_str(), &cmd, &opts, &reply,
                                                 &error);
      break;
    case CommandKind::kPlain:
      // mongoc_client_command_with_opts applies none of the client's read preference, read
      // concern or write concern.
      ok = mongoc_client_command_with_opts(client, db_name.c_str(), &cmd, nullptr, &opts, &reply,
                                           &error);
      break;
    case CommandKind::kReadWrite:
      ok = mongoc_client_read_write_command_with_opts(client, db_name.c_str(), &cmd, nullptr, &opts,
                                                      &reply, &error);
      break;
  }
  bson_destroy(&opts);
  // The reply is initialised on every path (empty when nothing came back).
  bson::Document result = own(&reply);
  bson_destroy(&reply);
  if (!ok) throw_remote_error(result, error);
  if (kind != CommandKind::kRead && kind != CommandKind::kPlain) {
    try {
      throw_on_write_errors(result);
    } catch (Error& e) {
      add_labels(e, result);
      throw;
    }
  }
  return result;
}

void throw_remote_error(const bson::Document& result, const bson_error_t& error) {
  try {
    if (error.domain == MONGOC_ERROR_SERVER || error.domain == MONGOC_ERROR_WRITE_CONCERN) {
      bson::Value wce = result.get("writeConcernError");
      if (wce.is_document()) throw_server_error(wce.as_document(), error.message);
      if (result.has("code")) throw_server_error(result.view(), error.message);
      throw Error(static_cast<int32_t>(error.code), error.message);
    }
    if (error.domain == MONGOC_ERROR_TRANSACTION) {
      // A session used out of order (no transaction started, one already in progress).
      throw Error(error.code == MONGOC_ERROR_TRANSACTION_INVALID_STATE
                      ? ErrorCode::kNoSuchTransaction
                      : ErrorCode::kOperationFailed,
                  std::string("remote backend: ") + error.message);
    }
    throw_transport_error(error);
  } catch (Error& e) {
    add_labels(e, result);
    throw;
  }
}

bson::Document RemoteCommandRunner::run_pinned(CommandKind kind, std::string_view db,
                                               bson::DocumentView command, uint32_t* server_id) {
  auto select = [&](mongoc_client_t* client) {
    bson_error_t error;
    mongoc_server_description_t* server =
        mongoc_client_select_server(client, kind != CommandKind::kRead, nullptr, &error);
    if (server == nullptr) throw_transport_error(error);
    *server_id = mongoc_server_description_id(server);
    mongoc_server_description_destroy(server);
  };
  if (session_client_ != nullptr) {
    select(session_client_);
  } else {
    PooledClient client(pool_);
    select(client.get());
  }
  return run(kind, db, command, *server_id);
}

void throw_on_write_errors(const bson::Document& reply) {
  bson::Value errors = reply.get("writeErrors");
  if (errors.is_array()) {
    for (const bson::Element& e : errors.as_array()) {
      if (e.value.is_document()) throw_server_error(e.value.as_document(), "write error");
    }
  }
  bson::Value wce = reply.get("writeConcernError");
  if (wce.is_document()) throw_server_error(wce.as_document(), "write concern error");
}

}  // namespace mongostore::client
