// allowDiskUse: $sort, $group, $bucket, $sortByCount, $sample and $facet's input spill to disk
// past the memory limit and give the same answers as in memory; spill files go away with the
// stage's output, also after an error; an unusable spill directory is a clear Error.
#include <filesystem>
#include <map>
#include <set>

#include "aggregation/aggregation_test_util.h"
#include "support/error_code.h"
#include "support/temp_dir.h"

namespace mongostore::engine::agg_test {
namespace {

using testing::code_of;

constexpr size_t kSmallLimit = 64 * 1024;
constexpr size_t kHugeLimit = size_t{1} << 40;

// 20,000 documents with many duplicate keys and mixed numeric types.
std::vector<bson::Document> make_docs(int n = 20000) {
  std::vector<bson::Document> docs;
  for (int i = 0; i < n; ++i) {
    bson::DocumentBuilder b;
    b.append("_id", i);
    b.append("k", i % 97);
    b.append("s", "s" + std::to_string((i * 31) % 50));
    b.append("g", (i * 7) % 500);
    if (i % 3 == 0) {
      b.append("v", int32_t{i});
    } else if (i % 3 == 1) {
      b.append("v", int64_t{i} * 1000);
    } else {
      b.append("v", i + 0.5);
    }
    b.append("t", i % 7);
    b.open_document("o").append("f" + std::to_string(i % 5), i).close();
    b.append("sq", (i * i) % 1009);
    b.append("pad", std::string(40, static_cast<char>('a' + i % 26)));
    docs.push_back(b.finish());
  }
  return docs;
}

struct Spill {
  testing::TempDir dir;
  SpillStats stats;
  AggregationContext context(size_t limit = kSmallLimit, bool allow = true) {
    AggregationContext c;
    c.memory_limit_bytes = limit;
    c.allow_disk_use = allow;
    c.spill_directory = dir.path();
    c.spill_stats = &stats;
    return c;
  }
};

std::vector<bson::Document> run(std::string_view pipeline, const std::vector<bson::Document>& docs,
                                const AggregationContext& ctx) {
  auto out = P(pipeline).run(make_vector_source(docs), ctx);
  return drain(*out);
}

std::map<std::string, std::string> keyed_by_id(const std::vector<bson::Document>& docs) {
  std::map<std::string, std::string> out;
  for (const auto& d : docs) {
    out[wrap(d.get("_id"))] = d.to_json(bson::JsonMode::kCanonical);
  }
  EXPECT_EQ(out.size(), docs.size()) << "duplicate _id in the output";
  return out;
}

TEST(AggSpill, SortMatchesInMemoryOrder) {
  const auto docs = make_docs();
  for (const char* p : {R"([{"$sort": {"k": 1}}])", R"([{"$sort": {"k": -1}}])",
                        R"([{"$sort": {"k": 1, "s": -1}}])", R"([{"$sort": {"s": -1, "g": 1}}])",
                        R"([{"$sort": {"t": 1}}, {"$limit": 25000}])"}) {
    SCOPED_TRACE(p);
    Spill spill;
    auto expected = run(p, docs, spill.context(kHugeLimit));
    EXPECT_EQ(spill.stats.runs, 0);
    spill.stats = SpillStats();
    auto got = run(p, docs, spill.context());
    EXPECT_GE(spill.stats.runs, 3);
    EXPECT_GT(spill.stats.bytes, 0);
    EXPECT_GT(spill.stats.records, 0);
    EXPECT_LE(spill.stats.records, static_cast<int64_t>(docs.size()));
    // The memory count stays near the limit: it drops after each spill.
    EXPECT_LT(spill.stats.peak_memory_bytes, kSmallLimit + 1024);
    ASSERT_EQ(got.size(), docs.size());
    EXPECT_EQ(canon_docs(got), canon_docs(expected));
    EXPECT_EQ(testing::entry_count(spill.dir.path()), 0u);
  }
}

TEST(AggSpill, SortIsStableAcrossRuns) {
  const auto docs = make_docs();
  Spill spill;
  auto got = run(R"([{"$sort": {"t": -1}}])", docs, spill.context());
  EXPECT_GE(spill.stats.runs, 3);
  ASSERT_EQ(got.size(), docs.size());
  for (size_t i = 1; i < got.size(); ++i) {
    int32_t ta = got[i - 1].get("t").as_int32(), tb = got[i].get("t").as_int32();
    ASSERT_GE(ta, tb);
    if (ta == tb) {
      ASSERT_LT(got[i - 1].get("_id").as_int32(), got[i].get("_id").as_int32());
    }
  }
}

TEST(AggSpill, WithoutAllowDiskUseStillFails292) {
  const auto docs = make_docs(2000);
  for (const char* p : {R"([{"$sort": {"k": 1}}])", R"([{"$group": {"_id": "$_id"}}])",
                        R"([{"$bucket": {"groupBy": "$_id", "boundaries": [0, 100000],
                             "output": {"a": {"$push": "$pad"}}}}])"}) {
    SCOPED_TRACE(p);
    Spill spill;
    try {
      run(p, docs, spill.context(kSmallLimit, false));
      ADD_FAILURE() << "expected 292";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), 292);
    }
    EXPECT_EQ(spill.stats.runs, 0);
    EXPECT_EQ(testing::entry_count(spill.dir.path()), 0u);
  }
}

TEST(AggSpill, GroupEveryAccumulatorMatchesInMemory) {
  const auto docs = make_docs();
  const char* p = R"([{"$group": {"_id": "$g", "sum": {"$sum": "$v"}, "ids": {"$sum": "$_id"},
      "avg": {"$avg": "$v"}, "lo": {"$min": "$v"}, "hi": {"$max": "$s"},
      "first": {"$first": "$_id"}, "last": {"$last": "$_id"}, "push": {"$push": "$_id"},
      "set": {"$addToSet": "$t"}, "n": {"$count": {}}, "one": {"$sum": 1},
      "obj": {"$mergeObjects": "$o"}, "firstMissing": {"$first": "$nope"}}}])";
  Spill spill;
  auto expected = run(p, docs, spill.context(kHugeLimit));
  EXPECT_EQ(spill.stats.runs, 0);
  spill.stats = SpillStats();
  auto got = run(p, docs, spill.context());
  EXPECT_GE(spill.stats.runs, 2);
  EXPECT_LT(spill.stats.peak_memory_bytes, kSmallLimit + 1024);
  EXPECT_EQ(got.size(), 500u);
  EXPECT_EQ(keyed_by_id(got), keyed_by_id(expected));
  // After a spill the groups come out in _id order.
  for (size_t i = 1; i < got.size(); ++i) {
    EXPECT_LT(got[i - 1].get("_id").as_int32(), got[i].get("_id").as_int32());
  }
  EXPECT_EQ(testing::entry_count(spill.dir.path()), 0u);
}

// Spilled standard deviations combine partial (count, mean, M2) states: equal to the
// in-memory answer up to rounding.
TEST(AggSpill, GroupStandardDeviationsMatchInMemory) {
  const auto docs = make_docs();
  const char* p = R"([{"$group": {"_id": "$g", "pop": {"$stdDevPop": "$sq"},
      "samp": {"$stdDevSamp": "$v"}}}])";
  Spill spill;
  auto expected = run(p, docs, spill.context(kHugeLimit));
  auto got = run(p, docs, spill.context());
  EXPECT_GE(spill.stats.runs, 2);
  ASSERT_EQ(got.size(), expected.size());
  std::map<int32_t, std::pair<double, double>> want;
  for (const auto& d : expected) {
    want[d.get("_id").as_int32()] = {d.get("pop").as_double(), d.get("samp").as_double()};
  }
  for (const auto& d : got) {
    auto [pop, samp] = want.at(d.get("_id").as_int32());
    EXPECT_NEAR(d.get("pop").as_double(), pop, 1e-9 * (1 + pop));
    EXPECT_NEAR(d.get("samp").as_double(), samp, 1e-9 * (1 + samp));
  }
}

TEST(AggSpill, GroupNAccumulatorsMatchInMemory) {
  const auto docs = make_docs();
  const char* p = R"([{"$group": {"_id": "$g",
      "first": {"$firstN": {"input": "$_id", "n": 3}}, "last": {"$lastN": {"input": "$_id", "n": 3}},
      "max": {"$maxN": {"input": "$v", "n": 2}}, "min": {"$minN": {"input": "$sq", "n": 2}},
      "top": {"$topN": {"output": "$_id", "sortBy": {"sq": -1, "_id": 1}, "n": 2}},
      "bottom": {"$bottom": {"output": "$_id", "sortBy": {"sq": -1, "_id": 1}}}}}])";
  Spill spill;
  auto expected = run(p, docs, spill.context(kHugeLimit));
  auto got = run(p, docs, spill.context());
  EXPECT_GE(spill.stats.runs, 2);
  EXPECT_EQ(keyed_by_id(got), keyed_by_id(expected));
}

TEST(AggSpill, GroupSumKeepsNumericTypes) {
  // Each group holds only int32, only int64 or a mix with a double; the sum's type must be
  // the same spilled or not, as must an int32 sum that overflows to int64.
  std::vector<bson::Document> docs;
  for (int i = 0; i < 6000; ++i) {
    bson::DocumentBuilder b;
    b.append("_id", i).append("g", i % 4);
    if (i % 4 == 0) b.append("v", int32_t{2000000});  // overflows int32: becomes a long
    if (i % 4 == 1) b.append("v", int64_t{3});
    if (i % 4 == 2) b.append("v", i % 8 == 2 ? 0.25 : 1.0);
    if (i % 4 == 3) b.append("v", int32_t{2});
    b.append("pad", std::string(60, 'p'));
    docs.push_back(b.finish());
  }
  const char* p = R"([{"$group": {"_id": "$g", "s": {"$sum": "$v"}, "a": {"$avg": "$v"},
                       "p": {"$push": "$pad"}}}])";
  Spill spill;
  auto expected = run(p, docs, spill.context(kHugeLimit));
  auto got = run(p, docs, spill.context());
  EXPECT_GE(spill.stats.runs, 2);
  EXPECT_EQ(keyed_by_id(got), keyed_by_id(expected));
  EXPECT_EQ(got[0].get("s").type(), bson::BsonType::kInt64);
  EXPECT_EQ(got[3].get("s").type(), bson::BsonType::kInt32);
}

// Doubles that do not add exactly in binary (0.1 steps, large and small mixed): the spilled
// sum adds compensated partial sums and comes out bit for bit as the in-memory one.
TEST(AggSpill, SpilledDoubleSumsMatchInMemoryExactly) {
  std::vector<bson::Document> docs;
  for (int i = 0; i < 8000; ++i) {
    double v = (i % 3 == 0 ? 1e12 : 1.0) * 0.1 * (i % 17) - (i % 5 == 0 ? 3.3e11 : 0.0);
    docs.push_back(bson::make_document("_id", i, "g", i % 3, "v", v, "pad", std::string(60, 'p')));
  }
  const char* p = R"([{"$group": {"_id": "$g", "s": {"$sum": "$v"}, "a": {"$avg": "$v"},
                       "p": {"$push": "$pad"}}}])";
  Spill spill;
  auto expected = run(p, docs, spill.context(kHugeLimit));
  auto got = run(p, docs, spill.context());
  EXPECT_GE(spill.stats.runs, 2);
  EXPECT_EQ(keyed_by_id(got), keyed_by_id(expected));
}

TEST(AggSpill, SortByCountAndBucketSpilled) {
  const auto docs = make_docs();
  {
    const char* p = R"([{"$sortByCount": "$sq"}])";
    Spill spill;
    auto expected = run(p, docs, spill.context(kHugeLimit));
    auto got = run(p, docs, spill.context(16 * 1024));
    EXPECT_GE(spill.stats.runs, 2);
    EXPECT_EQ(keyed_by_id(got), keyed_by_id(expected));
    for (size_t i = 1; i < got.size(); ++i) {
      EXPECT_GE(got[i - 1].get("count").as_int32(), got[i].get("count").as_int32());
    }
  }
  {
    // Bucket output stays in boundary order (the default last) when spilled.
    const char* p = R"([{"$bucket": {"groupBy": "$_id", "boundaries": [100, 5000, 12000, 15000],
        "default": "rest", "output": {"ids": {"$push": "$_id"}, "n": {"$sum": 1},
        "first": {"$first": "$pad"}, "set": {"$addToSet": "$k"}}}}])";
    Spill spill;
    auto expected = run(p, docs, spill.context(kHugeLimit));
    auto got = run(p, docs, spill.context());
    EXPECT_GE(spill.stats.runs, 2);
    EXPECT_EQ(canon_docs(got), canon_docs(expected));
    EXPECT_EQ(got.size(), 4u);
  }
}

// An input that fails after `n` documents.
class FailingSource : public DocumentSource {
 public:
  FailingSource(std::vector<bson::Document> docs, size_t n) : docs_(std::move(docs)), n_(n) {}
  std::optional<bson::Document> next() override {
    if (at_ == n_) throw Error(ErrorCode::kOperationFailed, "input failed");
    if (at_ == docs_.size()) return std::nullopt;
    return docs_[at_++];
  }

 private:
  std::vector<bson::Document> docs_;
  size_t n_;
  size_t at_ = 0;
};

TEST(AggSpill, FilesRemovedWithTheSourceAndOnErrors) {
  const auto docs = make_docs();
  Spill spill;
  {
    auto out = P(R"([{"$sort": {"k": 1}}])").run(make_vector_source(docs), spill.context());
    EXPECT_EQ(testing::entry_count(spill.dir.path()), 1u);  // the runs, until the output goes away
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(out->next());
  }
  EXPECT_EQ(testing::entry_count(spill.dir.path()), 0u);
  {
    auto out = P(R"([{"$group": {"_id": "$_id"}}])").run(make_vector_source(docs), spill.context());
    EXPECT_EQ(testing::entry_count(spill.dir.path()), 1u);
  }
  EXPECT_EQ(testing::entry_count(spill.dir.path()), 0u);
  // The input fails after several runs were spilled.
  for (const char* p : {R"([{"$sort": {"k": 1}}])", R"([{"$group": {"_id": "$_id"}}])"}) {
    SCOPED_TRACE(p);
    int64_t runs_before = spill.stats.runs;
    EXPECT_THROW(P(p).run(std::make_unique<FailingSource>(docs, 15000), spill.context()), Error);
    EXPECT_GT(spill.stats.runs, runs_before);
    EXPECT_EQ(testing::entry_count(spill.dir.path()), 0u);
  }
  // A later stage fails while the merge is being read.
  std::vector<bson::Document> with_zero = docs;
  with_zero[12345] = bson::make_document("_id", 12345, "k", 50, "z", 0);
  {
    auto out = P(R"([{"$sort": {"k": 1}}, {"$addFields": {"x": {"$divide": [1, "$z"]}}}])")
                   .run(make_vector_source(with_zero), spill.context());
    EXPECT_THROW(drain(*out), Error);
  }
  EXPECT_EQ(testing::entry_count(spill.dir.path()), 0u);
}

// $sample keeps the documents with the smallest random keys; spilled, each run keeps its own
// smallest and the merge takes the smallest overall. Either way the sample is `size` distinct
// input documents, unbiased (its mean _id is near the input's: a sample of the first or last
// documents would be thousands off), in random order, and differs from run to run.
void check_sample(const std::vector<bson::Document>& docs, const std::vector<bson::Document>& got,
                  size_t size) {
  ASSERT_EQ(got.size(), size);
  std::map<int32_t, std::string> input;
  for (const auto& d : docs) input[d.get("_id").as_int32()] = d.to_json(bson::JsonMode::kCanonical);
  std::set<int32_t> seen;
  double sum = 0;
  bool ascending = true;
  for (size_t i = 0; i < got.size(); ++i) {
    int32_t id = got[i].get("_id").as_int32();
    ASSERT_TRUE(seen.insert(id).second) << "duplicate " << id;
    ASSERT_EQ(got[i].to_json(bson::JsonMode::kCanonical), input.at(id));
    sum += id;
    if (i > 0 && id < got[i - 1].get("_id").as_int32()) ascending = false;
  }
  // Mean of a uniform sample of 5,000 of 0..19,999: 9999.5, standard error about 70.
  EXPECT_NEAR(sum / static_cast<double>(size), (static_cast<double>(docs.size()) - 1) / 2, 700);
  EXPECT_FALSE(ascending);
}

TEST(AggSpill, SampleSpillsAndStaysAUniformSample) {
  const auto docs = make_docs();
  const char* p = R"([{"$sample": {"size": 5000}}])";
  Spill spill;
  auto in_memory = run(p, docs, spill.context(kHugeLimit));
  EXPECT_EQ(spill.stats.runs, 0);
  check_sample(docs, in_memory, 5000);
  spill.stats = SpillStats();
  {
    auto out = P(p).run(make_vector_source(docs), spill.context());
    EXPECT_GE(spill.stats.runs, 3);
    EXPECT_EQ(testing::entry_count(spill.dir.path()), 1u);
    EXPECT_LT(spill.stats.peak_memory_bytes, kSmallLimit + 1024);
    auto spilled = drain(*out);
    check_sample(docs, spilled, 5000);
    EXPECT_NE(canon_docs(spilled), canon_docs(in_memory));
  }
  EXPECT_EQ(testing::entry_count(spill.dir.path()), 0u);
  // A sample larger than the input is the whole input, shuffled.
  auto all = run(R"([{"$sample": {"size": 50000}}])", docs, spill.context());
  ASSERT_EQ(all.size(), docs.size());
  EXPECT_EQ(keyed_by_id(all), keyed_by_id(docs));
  // Without allowDiskUse a sample past the limit fails.
  EXPECT_EQ(code_of([&] { run(p, docs, spill.context(kSmallLimit, false)); }), 292);
}

// $facet buffers its input once for all its sub-pipelines; spilled, each reads it back from
// the file, and the answers are the in-memory ones.
TEST(AggSpill, FacetInputSpills) {
  const auto docs = make_docs();
  const char* p = R"([{"$facet": {
      "count": [{"$count": "n"}],
      "top": [{"$sort": {"g": -1, "_id": 1}}, {"$limit": 3}, {"$project": {"g": 1}}],
      "byT": [{"$group": {"_id": "$t", "n": {"$sum": 1}, "v": {"$max": "$v"}}},
              {"$sort": {"_id": 1}}]}}])";
  Spill spill;
  auto expected = run(p, docs, spill.context(kHugeLimit));
  EXPECT_EQ(spill.stats.runs, 0);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(expected[0].get("count").as_array().get("0").as_document().get("n").as_int32(), 20000);
  spill.stats = SpillStats();
  auto got = run(p, docs, spill.context());
  EXPECT_GE(spill.stats.files, 1);
  EXPECT_GE(spill.stats.records, static_cast<int64_t>(docs.size()));
  EXPECT_LT(spill.stats.peak_memory_bytes, kSmallLimit + 1024);
  EXPECT_EQ(canon_docs(got), canon_docs(expected));
  EXPECT_EQ(testing::entry_count(spill.dir.path()), 0u);
  EXPECT_EQ(code_of([&] { run(p, docs, spill.context(kSmallLimit, false)); }), 292);
}

TEST(AggSpill, UnusableSpillDirectoryIsAClearError) {
  const auto docs = make_docs(3000);
  Spill spill;
  AggregationContext ctx = spill.context();
  ctx.spill_directory = spill.dir.sub("does/not/exist");
  for (const char* p : {R"([{"$sort": {"k": 1}}])", R"([{"$group": {"_id": "$_id"}}])"}) {
    SCOPED_TRACE(p);
    try {
      run(p, docs, ctx);
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), static_cast<int32_t>(ErrorCode::kOperationFailed));
      std::string msg = e.what();
      EXPECT_NE(msg.find("could not spill to disk"), std::string::npos) << msg;
      EXPECT_NE(msg.find(ctx.spill_directory), std::string::npos) << msg;
    }
  }
}

TEST(AggSpill, DefaultDirectoryWhenNoneIsGiven) {
  // A context built without a spill directory (as before) uses a per-process one.
  const auto docs = make_docs(3000);
  SpillStats stats;
  AggregationContext ctx;
  ctx.memory_limit_bytes = kSmallLimit;
  ctx.allow_disk_use = true;
  ctx.spill_stats = &stats;
  auto got = run(R"([{"$sort": {"s": 1}}])", docs, ctx);
  EXPECT_EQ(got.size(), docs.size());
  EXPECT_GE(stats.runs, 1);
}

}  // namespace
}  // namespace mongostore::engine::agg_test
