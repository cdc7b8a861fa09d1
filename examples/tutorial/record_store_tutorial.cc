// The RecordStore tutorial of docs/record-store.md, built and run by the test suite (test
// `record_store_tutorial`). The doc quotes the text between the two tutorial markers below;
// test `record_store_tutorial_doc` fails when the quote and this file differ.
//
// Usage: record_store_tutorial DIRECTORY (an empty or absent embedded data directory).
#include <cstdio>
#include <string>

// tutorial:begin
#include "mongostore/client/client.h"
#include "mongostore/records/optimade_filter_searcher.h"
#include "mongostore/records/record_store.h"
#include "mongostore/records/searcher.h"

namespace tutorial {
using namespace mongostore::records;

// 1. Declare: plain structs, and a declare_record() beside each that says how it is stored.
struct Author {
  std::string name;
};
inline auto declare_record(Tag<Author>) {
  return record<Author>("tutorial.Author", field("name", &Author::name, indexed));
}

struct Structure {
  std::string formula;
  int64_t spacegroup = 0;
  Rational volume;                       // exact: 1/3 stays 1/3
  std::shared_ptr<const Author> author;  // a reference: the author is its own record
};
inline auto declare_record(Tag<Structure>) {
  return record<Structure>("tutorial.Structure", field("formula", &Structure::formula, indexed),
                           field("spacegroup", &Structure::spacegroup, indexed),
                           field("volume", &Structure::volume), field("author", &Structure::author))
      .storage_name("structure");
}

// Returns the number of structures fsck examined, or -1 when something is not as expected.
int64_t run(const std::string& directory) {
  // 2. Open: embedded in this process here; "mongodb://host:port" opens the same store on a
  //    server (MongoDB, or `mongostore serve`).
  RecordStore store =
      RecordStore::open(mongostore::client::connect("embedded:" + directory),
                        {.database = "tutorial", .families = std::vector<EntryFamily>{}});

  // 3. Save: the graph bottom-up (the author first, once), returning the structure's sid.
  auto ada = std::make_shared<const Author>(Author{"Ada"});
  std::vector<int64_t> sids;
  for (int64_t i = 1; i <= 10; ++i) {
    sids.push_back(store.save(Structure{"Fe" + std::to_string(i) + "O", 220 + i, {i, 3}, ada}));
  }
  // Saving equal content again is a dedup hit: the same sid, nothing written.
  if (store.save(Structure{"Fe1O", 221, {1, 3}, ada}) != sids[0]) return -1;

  // 4. Fetch: by sid, as the C++ type, references resolved.
  std::shared_ptr<const Structure> first = store.fetch<Structure>(sids[0]);
  if (first->volume != Rational(1, 3) || first->author->name != "Ada") return -1;

  // 5. Search: one aggregation on the server, conditions on fields and through references.
  Searcher search = store.searcher();
  Var s = search.variable<Structure>();
  search.add((s.field(&Structure::spacegroup) >= 225) & (s.field("author").field("name") == "Ada"));
  if (search.count() != 6) return -1;
  // ... or with an OPTIMADE filter on the same store (a field f is _httk_custom_f).
  OptimadeSearch cubic = optimade_filter_searcher(
      store, schema_of<Structure>(),
      R"(_httk_custom_spacegroup >= 225 AND _httk_custom_formula ENDS "O")");

  // 6. Page: keyset pages in sid order; each page's `next` token asks for the following one.
  cubic.searcher.output(cubic.record.sid(), "sid");
  std::vector<int64_t> paged;
  std::optional<std::string> token;
  do {
    ResultPage page = cubic.searcher.page(4, {{"sid"}}, token);
    for (const Value& sid : page.rows.column("sid")) paged.push_back(sid.as<int64_t>());
    token = page.next;
  } while (token);
  if (paged != std::vector<int64_t>(sids.begin() + 4, sids.end())) return -1;

  // 7. fsck: check the store (attribution, reachability); nothing to report here.
  FsckSummary summary = store.fsck();
  if (!summary.violations().empty()) return -1;
  return summary.collections().at("structure").examined;
}
}  // namespace tutorial
// tutorial:end

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
    return 2;
  }
  int64_t examined = tutorial::run(argv[1]);
  if (examined < 0) {
    std::fprintf(stderr, "record_store_tutorial: FAILED\n");
    return 1;
  }
  std::printf("record_store_tutorial: OK, fsck examined %lld structures\n",
              static_cast<long long>(examined));
  return 0;
}
