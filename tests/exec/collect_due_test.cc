// collect_due (exec/collect_due.h), the due-timer sweep's visitor that walks a document's
// bytes once, against a reference written with DocumentView's lookups: same timers, same
// order, same execution ids, same earliest time and bound, and the same error.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "exec/collect_due.h"
#include "exec/timer_path.h"
#include "mongostore/bson/builder.h"
#include "mongostore/error.h"
#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {
namespace {

using bson::Document;
using bson::make_document;

struct Result {
  std::vector<std::tuple<std::string, std::string, double>> due;
  std::optional<double> earliest;
  std::string bound;  // the bound's JSON, "missing" when unset
};

Result reference(bson::DocumentView doc, double now) {
  Result r;
  bson::Value id = doc.get("_id");
  std::string execution_id = id.is_string() ? std::string(id.as_string()) : id.to_json();
  bson::Value bound = doc.get("next_fire_at");
  r.bound = bound.is_missing() ? "missing" : bound.to_json();
  bson::Value timers = doc.get("timers");
  if (!timers.is_document()) return r;
  for (const bson::Element& e : timers.as_document()) {
    double at = e.value.number_as_double();
    if (!r.earliest || at < *r.earliest) r.earliest = at;
    if (at <= now) r.due.emplace_back(execution_id, decode_timer_path(e.key), at);
  }
  return r;
}

Result fast(bson::DocumentView doc, double now, std::vector<DueTimer> due = {}) {
  const size_t before = due.size();
  Result r;
  bson::Value bound;
  r.earliest = collect_due(doc, now, due, &bound);
  r.bound = bound.is_missing() ? "missing" : bound.to_json();
  for (size_t i = before; i < due.size(); ++i) {
    r.due.emplace_back(due[i].execution_id, due[i].path, due[i].fire_at);
  }
  return r;
}

void expect_same(bson::DocumentView doc, double now) {
  SCOPED_TRACE(doc.to_json() + " now " + std::to_string(now));
  Result want = reference(doc, now);
  Result got = fast(doc, now);
  EXPECT_EQ(got.due, want.due);
  EXPECT_EQ(got.earliest, want.earliest);
  EXPECT_EQ(got.bound, want.bound);
  // Appended after another document's timers, with the same ids and paths.
  std::vector<DueTimer> earlier = {{"other-execution-with-a-long-id", "p", 1}};
  Result after = fast(doc, now, earlier);
  EXPECT_EQ(after.due, want.due);
}

std::string dotted(std::string_view path) {
  return encode_timer_path(path);
}

TEST(CollectDue, MatchesTheReferenceOnEachShape) {
  const std::string long_id = "execution-with-an-id-longer-than-sso-0001";
  const std::vector<Document> docs = {
      make_document("_id", "e1", "version", 3, "timers",
                    make_document("a", 5.0, dotted("node.child.timeout"), 10.0, "c", 20.0),
                    "next_fire_at", 5.0),
      make_document("_id", long_id, "timers",
                    make_document(dotted("a.very.long.node.path.of.a.timer"), 1.0, "b", int32_t{2},
                                  "c", int64_t{3}, "d", 99.0),
                    "next_fire_at", 1.0),
      make_document("_id", int32_t{42}, "timers", make_document("x", 1.0, "y", 2.0)),
      make_document("_id", "e2", "timers", make_document(), "next_fire_at", bson::Null{}),
      make_document("_id", "e3", "timers", "not a document", "next_fire_at", 7.0),
      make_document("_id", "e4", "next_fire_at", 1e300),
      make_document("_id", "", "timers", make_document("a", 1.0, "b", 2.0)),
      make_document("next_fire_at", 4.0, "timers", make_document("t", 4.0), "_id", "late-id"),
  };
  for (const Document& d : docs) {
    for (double now : {0.0, 1.0, 2.0, 5.0, 10.0, 1000.0}) expect_same(d.view(), now);
  }
}

TEST(CollectDue, ANonNumberTimerFailsToParseNamingItAsTheReferenceWould) {
  Document doc = make_document("_id", "e1", "timers",
                               make_document("a", 1.0, dotted("n.t"), "soon"), "next_fire_at", 1.0);
  std::vector<DueTimer> due;
  bson::Value bound;
  try {
    collect_due(doc.view(), 10, due, &bound);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_code(), ErrorCode::kFailedToParse);
    EXPECT_NE(std::string(e.what()).find("execution 'e1': timer 'n.t' is not a number"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mongostore::exec
