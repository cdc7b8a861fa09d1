// The failCommand fail point (configureFailPoint, serve --enableTestCommands): its modes
// (alwaysOn, off, times, skip), what it does (errorCode with mongod's or the given labels,
// closeConnection, blockConnection, writeConcernError), appName matching, and its absence
// without --enableTestCommands.
#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/builder.h"
#include "server/reply_path.h"
#include "server/wire_command.h"
#include "server/wire_connection.h"
#include "support/server_process.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::DocumentView;
using bson::make_array;
using bson::make_document;

std::vector<std::string> labels_of(const Document& reply) {
  std::vector<std::string> out;
  if (!reply.get("errorLabels").is_array()) return out;
  for (const bson::Element& e : reply.get("errorLabels").as_array()) {
    out.emplace_back(e.value.as_string());
  }
  return out;
}

// `mode` is {mode: <the mode>}.
Document configure(const Document& mode, const Document& data) {
  bson::DocumentBuilder b;
  b.append("configureFailPoint", "failCommand").append("mode", mode.get("mode"));
  b.append("data", data);
  b.append("$db", "admin");
  return b.finish();
}

Document ping() {
  return make_document("ping", 1, "$db", "admin");
}

Document insert(int id) {
  return make_document("insert", "fp", "documents", make_array(make_document("_id", id)), "$db",
                       "fail");
}

class FailCommandTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess({"--memory", "--enableTestCommands"});
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { conn_ = std::make_unique<WireConnection>(server_->port()); }
  void TearDown() override {
    WireConnection cleanup(server_->port());
    Document off =
        make_document("configureFailPoint", "failCommand", "mode", "off", "$db", "admin");
    EXPECT_EQ(ok_of(run(cleanup, off)), 1.0);
  }
  static ServerProcess* server_;
  std::unique_ptr<WireConnection> conn_;
};
ServerProcess* FailCommandTest::server_ = nullptr;

TEST_F(FailCommandTest, ErrorCodeFailsTheNamedCommandsForTheGivenTimes) {
  Document mode = make_document("times", 2);
  Document set =
      run(*conn_, configure(make_document("mode", mode),
                            make_document("failCommands", make_array("insert"), "errorCode", 2)));
  ASSERT_EQ(ok_of(set), 1.0) << set.to_json();
  EXPECT_EQ(ok_of(run(*conn_, ping())), 1.0);  // not named: runs
  Document first = run(*conn_, insert(1));
  EXPECT_EQ(int_at(first, "code"), 2) << first.to_json();
  EXPECT_EQ(first.get("errmsg").as_string(), "Failing command via 'failCommand' failpoint");
  EXPECT_EQ(int_at(run(*conn_, insert(1)), "code"), 2);
  EXPECT_EQ(ok_of(run(*conn_, insert(1))), 1.0);  // times used up
  EXPECT_EQ(int_at(run(*conn_, make_document("count", "fp", "$db", "fail")), "n"), 1);
}

TEST_F(FailCommandTest, RetryableErrorsOfRetryableWritesGetMongodsLabelUnlessLabelsAreGiven) {
  uint8_t uuid[16] = {3, 1, 2, 3, 4, 5, 0x46, 7, 0x88, 9, 10, 11, 12, 13, 14, 3};
  Document lsid = make_document("id", bson::BinaryView{4, std::span<const uint8_t>(uuid, 16)});
  Document retryable =
      make_document("insert", "fp", "documents", make_array(make_document("_id", 10)), "lsid", lsid,
                    "txnNumber", int64_t{1}, "$db", "fail");
  ASSERT_EQ(ok_of(run(*conn_, configure(make_document("mode", "alwaysOn"),
                                        make_document("failCommands", make_array("insert"),
                                                      "errorCode", 91)))),
            1.0);
  Document failed = run(*conn_, retryable);
  EXPECT_EQ(failed.get("codeName").as_string(), "ShutdownInProgress") << failed.to_json();
  EXPECT_EQ(labels_of(failed), std::vector<std::string>{"RetryableWriteError"});
  // A plain write (no txnNumber) is not retryable: no label.
  EXPECT_TRUE(labels_of(run(*conn_, insert(11))).empty());
  ASSERT_EQ(
      ok_of(run(*conn_, configure(make_document("mode", "alwaysOn"),
                                  make_document("failCommands", make_array("insert"), "errorCode",
                                                91, "errorLabels", make_array("Custom"))))),
      1.0);
  EXPECT_EQ(labels_of(run(*conn_, retryable)), std::vector<std::string>{"Custom"});
  run(*conn_, configure(make_document("mode", "off"), make_document()));
  // The retry of the failed write runs now (a failure as a whole is not remembered).
  EXPECT_EQ(int_at(run(*conn_, retryable), "n"), 1);
}

TEST_F(FailCommandTest, SkipLetsTheFirstThrough) {
  Document mode = make_document("skip", 1);
  ASSERT_EQ(ok_of(run(*conn_, configure(make_document("mode", mode),
                                        make_document("failCommands", make_array("ping"),
                                                      "errorCode", 8)))),
            1.0);
  EXPECT_EQ(ok_of(run(*conn_, ping())), 1.0);
  EXPECT_EQ(int_at(run(*conn_, ping()), "code"), 8);
}

TEST_F(FailCommandTest, CloseConnectionClosesWithoutAReply) {
  ASSERT_EQ(ok_of(run(*conn_, configure(make_document("mode", "alwaysOn"),
                                        make_document("failCommands", make_array("find"),
                                                      "closeConnection", true)))),
            1.0);
  ASSERT_TRUE(
      conn_->send(op_msg(conn_->next_request_id(), make_document("find", "fp", "$db", "fail"))));
  EXPECT_TRUE(conn_->closed_by_server());
}

TEST_F(FailCommandTest, WriteConcernErrorIsAddedToAReplyOfACommandThatRan) {
  ASSERT_EQ(ok_of(run(*conn_, configure(make_document("mode", "alwaysOn"),
                                        make_document("failCommands", make_array("insert"),
                                                      "writeConcernError",
                                                      make_document("code", 91, "errmsg",
                                                                    "Replication is being "
                                                                    "shut down"))))),
            1.0);
  Document reply = run(*conn_, insert(20));
  EXPECT_EQ(ok_of(reply), 1.0) << reply.to_json();
  EXPECT_EQ(int_at(reply, "n"), 1);
  EXPECT_EQ(int_at(reply, "writeConcernError.code"), 91);
  EXPECT_TRUE(labels_of(reply).empty()) << reply.to_json();  // not a retryable write
  // In a retryable write, a retryable write concern error carries RetryableWriteError.
  uint8_t uuid[16] = {4, 1, 2, 3, 4, 5, 0x46, 7, 0x88, 9, 10, 11, 12, 13, 14, 4};
  Document lsid = make_document("id", bson::BinaryView{4, std::span<const uint8_t>(uuid, 16)});
  Document retryable =
      run(*conn_, make_document("insert", "fp", "documents", make_array(make_document("_id", 21)),
                                "lsid", lsid, "txnNumber", int64_t{1}, "$db", "fail"));
  EXPECT_EQ(labels_of(retryable), std::vector<std::string>{"RetryableWriteError"})
      << retryable.to_json();
}

TEST_F(FailCommandTest, BlockConnectionDelaysTheCommandThenRunsIt) {
  ASSERT_EQ(
      ok_of(run(*conn_, configure(make_document("mode", "alwaysOn"),
                                  make_document("failCommands", make_array("hello"),
                                                "blockConnection", true, "blockTimeMS", 100)))),
      1.0);
  EXPECT_EQ(ok_of(run(*conn_, make_document("hello", 1, "$db", "admin"))), 1.0);
}

TEST_F(FailCommandTest, AppNameLimitsItToThatApplicationsConnections) {
  ASSERT_EQ(ok_of(run(*conn_, configure(make_document("mode", "alwaysOn"),
                                        make_document("failCommands", make_array("ping"),
                                                      "errorCode", 8, "appName", "victim")))),
            1.0);
  EXPECT_EQ(ok_of(run(*conn_, ping())), 1.0);
  WireConnection victim(server_->port());
  run(victim,
      make_document("hello", 1, "client",
                    make_document("application", make_document("name", "victim")), "$db", "admin"));
  EXPECT_EQ(int_at(run(victim, ping()), "code"), 8);
}

TEST_F(FailCommandTest, MalformedConfigurationsAreRefused) {
  EXPECT_EQ(int_at(run(*conn_, configure(make_document("mode", "sometimes"),
                                         make_document("failCommands", make_array("ping")))),
                   "code"),
            2);
  EXPECT_EQ(int_at(run(*conn_,
                       configure(make_document("mode", "alwaysOn"), make_document("errorCode", 2))),
                   "code"),
            2);
  Document other =
      make_document("configureFailPoint", "hangBeforeCommit", "mode", "alwaysOn", "$db", "admin");
  EXPECT_EQ(int_at(run(*conn_, other), "code"), 238);
}

TEST(FailCommandWithoutTestCommands, ConfigureFailPointDoesNotExist) {
  ServerProcess server;
  WireConnection conn(server.port());
  Document reply = run(
      conn, make_document("configureFailPoint", "failCommand", "mode", "alwaysOn", "$db", "admin"));
  EXPECT_EQ(int_at(reply, "code"), 59) << reply.to_json();
}

}  // namespace
}  // namespace mongostore::testing
