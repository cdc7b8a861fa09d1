// RecordStore searcher (issue 24): what a keyset page costs at page 1 and at page 1,000, with
// the page index (Searcher::ensure_page_index) and without it, side by side in one run.
//
// 100,000 records of one type (a name, an energy that is null for one record in ten, a
// spacegroup), written as raw documents shaped like saved ones (saving them one by one would
// measure saves). The query: every record, outputs name and energy, ordered by energy
// ascending with nulls last (the sid breaks ties); pages of 100 rows. Page 1,000 starts after
// row 99,900, reached with a token from pages of 10,000 (a token does not depend on the page
// size). "unindexed" is the same query before the page index exists: the declared single-key
// index on energy cannot give the sid tie-break, so each page sorts the rows after its anchor.
// Page 500 (after row 49,900) is in the middle of the known energies. Besides times (median
// of --trials), the documents examined (explain_page's totalDocsExamined; keys examined are
// the same here).
// Backends: embedded in memory and embedded durable.
//
//   build/bench/records_search_bench [--records 100000] [--trials 5]
#include <fmt/core.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/records/record_store.h"
#include "mongostore/records/searcher.h"

using namespace mongostore;
using namespace mongostore::records;
using Clock = std::chrono::steady_clock;

namespace bench {

struct Entry {
  std::string name;
  std::optional<double> energy;
  int64_t spacegroup = 0;
};
inline auto declare_record(Tag<Entry>) {
  return record<Entry>("bench.Entry", field("name", &Entry::name),
                       field("energy", &Entry::energy, indexed),
                       field("spacegroup", &Entry::spacegroup))
      .dedup(Dedup::kNone);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `n` entries as raw documents shaped like the one a save writes.
void fill(RecordStore& store, client::Database db, int n) {
  store.save(Entry{"model", 1.0, 1});
  client::Collection entries = db.collection(schema_of<Entry>()->storage_name());
  bson::Document none;
  bson::Document model = *entries.find_one(none.view());
  entries.delete_many(none.view());
  client::InsertOptions unsynced;  // j: false: the fill is not what is measured
  unsynced.journal = false;
  std::vector<bson::Document> batch;
  for (int i = 0; i < n; ++i) {
    int64_t sid = 1000 + i;
    bson::DocumentBuilder d;
    for (const bson::Element& e : model.view()) {
      if (e.key == "_id" || e.key == "logical_id") {
        d.append(e.key, sid);
      } else if (e.key == "f") {
        d.open_document("f");
        d.append("name", "entry" + std::to_string(i));
        if (i % 10 != 3) {
          double energy = -1.0 - static_cast<double>((i * 7919) % 50'000) / 1000.0;
          d.append("energy", energy);
          char hex[64];
          std::snprintf(hex, sizeof hex, "%a", energy);
          d.append("energy_exact", hex);
        }
        d.append("spacegroup", static_cast<int64_t>(1 + i % 230));
        d.close();
      } else {
        d.append(e.key, e.value);
      }
    }
    batch.push_back(d.finish());
    if (batch.size() == 1000) {
      entries.insert_many(batch, unsynced);
      batch.clear();
    }
  }
  if (!batch.empty()) entries.insert_many(batch, unsynced);
}

Searcher query(RecordStore& store) {
  Searcher s = store.searcher();
  Var v = s.variable<Entry>();
  s.output(v.field("name"), "name");
  s.output(v.field("energy"), "energy");
  return s;
}

struct Cost {
  double ms = 0;
  int64_t keys = 0, docs = 0;
};

Cost measure(RecordStore& store, const std::vector<PageOrder>& order,
             const std::optional<std::string>& token, int trials) {
  std::vector<double> t;
  for (int i = 0; i < trials; ++i) {
    Searcher s = query(store);
    auto start = Clock::now();
    ResultPage p = s.page(100, order, token);
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (p.rows.size() != 100) std::abort();
  }
  Cost c;
  c.ms = median(t);
  Searcher s = query(store);
  for (const bson::Document& e : s.explain_page(100, order, token)) {
    bson::DocumentView stats = e.view().get("executionStats").as_document();
    int64_t n = 0;
    stats.get("totalKeysExamined").number_as_exact_int64(&n);
    c.keys += n;
    stats.get("totalDocsExamined").number_as_exact_int64(&n);
    c.docs += n;
  }
  return c;
}

}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  int records = 100'000, trials = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (a == "--records") {
      records = v;
    } else if (a == "--trials") {
      trials = v;
    } else {
      fmt::print(stderr, "unknown option {}\n", a);
      return 2;
    }
  }
  if (records < 100'000) {
    fmt::print(stderr, "--records must be at least 100000 (page 1,000 of 100 rows)\n");
    return 2;
  }
  std::filesystem::path tmp = std::filesystem::temp_directory_path() /
                              ("records-search-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  struct Kind {
    std::string name, uri;
  };
  std::vector<Kind> kinds = {{"memory", "embedded:memory"},
                             {"durable", "embedded:" + (tmp / "durable").string()}};
  std::filesystem::create_directories(tmp / "durable");

  fmt::print("Keyset pages of 100 rows over {} records, ordered by energy (nulls last) and sid\n",
             records);
  fmt::print("{:<8} {:<10} {:>10} {:>7} {:>10} {:>7} {:>10} {:>7}\n", "backend", "index",
             "page 1 ms", "docs", "p. 500 ms", "docs", "p. 1000 ms", "docs");
  std::vector<PageOrder> order = {{"energy", false, Nulls::kLast}};
  for (const Kind& kind : kinds) {
    auto client = client::connect(kind.uri);
    RecordStoreOptions options;
    options.database = "bench";
    options.families = std::vector<EntryFamily>{};
    options.warn = [](std::string_view) {};
    RecordStore store = RecordStore::open(client, options);
    fill(store, client->database("bench"), records);
    auto token_after = [&](int64_t rows) {
      Searcher s = query(store);
      std::optional<std::string> token;
      while (rows > 0) {
        int64_t n = std::min<int64_t>(rows, 10'000);
        token = s.page(n, order, token).next;
        rows -= n;
      }
      return *token;
    };
    std::string at_500 = token_after(49'900), at_1000 = token_after(99'900);
    for (bool indexed : {false, true}) {
      if (indexed) query(store).ensure_page_index(order);
      Cost first = measure(store, order, std::nullopt, trials);
      Cost middle = measure(store, order, at_500, trials);
      Cost later = measure(store, order, at_1000, trials);
      fmt::print("{:<8} {:<10} {:>10.2f} {:>7} {:>10.2f} {:>7} {:>10.2f} {:>7}\n", kind.name,
                 indexed ? "page index" : "unindexed", first.ms, first.docs, middle.ms, middle.docs,
                 later.ms, later.docs);
    }
  }
  std::filesystem::remove_all(tmp);
  return 0;
}
