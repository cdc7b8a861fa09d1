// The wire handshake and OP_MSG framing of `mongostore serve`, spoken byte by byte over a
// plain socket: OP_MSG `hello` and legacy OP_QUERY `isMaster` answer with mongod's limits and
// the request's id in responseTo; a checksummed OP_MSG is accepted when its CRC-32C is right
// and closes the connection when it is not; a kind-1 document sequence carries an insert's
// documents; a moreToCome request gets no reply but still runs.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "mongostore/bson/builder.h"
#include "server/wire_connection.h"
#include "support/server_process.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::DocumentView;
using bson::make_document;

int64_t int_of(DocumentView doc, const char* key) {
  int64_t out = 0;
  EXPECT_TRUE(doc.get(key).number_as_exact_int64(&out)) << key << " in " << doc.to_json();
  return out;
}

// The fields a driver reads from the handshake, with mongod's values where they are fixed.
void expect_handshake_fields(const Document& reply) {
  SCOPED_TRACE(reply.to_json());
  EXPECT_EQ(reply.get("ok").number_as_double(), 1.0);
  EXPECT_EQ(int_of(reply, "maxBsonObjectSize"), 16777216);
  EXPECT_EQ(int_of(reply, "maxMessageSizeBytes"), 48000000);
  EXPECT_EQ(int_of(reply, "maxWriteBatchSize"), 100000);
  int64_t min_wire = int_of(reply, "minWireVersion");
  int64_t max_wire = int_of(reply, "maxWireVersion");
  EXPECT_GE(min_wire, 0);
  // OP_MSG needs wire version 6 (MongoDB 3.6); drivers refuse servers below it.
  EXPECT_GE(max_wire, 6);
  EXPECT_LE(min_wire, max_wire);
  EXPECT_GT(int_of(reply, "logicalSessionTimeoutMinutes"), 0);
  EXPECT_GT(int_of(reply, "connectionId"), 0);
  EXPECT_TRUE(reply.get("ismaster").is_missing() || reply.get("ismaster").as_bool());
}

class WireHandshakeTest : public ::testing::Test {
 protected:
  ServerProcess server_;
};

TEST(ReferenceCrc32c, MatchesTheStandardCheckValue) {
  const std::string text = "123456789";
  EXPECT_EQ(reference_crc32c(reinterpret_cast<const uint8_t*>(text.data()), text.size()),
            0xE3069283u);
}

TEST_F(WireHandshakeTest, OpMsgHelloAnswersWithLimitsAndResponseTo) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  int32_t id = 4242;
  ASSERT_TRUE(conn.send(op_msg(id, make_document("hello", 1, "$db", "admin"))));
  auto reply = conn.receive();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->op_code, kWireOpMsg);
  EXPECT_EQ(reply->response_to, id);
  EXPECT_EQ(reply->flags & kWireMoreToCome, 0u);
  expect_handshake_fields(reply->body);
  EXPECT_TRUE(reply->body.get("isWritablePrimary").as_bool()) << reply->body.to_json();
}

// The handshake fields drivers send are accepted: mongosh 2.x (its Node.js driver) sends
// `backpressure: true` and could not connect while it was refused as an unknown field.
TEST_F(WireHandshakeTest, HelloAcceptsTheFieldsDriversSend) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  for (const char* command : {"hello", "isMaster"}) {
    ASSERT_TRUE(conn.send(
        op_msg(7, make_document(command, 1, "helloOk", true, "backpressure", true, "loadBalanced",
                                false, "compression", bson::make_array(), "$db", "admin"))));
    auto reply = conn.receive();
    ASSERT_TRUE(reply.has_value());
    expect_handshake_fields(reply->body);
  }
}

TEST_F(WireHandshakeTest, LegacyOpQueryIsMasterAnswersWithOpReply) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  int32_t id = 77;
  ASSERT_TRUE(conn.send(op_query(id, "admin.$cmd", make_document("isMaster", 1))));
  auto reply = conn.receive();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->op_code, kWireOpReply);
  EXPECT_EQ(reply->response_to, id);
  EXPECT_EQ(reply->number_returned, 1);
  expect_handshake_fields(reply->body);
  EXPECT_TRUE(reply->body.get("ismaster").as_bool()) << reply->body.to_json();
}

TEST_F(WireHandshakeTest, LegacyOpQueryAcceptsAWrappedQueryAndLowercaseIsmaster) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  // Drivers that send a read preference wrap the command in $query.
  Document wrapped = make_document("$query", make_document("ismaster", 1), "$readPreference",
                                   make_document("mode", "primaryPreferred"));
  ASSERT_TRUE(conn.send(op_query(9, "admin.$cmd", wrapped)));
  auto reply = conn.receive();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->response_to, 9);
  expect_handshake_fields(reply->body);
  // The connection keeps working with OP_MSG after the legacy handshake.
  EXPECT_TRUE(conn.ping());
}

TEST_F(WireHandshakeTest, ConnectionIdsDifferBetweenConnections) {
  WireConnection a(server_.port()), b(server_.port());
  auto ra = a.command(make_document("hello", 1, "$db", "admin"));
  auto rb = b.command(make_document("hello", 1, "$db", "admin"));
  ASSERT_TRUE(ra && rb);
  EXPECT_NE(int_of(ra->body, "connectionId"), int_of(rb->body, "connectionId"));
}

TEST_F(WireHandshakeTest, ResponseToFollowsEachRequestOnOneConnection) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  for (int32_t id : {1, 2, 123456, -5}) {
    ASSERT_TRUE(conn.send(op_msg(id, make_document("ping", 1, "$db", "admin"))));
    auto reply = conn.receive();
    ASSERT_TRUE(reply.has_value());
    EXPECT_EQ(reply->response_to, id);
    EXPECT_EQ(reply->body.get("ok").number_as_double(), 1.0);
  }
}

TEST_F(WireHandshakeTest, ChecksummedOpMsgWithCorrectCrcIsAccepted) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  ASSERT_TRUE(
      conn.send(op_msg(31, make_document("hello", 1, "$db", "admin"), kWireChecksumPresent)));
  auto reply = conn.receive();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->response_to, 31);
  expect_handshake_fields(reply->body);
  // A checksummed insert with a document sequence runs too.
  ASSERT_TRUE(
      conn.send(op_msg(32, make_document("insert", "coll", "$db", "crc"), kWireChecksumPresent,
                       {{"documents", {make_document("_id", 1), make_document("_id", 2)}}})));
  auto inserted = conn.receive();
  ASSERT_TRUE(inserted.has_value());
  EXPECT_EQ(inserted->body.get("ok").number_as_double(), 1.0) << inserted->body.to_json();
  EXPECT_EQ(int_of(inserted->body, "n"), 2);
}

TEST_F(WireHandshakeTest, ChecksummedOpMsgWithWrongCrcClosesTheConnection) {
  WireConnection bystander(server_.port());
  ASSERT_TRUE(bystander.ping());
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  ASSERT_TRUE(conn.send(op_msg(33, make_document("insert", "coll", "$db", "crc"),
                               kWireChecksumPresent, {{"documents", {make_document("_id", 1)}}},
                               /*corrupt_checksum=*/true)));
  EXPECT_TRUE(conn.closed_by_server());
  // The damaged insert did not run, and the other connection is unaffected.
  auto count = bystander.command(make_document("count", "coll", "$db", "crc"));
  ASSERT_TRUE(count.has_value());
  EXPECT_EQ(int_of(count->body, "n"), 0) << count->body.to_json();
}

TEST_F(WireHandshakeTest, DocumentSequenceSectionCarriesInsertDocuments) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  std::vector<Document> docs;
  for (int i = 1; i <= 3; ++i) docs.push_back(make_document("_id", i, "v", "seq"));
  ASSERT_TRUE(conn.send(op_msg(50, make_document("insert", "coll", "$db", "wire", "ordered", true),
                               0, {{"documents", docs}})));
  auto reply = conn.receive();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->response_to, 50);
  EXPECT_EQ(reply->body.get("ok").number_as_double(), 1.0) << reply->body.to_json();
  EXPECT_EQ(int_of(reply->body, "n"), 3);

  auto found = conn.command(
      make_document("find", "coll", "$db", "wire", "filter", make_document("v", "seq")));
  ASSERT_TRUE(found.has_value());
  DocumentView batch = found->body.get_path("cursor.firstBatch").as_array();
  std::set<int64_t> ids;
  for (const bson::Element& e : batch) ids.insert(int_of(e.value.as_document(), "_id"));
  EXPECT_EQ(ids, (std::set<int64_t>{1, 2, 3}));
}

TEST_F(WireHandshakeTest, FieldInBothBodyAndSequenceClosesTheConnection) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  // The OP_MSG spec forbids a field named by a sequence identifier also in the body.
  Document body = make_document("insert", "coll", "$db", "wire", "documents",
                                bson::make_array(make_document("_id", 1)));
  ASSERT_TRUE(conn.send(op_msg(51, body, 0, {{"documents", {make_document("_id", 2)}}})));
  EXPECT_TRUE(conn.closed_by_server());
}

TEST_F(WireHandshakeTest, MoreToComeGetsNoReplyButTheWriteHappens) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  ASSERT_TRUE(conn.send(op_msg(60, make_document("insert", "coll", "$db", "quiet"), kWireMoreToCome,
                               {{"documents", {make_document("_id", "unacknowledged")}}})));
  // The next message on the wire must answer the find (61), not the insert (60): the server
  // handles one connection's requests in order, so the insert has run before the find.
  ASSERT_TRUE(conn.send(op_msg(61, make_document("find", "coll", "$db", "quiet"))));
  auto reply = conn.receive();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->response_to, 61);
  DocumentView batch = reply->body.get_path("cursor.firstBatch").as_array();
  ASSERT_EQ(batch.count(), 1u) << reply->body.to_json();
  EXPECT_EQ(batch.begin()->value.as_document().get("_id").as_string(), "unacknowledged");
}

TEST_F(WireHandshakeTest, UnknownRequiredFlagBitClosesTheConnection) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  // Bits 0-15 are required: a receiver must fail on one it does not know (bit 3 is unused).
  ASSERT_TRUE(conn.send(op_msg(70, make_document("ping", 1, "$db", "admin"), 1u << 3)));
  EXPECT_TRUE(conn.closed_by_server());
}

TEST_F(WireHandshakeTest, OptionalFlagBitIsIgnored) {
  WireConnection conn(server_.port());
  ASSERT_TRUE(conn.connected());
  // exhaustAllowed (bit 16) is optional: a server that does not stream replies just answers.
  ASSERT_TRUE(conn.send(op_msg(71, make_document("ping", 1, "$db", "admin"), 1u << 16)));
  auto reply = conn.receive();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->response_to, 71);
  EXPECT_EQ(reply->body.get("ok").number_as_double(), 1.0);
}

}  // namespace
}  // namespace mongostore::testing
