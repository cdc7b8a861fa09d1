// RecordStore searcher (issue 24), three parts in one run:
//  1. what a keyset page costs at page 1 and at page 1,000, with the page index
//     (Searcher::ensure_page_index) and without it;
//  2. the searcher against the hand-written aggregation a MongoDB expert would write for the
//     same question (same rows, same fields decoded): a selective search, a join over a
//     reference, and a 1,000-row page (first and middle), as time ratios;
//  3. exact (client-verified) comparisons: the searcher's server prefilter (nearest-double
//     bounds, the error-bounded window of scaled comparisons) against httk's degenerate
//     prefilter (every visible row transferred and verified on the client), in candidates
//     transferred and time.
//
// 100,000 records of one type (a name, an energy that is null for one record in ten, an
// indexed spacegroup, an exact rational band_gap = (i % 997)/7, a reference to one of ten
// calculations), written as raw documents shaped like saved ones (saving them one by one
// would measure saves). The query: every record, outputs name and energy, ordered by energy
// ascending with nulls last (the sid breaks ties); pages of 100 rows. Page 1,000 starts after
// row 99,900, reached with a token from pages of 10,000 (a token does not depend on the page
// size). "unindexed" is the same query before the page index exists: the declared single-key
// index on energy cannot give the sid tie-break, so each page sorts the rows after its anchor.
// Page 500 (after row 49,900) is in the middle of the known energies. Besides times (median
// of --trials), the documents examined (explain_page's totalDocsExamined; keys examined are
// the same here).
// Backends: embedded in memory and embedded durable.
//
//   build/bench/records_search_bench [--records 100000] [--trials 5] [--parts 123]
//
// `--profile selective|join` asks only that question of part 2, of the searcher on the memory
// backend, --trials times (after printing its pipeline), for a profiler: the fill takes about
// five seconds, so e.g. `perf record -D 5500 ... --profile join --trials 3000`.
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
#include "support/raw_records.h"

using namespace mongostore;
using namespace mongostore::records;
using Clock = std::chrono::steady_clock;

namespace bench {

struct Calc {
  std::string code;
  int64_t cores = 0;
};
inline auto declare_record(Tag<Calc>) {
  return record<Calc>("bench.Calc", field("code", &Calc::code), field("cores", &Calc::cores))
      .dedup(Dedup::kNone);
}

struct Entry {
  std::string name;
  std::optional<double> energy;
  int64_t spacegroup = 0;
  std::optional<Rational> band_gap;
  std::shared_ptr<const Calc> calc;
};
inline auto declare_record(Tag<Entry>) {
  return record<Entry>("bench.Entry", field("name", &Entry::name),
                       field("energy", &Entry::energy, indexed),
                       field("spacegroup", &Entry::spacegroup, indexed),
                       field("band_gap", &Entry::band_gap), field("calc", &Entry::calc, nullable))
      .dedup(Dedup::kNone);
}

const char* const kCodes[] = {"vasp",    "qe",     "abinit", "cp2k",   "orca",
                              "gromacs", "lammps", "siesta", "castep", "gpaw"};

double energy_of(int i) {
  return -1.0 - static_cast<double>((i * 7919) % 50'000) / 1000.0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// `n` entries as raw documents shaped like the one a save writes; ten calculations, entry i
// refers to calculation (i / 7) % 10 (independent of the spacegroup, 1 + i % 230).
void fill(RecordStore& store, client::Database db, int n) {
  std::vector<int64_t> calcs;
  for (int k = 0; k < 10; ++k) calcs.push_back(store.save(Calc{kCodes[k], 8 << (k % 4)}));
  store.save(Entry{"model", 1.0, 1, Rational(1, 7), nullptr});
  client::Collection entries = db.collection(schema_of<Entry>()->storage_name());
  bson::Document none;
  bson::Document model = *entries.find_one(none.view());
  entries.delete_many(none.view());
  mongostore::testing::insert_raw_records(
      entries, model, n, 1000, [&](int i, bson::DocumentBuilder& d) {
        d.append("name", "entry" + std::to_string(i));
        if (i % 10 != 3) {
          double energy = energy_of(i);
          d.append("energy", energy);
          char hex[64];
          std::snprintf(hex, sizeof hex, "%a", energy);
          d.append("energy_exact", hex);
        }
        d.append("spacegroup", static_cast<int64_t>(1 + i % 230));
        Rational gap(i % 997, 7);
        d.append("band_gap", gap.nearest_double());
        d.append("band_gap_exact", gap.to_string());
        d.append("calc_sid", calcs[static_cast<size_t>((i / 7) % 10)]);
      });
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

// The median time of `trials` runs of `f` (ms), and f's last result.
template <class F>
double timed(int trials, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < trials; ++i) {
    auto start = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return median(t);
}

// Rows as the searcher returns them for outputs name and energy: the name, and the energy
// decoded from its exact text (as the searcher decodes a float output).
struct Row {
  std::string name;
  std::optional<double> energy;
};
Row hand_row(bson::DocumentView d, const std::string& prefix = "f.") {
  Row r;
  r.name = std::string(d.get_path(prefix + "name").as_string());
  bson::Value e = d.get_path(prefix + "energy_exact");
  if (e.is_string()) r.energy = std::strtod(std::string(e.as_string()).c_str(), nullptr);
  return r;
}
std::vector<Row> hand_rows(const std::vector<bson::Document>& docs) {
  std::vector<Row> out;
  out.reserve(docs.size());
  for (const bson::Document& d : docs) out.push_back(hand_row(d.view()));
  return out;
}

bson::Document visible() {
  return bson::make_document("alt_kind", bson::make_document("$exists", false));
}
bson::Document projection() {
  return bson::make_document("$project",
                             bson::make_document("f.name", 1, "f.energy", 1, "f.energy_exact", 1));
}

// The questions of part 2, as searcher conditions on the root variable.
Condition selective_condition(const Var& v) {
  return v.field("spacegroup") == 17;
}
Condition join_condition(const Var& v) {
  return (v.field("spacegroup") == 17) & (v.field("calc").field("code") == "vasp");
}

// Part 2: each question asked of the searcher and as the aggregation an expert writes.
void versus(RecordStore& store, client::Database db, const std::string& backend, int trials) {
  client::Collection entries = db.collection(schema_of<Entry>()->storage_name());
  const std::string calcs = schema_of<Calc>()->storage_name();
  auto check = [](size_t a, size_t b, const char* what) {
    if (a != b || a == 0) {
      fmt::print(stderr, "{}: searcher {} rows, hand-written {}\n", what, a, b);
      std::abort();
    }
  };
  auto line = [&](const char* what, size_t rows, double ours, double hand) {
    fmt::print("{:<8} {:<34} {:>6} {:>10.2f} {:>10.2f} {:>6.2f}\n", backend, what, rows, ours, hand,
               ours / hand);
  };

  // A selective search: spacegroup 17 (435 rows), through the declared index.
  {
    size_t n_ours = 0, n_hand = 0;
    double ours = timed(trials, [&] {
      Searcher s = query(store);
      s.add(selective_condition(Var(0, schema_of<Entry>())));
      n_ours = s.results().size();
    });
    double hand = timed(trials, [&] {
      std::vector<bson::Document> p = {
          bson::make_document("$match", bson::make_document("f.spacegroup", 17, "alt_kind",
                                                            bson::make_document("$exists", false))),
          projection()};
      n_hand = hand_rows(entries.aggregate(p)->to_vector()).size();
    });
    check(n_ours, n_hand, "selective");
    line("selective (spacegroup == 17)", n_ours, ours, hand);
  }
  // A join over a reference: spacegroup 17 and the calculation's code "vasp".
  {
    size_t n_ours = 0, n_hand = 0;
    double ours = timed(trials, [&] {
      Searcher s = query(store);
      s.add(join_condition(Var(0, schema_of<Entry>())));
      n_ours = s.results().size();
    });
    double hand = timed(trials, [&] {
      std::vector<bson::Document> p = {
          bson::make_document("$match", bson::make_document("f.spacegroup", 17, "alt_kind",
                                                            bson::make_document("$exists", false))),
          bson::make_document("$lookup",
                              bson::make_document("from", calcs, "localField", "f.calc_sid",
                                                  "foreignField", "_id", "as", "calc")),
          bson::make_document("$match", bson::make_document("calc.f.code", "vasp")), projection()};
      n_hand = hand_rows(entries.aggregate(p)->to_vector()).size();
    });
    check(n_ours, n_hand, "join");
    line("join (calc.code == \"vasp\")", n_ours, ours, hand);
  }
  // A 1,000-row page by energy (nulls last, then sid) with the page index, first and after
  // row 45,000 (known energies); the hand-written page seeks past the same anchor.
  {
    std::vector<PageOrder> order = {{"energy", false, Nulls::kLast}};
    query(store).ensure_page_index(order);
    std::optional<std::string> token;
    {
      Searcher s = query(store);
      for (int k = 0; k < 45; ++k) token = s.page(1000, order, token).next;
    }
    // The anchor of that token: the 45,000th row in page order.
    std::vector<bson::Document> sorted =
        entries
            .aggregate({bson::make_document(
                            "$match", bson::make_document("f.energy",
                                                          bson::make_document("$type", "double"))),
                        bson::make_document("$sort", bson::make_document("f.energy", 1, "_id", 1)),
                        bson::make_document("$skip", 44'999), bson::make_document("$limit", 1)})
            ->to_vector();
    double anchor_energy = sorted[0].view().get_path("f.energy").as_double();
    int64_t anchor_sid = 0;
    sorted[0].view().get("_id").number_as_exact_int64(&anchor_sid);
    for (bool middle : {false, true}) {
      size_t n_ours = 0, n_hand = 0;
      double ours = timed(trials, [&] {
        Searcher s = query(store);
        n_ours = s.page(1000, order, middle ? token : std::nullopt).rows.size();
      });
      double hand = timed(trials, [&] {
        bson::Document match =
            middle ? bson::make_document(
                         "$or", bson::make_array(
                                    bson::make_document("f.energy",
                                                        bson::make_document("$gt", anchor_energy)),
                                    bson::make_document("f.energy", anchor_energy, "_id",
                                                        bson::make_document("$gt", anchor_sid))))
                   : bson::make_document("f.energy", bson::make_document("$type", "double"));
        std::vector<bson::Document> p = {
            bson::make_document("$match",
                                bson::make_document("$and", bson::make_array(visible(), match))),
            bson::make_document("$sort", bson::make_document("f.energy", 1, "_id", 1)),
            bson::make_document("$limit", 1001), projection()};
        n_hand = hand_rows(entries.aggregate(p)->to_vector()).size() - 1;
      });
      check(n_ours, n_hand, "page");
      line(middle ? "page of 1,000 after row 45,000" : "page of 1,000, first", n_ours, ours, hand);
    }
  }
}

// Part 3: exact comparisons, the searcher's prefilter against the degenerate one.
void exact_prefilter(RecordStore& store, client::Database db, const std::string& backend,
                     int trials) {
  client::Collection entries = db.collection(schema_of<Entry>()->storage_name());
  auto exact_of = [](bson::DocumentView f, const char* name) -> std::optional<Rational> {
    bson::Value e = f.get(std::string(name) + "_exact");
    if (!e.is_string()) return std::nullopt;
    std::string text(e.as_string());
    if (text.find('x') != std::string::npos) {
      return Rational::from_double(std::strtod(text.c_str(), nullptr));
    }
    return Rational::parse(text);
  };
  struct Case {
    const char* what;
    std::function<Condition(const Var&)> condition;
    std::function<bool(bson::DocumentView)> holds;  // on the document's f
  };
  const Rational e0 = Rational::from_double(energy_of(12'345));
  const std::vector<Case> cases = {
      {"energy == e (exact)",
       [&](const Var& v) { return v.field("energy").exact(CompareOp::kEq, e0); },
       [&](bson::DocumentView f) {
         auto x = exact_of(f, "energy");
         return x && *x == e0;
       }},
      {"band_gap <= 1/7 (exact)",
       [&](const Var& v) { return v.field("band_gap").exact(CompareOp::kLe, Rational(1, 7)); },
       [&](bson::DocumentView f) {
         auto x = exact_of(f, "band_gap");
         return x && *x <= Rational(1, 7);
       }},
      {"7 * band_gap == 5 (scaled)",
       [&](const Var& v) {
         return v.field("band_gap").scaled(Rational(7), CompareOp::kEq, Rational(5));
       },
       [&](bson::DocumentView f) {
         auto x = exact_of(f, "band_gap");
         return x && Rational(7) * *x == Rational(5);
       }},
      {"-7 * band_gap == 7 * energy (scaled)",
       [&](const Var& v) {
         return v.field("band_gap")
             .scaled(Rational(-7), CompareOp::kEq, v.field("energy"), Rational(7));
       },
       [&](bson::DocumentView f) {
         auto x = exact_of(f, "band_gap"), y = exact_of(f, "energy");
         return x && y && Rational(-7) * *x == Rational(7) * *y;
       }},
      {"spacegroup * band_gap == 10 (field factor)",
       [&](const Var& v) {
         return v.field("band_gap").scaled(v.field("spacegroup"), CompareOp::kEq, Rational(10));
       },
       [&](bson::DocumentView f) {
         auto x = exact_of(f, "band_gap");
         bson::Value sg = f.get("spacegroup");
         return x && sg.is_number() && Rational(sg.as_int64()) * *x == Rational(10);
       }},
  };
  for (const Case& c : cases) {
    size_t n_ours = 0, n_degenerate = 0;
    int64_t transferred = 0, all = 0;
    double ours = timed(trials, [&] {
      Searcher s = query(store);
      s.add(c.condition(Var(0, schema_of<Entry>())));
      n_ours = s.results().size();
      transferred = s.stats().rows_transferred;
    });
    // httk's degenerate prefilter: every visible row to the client, verified there.
    double degenerate = timed(trials, [&] {
      std::vector<bson::Document> docs =
          entries.aggregate({bson::make_document("$match", visible())})->to_vector();
      all = static_cast<int64_t>(docs.size());
      std::vector<Row> rows;
      for (const bson::Document& d : docs) {
        if (c.holds(d.view().get("f").as_document())) rows.push_back(hand_row(d.view()));
      }
      n_degenerate = rows.size();
    });
    if (n_ours != n_degenerate) {
      fmt::print(stderr, "{}: searcher {} rows, degenerate {}\n", c.what, n_ours, n_degenerate);
      std::abort();
    }
    fmt::print("{:<8} {:<42} {:>6} {:>9} {:>9} {:>8.2f} {:>8.2f} {:>7.3f}\n", backend, c.what,
               n_ours, transferred, all, ours, degenerate, ours / degenerate);
  }
}

}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  int records = 100'000, trials = 5;
  std::string parts = "123", profile;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--records") {
      records = std::atoi(argv[i + 1]);
    } else if (a == "--trials") {
      trials = std::atoi(argv[i + 1]);
    } else if (a == "--parts") {
      parts = argv[i + 1];
    } else if (a == "--profile") {
      profile = argv[i + 1];
      if (profile != "selective" && profile != "join") {
        fmt::print(stderr, "--profile takes selective or join\n");
        return 2;
      }
    } else {
      fmt::print(stderr, "unknown option {}\n", a);
      return 2;
    }
  }
  if (records < 100'000 || trials < 1) {
    fmt::print(stderr, "--records must be at least 100000 (page 1,000 of 100 rows)\n");
    return 2;
  }
  std::filesystem::path tmp = std::filesystem::temp_directory_path() /
                              ("records-search-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp / "durable");
  struct Kind {
    std::string name, uri;
  };
  std::vector<Kind> kinds = {{"memory", "embedded:memory"},
                             {"durable", "embedded:" + (tmp / "durable").string()}};
  struct Open {
    std::string name;
    std::shared_ptr<client::Client> client;
    RecordStore store;
  };
  std::vector<Open> stores;
  for (const Kind& kind : kinds) {
    auto client = client::connect(kind.uri);
    RecordStoreOptions options;
    options.database = "bench";
    options.families = std::vector<EntryFamily>{};
    options.warn = [](std::string_view) {};
    RecordStore store = RecordStore::open(client, options);
    fill(store, client->database("bench"), records);
    stores.push_back(Open{kind.name, client, std::move(store)});
  }

  if (!profile.empty()) {
    for (int k = 0; k < trials; ++k) {
      Searcher s = query(stores[0].store);
      Var v(0, schema_of<Entry>());
      s.add(profile == "join" ? join_condition(v) : selective_condition(v));
      if (k == 0) {
        for (const bson::Document& stage : s.pipeline()) fmt::print("{}\n", stage.view().to_json());
      }
      if (s.results().size() == 0) std::abort();
    }
    stores.clear();
    std::filesystem::remove_all(tmp);
    return 0;
  }
  std::vector<PageOrder> order = {{"energy", false, Nulls::kLast}};
  if (parts.find('1') != std::string::npos) {
    fmt::print("Keyset pages of 100 rows over {} records, ordered by energy (nulls last) and sid\n",
               records);
    fmt::print("{:<8} {:<10} {:>10} {:>7} {:>10} {:>7} {:>10} {:>7}\n", "backend", "index",
               "page 1 ms", "docs", "p. 500 ms", "docs", "p. 1000 ms", "docs");
    for (Open& o : stores) {
      RecordStore& store = o.store;
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
        fmt::print("{:<8} {:<10} {:>10.2f} {:>7} {:>10.2f} {:>7} {:>10.2f} {:>7}\n", o.name,
                   indexed ? "page index" : "unindexed", first.ms, first.docs, middle.ms,
                   middle.docs, later.ms, later.docs);
      }
    }
  }
  if (parts.find('2') != std::string::npos) {
    fmt::print(
        "\nThe searcher against the hand-written aggregation (median ms; ratio = searcher / "
        "hand)\n");
    fmt::print("{:<8} {:<34} {:>6} {:>10} {:>10} {:>6}\n", "backend", "question", "rows",
               "searcher", "hand", "ratio");
    for (Open& o : stores) versus(o.store, o.client->database("bench"), o.name, trials);
  }
  if (parts.find('3') != std::string::npos) {
    fmt::print(
        "\nExact comparisons: the searcher's prefilter against the degenerate one (every row)\n");
    fmt::print("{:<8} {:<42} {:>6} {:>9} {:>9} {:>8} {:>8} {:>7}\n", "backend", "condition", "rows",
               "sent", "sent deg", "ms", "ms deg", "ratio");
    for (Open& o : stores) exact_prefilter(o.store, o.client->database("bench"), o.name, trials);
  }
  stores.clear();
  std::filesystem::remove_all(tmp);
  return 0;
}
