// `mongostore optimade`, run as the real binary on the demo's store (an embedded directory, and
// through `mongostore serve`) and asked with curl: every route's output against the store read
// with a plain client, keyset pages concatenated against the unpaged listing, and bad input
// (status and OPTIMADE error document, nothing written). tests/tool/optimade_urllib.py asks
// the same endpoint with Python's urllib.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

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

constexpr int kStructures = 9;

struct Http {
  int status = 0;
  std::string body;
  Document json;  // empty when the body is not JSON
};

// A GET with curl; `url` is passed as is (the caller percent-encodes).
Http curl(const testing::TempDir& dir, const std::string& url, const std::string& extra = "") {
  std::string body = dir.sub("curl-body"), code = dir.sub("curl-code");
  std::string command =
      "curl -s -g " + extra + " -o " + body + " -w '%{http_code}' '" + url + "' >" + code;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  Http out;
  out.status = std::atoi(testing::slurp(code).c_str());
  out.body = testing::slurp(body);
  try {
    out.json = Document::from_json(out.body);
  } catch (const std::exception&) {
  }
  return out;
}

std::string encode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '_' || c == '-' || c == '.') {
      out += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

int64_t int_of(bson::Value v) {
  int64_t out = 0;
  EXPECT_TRUE(v.number_as_exact_int64(&out)) << v.to_json();
  return out;
}

class OptimadeTest : public ::testing::Test {
 public:
  testing::ToolOutput run(const std::string& args) { return testing::run_tool(dir_, args); }
  std::string data() const { return dir_.sub("data"); }
  void demo(const std::string& location) {
    testing::ToolOutput o =
        run("demo records" + location + " --structures " + std::to_string(kStructures));
    ASSERT_EQ(o.status, 0) << o.out << o.err;
  }
  Http get(const testing::ServerProcess& server, const std::string& path) {
    return curl(dir_, "http://127.0.0.1:" + std::to_string(server.port()) + path);
  }
  testing::TempDir dir_;
};

// The entries' ids of every page of `query` (page_limit given), following links.next.
std::vector<std::string> follow_pages(OptimadeTest& t, const testing::ServerProcess& server,
                                      const std::string& query, int* pages) {
  std::vector<std::string> ids;
  Http page = t.get(server, "/v1/structures?" + query);
  *pages = 0;
  while (true) {
    EXPECT_EQ(page.status, 200) << page.body;
    if (page.status != 200) break;
    ++*pages;
    for (const bson::Element& e : page.json.get("data").as_array()) {
      ids.emplace_back(e.value.as_document().get("id").as_string());
    }
    bson::Value next = page.json.view().get("links").as_document().get("next");
    bool more = page.json.get("meta").as_document().get("more_data_available").as_bool();
    EXPECT_EQ(more, next.is_string()) << page.body;
    if (!next.is_string() || *pages > 100) break;
    page = curl(t.dir_, std::string(next.as_string()));
  }
  return ids;
}

// What the endpoint serves, checked against the store (read by `client` once the endpoint
// has stopped, or concurrently through a server).
struct Served {
  Http info, type_info, links, versions, listing, one, fields, unknown_field;
  std::vector<std::string> paged, filtered_paged, filtered_all;
  int pages = 0, filtered_pages = 0;
  // Filters on the entry's own id, immutable_id and type (optimade_entry_filter.h).
  std::string immutable_id_3;
  std::vector<std::string> id_hit, id_hit_left, id_miss, id_other_type, id_leading_zero, id_ne,
      id_ne_other_type, id_combined, id_either, id_starts, id_starts_type, immutable_hit,
      immutable_known, type_and_id, other_type, id_huge;
};

Served ask_everything(OptimadeTest& t, const testing::ServerProcess& server) {
  Served s;
  s.info = t.get(server, "/v1/info");
  s.type_info = t.get(server, "/v1/info/structures");
  s.links = t.get(server, "/v1/links");
  s.versions = t.get(server, "/versions");
  s.listing = t.get(server, "/v1/structures?page_limit=1000");
  s.one = t.get(server, "/v1/structures/structures-2");
  s.fields = t.get(server,
                   "/v1/structures/structures-3?response_fields=_httk_custom_formula,"
                   "_httk_custom_cell");
  s.unknown_field = t.get(server, "/v1/structures?page_limit=1&response_fields=nelements");
  s.paged = follow_pages(t, server, "page_limit=4", &s.pages);
  std::string filter = encode("_httk_custom_spacegroup >= 100 OR _httk_custom_nsites < 20");
  s.filtered_paged =
      follow_pages(t, server, "filter=" + filter + "&page_limit=2", &s.filtered_pages);
  int ignored = 0;
  s.filtered_all = follow_pages(t, server, "filter=" + filter + "&page_limit=1000", &ignored);

  auto ids = [&](const std::string& f) {
    return follow_pages(t, server, "filter=" + encode(f) + "&page_limit=3", &ignored);
  };
  s.id_hit = ids(R"(id = "structures-3")");
  s.id_hit_left = ids(R"("structures-3" = id)");
  s.id_miss = ids(R"(id = "structures-987654")");
  s.id_other_type = ids(R"(id = "references-3")");
  s.id_leading_zero = ids(R"(id = "structures-03")");
  s.id_ne = ids(R"(id != "structures-3")");
  s.id_ne_other_type = ids(R"(id != "3")");
  s.id_combined = ids(R"(id != "structures-3" AND ()" +
                      std::string("_httk_custom_spacegroup >= 100 OR _httk_custom_nsites < 20)"));
  s.id_either = ids(R"(id = "structures-2" OR NOT id != "structures-5")");
  s.id_starts = ids(R"(id STARTS WITH "structures-1")");
  s.id_starts_type = ids(R"(id STARTS WITH "struct" AND id IS KNOWN)");
  Http three = t.get(server, "/v1/structures/structures-3?response_fields=immutable_id");
  bson::Value immutable =
      three.json.get("data").as_document().get("attributes").as_document().get("immutable_id");
  if (immutable.is_string()) s.immutable_id_3 = std::string(immutable.as_string());
  s.immutable_hit = ids("immutable_id = \"" + s.immutable_id_3 + "\"");
  s.immutable_known = ids("immutable_id IS KNOWN");
  // Beyond int64, at its edge: no entry, no error (and no overflow in the sid ranges).
  s.id_huge = ids(R"(id = "structures-9223372036854775808" OR )"
                  R"(id STARTS WITH "structures-922337203685477580" OR )"
                  R"(id STARTS WITH "structures-99999999999999999999")");
  s.type_and_id = ids(R"(type = "structures" AND id = "structures-3")");
  s.other_type = ids(R"(type = "references" OR type CONTAINS "x")");
  return s;
}

void check(const Served& s, const std::shared_ptr<client::Client>& client) {
  client::Collection structures = client->database("materials").collection("structure");
  // The entries: every structure but the alternative, in sid order.
  client::FindOptions by_sid;
  by_sid.sort = make_document("_id", 1);
  std::vector<std::string> expected, expected_filtered;
  for (const Document& d :
       structures.find(make_document("alt_kind", make_document("$exists", false)), by_sid)
           ->to_vector()) {
    std::string id = "structures-" + std::to_string(int_of(d.get("_id")));
    expected.push_back(id);
    bson::DocumentView f = d.get("f").as_document();
    if (int_of(f.get("spacegroup")) >= 100 || int_of(f.get("nsites")) < 20) {
      expected_filtered.push_back(id);
    }
  }
  ASSERT_EQ(expected.size(), static_cast<size_t>(kStructures + 1));  // and the correction

  EXPECT_EQ(s.info.status, 200) << s.info.body;
  bson::DocumentView attributes =
      s.info.json.get("data").as_document().get("attributes").as_document();
  EXPECT_EQ(attributes.get("api_version").as_string(), "1.1.0");
  EXPECT_EQ(attributes.get("entry_types_by_format").as_document().get("json").to_json(),
            R"([ "structures" ])");
  EXPECT_EQ(attributes.get("available_endpoints").to_json(),
            R"([ "info", "links", "structures" ])");
  bson::DocumentView meta = s.info.json.get("meta").as_document();
  EXPECT_EQ(meta.get("query").as_document().get("representation").as_string(), "/info");
  EXPECT_EQ(meta.get("api_version").as_string(), "1.1.0");
  EXPECT_FALSE(meta.get("more_data_available").as_bool());
  EXPECT_EQ(meta.get("provider").as_document().get("prefix").as_string(), "httk");

  EXPECT_EQ(s.type_info.status, 200) << s.type_info.body;
  bson::DocumentView properties =
      s.type_info.json.get("data").as_document().get("properties").as_document();
  for (auto [name, type] : std::vector<std::pair<const char*, const char*>>{
           {"id", "string"},
           {"last_modified", "timestamp"},
           {"_httk_sid", "integer"},
           {"_httk_custom_formula", "string"},
           {"_httk_custom_spacegroup", "integer"},
           {"_httk_custom_energy_ev_per_atom", "float"},
           {"_httk_custom_cell", "list"},
           {"_httk_custom_sites", "list"},
           {"_httk_custom_author", "integer"},
           {"_httk_custom_note", "string"}}) {
    EXPECT_EQ(properties.get(name).as_document().get("type").as_string(), type) << name;
  }

  EXPECT_EQ(s.links.status, 200);
  EXPECT_TRUE(s.links.json.get("data").as_array().empty()) << s.links.body;
  EXPECT_EQ(s.versions.status, 200);
  EXPECT_EQ(s.versions.body, "version\n1\n");

  // The unpaged listing is every entry; each entry as stored.
  ASSERT_EQ(s.listing.status, 200) << s.listing.body;
  std::vector<std::string> listed;
  for (const bson::Element& e : s.listing.json.get("data").as_array()) {
    bson::DocumentView entry = e.value.as_document();
    listed.emplace_back(entry.get("id").as_string());
    EXPECT_EQ(entry.get("type").as_string(), "structures");
    bson::DocumentView a = entry.get("attributes").as_document();
    int64_t sid = int_of(a.get("_httk_sid"));
    Document stored = *structures.find_one(make_document("_id", sid));
    bson::DocumentView f = stored.get("f").as_document();
    EXPECT_EQ(a.get("_httk_custom_formula").as_string(), f.get("formula").as_string());
    EXPECT_EQ(int_of(a.get("_httk_custom_spacegroup")), int_of(f.get("spacegroup")));
    EXPECT_EQ(a.get("_httk_custom_energy_ev_per_atom").as_double(),
              f.get("energy_ev_per_atom").as_double());
    EXPECT_EQ(int_of(a.get("_httk_custom_author")), int_of(f.get("author_sid")));
    EXPECT_EQ(a.get("_httk_custom_sites").as_array().count(), f.get("sites").as_array().count());
    EXPECT_EQ(a.get("_httk_custom_cell").as_array().get("1").as_array().get("1").as_double(),
              f.get("cell_4").as_double());
    EXPECT_EQ(a.get("immutable_id").as_string(), stored.get("content_id").as_string());
    EXPECT_EQ(int_of(a.get("_httk_logical_id")), int_of(stored.get("logical_id")));
    EXPECT_EQ(a.get("last_modified").as_string().back(), 'Z');
  }
  EXPECT_EQ(listed, expected);
  bson::DocumentView listing_meta = s.listing.json.get("meta").as_document();
  EXPECT_EQ(int_of(listing_meta.get("data_returned")), static_cast<int64_t>(expected.size()));
  EXPECT_FALSE(listing_meta.get("more_data_available").as_bool());
  EXPECT_TRUE(s.listing.json.get("links").as_document().get("next").is_null());

  // Pages concatenated are the unpaged listing, filtered or not.
  EXPECT_EQ(s.paged, expected);
  EXPECT_EQ(s.pages, static_cast<int>((expected.size() + 3) / 4));
  EXPECT_EQ(s.filtered_all, expected_filtered);
  EXPECT_EQ(s.filtered_paged, expected_filtered);
  EXPECT_FALSE(expected_filtered.empty());

  // `id` is the sid: a hit, misses (an absent sid, another type's prefix, a leading zero)
  // match nothing and their negation everything, never an error.
  const std::vector<std::string> three = {"structures-3"}, none;
  std::vector<std::string> all_but_three, filtered_but_three, starting_with_1;
  for (const std::string& id : expected) {
    if (id != "structures-3") all_but_three.push_back(id);
    if (id.rfind("structures-1", 0) == 0) starting_with_1.push_back(id);
  }
  for (const std::string& id : expected_filtered) {
    if (id != "structures-3") filtered_but_three.push_back(id);
  }
  EXPECT_EQ(s.id_hit, three);
  EXPECT_EQ(s.id_hit_left, three);
  EXPECT_EQ(s.id_miss, none);
  EXPECT_EQ(s.id_other_type, none);
  EXPECT_EQ(s.id_leading_zero, none);
  EXPECT_EQ(s.id_ne, all_but_three);
  EXPECT_EQ(s.id_ne_other_type, expected);
  EXPECT_EQ(s.id_combined, filtered_but_three);
  EXPECT_EQ(s.id_either, (std::vector<std::string>{"structures-2", "structures-5"}));
  EXPECT_EQ(s.id_starts, starting_with_1);
  EXPECT_EQ(starting_with_1.size(), 2u);  // structures-1 and structures-10
  EXPECT_EQ(s.id_starts_type, expected);
  // `immutable_id` is the content id.
  EXPECT_EQ(s.immutable_id_3,
            structures.find_one(make_document("_id", 3))->get("content_id").as_string());
  EXPECT_EQ(s.immutable_hit, three);
  EXPECT_EQ(s.immutable_known, expected);
  EXPECT_EQ(s.id_huge, none);
  EXPECT_EQ(s.type_and_id, three);
  EXPECT_EQ(s.other_type, none);

  ASSERT_EQ(s.one.status, 200) << s.one.body;
  bson::DocumentView one = s.one.json.get("data").as_document();
  EXPECT_EQ(one.get("id").as_string(), "structures-2");
  EXPECT_EQ(int_of(one.get("attributes").as_document().get("_httk_sid")), 2);
  ASSERT_EQ(s.fields.status, 200) << s.fields.body;
  bson::DocumentView few = s.fields.json.get("data").as_document().get("attributes").as_document();
  std::set<std::string> keys;
  for (const bson::Element& e : few) keys.emplace(e.key);
  EXPECT_EQ(keys, (std::set<std::string>{"_httk_custom_formula", "_httk_custom_cell"}));
  EXPECT_EQ(s.unknown_field.status, 200) << s.unknown_field.body;
  EXPECT_NE(s.unknown_field.body.find("'nelements' is not a property"), std::string::npos);
}

TEST_F(OptimadeTest, EveryRouteOnAnEmbeddedDirectory) {
  demo(" --data " + data());
  Served served;
  {
    testing::ServerProcess optimade({"--data", data()}, "optimade");
    served = ask_everything(*this, optimade);
    EXPECT_EQ(optimade.stop(), 0);  // SIGTERM: a clean exit
  }
  check(served, client::connect("embedded:" + data()));
}

TEST_F(OptimadeTest, EveryRouteThroughServe) {
  testing::ServerProcess server({"--dbpath", dir_.sub("served")});
  demo(" --uri " + server.uri());
  testing::ServerProcess optimade({"--uri", server.uri()}, "optimade");
  check(ask_everything(*this, optimade), client::connect(server.uri()));
}

TEST_F(OptimadeTest, BadInputIsAnErrorDocumentAndWritesNothing) {
  demo(" --data " + data());
  auto snapshot = [this] {
    auto client = client::connect("embedded:" + data());
    std::string out;
    auto names = client->database("materials").list_collection_names();
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      client::FindOptions by_id;
      by_id.sort = make_document("_id", 1);
      out += n + ":";
      for (const Document& d :
           client->database("materials").collection(n).find(Document(), by_id)->to_vector()) {
        out += d.to_json();
      }
    }
    return out;
  };
  // A first page (which makes the store's page-token key), then the snapshot.
  std::string token;
  {
    testing::ServerProcess optimade({"--data", data()}, "optimade");
    Http first = get(optimade, "/v1/structures?page_limit=2");
    std::string next(first.json.get("links").as_document().get("next").as_string());
    token = next.substr(next.find("page_cursor=") + 12);
  }
  std::string before = snapshot();
  std::string tampered = token;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';
  struct Bad {
    std::string path;
    int status;
    std::string says;
  };
  std::vector<Bad> bad = {
      {"/v1/structures?filter=" + encode("_httk_custom_spacegroup ="), 400,
       "syntax error at column 26"},
      {"/v1/structures?filter=" + encode("nelements > 3"), 400,
       "'nelements' is not a property of structure"},
      {"/v1/structures?filter=" + encode("_httk_custom_formula > 3"), 501,
       "compared with a number"},
      {"/v1/structures?filter=" + encode("_httk_custom_sites HAS 1"), 501, "not supported"},
      {"/v1/structures?filter=" + encode(R"(id < "structures-3")"), 501,
       "'id' < (ids are compared with =, != and STARTS WITH only)"},
      {"/v1/structures?filter=" + encode(R"(id CONTAINS "3")"), 501, "not-implemented"},
      {"/v1/structures?filter=" + encode("id = 3"), 501,
       "'id' is a string, compared with a number"},
      {"/v1/structures?filter=" + encode("id = _httk_custom_formula"), 501,
       "comparing 'id' with another property"},
      {"/v1/structures?filter=" + encode(R"(immutable_id HAS "x")"), 501, "not a list"},
      {"/v1/structures?page_limit=abc", 400, "page_limit 'abc' is not a positive integer"},
      {"/v1/structures?page_limit=-3", 400, "not a positive integer"},
      {"/v1/structures?page_limit=0", 400, "at least 1"},
      {"/v1/structures?page_limit=1001", 403, "above this server's maximum, 1000"},
      {"/v1/structures?page_limit=99999999999999999999999", 403, "maximum"},
      {"/v1/structures?page_limit=2&page_cursor=" + tampered, 400, "page_cursor"},
      {"/v1/structures?page_limit=2&page_cursor=garbage", 400, "invalid page token"},
      {"/v1/structures?page_limit=2&filter=" + encode("_httk_sid > 0") + "&page_cursor=" + token,
       400, "different query"},
      {"/v1/structures?page_limit=2&page_limit=3", 400, "given twice"},
      {"/v1/structures?bogus=1", 400, "unknown query parameter 'bogus'"},
      {"/v1/structures?sort=_httk_sid", 400, "sort is not supported"},
      {"/v1/structures?page_offset=2", 501, "page_offset is not supported"},
      {"/v1/structures?response_format=xml", 400, "only json"},
      {"/v1/structures?include=calculations", 400, "no relationship"},
      {"/v1/structures?response_fields=Bad-Name", 400, "not a property name"},
      {"/v1/structures/structures-2?dimension_slices=" + encode("dim_sites[0:1:]"), 501,
       "dimension_slices"},
      {"/v1/nonesuch", 404, "no entry type 'nonesuch' (served: structures)"},
      {"/v1/info/nonesuch", 404, "no entry type 'nonesuch'"},
      {"/v1/structures/structures-987654", 404, "no structures entry with id 'structures-987654'"},
      {"/v1/structures/structures-abc", 404, "no structures entry"},
      {"/v1/structures/42", 404, "no structures entry"},
      {"/v1/structures/structures-03", 404, "no structures entry"},
      {"/v1/structures/structures-99999999999999999999999", 404, "no structures entry"},
      {"/v1/structures/a/b", 404, "no such endpoint"},
      {"/v2/info", 553, "version 1"},
      {"/v1/info?api_hint=v3", 553, "api_hint"},
      {"/nowhere", 404, "under /v1"},
      // Bytes that are not UTF-8 (in a parameter, in the path) still give a JSON document.
      {"/v1/structures?filter=%FF%FE", 400, "syntax error at column 1"},
      {"/v1/structures?page_cursor=%FF", 400, "page_cursor"},
      {"/v1/nonesuch%FF%00", 404, "no entry type 'nonesuch\\xFF\u0000'"},
      {"/v1/structures?filter=" + std::string(9000, 'a'), 414, "refused"},
  };
  testing::ServerProcess optimade({"--data", data()}, "optimade");
  for (const Bad& b : bad) {
    Http r = get(optimade, b.path);
    EXPECT_EQ(r.status, b.status) << b.path << "\n" << r.body;
    bson::Value errors = r.json.get("errors");
    ASSERT_TRUE(errors.is_array()) << b.path << "\n" << r.body;
    bson::DocumentView first = errors.as_array().get("0").as_document();
    EXPECT_EQ(first.get("status").as_string(), std::to_string(b.status)) << b.path;
    EXPECT_NE(std::string(first.get("detail").as_string()).find(b.says), std::string::npos)
        << b.path << "\n"
        << r.body;
    EXPECT_FALSE(r.json.get("data").is_array()) << b.path;  // no data beside errors
    EXPECT_TRUE(r.json.get("meta").is_document()) << b.path;
  }
  // The alternative is not an entry; other methods are refused; the process survived it all.
  EXPECT_EQ(get(optimade, "/v1/structures/structures-" + std::to_string(kStructures + 2)).status,
            404);
  Http post = curl(dir_, "http://127.0.0.1:" + std::to_string(optimade.port()) + "/v1/info",
                   "-X POST -d x");
  EXPECT_EQ(post.status, 405) << post.body;
  Http big = curl(dir_, "http://127.0.0.1:" + std::to_string(optimade.port()) + "/v1/info",
                  "-X POST --data-binary @" + std::string(testing::tool_path()));
  EXPECT_EQ(big.status, 413) << big.body;
  EXPECT_EQ(get(optimade, "/v1/info").status, 200);
  EXPECT_EQ(optimade.stop(), 0);
  EXPECT_EQ(snapshot(), before);
}

TEST_F(OptimadeTest, StartupErrorsAndHelp) {
  testing::ToolOutput missing = run("optimade --data " + dir_.sub("nowhere") + " --port 0");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("no data directory"), std::string::npos) << missing.err;
  run("insert other.things '{\"a\": 1}' --data " + data());
  testing::ToolOutput no_store = run("optimade --data " + data() + " --database other --port 0");
  EXPECT_EQ(no_store.status, 1);
  EXPECT_NE(no_store.err.find("holds no RecordStore"), std::string::npos) << no_store.err;
  EXPECT_EQ(run("optimade --prefix httk --port 0").status, 2);
  EXPECT_EQ(run("optimade --bogus").status, 2);
  EXPECT_EQ(run("optimade --port 0 --page-limit 0").status, 2);
  testing::ToolOutput limits = run("optimade --port 0 --page-limit 50 --max-page-limit 10");
  EXPECT_EQ(limits.status, 1);
  EXPECT_NE(limits.err.find("above --max-page-limit"), std::string::npos) << limits.err;
  testing::ToolOutput help = run("optimade --help");
  EXPECT_EQ(help.status, 0);
  for (const char* flag :
       {"--data", "--uri", "--database", "--bind", "--port", "--prefix", "--page-limit",
        "--max-page-limit", "--provider-name", "/v1/info", "page_cursor", "403"}) {
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag << "\n" << help.out;
  }
}

}  // namespace
}  // namespace mongostore::tool
