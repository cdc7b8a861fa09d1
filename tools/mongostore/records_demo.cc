#include "records_demo.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/error.h"
#include "mongostore/records/optimade_filter_searcher.h"
#include "mongostore/records/record_store.h"
#include "mongostore/records/searcher.h"
#include "records_demo_generator.h"

namespace mongostore::tool::demo {
namespace {

using Clock = std::chrono::steady_clock;
using bson::make_document;

constexpr const char* kAlternativeKind = "supercell-2x1x1";
// The demo's search: cubic structures (space groups 195..230) of at most 30 sites below
// -3 eV/atom.
constexpr const char* kSearchFilter =
    "_httk_custom_spacegroup >= 195 AND _httk_custom_nsites <= 30 AND "
    "_httk_custom_energy_ev_per_atom < -3";

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<records::EntryFamily> families() {
  return {records::EntryFamily{"structures",
                               "mongostore.demo/structures",
                               {records::EntryRecord{"structure", records::schema_of<Structure>(),
                                                     "mongostore.demo/structure"}}}};
}

records::Rational scaled(const records::Rational& r, int64_t num, int64_t den, int64_t add_num = 0,
                         int64_t add_den = 1) {
  // The demo's rationals are small: p/q * num/den + add_num/add_den in int64 is exact.
  int64_t p = std::stoll(r.numerator()), q = std::stoll(r.denominator());
  return records::Rational(p * num * add_den + add_num * q * den, q * den * add_den);
}

// The same crystal described by a cell twice as long along a: every site appears twice, at
// x/2 and x/2 + 1/2.
Structure supercell_2x1x1(const Structure& s) {
  Structure out = s;
  for (auto& component : out.cell[0]) component = scaled(component, 2, 1);
  out.sites.clear();
  for (const Site& site : s.sites) {
    for (int64_t half = 0; half < 2; ++half) {
      Site copy = site;
      copy.position[0][0] = scaled(site.position[0][0], 1, 2, half, 2);
      out.sites.push_back(std::move(copy));
    }
  }
  out.nsites = static_cast<int64_t>(out.sites.size());
  out.note = "2x1x1 supercell of the main representation";
  return out;
}

struct Counts {
  int64_t structures_main = 0, structures_alternatives = 0, sites = 0, calculations = 0,
          authors = 0;
};

Counts count(const client::Database& db) {
  Counts c;
  c.structures_main = db.collection("structure")
                          .count_documents(make_document("_httk_role", "main", "alt_kind",
                                                         make_document("$exists", false)));
  c.structures_alternatives =
      db.collection("structure")
          .count_documents(make_document("alt_kind", make_document("$exists", true)));
  c.sites = db.collection("site").count_documents(bson::Document());
  c.calculations = db.collection("calculation").count_documents(bson::Document());
  c.authors = db.collection("author").count_documents(bson::Document());
  return c;
}

int64_t after_import_size(const client::Database& db) {
  return db.collection("structure")
      .count_documents(make_document("alt_kind", make_document("$exists", false)));
}

}  // namespace

int run_records_demo(const std::string& uri, const std::string& database,
                     const RecordsDemoOptions& options, bool fresh, bool json,
                     const std::string& inspect_location) {
  auto start = Clock::now();
  std::shared_ptr<client::Client> client = client::connect(uri);
  if (fresh) client->database(database).drop();
  records::RecordStoreOptions store_options;
  store_options.database = database;
  store_options.families = families();
  std::string mode_note;
  store_options.warn = [&mode_note](std::string_view m) { mode_note = std::string(m); };
  records::RecordStore store = records::RecordStore::open(client, store_options);
  client::Database db = client->database(database);
  std::vector<std::string> problems;
  auto check = [&problems](bool ok, std::string what) {
    if (!ok) problems.push_back(std::move(what));
  };

  if (!json) {
    fmt::print("mongostore demo records: {} structures on {} (database {})\n", options.structures,
               uri, database);
    fmt::print("  transactions: {}\n",
               store.transactions_enabled()
                   ? "multi-document"
                   : "degraded mode (no multi-document transactions: single-document writes, "
                     "bottom-up)");
  }

  // 1. The import: every structure with its sites, calculation and author, bottom-up.
  StructureGenerator generator(options.seed);
  Counts before = count(db);
  std::vector<int64_t> sids;
  sids.reserve(static_cast<size_t>(options.structures));
  auto last_progress = Clock::now();
  auto import_start = Clock::now();
  for (int64_t i = 0; i < options.structures; ++i) {
    sids.push_back(store.save(generator.structure(i)));
    if (!json && Clock::now() - last_progress > std::chrono::milliseconds(500)) {
      last_progress = Clock::now();
      fmt::print("  [{:5.1f}s] structures saved {}/{}\n", seconds_since(start), i + 1,
                 options.structures);
      std::fflush(stdout);
    }
  }
  if (!json) {
    fmt::print("  [{:5.1f}s] structures saved {}/{}\n", seconds_since(start), options.structures,
               options.structures);
  }
  double import_seconds = seconds_since(import_start);
  Counts after_import = count(db);
  std::set<int64_t> distinct(sids.begin(), sids.end());
  int64_t added = after_import.structures_main - before.structures_main;
  int64_t dedup_hits = options.structures - added;
  // Every sid the saves returned is a main structure in the store.
  {
    int64_t found = 0;
    for (int64_t sid : distinct) {
      found += db.collection("structure")
                   .count_documents(make_document("_id", sid, "_httk_role", "main"));
    }
    check(found == static_cast<int64_t>(distinct.size()),
          fmt::format("{} of the {} saved sids are main structures", found, distinct.size()));
    check(added <= static_cast<int64_t>(distinct.size()) &&
              (before.structures_main > 0 || added == static_cast<int64_t>(distinct.size())),
          fmt::format("{} structures added for {} distinct sids", added, distinct.size()));
  }
  // A sample read back equals what was saved (content ids agree).
  for (int64_t i = 0; i < options.structures && i < 20; ++i) {
    std::shared_ptr<const Structure> back = store.fetch<Structure>(sids[static_cast<size_t>(i)]);
    check(store.content_id(*back) == store.content_id(generator.structure(i)),
          fmt::format("structure {} (sid {}) does not read back as saved", i, sids[i]));
  }

  // 2. A correction: structure 0's energy recomputed, recorded as its successor.
  std::shared_ptr<const Structure> original = store.fetch<Structure>(sids.front());
  Structure corrected = *original;
  corrected.energy_ev_per_atom = original->energy_ev_per_atom - 0.0125;
  corrected.note = "energy recomputed with a denser k-point mesh";
  int64_t corrected_sid = store.replace(original, corrected);
  auto lineage = store.history(corrected);
  check(lineage.size() >= 2 && store.sid_of(lineage.back()) == corrected_sid,
        fmt::format("the lineage of sid {} does not end at the correction {}", sids.front(),
                    corrected_sid));
  std::optional<bson::Document> corrected_doc =
      db.collection("structure").find_one(make_document("_id", corrected_sid));
  std::optional<bson::Document> original_doc =
      db.collection("structure").find_one(make_document("_id", sids.front()));
  check(corrected_doc && original_doc &&
            corrected_doc->get("logical_id").to_json() == original_doc->get("logical_id").to_json(),
        "the correction is not in its predecessor's lineage");

  // 3. An alternative representation of structure 1 (or 0 for a batch of one).
  int64_t main_sid = sids.size() > 1 ? sids[1] : sids[0];
  std::shared_ptr<const Structure> main = store.fetch<Structure>(main_sid);
  Structure alternative = supercell_2x1x1(*main);
  int64_t alternative_sid = store.save_alternative(alternative, main_sid, kAlternativeKind);
  std::shared_ptr<const Structure> current =
      store.fetch_alternative<Structure>(main_sid, kAlternativeKind);
  check(current && store.sid_of(current) == alternative_sid,
        "fetch_alternative does not return the saved alternative");

  // 4. A search with an OPTIMADE filter, on the server; its count is checked against a
  // MongoDB query written by hand for the same question.
  records::OptimadeSearch search =
      records::optimade_filter_searcher(store, records::schema_of<Structure>(), kSearchFilter);
  int64_t search_matches = search.searcher.count();
  int64_t expected_matches =
      db.collection("structure")
          .count_documents(make_document("alt_kind", make_document("$exists", false),
                                         "f.spacegroup", make_document("$gte", 195), "f.nsites",
                                         make_document("$lte", 30), "f.energy_ev_per_atom",
                                         make_document("$lt", -3.0)));
  check(search_matches == expected_matches,
        fmt::format("the OPTIMADE search found {} structures, the store holds {}", search_matches,
                    expected_matches));

  // 5. A keyset-paged listing of every structure by space group (the sid breaks ties): the
  // pages, concatenated, are the full ordered listing.
  int64_t page_size = std::max<int64_t>(1, after_import_size(db) / 7);
  auto listing = [&store] {
    records::Searcher s = store.searcher();
    records::Var v = s.variable<Structure>();
    s.output(v.sid(), "sid");
    s.output(v.field(&Structure::spacegroup), "spacegroup");
    return std::make_pair(std::move(s), v);
  };
  std::vector<int64_t> paged;
  int64_t pages = 0;
  std::optional<std::string> cursor;
  do {
    auto [s, v] = listing();
    records::ResultPage page = s.page(page_size, {{"spacegroup"}}, cursor);
    for (const records::Value& sid : page.rows.column("sid")) paged.push_back(sid.as<int64_t>());
    cursor = page.next;
    ++pages;
  } while (cursor && pages < 100000);
  std::vector<int64_t> full;
  {
    auto [s, v] = listing();
    s.add_sort(v.field(&Structure::spacegroup));
    for (const records::Value& sid : s.results().column("sid")) full.push_back(sid.as<int64_t>());
  }
  check(paged == full, fmt::format("{} pages list {} structures, the full listing {}", pages,
                                   paged.size(), full.size()));

  // 6. fsck: a store written this way has nothing to repair and nothing to collect.
  records::FsckOptions fsck_options;
  fsck_options.repair = true;
  fsck_options.collect_garbage = true;
  records::FsckSummary fsck = store.fsck(fsck_options);
  records::FsckCollectionSummary totals = fsck.totals();
  check(totals.repaired == 0 && totals.deleted == 0 && totals.conflicts == 0,
        fmt::format("fsck repaired {}, deleted {}, found {} conflicts", totals.repaired,
                    totals.deleted, totals.conflicts));
  for (const std::string& v : fsck.violations()) problems.push_back("fsck: " + v);

  Counts after = count(db);
  double total_seconds = seconds_since(start);
  bool ok = problems.empty();
  if (json) {
    bson::DocumentBuilder b;
    b.append("structures_requested", options.structures)
        .append("structures_added", added)
        .append("dedup_hits", dedup_hits)
        .append("structures_in_store", after.structures_main)
        .append("alternatives_in_store", after.structures_alternatives)
        .append("sites_in_store", after.sites)
        .append("calculations_in_store", after.calculations)
        .append("authors_in_store", after.authors)
        .append("corrected_sid", corrected_sid)
        .append("lineage_length", static_cast<int64_t>(lineage.size()))
        .append("alternative_sid", alternative_sid)
        .append("alternative_of", main_sid)
        .append("search_filter", kSearchFilter)
        .append("search_matches", search_matches)
        .append("listing_rows", static_cast<int64_t>(paged.size()))
        .append("listing_pages", pages)
        .append("listing_page_size", page_size)
        .append("fsck_examined", totals.examined)
        .append("fsck_repaired", totals.repaired)
        .append("fsck_deleted", totals.deleted)
        .append("fsck_generation", fsck.generation())
        .append("transactions", store.transactions_enabled())
        .append("import_seconds", import_seconds)
        .append("ok", ok);
    b.open_array("problems");
    for (size_t i = 0; i < problems.size() && i < 20; ++i) b.append(std::to_string(i), problems[i]);
    b.close();
    fmt::print("{}\n", b.finish().to_json());
    return ok ? 0 : 2;
  }
  fmt::print("\nsummary (read back from the store):\n");
  fmt::print("  structures imported    {:>8}  ({} new, {} already stored: content-id dedup hits)\n",
             options.structures, added, dedup_hits);
  fmt::print(
      "  in the store           {:>8}  main structures, {} alternatives, {} sites, {} "
      "calculations, {} authors\n",
      after.structures_main, after.structures_alternatives, after.sites, after.calculations,
      after.authors);
  fmt::print("  import                 {:>8.2f}s ({:.0f} structures/s)\n", import_seconds,
             import_seconds > 0 ? options.structures / import_seconds : 0.0);
  fmt::print("  correction (replace)   sid {} -> sid {}: a lineage of {} versions\n", sids.front(),
             corrected_sid, lineage.size());
  fmt::print("  alternative            sid {} is the {} of sid {}\n", alternative_sid,
             kAlternativeKind, main_sid);
  fmt::print("  search (OPTIMADE)      {:>8}  structures match {}\n", search_matches,
             kSearchFilter);
  fmt::print(
      "  paged listing          {:>8}  structures in {} keyset pages of {} by space group (the "
      "pages concatenated are the full listing)\n",
      paged.size(), pages, page_size);
  fmt::print(
      "  fsck                   {} documents examined, {} repaired, {} collected "
      "(generation {})\n",
      totals.examined, totals.repaired, totals.deleted, fsck.generation());
  fmt::print("  elapsed                {:>8.2f}s\n", total_seconds);
  if (!ok) {
    fmt::print("FAILED: {} problems\n", problems.size());
    for (size_t i = 0; i < problems.size() && i < 20; ++i) fmt::print("  {}\n", problems[i]);
    return 2;
  }
  fmt::print(
      "OK: every saved structure is stored once, the correction extends its lineage, the "
      "search and the pages agree with the store, fsck found nothing to repair\n");
  fmt::print("inspect it:\n");
  fmt::print("  mongostore records layout {}\n", inspect_location);
  fmt::print("  mongostore records ls structure --filter '{}' {}\n", kSearchFilter,
             inspect_location);
  fmt::print("  mongostore records ls structure --page-size 10 {}\n", inspect_location);
  fmt::print("  mongostore records show structure {} {}\n", corrected_sid, inspect_location);
  fmt::print("  mongostore records history structure {} {}\n", corrected_sid, inspect_location);
  fmt::print("  mongostore records show structure {} {}\n", alternative_sid, inspect_location);
  fmt::print("  mongostore records fsck {}\n", inspect_location);
  return 0;
}

}  // namespace mongostore::tool::demo
