// `mongostore records` on a store whose record declares stored properties: the tool rebuilds
// the schema from the fingerprint (a property is a field with "derived": true), so the store
// reopens only when the rebuilt field is a stored property again, and `show` prints the
// property's stored value (the tool has no function to recompute it).
#include <gtest/gtest.h>

#include "mongostore/bson/document.h"
#include "mongostore/records/record_store.h"
#include "support/temp_dir.h"
#include "support/tool_run.h"

namespace mongostore::tool {
namespace {

using bson::Document;
using namespace records;

struct Cube {
  std::string name;
  double edge = 0;
};
double volume_of(const Cube& c) {
  return c.edge * c.edge * c.edge;
}
inline auto declare_record(Tag<Cube>) {
  return record<Cube>("mongostore.tests.Cube", field("name", &Cube::name),
                      field("edge", &Cube::edge), property("volume", &volume_of, indexed),
                      property("label", [](const Cube& c) { return c.name + "!"; }));
}

TEST(RecordsPropertyTest, AStoredPropertyIsRebuiltAsOneAndShownWithItsStoredValue) {
  mongostore::testing::TempDir dir;
  int64_t sid = 0;
  {
    RecordStoreOptions options;
    options.database = "lab";
    options.families = {
        EntryFamily{"cubes", "def:c", {EntryRecord{"cube", schema_of<Cube>(), "def:cube"}}}};
    options.warn = [](std::string_view) {};
    auto store = RecordStore::connect("embedded:" + dir.sub("data"), options);
    sid = store.save(Cube{"c", 2.0});
  }
  auto run = [&](const std::string& args) {
    return mongostore::testing::run_tool(dir,
                                         args + " --data " + dir.sub("data") + " --database lab");
  };
  // fsck reopens the store with the rebuilt family, which must fingerprint exactly as
  // declared: "derived" read back.
  mongostore::testing::ToolOutput layout = run("records layout --json");
  ASSERT_EQ(layout.status, 0) << layout.err;
  mongostore::testing::ToolOutput fsck = run("records fsck --json");
  ASSERT_EQ(fsck.status, 0) << fsck.out << fsck.err;
  mongostore::testing::ToolOutput show =
      run("records show cube " + std::to_string(sid) + " --json");
  ASSERT_EQ(show.status, 0) << show.err;
  Document s = Document::from_json(show.out);
  bson::DocumentView fields = s.get("fields").as_document();
  EXPECT_EQ(fields.get("volume").as_double(), 8.0) << show.out;
  EXPECT_EQ(fields.get("label").as_string(), "c!") << show.out;
}

}  // namespace
}  // namespace mongostore::tool
