// `mongostore records` on a store written by other record types than the demo's: the test
// suite's types (records/record_types.h), which use every field kind, every dedup policy, a
// self reference and a family with a dispatch collection. The tool rebuilds their schemas from
// the stored fingerprints: reopening the store with them (layout's transaction mode, fsck)
// succeeds only when the rebuilt family closure fingerprints exactly as the declarations did.
#include <gtest/gtest.h>

#include "mongostore/bson/document.h"
#include "mongostore/records/record_store.h"
#include "records/record_types.h"
#include "support/temp_dir.h"
#include "support/tool_run.h"

namespace mongostore::tool {
namespace {

using bson::Document;
using namespace records;
using records::testing::Account;
using records::testing::Crystal;
using records::testing::Event;
using records::testing::Label;
using records::testing::make_structure;
using records::testing::Molecule;
using records::testing::Node;
using records::testing::R;
using records::testing::Shelf;
using records::testing::Structure;

using Output = mongostore::testing::ToolOutput;

class RecordsLayoutTest : public ::testing::Test {
 protected:
  Output run(const std::string& args) {
    return mongostore::testing::run_tool(dir_, args + " --data " + data() + " --database lab");
  }
  std::string data() const { return dir_.sub("data"); }
  mongostore::testing::TempDir dir_;
};

std::vector<EntryFamily> families(const std::string& crystal_record_name) {
  return {EntryFamily{
              "structures", "def:s", {EntryRecord{"structure", schema_of<Structure>(), "def:st"}}},
          EntryFamily{"materials",
                      "def:m",
                      {EntryRecord{crystal_record_name, schema_of<Crystal>(), "def:crystal"},
                       EntryRecord{"molecule", schema_of<Molecule>(), "def:molecule"}}}};
}

struct Written {
  int64_t structure = 0, shelf = 0, node = 0;
};

Written write_store(const std::string& dir, const std::string& crystal_record_name) {
  RecordStoreOptions options;
  options.database = "lab";
  options.families = families(crystal_record_name);
  options.warn = [](std::string_view) {};
  auto store = RecordStore::connect("embedded:" + dir, options);
  Written w;
  w.structure = store.save(make_structure("TiO2", 3));
  store.save(Crystal{"NaCl"});
  store.save(Molecule{"H2O", 0});
  w.shelf = store.save(Shelf{"top", {Label{"a", 1, {"x", "y"}}, Label{"b", std::nullopt, {}}}});
  auto tail = std::make_shared<const Node>(Node{"tail", nullptr});
  w.node = store.save(Node{"head", tail});
  store.save(Event{"happened"});
  store.save(Account{"ada", "Ada"});
  return w;
}

TEST_F(RecordsLayoutTest, EveryFieldKindIsRebuiltFromTheFingerprints) {
  Written w = write_store(data(), "crystal");
  // The store reopens with the rebuilt families (an exact fingerprint match) ...
  Output layout = run("records layout --json");
  ASSERT_EQ(layout.status, 0) << layout.err;
  Document l = Document::from_json(layout.out);
  EXPECT_EQ(l.get("transaction_mode").as_string(), "transactions") << layout.out;  // embedded
  // ... and fsck attributes every collection, the dispatch one included.
  Output fsck = run("records fsck --collect-garbage --json");
  ASSERT_EQ(fsck.status, 0) << fsck.out << fsck.err;
  Document f = Document::from_json(fsck.out);
  EXPECT_TRUE(f.get("violations").as_array().empty()) << fsck.out;
  int64_t deleted = -1;
  EXPECT_TRUE(f.get_path("totals.deleted").number_as_exact_int64(&deleted));
  EXPECT_EQ(deleted, 0);

  // show decodes every kind.
  Output show = run("records show structure " + std::to_string(w.structure) + " --json");
  ASSERT_EQ(show.status, 0) << show.err;
  Document s = Document::from_json(show.out);
  bson::DocumentView fields = s.get("fields").as_document();
  EXPECT_EQ(fields.get("formula").as_string(), "TiO2");
  EXPECT_EQ(fields.get("cell").to_json(),
            R"([ [ "1/3", "0", "0" ], [ "0", "-7/2", "0" ], [ "0", "0", "5" ] ])");
  EXPECT_EQ(fields.get("charges").to_json(), R"([ "2/3", "-1" ])");
  EXPECT_EQ(fields.get("forces").to_json(), R"([ [ [ "1/10", "0", "-1/10" ] ] ])");
  EXPECT_EQ(fields.get("tags").to_json(), R"([ "perovskite", "cubic" ])");
  EXPECT_EQ(fields.get("created").as_string(), "2026-01-02T02:04:05.000600+00:00");
  EXPECT_EQ(fields.get("published").as_string(), "2026-02-28");
  EXPECT_TRUE(fields.get("relaxed").as_bool());
  EXPECT_EQ(fields.get("energy").as_double(), -12.5);
  EXPECT_EQ(fields.get("author").as_document().get("fields").as_document().get("name").as_string(),
            "Ada");
  EXPECT_EQ(fields.get("sites")
                .as_array()
                .get("2")
                .as_document()
                .get("fields")
                .as_document()
                .get("position")
                .to_json(),
            R"([ [ "1/4", "1/2", "-2/3" ] ])");
  EXPECT_TRUE(fields.get("scratch").is_missing());  // skip: never stored

  Output node = run("records show node " + std::to_string(w.node));
  ASSERT_EQ(node.status, 0) << node.err;
  EXPECT_NE(node.out.find("name=tail"), std::string::npos) << node.out;
  Output shelf = run("records show shelf " + std::to_string(w.shelf) + " --json");
  ASSERT_EQ(shelf.status, 0) << shelf.err;
  EXPECT_NE(shelf.out.find("\"parts\" : [ \"x\", \"y\" ]"), std::string::npos) << shelf.out;
}

TEST_F(RecordsLayoutTest, AFamilyRecordTheLayoutCannotBindIsRefusedByName) {
  write_store(data(), "rocksalt");  // a record name that is no collection's
  Output fsck = run("records fsck");
  EXPECT_EQ(fsck.status, 1);
  EXPECT_NE(fsck.err.find("which collection backs record 'rocksalt' of family 'materials'"),
            std::string::npos)
      << fsck.err;
  EXPECT_EQ(std::count(fsck.err.begin(), fsck.err.end(), '\n'), 1);
  // layout still shows what it can, and says why the mode is unknown.
  Output layout = run("records layout");
  EXPECT_EQ(layout.status, 0) << layout.err;
  EXPECT_NE(layout.out.find("transaction mode: unknown"), std::string::npos) << layout.out;
  // show needs no families.
  EXPECT_EQ(run("records show crystal 1").status, 0);
}

}  // namespace
}  // namespace mongostore::tool
