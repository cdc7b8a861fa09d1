// `mongostore demo records` and `mongostore records layout|show|history|fsck`, run as the real
// binary on an embedded directory and through `mongostore serve`: every output is checked
// against what the store holds, read with a plain client.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/client/client.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/tool_run.h"

namespace mongostore::tool {
namespace {

using bson::Document;
using bson::make_document;

using Output = testing::ToolOutput;

// The value at a dotted path, through arrays too ("versions.0.sid").
bson::Value at(const Document& d, const std::string& path) {
  bson::Value v;
  bson::DocumentView level = d.view();
  size_t begin = 0;
  while (true) {
    size_t dot = path.find('.', begin);
    v = level.get(path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin));
    if (dot == std::string::npos) return v;
    if (v.is_document()) {
      level = v.as_document();
    } else if (v.is_array()) {
      level = v.as_array();
    } else {
      return bson::Value();
    }
    begin = dot + 1;
  }
}

int64_t int_of(const Document& d, const std::string& path) {
  int64_t out = 0;
  EXPECT_TRUE(at(d, path).number_as_exact_int64(&out)) << path << " in " << d.to_json();
  return out;
}

size_t lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// The lines of stderr but libmongoc's own warnings (it sometimes says "Falling back to malloc
// for counters" when shared memory is short, in any process that loads it).
size_t error_lines(const std::string& err) {
  size_t n = 0;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.find("WARNING:       mongoc:") == std::string::npos) ++n;
  }
  return n;
}

constexpr int kStructures = 6;

// What the commands printed on one store.
struct CommandOutputs {
  Document layout, shown, alternative, history, fsck;
  Output layout_table, show_table, history_table, fsck_table;
};

class RecordsTest : public ::testing::Test {
 public:
  Output run(const std::string& args) { return testing::run_tool(dir_, args); }
  std::string data() const { return dir_.sub("data"); }
  std::string at_data() const { return " --data " + data(); }
  Document run_json(const std::string& args, int expected_status = 0) {
    Output o = run(args + " --json");
    EXPECT_EQ(o.status, expected_status) << args << "\n" << o.out << o.err;
    try {
      return Document::from_json(o.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << args << ": not JSON: " << o.out << o.err;
      return Document();
    }
  }
  // The demo on `location`, returning its JSON summary.
  Document demo(const std::string& location) {
    return run_json("demo records" + location + " --structures " + std::to_string(kStructures));
  }
  testing::TempDir dir_;
};

// Runs every command on `location` (the store is not open elsewhere meanwhile: an embedded
// directory has one process at a time).
CommandOutputs run_commands(RecordsTest& t, const std::string& location, const Document& summary) {
  CommandOutputs o;
  std::string sid = std::to_string(int_of(summary, "corrected_sid"));
  o.layout = t.run_json("records layout" + location);
  o.layout_table = t.run("records layout" + location);
  o.shown = t.run_json("records show structure " + sid + location);
  o.show_table = t.run("records show structure " + sid + location);
  o.alternative = t.run_json("records show structure " +
                             std::to_string(int_of(summary, "alternative_sid")) + location);
  o.history = t.run_json("records history structure " + sid + location);
  o.history_table = t.run("records history structure " +
                          std::to_string(int_of(o.history, "versions.0.sid")) + location);
  o.fsck = t.run_json("records fsck" + location);
  o.fsck_table = t.run("records fsck" + location);
  return o;
}

// Checks the outputs against the store itself, read with `client`.
void check_outputs(const CommandOutputs& o, const Document& summary,
                   const std::shared_ptr<client::Client>& client) {
  client::Database db = client->database("materials");
  client::Collection structures = db.collection("structure");
  std::optional<Document> stored_layout =
      db.collection("_httk_store_metadata").find_one(make_document("_id", "layout"));
  ASSERT_TRUE(stored_layout);

  // layout: families, collections with the counts the store has, fingerprints, generation.
  const Document& layout = o.layout;
  EXPECT_EQ(at(layout, "families.0.family").as_string(), "structures");
  EXPECT_EQ(at(layout, "families.0.records.0.record").as_string(), "structure");
  // The embedded engine has transactions, and so has serve (a one-member replica set).
  const std::string mode = "transactions";
  EXPECT_EQ(layout.get("transaction_mode").as_string(), mode);
  int collections = 0;
  for (const auto& c : layout.get("collections").as_array()) {
    ++collections;
    Document row = Document::copy_of(c.value.as_document());
    std::string name(row.get("collection").as_string());
    EXPECT_EQ(int_of(row, "documents"), db.collection(name).count_documents(Document())) << name;
    EXPECT_EQ(row.get("fingerprint_sha256").as_string().size(), 64u);
    EXPECT_TRUE(row.get("in_layout").as_bool()) << name;  // the family's reference closure
  }
  EXPECT_EQ(collections, 4);  // structure, site, calculation, author
  // Two fscks ran after the layout command, each bumping the generation.
  EXPECT_EQ(int_of(layout, "generation") + 2, int_of(*stored_layout, "generation"));
  EXPECT_EQ(o.layout_table.status, 0) << o.layout_table.err;
  EXPECT_NE(o.layout_table.out.find("structures  mongostore.demo/structures  structure"),
            std::string::npos)
      << o.layout_table.out;
  EXPECT_NE(o.layout_table.out.find("mongostore.demo.Structure"), std::string::npos);
  EXPECT_NE(o.layout_table.out.find("transaction mode: " + mode), std::string::npos);

  // show: the corrected structure, its references resolved one level, rationals as a/b.
  int64_t corrected = int_of(summary, "corrected_sid");
  const Document& shown = o.shown;
  std::optional<Document> stored = structures.find_one(make_document("_id", corrected));
  ASSERT_TRUE(stored);
  EXPECT_EQ(int_of(shown, "sid"), corrected);
  EXPECT_EQ(shown.get("content_id").as_string(), stored->get("content_id").as_string());
  EXPECT_EQ(at(shown, "fields.formula").as_string(), at(*stored, "f.formula").as_string());
  EXPECT_EQ(at(shown, "fields.note").as_string(), "energy recomputed with a denser k-point mesh");
  // The cell: 3 rows of 3 exact rationals, equal to the stored doubles.
  for (int i = 0; i < 9; ++i) {
    std::string text(at(shown, "fields.cell." + std::to_string(i / 3) + "." + std::to_string(i % 3))
                         .as_string());
    double expected = at(*stored, "f.cell_" + std::to_string(i)).as_double();
    size_t slash = text.find('/');
    double value = slash == std::string::npos
                       ? std::stod(text)
                       : std::stod(text.substr(0, slash)) / std::stod(text.substr(slash + 1));
    EXPECT_DOUBLE_EQ(value, expected) << text;
  }
  // References resolved: the author's and calculation's documents inline, one level only.
  int64_t author_sid = int_of(*stored, "f.author_sid");
  EXPECT_EQ(int_of(shown, "fields.author.sid"), author_sid);
  std::optional<Document> author =
      db.collection("author").find_one(make_document("_id", author_sid));
  ASSERT_TRUE(author);
  EXPECT_EQ(at(shown, "fields.author.fields.name").as_string(), at(*author, "f.name").as_string());
  EXPECT_EQ(int_of(shown, "fields.calculation.fields.author.sid"),
            int_of(*db.collection("calculation")
                        .find_one(make_document("_id", int_of(*stored, "f.calculation_sid"))),
                   "f.author_sid"));
  EXPECT_TRUE(at(shown, "fields.calculation.fields.author.fields").is_missing());
  // Child records: every site inline, in stored order.
  int64_t sites = 0;
  for (const auto& s : at(*stored, "f.sites").as_array()) {
    std::string key = "fields.sites." + std::to_string(sites++);
    EXPECT_EQ(int_of(shown, key + ".sid"),
              int_of(Document::copy_of(s.value.as_document()), "sites_sid"));
    EXPECT_FALSE(at(shown, key + ".fields.element").as_string().empty());
  }
  EXPECT_EQ(sites, int_of(*stored, "f.nsites"));
  EXPECT_EQ(o.show_table.status, 0) << o.show_table.err;
  EXPECT_NE(o.show_table.out.find("sites[0]"), std::string::npos) << o.show_table.out;
  EXPECT_NE(o.show_table.out.find("author " + std::to_string(author_sid) + ": "),
            std::string::npos);

  // The alternative carries its kind and its main's group.
  EXPECT_EQ(o.alternative.get("alt_kind").as_string(), "supercell-2x1x1");
  EXPECT_EQ(int_of(o.alternative, "alt_id"),
            int_of(*structures.find_one(make_document("_id", int_of(summary, "alternative_of"))),
                   "logical_id"));

  // history: the lineage of the corrected structure, oldest first, the latest marked.
  std::vector<int64_t> versions;
  for (const auto& v : o.history.get("versions").as_array()) {
    versions.push_back(int_of(Document::copy_of(v.value.as_document()), "sid"));
  }
  std::vector<int64_t> expected;
  client::FindOptions by_sid;
  by_sid.sort = make_document("_id", 1);
  for (const Document& d :
       structures.find(make_document("logical_id", int_of(*stored, "logical_id")), by_sid)
           ->to_vector()) {
    expected.push_back(int_of(d, "_id"));
  }
  EXPECT_EQ(versions, expected);
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions.back(), corrected);
  EXPECT_TRUE(at(o.history, "versions.1.latest").as_bool());
  EXPECT_FALSE(at(o.history, "versions.0.latest").as_bool());
  EXPECT_EQ(o.history_table.status, 0);
  EXPECT_NE(o.history_table.out.find("(2 versions)"), std::string::npos) << o.history_table.out;
  EXPECT_NE(o.history_table.out.find("latest"), std::string::npos);

  // fsck: nothing to report on what the demo wrote; every document examined.
  int64_t documents = 0;
  for (const char* c : {"structure", "site", "calculation", "author"}) {
    documents += db.collection(c).count_documents(Document());
  }
  EXPECT_EQ(int_of(o.fsck, "totals.examined"), documents);
  EXPECT_EQ(int_of(o.fsck, "totals.repaired"), 0);
  EXPECT_EQ(int_of(o.fsck, "totals.deleted"), 0);
  EXPECT_TRUE(o.fsck.get("violations").as_array().empty());
  EXPECT_EQ(int_of(o.fsck, "generation") + 1, int_of(*stored_layout, "generation"));
  EXPECT_EQ(o.fsck_table.status, 0) << o.fsck_table.out << o.fsck_table.err;
  EXPECT_NE(o.fsck_table.out.find("OK: nothing to report"), std::string::npos);
  // The progress line (stderr is no terminal here: plain lines), ending at the final count.
  EXPECT_NE(o.fsck_table.err.find("fsck: 4/4 collections, " + std::to_string(documents) +
                                  " documents marked\n"),
            std::string::npos)
      << o.fsck_table.err;
  EXPECT_TRUE(o.fsck.get("violations").as_array().empty());
}

// `records ls` on `location`: every page of a listing and of a filtered search, followed by
// its next token, is the store's own answer (read with `client`), in sid order.
void check_ls(RecordsTest& t, const std::string& location,
              const std::function<std::shared_ptr<client::Client>()>& connect) {
  // A client only while reading: an embedded directory admits one process at a time.
  auto stored = [&](Document filter) {
    auto client = connect();
    client::Collection structures = client->database("materials").collection("structure");
    client::FindOptions by_sid;
    by_sid.sort = make_document("_id", 1);
    std::vector<int64_t> out;
    for (const Document& d : structures.find(filter, by_sid)->to_vector()) {
      out.push_back(int_of(d, "_id"));
    }
    return out;
  };
  // Follows the tokens from the first page to the last.
  auto pages = [&](const std::string& args, int64_t* total, int* count) {
    std::vector<int64_t> sids;
    std::string cursor;
    *count = 0;
    while (true) {
      Document page = t.run_json("records ls structure" + args +
                                 (cursor.empty() ? "" : " --cursor " + cursor) + location);
      *total = int_of(page, "total");
      for (const auto& row : page.get("rows").as_array()) {
        Document r = Document::copy_of(row.value.as_document());
        sids.push_back(int_of(r, "sid"));
        EXPECT_EQ(r.get("record").as_string(), "structure");
        EXPECT_TRUE(at(r, "fields.formula").is_string()) << r.to_json();
      }
      if (++*count > 50 || !page.get("next").is_string()) break;
      cursor = std::string(page.get("next").as_string());
    }
    return sids;
  };
  int64_t total = 0;
  int count = 0;
  std::vector<int64_t> all = stored(make_document("alt_kind", make_document("$exists", false)));
  ASSERT_EQ(all.size(), static_cast<size_t>(kStructures + 1));
  EXPECT_EQ(pages(" --page-size 3", &total, &count), all);
  EXPECT_EQ(total, static_cast<int64_t>(all.size()));
  EXPECT_EQ(count, 3);  // 3 + 3 + 1
  // A filter: run on the server, the same rows as the hand-written query.
  std::vector<int64_t> oxides = stored(make_document(
      "alt_kind", make_document("$exists", false), "f.formula",
      make_document("$regex", bson::RegexView{"O", ""}), "f.nsites", make_document("$gte", 20)));
  EXPECT_EQ(pages(" --page-size 2 --filter '_httk_custom_formula CONTAINS \"O\" AND "
                  "NOT _httk_custom_nsites < 20'",
                  &total, &count),
            oxides);
  EXPECT_EQ(total, static_cast<int64_t>(oxides.size()));
  // Only the latest of each lineage: the corrected structure's predecessor is gone.
  std::vector<int64_t> latest = pages(" --latest --page-size 100", &total, &count);
  EXPECT_EQ(latest.size(), all.size() - 1);
  // The table: the scalar fields, the count, the next page's token.
  Output table = t.run("records ls structure --page-size 2" + location);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("SID"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("formula"), std::string::npos);
  EXPECT_NE(table.out.find("energy_ev_per_atom"), std::string::npos);
  EXPECT_NE(table.out.find("2 of " + std::to_string(all.size()) + " structure records"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("next page: --cursor "), std::string::npos);
  EXPECT_EQ(lines(table.out), 5u) << table.out;  // header, 2 rows, count, next
  Output last = t.run("records ls structure --page-size 100 --filter '_httk_sid = " +
                      std::to_string(all.front()) + "'" + location);
  ASSERT_EQ(last.status, 0) << last.err;
  EXPECT_NE(last.out.find("1 of 1 structure records matching the filter"), std::string::npos)
      << last.out;
  EXPECT_NE(last.out.find("(last page)"), std::string::npos);
}

TEST_F(RecordsTest, DemoThenASecondRunFindsEveryStructureStored) {
  Document first = demo(at_data());
  EXPECT_TRUE(first.get("ok").as_bool()) << first.to_json();
  EXPECT_EQ(int_of(first, "structures_added"), kStructures);
  EXPECT_EQ(int_of(first, "dedup_hits"), 0);
  EXPECT_EQ(int_of(first, "lineage_length"), 2);
  EXPECT_EQ(int_of(first, "fsck_repaired"), 0);
  EXPECT_EQ(int_of(first, "fsck_deleted"), 0);
  // The search and the paged listing, against the store read with a plain client.
  {
    auto client = client::connect("embedded:" + data());
    client::Collection structures = client->database("materials").collection("structure");
    EXPECT_EQ(int_of(first, "search_matches"),
              structures.count_documents(
                  make_document("alt_kind", make_document("$exists", false), "f.spacegroup",
                                make_document("$gte", 195), "f.nsites", make_document("$lte", 30),
                                "f.energy_ev_per_atom", make_document("$lt", -3.0))));
    EXPECT_EQ(int_of(first, "listing_rows"), kStructures + 1);  // the batch and the correction
    EXPECT_EQ(int_of(first, "listing_pages"),
              (kStructures + 1 + int_of(first, "listing_page_size") - 1) /
                  int_of(first, "listing_page_size"));
    EXPECT_NE(std::string(first.get("search_filter").as_string()).find("_httk_custom_spacegroup"),
              std::string::npos);
  }
  // A second run on the same directory imports the same batch: all dedup hits, nothing added,
  // and the correction and the alternative are not repeated. The human summary says so.
  Output second = run("demo records" + at_data() + " --structures " + std::to_string(kStructures));
  ASSERT_EQ(second.status, 0) << second.out << second.err;
  EXPECT_NE(second.out.find("(0 new, " + std::to_string(kStructures) +
                            " already stored: content-id dedup hits)"),
            std::string::npos)
      << second.out;
  EXPECT_NE(second.out.find("structures saved"), std::string::npos);  // progress
  EXPECT_NE(second.out.find("mongostore records show structure"), std::string::npos);
  EXPECT_NE(second.out.find("mongostore records ls structure --filter '_httk_custom_spacegroup"),
            std::string::npos)
      << second.out;
  EXPECT_NE(second.out.find("search (OPTIMADE)"), std::string::npos);
  EXPECT_NE(second.out.find("(the pages concatenated are the full listing)"), std::string::npos);
  Document third = demo(at_data());
  EXPECT_EQ(int_of(third, "structures_added"), 0);
  EXPECT_EQ(int_of(third, "dedup_hits"), kStructures);
  EXPECT_EQ(int_of(third, "corrected_sid"), int_of(first, "corrected_sid"));
  EXPECT_EQ(int_of(third, "alternative_sid"), int_of(first, "alternative_sid"));
  // Recounted from the store.
  auto client = client::connect("embedded:" + data());
  client::Collection structures = client->database("materials").collection("structure");
  EXPECT_EQ(structures.count_documents(
                make_document("_httk_role", "main", "alt_kind", make_document("$exists", false))),
            kStructures + 1);  // the batch and the correction
  EXPECT_EQ(int_of(third, "structures_in_store"), kStructures + 1);
  EXPECT_EQ(structures.count_documents(make_document("alt_kind", "supercell-2x1x1")), 1);
  EXPECT_EQ(int_of(third, "sites_in_store"),
            client->database("materials").collection("site").count_documents(Document()));
}

TEST_F(RecordsTest, CommandsOnAnEmbeddedDirectory) {
  Document summary = demo(at_data());
  ASSERT_TRUE(summary.get("ok").as_bool());
  CommandOutputs outputs = run_commands(*this, at_data(), summary);
  check_outputs(outputs, summary, client::connect("embedded:" + data()));
  check_ls(*this, at_data(), [this] { return client::connect("embedded:" + data()); });
}

TEST_F(RecordsTest, CommandsThroughServe) {
  testing::ServerProcess server({"--dbpath", dir_.sub("served")});
  std::string location = " --uri " + server.uri();
  Document summary = demo(location);
  ASSERT_TRUE(summary.get("ok").as_bool());
  CommandOutputs outputs = run_commands(*this, location, summary);
  check_outputs(outputs, summary, client::connect(server.uri()));
  check_ls(*this, location, [&server] { return client::connect(server.uri()); });
}

TEST_F(RecordsTest, FsckCollectsGarbageOnlyWhenAskedAndReportsStrayCollections) {
  ASSERT_TRUE(demo(at_data()).get("ok").as_bool());
  {
    // An unreachable `dep` site, as a crash in degraded mode leaves one.
    auto client = client::connect("embedded:" + data());
    client::Collection sites = client->database("materials").collection("site");
    Document site = *sites.find_one(make_document("_id", 1));
    bson::DocumentBuilder b;
    b.append("_id", int64_t{1000000}).append("_httk_role", "dep");
    for (const auto& e : site.view()) {
      if (e.key == "_id" || e.key == "_httk_role") continue;
      if (e.key == "content_id") {
        b.append("content_id", std::string(64, 'a'));
      } else if (e.key == "logical_id" || e.key == "alt_id") {
        b.append(e.key, int64_t{1000000});
      } else {
        b.append(e.key, e.value);
      }
    }
    sites.insert_one(b.finish());
  }
  Document check = run_json("records fsck" + at_data(), 0);
  EXPECT_EQ(int_of(check, "totals.deleted"), 0);
  Document collect = run_json("records fsck --collect-garbage" + at_data(), 0);
  EXPECT_EQ(int_of(collect, "collections.site.deleted"), 1);
  {
    auto client = client::connect("embedded:" + data());
    client::Database db = client->database("materials");
    EXPECT_FALSE(db.collection("site").find_one(make_document("_id", 1000000)));
    // A collection no record type explains blocks the sweep: reported, exit status 2.
    db.collection("stray").insert_one(make_document("_id", 1, "site_sid", 5));
  }
  Output stray = run("records fsck --collect-garbage" + at_data());
  EXPECT_EQ(stray.status, 2) << stray.out << stray.err;
  EXPECT_NE(stray.out.find("'stray' is not attributed"), std::string::npos) << stray.out;
  EXPECT_NE(stray.out.find("sweep aborted"), std::string::npos) << stray.out;
}

TEST_F(RecordsTest, BadInputIsOneLineWithTheDocumentedStatusAndWritesNothing) {
  // No store at all: status 1, and no directory created by looking.
  Output missing = run("records layout --data " + dir_.sub("nowhere"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(error_lines(missing.err), 1u) << missing.err;
  EXPECT_NE(missing.err.find("no data directory"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_.sub("nowhere")));

  ASSERT_TRUE(demo(at_data()).get("ok").as_bool());
  auto snapshot = [this] {
    auto client = client::connect("embedded:" + data());
    std::string out;
    for (std::string db : {"materials", "other"}) {
      auto names = client->database(db).list_collection_names();
      std::sort(names.begin(), names.end());
      for (const auto& n : names) {
        out += db + "." + n + ":" +
               std::to_string(client->database(db).collection(n).count_documents(Document())) + ";";
      }
    }
    // The layout document itself (its generation included).
    out += client->database("materials")
               .collection("_httk_store_metadata")
               .find_one(make_document("_id", "layout"))
               ->to_json();
    return out;
  };
  std::string before = snapshot();

  Output unknown = run("records show nonesuch 1" + at_data());
  EXPECT_EQ(unknown.status, 1);
  EXPECT_EQ(error_lines(unknown.err), 1u) << unknown.err;
  EXPECT_NE(unknown.err.find("no record collection 'nonesuch'"), std::string::npos);
  EXPECT_NE(unknown.err.find("known: author, calculation, site, structure"), std::string::npos);

  Output absent = run("records history structure 987654" + at_data());
  EXPECT_EQ(absent.status, 1);
  EXPECT_EQ(error_lines(absent.err), 1u) << absent.err;
  EXPECT_NE(absent.err.find("no structure with sid 987654"), std::string::npos);

  for (const char* bad : {"abc", "0", "-3", "12x", "99999999999999999999999"}) {
    Output o = run(std::string("records show structure ") + bad + at_data());
    EXPECT_EQ(o.status, 2) << bad;
    EXPECT_NE(o.err.find("a sid is a positive integer"), std::string::npos) << o.err;
  }
  Output no_store = run("records show structure 1" + at_data() + " --database other");
  EXPECT_EQ(no_store.status, 1);
  EXPECT_EQ(error_lines(no_store.err), 1u) << no_store.err;
  EXPECT_NE(no_store.err.find("holds no RecordStore"), std::string::npos);
  Output fsck_no_store = run("records fsck" + at_data() + " --database other");
  EXPECT_EQ(fsck_no_store.status, 1);
  // records ls: a malformed filter, an unknown property, a tampered or foreign token.
  struct BadLs {
    std::string args, says;
  };
  Document first_page = run_json("records ls structure --page-size 2" + at_data());
  std::string token(first_page.get("next").as_string());
  std::string tampered = token;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';
  for (const BadLs& bad : std::vector<BadLs>{
           {"--filter '_httk_custom_spacegroup ='", "syntax error at column 26"},
           {"--filter 'nelements > 3'", "'nelements' is not a property of structure"},
           {"--filter '_httk_custom_formula > 3'", "compared with a number"},
           {"--filter '_httk_custom_sites HAS 1'", "not supported"},
           {"--cursor " + tampered, "page token"},
           {"--cursor garbage", "invalid page token"},
           {"--page-size 2 --filter '_httk_sid > 0' --cursor " + token, "different query"},
       }) {
    Output o = run("records ls structure " + bad.args + at_data());
    EXPECT_EQ(o.status, 1) << bad.args << o.out << o.err;
    EXPECT_EQ(error_lines(o.err), 1u) << bad.args << o.err;
    EXPECT_NE(o.err.find(bad.says), std::string::npos) << bad.args << o.err;
    EXPECT_TRUE(o.out.empty()) << bad.args << o.out;
  }
  EXPECT_EQ(run("records ls nonesuch" + at_data()).status, 1);
  EXPECT_EQ(run("records ls structure --page-size 0" + at_data()).status, 2);
  EXPECT_EQ(run("records ls structure --page-size 10001" + at_data()).status, 2);
  EXPECT_EQ(run("records").status, 2);
  EXPECT_EQ(run("records show structure").status, 2);
  EXPECT_EQ(run("records layout --bogus").status, 2);
  EXPECT_EQ(run("demo records --structures 0").status, 2);
  Output unreachable =
      run("records layout --uri 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=1000'");
  EXPECT_EQ(unreachable.status, 1);
  EXPECT_EQ(error_lines(unreachable.err), 1u) << unreachable.err;

  EXPECT_EQ(snapshot(), before);  // the failed commands wrote nothing
  // Nor do the inspection commands that succeed (only fsck writes: its lease, the generation).
  for (const char* read : {"records layout", "records history structure 1 --json",
                           "records ls structure --filter '_httk_custom_nsites > 10'"}) {
    EXPECT_EQ(run(read + at_data()).status, 0) << read;
  }
  EXPECT_EQ(snapshot(), before);
  for (const char* help :
       {"records layout --help", "records ls --help", "records show --help",
        "records history --help", "records fsck --help", "demo records --help", "demo --help"}) {
    Output o = run(help);
    EXPECT_EQ(o.status, 0) << help;
    EXPECT_NE(o.out.find("--data"), std::string::npos) << help << o.out;
  }
}

TEST_F(RecordsTest, DemoWithoutASubcommandRunsBoth) {
  Output o =
      run("demo" + at_data() + " --executions 5 --workers 2 --payment-timeout 0.2 --structures 3");
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  size_t exec = o.out.find("OK: every order reached a terminal status");
  size_t records = o.out.find("mongostore demo records: 3 structures");
  ASSERT_NE(exec, std::string::npos) << o.out;
  ASSERT_NE(records, std::string::npos) << o.out;
  EXPECT_LT(exec, records);
  EXPECT_NE(o.out.find("OK: every saved structure is stored once"), std::string::npos);
}

}  // namespace
}  // namespace mongostore::tool
