// OP_COMPRESSED: the handshake agrees on snappy, zlib or zstd; a compressed request is answered
// with a reply compressed the same way; libmongoc with `compressors=` works end to end; and a
// compressed message that does not decompress closes only its own connection.
#include <gtest/gtest.h>
#include <mongoc/mongoc.h>

#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "server/message_compression.h"
#include "server/mongoc_test_client.h"
#include "server/wire_connection.h"
#include "support/server_process.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::make_array;
using bson::make_document;
using server::Compressor;

class CompressionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static ServerProcess* server_;
};

ServerProcess* CompressionTest::server_ = nullptr;

// The body of a plain OP_MSG reply (flagBits, then one kind-0 section).
Document body_of(const std::vector<uint8_t>& message) {
  EXPECT_EQ(get_int32(message.data() + 12), kWireOpMsg);
  EXPECT_EQ(message[20], 0);
  int32_t size = get_int32(message.data() + 21);
  return Document::from_bytes({message.data() + 21, static_cast<size_t>(size)});
}

TEST_F(CompressionTest, HelloAgreesOnTheOfferedCompressorsInTheClientsOrder) {
  WireConnection c(server_->port());
  auto reply = c.command(make_document(
      "hello", 1, "compression", make_array("zstd", "lz4", "snappy", "zlib"), "$db", "admin"));
  ASSERT_TRUE(reply);
  bson::Value agreed = reply->body.get("compression");
  ASSERT_TRUE(agreed.is_array()) << reply->body.to_json();
  std::vector<std::string> names;
  for (const bson::Element& e : agreed.as_array()) names.emplace_back(e.value.as_string());
  EXPECT_EQ(names, (std::vector<std::string>{"zstd", "snappy", "zlib"}));
  // No compression asked for, none offered.
  auto plain = c.command(make_document("hello", 1, "$db", "admin"));
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->body.has("compression"));
}

TEST_F(CompressionTest, ACompressedRequestGetsAReplyCompressedTheSameWay) {
  for (Compressor compressor : {Compressor::kSnappy, Compressor::kZlib, Compressor::kZstd}) {
    SCOPED_TRACE(std::string(server::compressor_name(compressor)));
    WireConnection c(server_->port());
    std::string big(20000, 'x');  // compressible, so the compressed form is clearly smaller
    std::vector<uint8_t> insert = op_msg(
        c.next_request_id(),
        make_document("insert", "zipped", "documents",
                      make_array(make_document(
                          "_id", std::string(server::compressor_name(compressor)), "big", big)),
                      "$db", "compression"));
    std::vector<uint8_t> compressed = server::compress_message(insert, compressor);
    EXPECT_LT(compressed.size(), insert.size() / 4);
    ASSERT_TRUE(c.send(compressed));
    auto reply = c.receive_message();
    ASSERT_TRUE(reply);
    ASSERT_EQ(get_int32(reply->data() + 12), server::kOpCompressed);
    EXPECT_EQ(reply->at(24), static_cast<uint8_t>(compressor));
    Compressor used = Compressor::kNoop;
    std::vector<uint8_t> plain = server::decompress_message(*reply, 48000000, &used);
    EXPECT_EQ(used, compressor);
    Document body = body_of(plain);
    EXPECT_EQ(body.get("ok").number_as_double(), 1.0) << body.to_json();
    EXPECT_EQ(body.get("n").number_as_double(), 1.0) << body.to_json();
    // And the document is there, read back uncompressed.
    auto found = c.command(make_document("count", "zipped", "$db", "compression"));
    ASSERT_TRUE(found);
    EXPECT_GE(found->body.get("n").number_as_double(), 1.0);
  }
}

TEST_F(CompressionTest, LibmongocWithEachCompressorRoundTrips) {
  for (const char* name : {"snappy", "zlib", "zstd"}) {
    SCOPED_TRACE(name);
    MongocClient client(
        server_->uri(std::string("compressors=") + name + "&serverSelectionTimeoutMS=5000"));
    ASSERT_NE(client.get(), nullptr);
    std::string coll_name = std::string("via_") + name;
    Document doc = make_document("_id", 1, "big", std::string(50000, 'y'));
    CommandOutcome insert =
        client.run("compression", make_document("insert", coll_name, "documents", make_array(doc)));
    ASSERT_TRUE(insert.succeeded) << insert.error.message;
    CommandOutcome find =
        client.run("compression", make_document("find", coll_name, "filter", make_document()));
    ASSERT_TRUE(find.succeeded) << find.error.message;
    bson::Value batch = find.reply.get_path("cursor.firstBatch");
    ASSERT_TRUE(batch.is_array() && batch.as_array().count() == 1)
        << find.reply.to_json().substr(0, 200);
    bson::Value big = batch.as_array().begin()->value.as_document().get("big");
    ASSERT_TRUE(big.is_string());
    EXPECT_EQ(big.as_string().size(), 50000u);
  }
}

TEST_F(CompressionTest, CorruptCompressedDataClosesOnlyThatConnection) {
  WireConnection bystander(server_->port());
  ASSERT_TRUE(bystander.ping());
  WireConnection bad(server_->port());
  std::vector<uint8_t> ping =
      op_msg(bad.next_request_id(), make_document("ping", 1, "$db", "admin"));
  std::vector<uint8_t> compressed = server::compress_message(ping, Compressor::kZstd);
  for (size_t i = 25; i < compressed.size(); ++i) compressed[i] ^= 0x5a;  // garbage payload
  ASSERT_TRUE(bad.send(compressed));
  EXPECT_TRUE(bad.closed_by_server());
  WireConnection unknown(server_->port());
  compressed = server::compress_message(ping, Compressor::kZstd);
  compressed[24] = 9;  // no such compressor
  ASSERT_TRUE(unknown.send(compressed));
  EXPECT_TRUE(unknown.closed_by_server());
  EXPECT_TRUE(bystander.ping());
}

}  // namespace
}  // namespace mongostore::testing
