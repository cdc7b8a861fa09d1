// What `mongostore serve` does with clients that misbehave: a header claiming more than
// maxMessageSizeBytes, a negative or too-short length, a body that is not a valid message, an
// unknown opCode, a client that stops in the middle of a message, and connections past
// --max-connections. Each must close only the offending connection: other connections keep
// answering and the server process stays alive. The message timeout itself is checked on an
// in-process Server with a short timeout (the CLI keeps the 30 s default).
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <atomic>

#include "mongostore/bson/builder.h"
#include "mongostore/engine/engine.h"
#include "mongostore/server/server.h"
#include "server/wire_connection.h"
#include "support/server_process.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::make_document;

// Still running: not exited (a zombie would still answer kill(pid, 0)).
bool process_alive(pid_t pid) {
  int status = 0;
  return kill(pid, 0) == 0 && waitpid(pid, &status, WNOHANG) == 0;
}

class WireRobustnessTest : public ::testing::Test {
 protected:
  // Sends `bytes` on a fresh connection and checks that exactly that connection is closed:
  // a connection opened before keeps answering, as does one opened after, and the server
  // process is alive.
  void expect_only_this_connection_closed(const std::vector<uint8_t>& bytes) {
    WireConnection bystander(server_.port());
    ASSERT_TRUE(bystander.ping());
    WireConnection offender(server_.port());
    ASSERT_TRUE(offender.connected());
    offender.send(bytes);  // the server may close before reading all of it
    EXPECT_TRUE(offender.closed_by_server());
    EXPECT_TRUE(bystander.ping());
    WireConnection later(server_.port());
    EXPECT_TRUE(later.ping());
    EXPECT_TRUE(process_alive(server_.pid()));
  }

  ServerProcess server_;
};

std::vector<uint8_t> ping_message(int32_t id = 1) {
  return op_msg(id, make_document("ping", 1, "$db", "admin"));
}

TEST_F(WireRobustnessTest, LengthOverMaxMessageSizeClosesTheConnection) {
  std::vector<uint8_t> bytes = header(48000001, 1, kWireOpMsg);
  bytes.resize(bytes.size() + 64, 0);
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, NegativeLengthClosesTheConnection) {
  std::vector<uint8_t> bytes = header(-1, 1, kWireOpMsg);
  bytes.resize(bytes.size() + 16, 0);
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, LengthShorterThanTheHeaderClosesTheConnection) {
  std::vector<uint8_t> bytes = header(8, 1, kWireOpMsg);
  bytes.resize(bytes.size() + 16, 0);
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, GarbageBodyClosesTheConnection) {
  std::vector<uint8_t> bytes = header(16 + 40, 1, kWireOpMsg);
  for (int i = 0; i < 40; ++i) bytes.push_back(static_cast<uint8_t>(0xA5 ^ (i * 37)));
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, BodyDocumentLongerThanTheMessageClosesTheConnection) {
  std::vector<uint8_t> bytes = ping_message();
  // The body's BSON length (after the 16-byte header, 4 flag bytes, 1 kind byte) is inflated.
  uint8_t* doc_length = bytes.data() + 21;
  int32_t inflated = get_int32(doc_length) + 1000;
  for (int i = 0; i < 4; ++i) doc_length[i] = static_cast<uint8_t>(inflated >> (8 * i));
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, InvalidBsonInsideTheBodyClosesTheConnection) {
  std::vector<uint8_t> bytes = ping_message();
  // The first element's type byte (header 16, flags 4, kind 1, document length 4) becomes an
  // undefined BSON type.
  bytes[25] = 0x7E;
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, UnknownSectionKindClosesTheConnection) {
  std::vector<uint8_t> bytes = ping_message();
  bytes.push_back(7);  // a section of kind 7 after the body
  set_message_length(bytes);
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, OpMsgWithoutABodyClosesTheConnection) {
  std::vector<uint8_t> bytes = header(0, 1, kWireOpMsg);
  put_int32(bytes, 0);  // flagBits and nothing else
  set_message_length(bytes);
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, UnknownOpCodeClosesTheConnection) {
  std::vector<uint8_t> bytes = ping_message();
  for (int i = 0; i < 4; ++i) bytes[12 + i] = static_cast<uint8_t>(9999 >> (8 * i));
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, RemovedLegacyOpInsertClosesTheConnection) {
  // OP_INSERT (2002) was removed in MongoDB 6.0; it must not be taken for anything else.
  std::vector<uint8_t> bytes = header(0, 1, 2002);
  put_int32(bytes, 0);
  for (char c : std::string("db.coll")) bytes.push_back(static_cast<uint8_t>(c));
  bytes.push_back(0);
  put_bytes(bytes, make_document("_id", 1));
  set_message_length(bytes);
  expect_only_this_connection_closed(bytes);
}

TEST_F(WireRobustnessTest, ManyBadClientsInARowLeaveTheServerServing) {
  WireConnection bystander(server_.port());
  ASSERT_TRUE(bystander.ping());
  for (int i = 0; i < 20; ++i) {
    WireConnection offender(server_.port());
    ASSERT_TRUE(offender.connected());
    std::vector<uint8_t> bytes = header(i % 2 == 0 ? -i - 1 : 48000000 + i, i, kWireOpMsg);
    offender.send(bytes);
    EXPECT_TRUE(offender.closed_by_server()) << i;
  }
  EXPECT_TRUE(bystander.ping());
  EXPECT_TRUE(process_alive(server_.pid()));
}

TEST_F(WireRobustnessTest, StalledHalfMessageBlocksOnlyItsOwnConnection) {
  WireConnection bystander(server_.port());
  ASSERT_TRUE(bystander.ping());
  WireConnection stalled(server_.port());
  ASSERT_TRUE(stalled.connected());
  std::vector<uint8_t> message = ping_message(5);
  ASSERT_TRUE(stalled.send(message.data(), message.size() / 2));
  // While that connection waits for the rest, the server serves everybody else.
  EXPECT_TRUE(bystander.ping());
  WireConnection later(server_.port());
  EXPECT_TRUE(later.ping());
  EXPECT_TRUE(process_alive(server_.pid()));
  // The client gives up (half-closes): the server closes its side and stays up.
  ASSERT_EQ(shutdown(stalled.fd(), SHUT_WR), 0);
  EXPECT_TRUE(stalled.closed_by_server());
  EXPECT_TRUE(bystander.ping());
  EXPECT_TRUE(process_alive(server_.pid()));
}

TEST_F(WireRobustnessTest, MessageSentInPiecesIsAnswered) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  std::vector<uint8_t> message = ping_message(6);
  // Split inside the header and inside the body: TCP may deliver any split.
  ASSERT_TRUE(conn.send(message.data(), 3));
  ASSERT_TRUE(conn.send(message.data() + 3, 17));
  ASSERT_TRUE(conn.send(message.data() + 20, message.size() - 20));
  auto reply = conn.receive();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->response_to, 6);
  EXPECT_EQ(reply->body.get("ok").number_as_double(), 1.0);
}

TEST(WireConnectionLimitTest, ConnectionsPastMaxConnectionsAreClosed) {
  ServerProcess server({"--memory", "--max-connections", "4"});
  std::vector<std::unique_ptr<WireConnection>> admitted;
  for (int i = 0; i < 4; ++i) {
    admitted.push_back(std::make_unique<WireConnection>(server.port()));
    // Answered, hence accepted and counted before the next one connects.
    ASSERT_TRUE(admitted.back()->ping()) << i;
  }
  {
    WireConnection extra(server.port());
    if (extra.connected()) {
      extra.send(ping_message());
      EXPECT_TRUE(extra.closed_by_server());
    }
  }
  for (auto& conn : admitted) EXPECT_TRUE(conn->ping());
  EXPECT_TRUE(process_alive(server.pid()));

  // A closed connection frees its slot. The server notices the close asynchronously, so a
  // new connection is retried until admitted (or the attempts run out).
  admitted.pop_back();
  bool admitted_again = false;
  for (int attempt = 0; attempt < 100 && !admitted_again; ++attempt) {
    WireConnection next(server.port());
    if (next.connected() && next.send(ping_message())) {
      auto reply = next.receive();
      admitted_again = reply.has_value() && reply->body.get("ok").number_as_double() == 1.0;
    }
    if (!admitted_again) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(admitted_again);
  for (auto& conn : admitted) EXPECT_TRUE(conn->ping());
}

// An in-process server with a short message timeout: a client that starts a message and
// stops is disconnected, while an idle connection (no message started) is left alone.
class MessageTimeoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::EngineOptions engine_options;
    engine_options.durability = engine::Durability::kInMemory;
    engine_options.cache_size_mb = 64;
    engine_ = engine::Engine::open(engine_options);
    server::ServerOptions options;
    options.port = 0;
    options.log = false;
    options.message_timeout = std::chrono::milliseconds(200);
    server_ = std::make_unique<server::Server>(engine_, options);
    server_->start();
  }
  void TearDown() override {
    if (server_) server_->stop();
    server_.reset();
    engine_.reset();
  }
  std::shared_ptr<engine::Engine> engine_;
  std::unique_ptr<server::Server> server_;
};

TEST_F(MessageTimeoutTest, StalledBodyIsDisconnected) {
  WireConnection bystander(server_->port());
  ASSERT_TRUE(bystander.ping());
  WireConnection stalled(server_->port());
  std::vector<uint8_t> message = ping_message();
  ASSERT_TRUE(stalled.send(message.data(), message.size() - 3));
  // The read timeout (10 s) is far longer than the message timeout (200 ms): EOF here means
  // the server gave up on the message.
  EXPECT_TRUE(stalled.closed_by_server());
  EXPECT_TRUE(bystander.ping());
}

TEST_F(MessageTimeoutTest, StalledHeaderIsDisconnected) {
  WireConnection stalled(server_->port());
  std::vector<uint8_t> message = ping_message();
  ASSERT_TRUE(stalled.send(message.data(), 5));
  EXPECT_TRUE(stalled.closed_by_server());
}

TEST_F(MessageTimeoutTest, ShutdownWithIdleAndHalfSentConnectionsClosesThem) {
  WireConnection idle(server_->port());
  ASSERT_TRUE(idle.ping());
  WireConnection stalled(server_->port());
  std::vector<uint8_t> message = ping_message();
  ASSERT_TRUE(stalled.send(message.data(), 7));
  server_->stop();
  server_.reset();
  EXPECT_TRUE(idle.closed_by_server());
  EXPECT_TRUE(stalled.closed_by_server());
}

TEST_F(MessageTimeoutTest, IdleConnectionOutlivesTheMessageTimeout) {
  WireConnection idle(server_->port());
  ASSERT_TRUE(idle.ping());
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_TRUE(idle.ping());
}

// stop() drains: a command whose message has begun arriving is finished and answered, the
// idle connection beside it is closed at once, and stop() returns when both are gone.
TEST(ServerDrain, StopAnswersTheCommandInFlightAndClosesIdleConnections) {
  engine::EngineOptions engine_options;
  engine_options.durability = engine::Durability::kInMemory;
  engine_options.cache_size_mb = 64;
  auto engine = engine::Engine::open(engine_options);
  server::ServerOptions options;
  options.port = 0;
  options.log = false;
  options.message_timeout = std::chrono::seconds(20);
  options.drain_timeout = std::chrono::seconds(20);
  server::Server server(engine, options);
  server.start();
  WireConnection idle(server.port());
  ASSERT_TRUE(idle.ping());
  WireConnection in_flight(server.port());
  ASSERT_TRUE(in_flight.ping());
  std::vector<uint8_t> message = ping_message();
  ASSERT_TRUE(in_flight.send(message.data(), message.size() - 3));
  // The message has begun arriving only once the server's TCP has the bytes: under load the
  // loopback can deliver them after stop() has looked, and stop() then rightly closes the
  // connection as idle.
  ASSERT_TRUE(in_flight.wait_until_acknowledged());
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    server.stop();
    stopped = true;
  });
  // A failed ASSERT below returns with the stopper running: join it (stop() ends within the
  // drain timeout) rather than let a joinable std::thread abort the test binary.
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join_stopper{stopper};
  // The idle connection goes first; stop() keeps waiting for the half-sent command.
  EXPECT_TRUE(idle.closed_by_server());
  EXPECT_FALSE(stopped.load());
  ASSERT_TRUE(in_flight.send(message.data() + message.size() - 3, 3));
  std::optional<WireReply> reply = in_flight.receive();
  ASSERT_TRUE(reply.has_value()) << "the command in flight got no reply";
  EXPECT_EQ(reply->body.get("ok").number_as_double(), 1.0) << reply->body.to_json();
  EXPECT_TRUE(in_flight.closed_by_server());
  stopper.join();
  EXPECT_TRUE(stopped.load());
}

}  // namespace
}  // namespace mongostore::testing
