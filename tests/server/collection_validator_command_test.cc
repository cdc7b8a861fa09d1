// Collection validators through `mongostore serve`, as a driver sees them: create and collMod
// with validator / validationLevel / validationAction, collMod refusing the options it does
// not implement (238) or know (40415), listCollections' `options` (and its filter over them),
// the writeErrors entry of a violation with its errInfo, and bypassDocumentValidation.
#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/builder.h"
#include "server/server_command_test.h"

namespace mongostore::testing {
namespace {

using bson::Document;
using bson::DocumentView;
using bson::make_array;
using bson::make_document;

class ValidatorCommandTest : public ServerCommandTest {
 protected:
  // {$jsonSchema: {required: ["name"]}}
  static Document schema() {
    bson::DocumentBuilder b;
    b.append("$jsonSchema", make_document("required", make_array("name")));
    return b.finish();
  }
  Document listed_options(const std::string& db, const std::string& coll) {
    Document reply =
        must_run(db, make_document("listCollections", 1, "filter", make_document("name", coll)));
    DocumentView batch = reply.get("cursor").as_document().get("firstBatch").as_array();
    EXPECT_EQ(batch.count(), 1u) << reply.to_json();
    if (batch.count() != 1) return Document();
    return Document::copy_of(batch.begin()->value.as_document().get("options").as_document());
  }
};

TEST_F(ValidatorCommandTest, CreateCollModAndListCollections) {
  must_run("vcmd", make_document("create", "c", "validator", schema()));
  EXPECT_EQ(listed_options("vcmd", "c"), make_document("validator", schema()));
  must_run("vcmd", make_document("collMod", "c", "validationLevel", "moderate", "validationAction",
                                 "warn"));
  EXPECT_EQ(listed_options("vcmd", "c"), make_document("validator", schema(), "validationLevel",
                                                       "moderate", "validationAction", "warn"));
  // listCollections' filter reads the options.
  Document reply =
      must_run("vcmd", make_document("listCollections", 1, "filter",
                                     make_document("options.validationAction", "warn")));
  EXPECT_EQ(reply.get("cursor").as_document().get("firstBatch").as_array().count(), 1u)
      << reply.to_json();
  must_fail("vcmd", make_document("collMod", "missing", "validationLevel", "off"), 26,
            "NamespaceNotFound");
  must_fail("vcmd", make_document("collMod", "c", "validationLevel", "loose"), 2, "BadValue");
  must_fail("vcmd", make_document("collMod", "c", "validator", 7), 14, "TypeMismatch");
  must_fail("vcmd", make_document("create", "bad", "validator", make_document("$where", "1")), 2,
            "BadValue");
}

TEST_F(ValidatorCommandTest, CollModRefusesWhatItDoesNotImplement) {
  must_run("vcmd2", make_document("create", "c"));
  for (const Document& fields :
       {make_document("index", make_document("name", "a_1", "hidden", true)),
        make_document("expireAfterSeconds", 10), make_document("viewOn", "x"),
        make_document("changeStreamPreAndPostImages", make_document("enabled", true))}) {
    bson::DocumentBuilder cmd;
    cmd.append("collMod", "c");
    cmd.append_elements(fields);
    Document reply = must_fail("vcmd2", cmd.finish(), 238, "NotImplemented");
    EXPECT_NE(reply.get("errmsg").as_string().find(fields.begin()->key), std::string_view::npos)
        << reply.to_json();
  }
  must_fail("vcmd2", make_document("collMod", "c", "zzUnknown", 1), 40415, "Location40415");
}

TEST_F(ValidatorCommandTest, ViolationIsAWriteErrorWithErrInfo) {
  must_run("vcmd3", make_document("create", "c", "validator", schema()));
  Document reply = must_run(
      "vcmd3",
      make_document("insert", "c", "documents",
                    make_array(make_document("_id", 1, "name", "a"), make_document("_id", 2),
                               make_document("_id", 3, "name", "b"))));
  EXPECT_EQ(int_at(reply, "n"), 1) << reply.to_json();
  DocumentView error = reply.get("writeErrors").as_array().begin()->value.as_document();
  EXPECT_EQ(int_at(error, "index"), 1);
  EXPECT_EQ(int_at(error, "code"), 121);
  EXPECT_EQ(error.get("codeName").as_string(), "DocumentValidationFailure");
  EXPECT_EQ(error.get("errmsg").as_string(), "Document failed validation");
  EXPECT_EQ(int_at(error, "errInfo.failingDocumentId"), 2) << reply.to_json();
  EXPECT_EQ(error.get_path("errInfo.details.operatorName").as_string(), "$jsonSchema");

  // findAndModify's violation is the command's own error, with errInfo.
  reply = must_fail("vcmd3",
                    make_document("findAndModify", "c", "query", make_document("_id", 1), "update",
                                  make_document("$unset", make_document("name", 1))),
                    121, "DocumentValidationFailure");
  EXPECT_EQ(int_at(reply, "errInfo.failingDocumentId"), 1) << reply.to_json();

  // bypassDocumentValidation on insert, update, findAndModify.
  reply = must_run("vcmd3",
                   make_document("insert", "c", "documents", make_array(make_document("_id", 4)),
                                 "bypassDocumentValidation", true));
  EXPECT_EQ(int_at(reply, "n"), 1) << reply.to_json();
  reply = must_run(
      "vcmd3",
      make_document("update", "c", "updates",
                    make_array(make_document("q", make_document("_id", 1), "u",
                                             make_document("$unset", make_document("name", 1)))),
                    "bypassDocumentValidation", true));
  EXPECT_EQ(int_at(reply, "nModified"), 1) << reply.to_json();
  must_run("vcmd3", make_document("findAndModify", "c", "query", make_document("_id", 4), "update",
                                  make_document("$set", make_document("x", 1)),
                                  "bypassDocumentValidation", true));
}

}  // namespace
}  // namespace mongostore::testing
