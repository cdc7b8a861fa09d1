// RecordStore (issue 22): saving a typical record graph, side by side with a plain insert of
// the same documents.
//
// The graph: a crystal structure with 50 child sites (each a record of its own) and 2
// references (an author and a calculation), content_id dedup on every type. Store side:
// RecordStore::save of N distinct graphs (degraded mode: per record a content id lookup, a sid
// from the counters collection and an insert, bottom-up). Baseline: the very documents those
// saves wrote (captured from a first run), inserted one by one in the same order with
// Collection::insert_one on a fresh store of the same kind: the writes with no store logic.
// A second baseline inserts the same documents without the collections' validators: the
// validators' own cost (reference §1.4's record-collection validator). Also: re-saving a
// stored graph (a dedup hit: one lookup), and fetching one back.
// Backends: embedded in memory and embedded durable (fsync per write).
//
//   build/bench/records_bench [--graphs 200] [--durable-graphs 20] [--trials 3]
#include <fmt/core.h>

#include <unistd.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mongostore/bson/builder.h"
#include "mongostore/client/client.h"
#include "mongostore/records/record_store.h"

using namespace mongostore;
using namespace mongostore::records;
using Clock = std::chrono::steady_clock;

namespace bench {

struct Author {
  std::string name;
  std::string affiliation;
};
inline auto declare_record(Tag<Author>) {
  return record<Author>("bench.Author", field("name", &Author::name),
                        field("affiliation", &Author::affiliation));
}
struct Calculation {
  std::string code;
  std::string version;
  double cutoff = 0;
};
inline auto declare_record(Tag<Calculation>) {
  return record<Calculation>("bench.Calculation", field("code", &Calculation::code),
                             field("version", &Calculation::version),
                             field("cutoff", &Calculation::cutoff));
}
struct Site {
  std::string element;
  std::array<std::array<Rational, 3>, 1> position;
  double occupancy = 1;
};
inline auto declare_record(Tag<Site>) {
  return record<Site>("bench.Site", field("element", &Site::element),
                      field("position", &Site::position), field("occupancy", &Site::occupancy));
}
struct Structure {
  std::string formula;
  int64_t spacegroup = 0;
  std::array<std::array<Rational, 3>, 3> cell;
  double energy = 0;
  std::vector<Site> sites;
  std::shared_ptr<const Author> author;
  std::shared_ptr<const Calculation> calculation;
};
inline auto declare_record(Tag<Structure>) {
  return record<Structure>("bench.Structure", field("formula", &Structure::formula),
                           field("spacegroup", &Structure::spacegroup, indexed),
                           field("cell", &Structure::cell), field("energy", &Structure::energy),
                           field("sites", &Structure::sites), field("author", &Structure::author),
                           field("calculation", &Structure::calculation))
      .storage_name("structure");
}

Structure graph(int n) {
  static const char* kElements[] = {"Ti", "O", "Sr", "Ba", "Ca", "Fe", "Ni", "Cu"};
  Structure s;
  s.formula = "X" + std::to_string(n);
  s.spacegroup = 1 + n % 230;
  s.cell = {{{Rational(4 + n % 3, 1), Rational(0), Rational(0)},
             {Rational(0), Rational(9, 2), Rational(0)},
             {Rational(0), Rational(0), Rational(11, 3)}}};
  s.energy = -1.0 - n * 0.001;
  for (int i = 0; i < 50; ++i) {
    Site site;
    site.element = kElements[(n + i) % 8];
    site.position = {{{Rational(i, 50), Rational(n % 7, 7), Rational(i % 5, 5)}}};
    site.occupancy = 1.0 / (1 + i % 3);
    s.sites.push_back(site);
  }
  s.author = std::make_shared<const Author>(Author{"author-" + std::to_string(n % 10), "KTH"});
  s.calculation =
      std::make_shared<const Calculation>(Calculation{"vasp", "6." + std::to_string(n % 4), 520});
  return s;
}

RecordStoreOptions store_options() {
  RecordStoreOptions o;
  o.database = "bench";
  o.families = std::vector<EntryFamily>{};
  o.warn = [](std::string_view) {};
  return o;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Kind {
  std::string name;
  std::function<std::string()> uri;  // a fresh store each call
};

// Every document a store holds, in _id order per collection, collections in save order
// (children before parents), so a replay inserts them bottom-up as the store did.
std::vector<std::pair<std::string, bson::Document>> capture(client::Database db) {
  std::vector<std::pair<std::string, bson::Document>> out;
  for (const char* c : {"site", "author", "calculation", "structure"}) {
    for (auto& d : db.collection(c).find(bson::Document())->to_vector()) out.emplace_back(c, d);
  }
  return out;
}

}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  int graphs = 200, durable_graphs = 20, trials = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (a == "--graphs")
      graphs = v;
    else if (a == "--durable-graphs")
      durable_graphs = v;
    else if (a == "--trials")
      trials = v;
    else {
      fmt::print(stderr, "unknown option {}\n", a);
      return 2;
    }
  }
  std::filesystem::path tmp =
      std::filesystem::temp_directory_path() / ("records-bench-" + std::to_string(::getpid()));
  int dir_n = 0;
  auto fresh_dir = [&] {
    auto p = tmp / std::to_string(dir_n++);
    std::filesystem::create_directories(p);
    return "embedded:" + p.string();
  };
  std::vector<Kind> kinds = {{"memory", [] { return std::string("embedded:memory"); }},
                             {"durable", fresh_dir}};

  fmt::print(
      "RecordStore save: a structure with 50 child sites and 2 references, content_id "
      "dedup (53 records per graph)\n");
  fmt::print(
      "baseline: insert_one of the same documents, in the same order, into the same\n"
      "collections, indexes and validators (the writes without the store's logic); then the\n"
      "same inserts without the validators (their own cost)\n\n");
  fmt::print("{:<8} {:>7} {:>14} {:>14} {:>7} {:>14} {:>7} {:>11} {:>9}\n", "backend", "graphs",
             "save ms/graph", "insert ms", "ratio", "no-valid. ms", "ratio", "re-save ms",
             "fetch ms");
  for (const Kind& kind : kinds) {
    int n = kind.name == "durable" ? durable_graphs : graphs;
    std::vector<Structure> input;
    for (int i = 0; i < n; ++i) input.push_back(graph(i));
    std::vector<double> save_t, insert_t, bare_t, resave_t, fetch_t;
    for (int t = 0; t < trials; ++t) {
      auto client = client::connect(kind.uri());
      RecordStore store = RecordStore::open(client, store_options());
      std::vector<int64_t> sids;
      auto start = Clock::now();
      for (const Structure& s : input) sids.push_back(store.save(s));
      save_t.push_back(seconds_since(start) / n);
      start = Clock::now();
      for (const Structure& s : input) store.save(s);
      resave_t.push_back(seconds_since(start) / n);
      start = Clock::now();
      for (int64_t sid : sids) {
        auto back = store.fetch<Structure>(sid);
        if (back->sites.size() != 50) return 1;
      }
      fetch_t.push_back(seconds_since(start) / n);

      auto docs = capture(client->database("bench"));
      // The same documents into the same collections and indexes, once with the store's
      // validators (the ratio is then the store's logic alone) and once without (the
      // validators' own cost).
      for (bool with_validators : {true, false}) {
        auto plain = client::connect(kind.uri());
        auto db = plain->database("bench");
        for (const char* c : {"site", "author", "calculation", "structure"}) {
          client::CollectionOptions options;
          if (with_validators) {
            bson::Document stored = client->database("bench").collection_options(c);
            if (stored.get("validator").is_document()) {
              options.validator = bson::Document::copy_of(stored.get("validator").as_document());
            }
          }
          db.create_collection(c, options);
          for (const bson::Document& ix : client->database("bench").collection(c).list_indexes()) {
            if (ix.get("name").as_string() == "_id_") continue;
            bson::DocumentBuilder o;
            o.append("name", ix.get("name"));
            if (ix.has("unique")) o.append("unique", ix.get("unique"));
            db.collection(c).create_index(ix.get("key").as_document(), o.finish());
          }
        }
        start = Clock::now();
        for (const auto& [c, d] : docs) db.collection(c).insert_one(d);
        (with_validators ? insert_t : bare_t).push_back(seconds_since(start) / n);
      }
    }
    double s = median(save_t), i = median(insert_t), b = median(bare_t);
    fmt::print("{:<8} {:>7} {:>14.3f} {:>14.3f} {:>6.2f}x {:>14.3f} {:>6.2f}x {:>11.3f} {:>9.3f}\n",
               kind.name, n, s * 1e3, i * 1e3, s / i, b * 1e3, i / b, median(resave_t) * 1e3,
               median(fetch_t) * 1e3);
  }
  std::filesystem::remove_all(tmp);
  return 0;
}
