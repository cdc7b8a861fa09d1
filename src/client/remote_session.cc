#include "client/remote_session.h"

#include <mongoc/mongoc.h>

#include <string>

#include "client/remote_client.h"
#include "mongostore/error.h"

namespace mongostore::client {
namespace {

bson::Document own_reply(const bson_t* reply) {
  return bson::Document::from_bytes({bson_get_data(reply), reply->len});
}

}  // namespace

RemoteSession::RemoteSession(std::shared_ptr<RemoteCommandRunner> base,
                             const SessionOptions& options)
    : base_(std::move(base)), options_(options) {
  mongoc_client_ = mongoc_client_pool_pop(base_->pool());
  mongoc_session_opt_t* opts = mongoc_session_opts_new();
  mongoc_session_opts_set_causal_consistency(opts, options_.causal_consistency);
  bson_error_t error;
  session_ = mongoc_client_start_session(mongoc_client_, opts, &error);
  mongoc_session_opts_destroy(opts);
  if (session_ == nullptr) {
    mongoc_client_pool_push(base_->pool(), mongoc_client_);
    throw_remote_error(bson::Document(), error);
  }
  client_ =
      remote_client_on(std::make_shared<RemoteCommandRunner>(base_, mongoc_client_, session_));
}

RemoteSession::~RemoteSession() {
  client_.reset();
  // Ends the session (libmongoc aborts an open transaction) before its client goes back.
  mongoc_client_session_destroy(session_);
  mongoc_client_pool_push(base_->pool(), mongoc_client_);
}

void RemoteSession::start_transaction(const TransactionOptions& options) {
  if (mongoc_client_session_in_transaction(session_)) {
    throw Error(ErrorCode::kOperationNotSupportedInTransaction, "Transaction already in progress");
  }
  mongoc_transaction_opt_t* txn = mongoc_transaction_opts_new();
  mongoc_read_concern_t* rc = mongoc_read_concern_new();
  if (!options.read_concern.empty()) {
    mongoc_read_concern_set_level(rc, options.read_concern.c_str());
    mongoc_transaction_opts_set_read_concern(txn, rc);
  }
  mongoc_write_concern_t* wc = mongoc_write_concern_new();
  if (!options.default_write_concern) mongoc_write_concern_set_journal(wc, options.journal);
  if (options.w == "majority") {
    mongoc_write_concern_set_w(wc, MONGOC_WRITE_CONCERN_W_MAJORITY);
  } else if (!options.w.empty() && options.w.find_first_not_of("0123456789") == std::string::npos &&
             options.w.size() < 9) {
    mongoc_write_concern_set_w(wc, static_cast<int32_t>(std::stoi(options.w)));
  } else if (!options.w.empty()) {
    mongoc_write_concern_set_wtag(wc, options.w.c_str());
  }
  if (!options.default_write_concern || !options.w.empty()) {
    mongoc_transaction_opts_set_write_concern(txn, wc);
  }
  if (options.max_commit_time) {
    mongoc_transaction_opts_set_max_commit_time_ms(txn, options.max_commit_time->count());
  }
  bson_error_t error;
  bool ok = mongoc_client_session_start_transaction(session_, txn, &error);
  mongoc_write_concern_destroy(wc);
  mongoc_read_concern_destroy(rc);
  mongoc_transaction_opts_destroy(txn);
  if (!ok) throw_remote_error(bson::Document(), error);
}

void RemoteSession::commit_transaction() {
  bson_t reply;
  bson_error_t error;
  bool ok = mongoc_client_session_commit_transaction(session_, &reply, &error);
  bson::Document result = own_reply(&reply);
  bson_destroy(&reply);
  if (!ok) throw_remote_error(result, error);
}

void RemoteSession::abort_transaction() {
  // The same answers as the embedded backend for a session used out of order.
  switch (mongoc_client_session_get_transaction_state(session_)) {
    case MONGOC_TRANSACTION_COMMITTED:
      throw Error(ErrorCode::kTransactionCommitted,
                  "Cannot call abortTransaction after calling commitTransaction");
    case MONGOC_TRANSACTION_ABORTED:
      return;
    case MONGOC_TRANSACTION_NONE:
      throw Error(ErrorCode::kNoSuchTransaction, "No transaction started");
    default:
      break;
  }
  bson_error_t error;
  if (!mongoc_client_session_abort_transaction(session_, &error)) {
    throw_remote_error(bson::Document(), error);
  }
}

bool RemoteSession::in_transaction() const {
  return mongoc_client_session_in_transaction(session_);
}

}  // namespace mongostore::client
