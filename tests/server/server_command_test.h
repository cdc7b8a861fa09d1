// A GoogleTest fixture over one `mongostore serve` per suite and a libmongoc client per test,
// with the checks of a command's reply the server tests share: must_run (ok 1) and must_fail
// (ok 0 with mongod's code, codeName and errmsg).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "mongostore/bson/builder.h"
#include "server/mongoc_test_client.h"
#include "server/reply_path.h"
#include "support/server_process.h"

namespace mongostore::testing {

inline double ok_in(const bson::Document& reply) {
  bson::Value ok = reply.get("ok");
  EXPECT_TRUE(ok.is_number()) << reply.to_json();
  return ok.is_number() ? ok.number_as_double() : -1;
}

class ServerCommandTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    client_ = std::make_unique<MongocClient>(
        server_->uri("serverSelectionTimeoutMS=5000&connectTimeoutMS=5000"));
    ASSERT_NE(client_->get(), nullptr);
  }

  bson::Document must_run(const std::string& db, const bson::Document& command) {
    CommandOutcome out = client_->run(db, command);
    EXPECT_TRUE(out.succeeded) << command.to_json() << ": " << out.error.message << " "
                               << out.reply.to_json();
    EXPECT_EQ(ok_in(out.reply), 1.0) << out.reply.to_json();
    return out.reply;
  }

  bson::Document must_fail(const std::string& db, const bson::Document& command, int32_t code,
                           std::string_view code_name) {
    CommandOutcome out = client_->run(db, command);
    expect_error_reply(command, out, code, code_name);
    return out.reply;
  }

  /// Checks that `out` (of `command`) is mongod's error reply: ok 0, `code`, `code_name`,
  /// errmsg.
  static void expect_error_reply(const bson::Document& command, const CommandOutcome& out,
                                 int32_t code, std::string_view code_name) {
    EXPECT_FALSE(out.succeeded) << command.to_json() << " " << out.reply.to_json();
    EXPECT_EQ(ok_in(out.reply), 0.0) << command.to_json() << " " << out.reply.to_json();
    EXPECT_EQ(int_at(out.reply, "code"), code) << command.to_json() << " " << out.reply.to_json();
    EXPECT_EQ(out.reply.get("codeName").is_string() ? out.reply.get("codeName").as_string()
                                                    : std::string_view(),
              code_name)
        << out.reply.to_json();
    EXPECT_TRUE(out.reply.get("errmsg").is_string()) << out.reply.to_json();
  }

  // The errmsg of a failed command (empty when it succeeded).
  std::string errmsg_of(const std::string& db, const bson::Document& command) {
    CommandOutcome out = client_->run(db, command);
    bson::Value m = out.reply.get("errmsg");
    return m.is_string() ? std::string(m.as_string()) : std::string();
  }

  static ServerProcess* server_;
  std::unique_ptr<MongocClient> client_;
};

inline ServerProcess* ServerCommandTest::server_ = nullptr;

}  // namespace mongostore::testing
