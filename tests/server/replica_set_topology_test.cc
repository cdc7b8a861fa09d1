// `mongostore serve` as the primary of a one-member replica set (its default): hello's
// replica-set fields, --replSet / --advertise, operationTime and $clusterTime from one
// logical clock, readConcern afterClusterTime, write concerns one member cannot satisfy,
// replSetGetStatus, the awaitable hello of the drivers' streaming monitor, and --standalone
// keeping the standalone answers. Spoken over a plain socket, so every field is the server's.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

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

bson::Timestamp operation_time(const Document& reply) {
  EXPECT_EQ(reply.get("operationTime").type(), bson::BsonType::kTimestamp) << reply.to_json();
  return reply.get("operationTime").type() == bson::BsonType::kTimestamp
             ? reply.get("operationTime").as_timestamp()
             : bson::Timestamp{};
}

// serverStatus's connections.awaitingTopologyChanges, asked on a connection of its own.
int64_t awaiting_topology_changes(int port) {
  WireConnection conn(port);
  return int_at(run(conn, make_document("serverStatus", 1, "$db", "admin")),
                "connections.awaitingTopologyChanges");
}

// Waits until `port`'s server holds `n` awaitable hellos (a held hello's reply is written only
// later, so a test can act on a hello known to be held); false after 30 s.
bool await_held_hellos(int port, int64_t n) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (awaiting_topology_changes(port) != n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

class ReplicaSetTopologyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  std::string me() const { return "127.0.0.1:" + std::to_string(server_->port()); }
  static ServerProcess* server_;
};
ServerProcess* ReplicaSetTopologyTest::server_ = nullptr;

TEST_F(ReplicaSetTopologyTest, HelloAnswersAsThePrimaryOfAOneMemberSet) {
  WireConnection conn(server_->port());
  Document hello = run(conn, make_document("hello", 1, "$db", "admin"));
  SCOPED_TRACE(hello.to_json());
  EXPECT_EQ(ok_of(hello), 1.0);
  EXPECT_TRUE(hello.get("isWritablePrimary").as_bool());
  EXPECT_FALSE(hello.get("secondary").as_bool());
  EXPECT_EQ(hello.get("setName").as_string(), "rs0");
  EXPECT_EQ(int_at(hello, "setVersion"), 1);
  ASSERT_TRUE(hello.get("hosts").is_array());
  EXPECT_EQ(hello.get("hosts").as_array().get("0").as_string(), me());
  EXPECT_TRUE(hello.get("hosts").as_array().get("1").is_missing());
  EXPECT_EQ(hello.get("primary").as_string(), me());
  EXPECT_EQ(hello.get("me").as_string(), me());
  EXPECT_EQ(hello.get("electionId").type(), bson::BsonType::kObjectId);
  EXPECT_EQ(path_at(hello, "topologyVersion.processId").type(), bson::BsonType::kObjectId);
  EXPECT_EQ(int_at(hello, "topologyVersion.counter"), 0);
  EXPECT_EQ(path_at(hello, "lastWrite.opTime.ts").type(), bson::BsonType::kTimestamp);
  EXPECT_EQ(path_at(hello, "lastWrite.majorityWriteDate").type(), bson::BsonType::kDateTime);
  EXPECT_EQ(int_at(hello, "logicalSessionTimeoutMinutes"), 30);
  // Transactions need wire version 7 (4.0) and more: drivers check it.
  EXPECT_GE(int_at(hello, "maxWireVersion"), 8);
  // The cluster time, with the zero signature of a server without signing keys.
  EXPECT_EQ(path_at(hello, "$clusterTime.clusterTime").type(), bson::BsonType::kTimestamp);
  ASSERT_EQ(path_at(hello, "$clusterTime.signature.hash").type(), bson::BsonType::kBinary);
  EXPECT_EQ(path_at(hello, "$clusterTime.signature.hash").as_binary().bytes.size(), 20u);
  EXPECT_EQ(int_at(hello, "$clusterTime.signature.keyId"), 0);
  operation_time(hello);
  // The legacy name answers with the same set fields.
  Document legacy = run(conn, make_document("isMaster", 1, "$db", "admin"));
  EXPECT_TRUE(legacy.get("ismaster").as_bool()) << legacy.to_json();
  EXPECT_EQ(legacy.get("setName").as_string(), "rs0");
}

TEST_F(ReplicaSetTopologyTest, WritesAdvanceTheClusterTimeAndReadsReportIt) {
  WireConnection conn(server_->port());
  Document first = run(conn, make_document("insert", "clock", "documents",
                                           make_array(make_document("_id", 1)), "$db", "rs"));
  Document second = run(conn, make_document("insert", "clock", "documents",
                                            make_array(make_document("_id", 2)), "$db", "rs"));
  EXPECT_LT(operation_time(first), operation_time(second));
  Document read = run(conn, make_document("find", "clock", "$db", "rs"));
  EXPECT_GE(operation_time(read), operation_time(second));
  Document hello = run(conn, make_document("hello", 1, "$db", "admin"));
  EXPECT_GE(path_at(hello, "lastWrite.opTime.ts").as_timestamp(), operation_time(second));
}

TEST_F(ReplicaSetTopologyTest, AfterClusterTimeReadsAtATimeReachedAndRefusesOneFromTheFuture) {
  WireConnection conn(server_->port());
  Document wrote = run(conn, make_document("insert", "causal", "documents",
                                           make_array(make_document("_id", 1)), "$db", "rs"));
  bson::Timestamp t = operation_time(wrote);
  Document read = run(
      conn, make_document("find", "causal", "readConcern",
                          make_document("level", "majority", "afterClusterTime", t), "$db", "rs"));
  EXPECT_EQ(ok_of(read), 1.0) << read.to_json();
  EXPECT_EQ(path_at(read, "cursor.firstBatch.0._id").as_int32(), 1) << read.to_json();
  Document future = run(
      conn, make_document("find", "causal", "readConcern",
                          make_document("afterClusterTime", bson::Timestamp{t.seconds + 3600, 1}),
                          "$db", "rs"));
  EXPECT_EQ(int_at(future, "code"), 72) << future.to_json();
  Document wrong_type = run(conn, make_document("find", "causal", "readConcern",
                                                make_document("afterClusterTime", 5), "$db", "rs"));
  EXPECT_EQ(int_at(wrong_type, "code"), 14) << wrong_type.to_json();
}

TEST_F(ReplicaSetTopologyTest, WriteConcernsOneMemberCannotSatisfyComeBackAsWriteConcernErrors) {
  WireConnection conn(server_->port());
  Document w2 =
      run(conn, make_document("insert", "wc", "documents", make_array(make_document("_id", 1)),
                              "writeConcern", make_document("w", 2), "$db", "rs"));
  SCOPED_TRACE(w2.to_json());
  EXPECT_EQ(ok_of(w2), 1.0);
  EXPECT_EQ(int_at(w2, "n"), 1);  // the write happened, as on mongod
  EXPECT_EQ(int_at(w2, "writeConcernError.code"), 100);
  EXPECT_EQ(path_at(w2, "writeConcernError.codeName").as_string(), "UnsatisfiableWriteConcern");
  Document tag =
      run(conn, make_document("insert", "wc", "documents", make_array(make_document("_id", 2)),
                              "writeConcern", make_document("w", "dc"), "$db", "rs"));
  EXPECT_EQ(int_at(tag, "writeConcernError.code"), 79) << tag.to_json();
  Document majority =
      run(conn, make_document("insert", "wc", "documents", make_array(make_document("_id", 3)),
                              "writeConcern", make_document("w", "majority"), "$db", "rs"));
  EXPECT_EQ(ok_of(majority), 1.0);
  EXPECT_TRUE(majority.get("writeConcernError").is_missing()) << majority.to_json();
  Document too_many =
      run(conn, make_document("insert", "wc", "documents", make_array(make_document("_id", 4)),
                              "writeConcern", make_document("w", 51), "$db", "rs"));
  EXPECT_EQ(int_at(too_many, "code"), 9) << too_many.to_json();
}

TEST_F(ReplicaSetTopologyTest, ReadConcernLevelsOfAReplicaSet) {
  WireConnection conn(server_->port());
  Document linearizable =
      run(conn, make_document("find", "levels", "readConcern",
                              make_document("level", "linearizable"), "$db", "rs"));
  EXPECT_EQ(ok_of(linearizable), 1.0) << linearizable.to_json();
  // Outside a transaction a find is not one snapshot across batches here: refused by name.
  Document snapshot = run(conn, make_document("find", "levels", "readConcern",
                                              make_document("level", "snapshot"), "$db", "rs"));
  EXPECT_EQ(int_at(snapshot, "code"), 238) << snapshot.to_json();
}

TEST_F(ReplicaSetTopologyTest, IndexBuildsTakeTheCommitQuorumsOneMemberSatisfies) {
  WireConnection conn(server_->port());
  auto create = [&](const char* name, Document quorum) {
    bson::DocumentBuilder b;
    b.append("createIndexes", "quorum");
    b.append("indexes", make_array(make_document("key", make_document(name, 1), "name", name)));
    b.append("commitQuorum", quorum.get("q"));
    b.append("$db", "rs");
    return run(conn, b.finish());
  };
  EXPECT_EQ(ok_of(create("a", make_document("q", "majority"))), 1.0);
  EXPECT_EQ(ok_of(create("b", make_document("q", "votingMembers"))), 1.0);
  EXPECT_EQ(ok_of(create("c", make_document("q", 1))), 1.0);
  EXPECT_EQ(int_at(create("d", make_document("q", 2)), "code"), 278);  // UnsatisfiableCommitQuorum
  EXPECT_EQ(int_at(create("e", make_document("q", "dc")), "code"), 79);
}

TEST_F(ReplicaSetTopologyTest, ReplSetGetStatusDescribesTheOnePrimary) {
  WireConnection conn(server_->port());
  Document status = run(conn, make_document("replSetGetStatus", 1, "$db", "admin"));
  SCOPED_TRACE(status.to_json());
  EXPECT_EQ(ok_of(status), 1.0);
  EXPECT_EQ(status.get("set").as_string(), "rs0");
  EXPECT_EQ(int_at(status, "myState"), 1);
  EXPECT_EQ(path_at(status, "members.0.stateStr").as_string(), "PRIMARY");
  EXPECT_EQ(path_at(status, "members.0.name").as_string(), me());
  EXPECT_TRUE(path_at(status, "members.0.self").as_bool());
  EXPECT_TRUE(path_at(status, "members.1").is_missing());
  EXPECT_EQ(path_at(status, "optimes.appliedOpTime.ts").type(), bson::BsonType::kTimestamp);
  Document elsewhere = run(conn, make_document("replSetGetStatus", 1, "$db", "rs"));
  EXPECT_EQ(int_at(elsewhere, "code"), 13) << elsewhere.to_json();
}

// The drivers' streaming monitor sends hello with the topologyVersion it last saw and
// maxAwaitTimeMS; with nothing changing the reply comes when that time is up, and meanwhile
// the network threads keep answering everyone else.
TEST_F(ReplicaSetTopologyTest, AnAwaitableHelloIsHeldWithoutHoldingANetworkThread) {
  WireConnection monitor(server_->port(), 30);
  Document first = run(monitor, make_document("hello", 1, "$db", "admin"));
  Document version = Document::copy_of(first.get("topologyVersion").as_document());
  ASSERT_TRUE(monitor.send(op_msg(monitor.next_request_id(),
                                  make_document("hello", 1, "topologyVersion", version,
                                                "maxAwaitTimeMS", int64_t{1500}, "$db", "admin"))));
  // Other connections (more than there are network threads) are answered meanwhile, and
  // serverStatus counts the held hello until its reply is written.
  ASSERT_TRUE(await_held_hellos(server_->port(), 1));
  for (int i = 0; i < 4; ++i) {
    WireConnection other(server_->port());
    EXPECT_TRUE(other.ping());
  }
  auto held = monitor.receive();
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(ok_of(held->body), 1.0) << held->body.to_json();
  EXPECT_EQ(awaiting_topology_changes(server_->port()), 0);
  // A topologyVersion from another process is answered at once (well before its minute).
  Document stale = make_document("processId", bson::ObjectId::generate(), "counter", int64_t{0});
  auto answered = monitor.command(make_document("hello", 1, "topologyVersion", stale,
                                                "maxAwaitTimeMS", int64_t{60000}, "$db", "admin"));
  ASSERT_TRUE(answered.has_value());
  EXPECT_EQ(ok_of(answered->body), 1.0);
}

TEST(ReplicaSetShutdown, AnAwaitableHelloIsAnsweredWhenTheServerStops) {
  ServerProcess server;
  WireConnection monitor(server.port(), 30);
  Document first = run(monitor, make_document("hello", 1, "$db", "admin"));
  ASSERT_TRUE(monitor.send(op_msg(
      monitor.next_request_id(),
      make_document("hello", 1, "topologyVersion", first.get("topologyVersion").as_document(),
                    "maxAwaitTimeMS", int64_t{60000}, "$db", "admin"))));
  // Stopped once the hello is held: one that has not reached the server when it stops is
  // another case (its connection closes without a reply).
  ASSERT_TRUE(await_held_hellos(server.port(), 1));
  std::thread stopper([&] { server.stop(); });
  auto reply = monitor.receive();  // within the 30 s read timeout, not the 60 s wait
  stopper.join();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(ok_of(reply->body), 1.0);
}

// Exhaust hello (OP_MSG exhaustAllowed, the drivers' streaming monitor): each reply says
// moreToCome and the next follows without a request, answering the one before, after
// maxAwaitTimeMS; without exhaustAllowed the same hello gets one plain reply.
constexpr uint32_t kExhaustAllowed = 1u << 16;

TEST_F(ReplicaSetTopologyTest, AnExhaustHelloStreamsRepliesWithMoreToCome) {
  WireConnection monitor(server_->port(), 30);
  Document first = run(monitor, make_document("hello", 1, "$db", "admin"));
  Document version = Document::copy_of(first.get("topologyVersion").as_document());
  int32_t request_id = monitor.next_request_id();
  ASSERT_TRUE(monitor.send(op_msg(request_id,
                                  make_document("hello", 1, "topologyVersion", version,
                                                "maxAwaitTimeMS", int64_t{50}, "$db", "admin"),
                                  kExhaustAllowed)));
  int32_t answers = request_id;
  for (int i = 0; i < 3; ++i) {
    auto streamed = monitor.receive();  // the request was sent once
    ASSERT_TRUE(streamed.has_value()) << "reply " << i;
    SCOPED_TRACE(streamed->body.to_json());
    EXPECT_EQ(ok_of(streamed->body), 1.0);
    EXPECT_NE(streamed->flags & kWireMoreToCome, 0u) << "reply " << i;
    EXPECT_EQ(streamed->response_to, answers) << "reply " << i;
    EXPECT_EQ(int_at(streamed->body, "topologyVersion.counter"), int_at(version, "counter"));
    answers = streamed->request_id;
  }

  WireConnection plain(server_->port(), 30);
  auto once = plain.command(make_document("hello", 1, "topologyVersion", version, "maxAwaitTimeMS",
                                          int64_t{50}, "$db", "admin"));
  ASSERT_TRUE(once.has_value());
  EXPECT_EQ(once->flags & kWireMoreToCome, 0u);
  // exhaustAllowed on a hello that is not awaitable: one reply, no stream.
  ASSERT_TRUE(plain.send(
      op_msg(plain.next_request_id(), make_document("hello", 1, "$db", "admin"), kExhaustAllowed)));
  auto not_streamed = plain.receive();
  ASSERT_TRUE(not_streamed.has_value());
  EXPECT_EQ(not_streamed->flags & kWireMoreToCome, 0u);
  EXPECT_TRUE(plain.ping());  // the connection takes requests again
}

TEST(ReplicaSetShutdown, AnExhaustStreamEndsWithAReplyWithoutMoreToCome) {
  ServerProcess server;
  WireConnection monitor(server.port(), 30);
  // A topologyVersion of another process: answered at once, then streamed every 60 s.
  Document stale = make_document("processId", bson::ObjectId::generate(), "counter", int64_t{0});
  ASSERT_TRUE(monitor.send(op_msg(monitor.next_request_id(),
                                  make_document("hello", 1, "topologyVersion", stale,
                                                "maxAwaitTimeMS", int64_t{60000}, "$db", "admin"),
                                  kExhaustAllowed)));
  auto first = monitor.receive();
  ASSERT_TRUE(first.has_value());
  EXPECT_NE(first->flags & kWireMoreToCome, 0u);
  std::thread stopper([&] { server.stop(); });
  auto last = monitor.receive();  // within the 30 s read timeout, not the 60 s wait
  stopper.join();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(ok_of(last->body), 1.0);
  EXPECT_EQ(last->flags & kWireMoreToCome, 0u);
  EXPECT_EQ(last->response_to, first->request_id);
}

TEST(ReplicaSetOptions, ReplSetAndAdvertiseNameTheSetAndItsHost) {
  ServerProcess server({"--memory", "--replSet", "tenants", "--advertise", "db.example:27999"});
  WireConnection conn(server.port());
  Document hello = run(conn, make_document("hello", 1, "$db", "admin"));
  EXPECT_EQ(hello.get("setName").as_string(), "tenants") << hello.to_json();
  EXPECT_EQ(path_at(hello, "hosts.0").as_string(), "db.example:27999");
  EXPECT_EQ(hello.get("me").as_string(), "db.example:27999");
}

TEST(ReplicaSetOptions, StandaloneKeepsTheStandaloneAnswers) {
  ServerProcess server({"--memory", "--standalone"});
  WireConnection conn(server.port());
  Document hello = run(conn, make_document("hello", 1, "$db", "admin"));
  SCOPED_TRACE(hello.to_json());
  EXPECT_TRUE(hello.get("isWritablePrimary").as_bool());
  EXPECT_TRUE(hello.get("setName").is_missing());
  EXPECT_TRUE(hello.get("$clusterTime").is_missing());
  EXPECT_TRUE(hello.get("operationTime").is_missing());
  Document status = run(conn, make_document("replSetGetStatus", 1, "$db", "admin"));
  EXPECT_EQ(int_at(status, "code"), 76) << status.to_json();
  uint8_t uuid[16] = {1, 2, 3, 4, 5, 6, 0x47, 8, 0x89, 10, 11, 12, 13, 14, 15, 16};
  Document lsid = make_document("id", bson::BinaryView{4, std::span<const uint8_t>(uuid, 16)});
  Document retryable =
      run(conn, make_document("insert", "s", "documents", make_array(make_document("_id", 1)),
                              "lsid", lsid, "txnNumber", int64_t{1}, "$db", "rs"));
  EXPECT_EQ(int_at(retryable, "code"), 20) << retryable.to_json();
  Document w2 =
      run(conn, make_document("insert", "s", "documents", make_array(make_document("_id", 1)),
                              "writeConcern", make_document("w", 2), "$db", "rs"));
  EXPECT_EQ(int_at(w2, "code"), 2) << w2.to_json();
  Document quorum =
      run(conn, make_document("createIndexes", "s", "indexes",
                              make_array(make_document("key", make_document("a", 1), "name", "a")),
                              "commitQuorum", "majority", "$db", "rs"));
  EXPECT_EQ(int_at(quorum, "code"), 2) << quorum.to_json();
}

}  // namespace
}  // namespace mongostore::testing
