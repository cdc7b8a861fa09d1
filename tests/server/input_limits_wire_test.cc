// The input limits through `mongostore serve`, over a raw socket: a message nested deeper than
// maxBSONDepth is answered with Overflow before any command runs (it used to crash the server
// in libbson's recursive validation), and the engine's limits come back as MongoDB's errors
// on a connection that keeps serving.
#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/builder.h"
#include "server/wire_connection.h"
#include "support/nested_bson.h"
#include "support/server_process.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::make_document;

class InputLimitsWireTest : public ::testing::Test {
 protected:
  // The reply's code (0 when ok: 1); the connection must still answer a ping afterwards.
  int32_t code_of_command(const Document& command) {
    auto reply = connection_.command(command);
    EXPECT_TRUE(reply.has_value()) << "the server closed the connection";
    if (!reply) return -1;
    EXPECT_TRUE(connection_.ping());
    last_errmsg_ = reply->body.get("errmsg").is_string()
                       ? std::string(reply->body.get("errmsg").as_string())
                       : "";
    if (reply->body.get("ok").number_as_double() == 1.0) {
      bson::Value errors = reply->body.get("writeErrors");
      if (errors.is_array() && !errors.as_array().empty()) {
        return errors.as_array().begin()->value.as_document().get("code").as_int32();
      }
      return 0;
    }
    return reply->body.get("code").as_int32();
  }

  ServerProcess server_;
  WireConnection connection_{server_.port()};
  std::string last_errmsg_;
};

TEST_F(InputLimitsWireTest, DeeplyNestedCommandsAreAnsweredWithOverflow) {
  // 9,350 levels crashed libbson's validation; 200,000 crashed our own walk after it.
  for (size_t levels : {size_t{201}, size_t{9350}, size_t{200000}}) {
    Document ping = nested_document({{"ping"}}, {{"a"}, {"b", true}}, levels);
    EXPECT_EQ(code_of_command(ping), 15) << levels;
  }
  Document ok = nested_document({{"ping"}}, {{"a"}}, 150);
  EXPECT_EQ(code_of_command(ok), 0);
}

TEST_F(InputLimitsWireTest, EngineLimitsComeBackAsMongoErrors) {
  // A stored document nests at most 100 levels.
  Document deep_doc = nested_document({}, {{"a"}}, 101);
  bson::DocumentBuilder insert;
  insert.append("insert", "c");
  insert.open_array("documents");
  insert.push(deep_doc.view());
  insert.close();
  insert.append("$db", "db");
  EXPECT_EQ(code_of_command(insert.finish()), 15);
  EXPECT_EQ(code_of_command(Document::from_json(
                R"({"insert": "c", "documents": [{"_id": 1, "s": "a"}], "$db": "db"})")),
            0);
  // $range past 100 MB, and a result over 16 MB.
  EXPECT_EQ(code_of_command(Document::from_json(
                R"({"aggregate": "c", "pipeline": [{"$project": {"r": {"$range": [0, 10000000]}}}],
                    "cursor": {}, "$db": "db"})")),
            146);
  EXPECT_EQ(code_of_command(Document::from_json(
                R"({"aggregate": "c", "pipeline": [{"$project": {"r": {"$range": [0, 2000000]}}}],
                    "cursor": {}, "$db": "db"})")),
            10334);
  // 1,001 stages.
  bson::DocumentBuilder aggregate;
  aggregate.append("aggregate", "c");
  aggregate.open_array("pipeline");
  for (int i = 0; i < 1001; ++i) aggregate.push(make_document("$unwind", "$s"));
  aggregate.close();
  aggregate.open_document("cursor");
  aggregate.close();
  aggregate.append("$db", "db");
  EXPECT_EQ(code_of_command(aggregate.finish()), 7749501);
}

TEST_F(InputLimitsWireTest, ErrorMessagesAreValidUtf8) {
  // The reply is parsed with UTF-8 validation: an errmsg holding half of "é" would not parse.
  ASSERT_EQ(code_of_command(Document::from_json(
                R"({"insert": "c", "documents": [{"_id": 1, "s": "a"}], "$db": "db"})")),
            0);
  // Built, not parsed: extended JSON would take {$regex, $options} for a regex value.
  Document filter = make_document("s", make_document("$regex", "a", "$options", "\xC3\xA9"));
  EXPECT_EQ(code_of_command(make_document("find", "c", "filter", filter, "$db", "db")), 2);
  EXPECT_NE(last_errmsg_.find("\xC3\xA9"), std::string::npos) << last_errmsg_;
}

}  // namespace
}  // namespace mongostore::testing
