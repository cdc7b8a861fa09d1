// libmongoc, as a real driver, for the server tests: a client owning its mongoc_client_t,
// conversions between the project's Documents and bson_t, and a `run` that returns the raw
// reply of any command (the shape mongod would give a driver) whether or not it succeeded.
#pragma once

#include <gtest/gtest.h>
#include <mongoc/mongoc.h>

#include <memory>
#include <string>

#include "mongostore/bson/document.h"

namespace mongostore::testing {

/// mongoc_init once per process, with libmongoc's own log silenced (errors arrive in the
/// bson_error_t and reply of each call).
inline void init_mongoc() {
  static bool done = [] {
    mongoc_log_set_handler(nullptr, nullptr);
    mongoc_init();
    return true;
  }();
  (void)done;
}

/// A read-only bson_t over a Document's bytes (valid while `doc` lives).
class BsonRef {
 public:
  explicit BsonRef(const bson::Document& doc) { bson_init_static(&bson_, doc.data(), doc.size()); }
  BsonRef(const BsonRef&) = delete;
  BsonRef& operator=(const BsonRef&) = delete;
  const bson_t* get() const { return &bson_; }

 private:
  bson_t bson_;
};

inline bson::Document to_document(const bson_t* b) {
  return bson::Document::from_bytes({bson_get_data(b), b->len});
}

/// The outcome of one command: whether libmongoc called it a success, the reply it got (the
/// server's error reply on failure) and libmongoc's error.
struct CommandOutcome {
  bool succeeded = false;
  bson::Document reply;
  bson_error_t error{};
};

class MongocClient {
 public:
  explicit MongocClient(const std::string& uri) {
    init_mongoc();
    bson_error_t error;
    mongoc_uri_t* parsed = mongoc_uri_new_with_error(uri.c_str(), &error);
    EXPECT_NE(parsed, nullptr) << error.message;
    if (parsed == nullptr) return;
    client_ = mongoc_client_new_from_uri(parsed);
    mongoc_uri_destroy(parsed);
    EXPECT_NE(client_, nullptr);
    if (client_ != nullptr) mongoc_client_set_error_api(client_, MONGOC_ERROR_API_VERSION_2);
  }
  ~MongocClient() {
    if (client_ != nullptr) mongoc_client_destroy(client_);
  }
  MongocClient(const MongocClient&) = delete;
  MongocClient& operator=(const MongocClient&) = delete;

  mongoc_client_t* get() const { return client_; }

  /// Runs `command` on `db` (mongoc_client_command_simple) and returns the raw reply.
  CommandOutcome run(const std::string& db, const bson::Document& command,
                     const mongoc_read_prefs_t* read_prefs = nullptr) const {
    CommandOutcome out;
    BsonRef cmd(command);
    bson_t reply;
    out.succeeded = mongoc_client_command_simple(client_, db.c_str(), cmd.get(), read_prefs, &reply,
                                                 &out.error);
    out.reply = to_document(&reply);
    bson_destroy(&reply);
    return out;
  }

  /// A collection handle, destroyed with the returned pointer.
  std::unique_ptr<mongoc_collection_t, void (*)(mongoc_collection_t*)> collection(
      const std::string& db, const std::string& coll) const {
    return {mongoc_client_get_collection(client_, db.c_str(), coll.c_str()),
            mongoc_collection_destroy};
  }

 private:
  mongoc_client_t* client_ = nullptr;
};

}  // namespace mongostore::testing
