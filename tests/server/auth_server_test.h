// A fixture for suites that talk to one `mongostore serve --memory --auth` over the wire:
// the server is started once per suite, its first user (root / rootpw, role root) is made
// through the localhost exception, and `uri_as` / `root()` log clients in as any user.
// Suites that need a server of their own (other flags, TLS) make its root user with
// make_root_user().
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "mongostore/bson/builder.h"
#include "server/server_command_test.h"

namespace mongostore::testing {

/// Makes the first user of a `serve --auth` server, root / rootpw with the role root on admin,
/// through the localhost exception (from loopback, while no user exists), as a client of
/// `uri` (the server's URI with whatever options reach it, e.g. TLS). The outcome is the
/// createUser command's: check `succeeded`.
inline CommandOutcome make_root_user(const std::string& uri) {
  return MongocClient(uri).run(
      "admin",
      bson::make_document("createUser", "root", "pwd", "rootpw", "roles",
                          bson::make_array(bson::make_document("role", "root", "db", "admin"))));
}

class AuthServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess({"--memory", "--auth"});
    CommandOutcome made = make_root_user(server_->uri("serverSelectionTimeoutMS=5000"));
    ASSERT_TRUE(made.succeeded) << made.reply.to_json();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  /// The server's URI logged in as `user` with `pwd`, with `options` (e.g. "authSource=db").
  static std::string uri_as(const std::string& user, const std::string& pwd,
                            const std::string& options) {
    std::string uri = server_->uri("serverSelectionTimeoutMS=5000&" + options);
    return "mongodb://" + user + ":" + pwd + "@" + uri.substr(std::string("mongodb://").size());
  }

  /// A client logged in as the root user.
  static std::unique_ptr<MongocClient> root() {
    return std::make_unique<MongocClient>(uri_as("root", "rootpw", "authSource=admin"));
  }

  static inline ServerProcess* server_ = nullptr;
};

}  // namespace mongostore::testing
