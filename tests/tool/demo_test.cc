// `mongostore demo` and `mongostore exec ls|show|trace`, run as the real binary: the demo's
// summary is checked against what the store holds afterwards, and each inspection command's
// output is checked against the store.
#include <gtest/gtest.h>

#include <string>

#include "mongostore/bson/builder.h"
#include "mongostore/bson/document.h"
#include "mongostore/client/client.h"
#include "mongostore/exec/execution_store.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/tool_run.h"

namespace mongostore::tool {
namespace {

using bson::Document;

using Output = testing::ToolOutput;

class DemoTest : public ::testing::Test {
 protected:
  Output run(const std::string& args) { return testing::run_tool(dir_, args); }
  std::string data() const { return dir_.sub("data"); }
  std::string demo_args(int orders) const {
    return "demo exec --data " + data() + " --executions " + std::to_string(orders) +
           " --workers 3 --payment-timeout 0.3 --unpaid 0.3 --duplicates 0.3 --json";
  }
  testing::TempDir dir_;
};

int64_t int_of_path(const Document& d, const std::string& path) {
  int64_t out = 0;
  EXPECT_TRUE(d.get_path(path).number_as_exact_int64(&out)) << path;
  return out;
}

int64_t int_of(const Document& d, const char* key) {
  int64_t out = 0;
  EXPECT_TRUE(d.get(key).number_as_exact_int64(&out)) << key;
  return out;
}

// Everything the summary says, recounted from the store.
void expect_summary_matches_store(const Document& summary, exec::ExecutionStore& store,
                                  int64_t orders_in_store) {
  int64_t orders = 0, shipped = 0, cancelled = 0, children = 0, processed = 0, all = 0;
  exec::ListQuery q;
  q.limit = 1000;
  exec::ExecutionPage page = store.list_executions(q);
  ASSERT_FALSE(page.next_cursor);
  std::map<std::string, int64_t> by_status;
  for (const auto& s : page.items) {
    ++all;
    ++by_status[std::string(exec::status_name(s.status))];
    auto exe = store.load(s.id);
    ASSERT_TRUE(exe);
    processed += exe->processed_events;
    if (s.definition_id == "order") {
      ++orders;
      ASSERT_TRUE(exec::is_terminal(s.status)) << s.id;
      if (s.status == exec::ExecutionStatus::kDone) {
        ++shipped;
        ASSERT_EQ(exe->children.size(), 2u);
        for (const auto& [child_id, state] : exe->children) {
          EXPECT_TRUE(state.finished);
          auto child = store.load(child_id);
          ASSERT_TRUE(child) << child_id;
          EXPECT_EQ(child->status, exec::ExecutionStatus::kDone);
          EXPECT_EQ(child->parent_id, s.id);
        }
      } else {
        EXPECT_EQ(s.status, exec::ExecutionStatus::kCancelled);
        EXPECT_EQ(exe->outcome, "payment-timeout");
        ++cancelled;
      }
    } else {
      ++children;
      EXPECT_EQ(exe->processed_events, 1) << s.id;  // its one Work event, applied once
    }
  }
  EXPECT_EQ(orders, orders_in_store);
  EXPECT_EQ(children, 2 * shipped);
  EXPECT_EQ(int_of(summary, "executions"), all);
  for (const auto& [status, n] : by_status) {
    EXPECT_EQ(int_of_path(summary, "by_status." + status), n) << status;
  }
  EXPECT_TRUE(store.pending_outbox().empty());
  EXPECT_TRUE(store.pending_spawns().empty());
  EXPECT_TRUE(store.due_timers(1e300).empty());
  (void)processed;
  (void)cancelled;
}

TEST_F(DemoTest, RunsToItsSummaryAndTheSummaryMatchesTheStore) {
  Output o = run(demo_args(40));
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  Document summary = Document::from_json(o.out);
  EXPECT_TRUE(summary.get("ok").as_bool());
  EXPECT_EQ(int_of(summary, "run"), 1);
  EXPECT_EQ(int_of(summary, "shipped") + int_of(summary, "cancelled"), 40);
  // Every cancellation is a payment timer that fired; every shipped order joined two children.
  EXPECT_EQ(int_of(summary, "timers_fired"), int_of(summary, "cancelled"));
  EXPECT_EQ(int_of(summary, "spawns_joined"), 2 * int_of(summary, "shipped"));
  EXPECT_GT(int_of(summary, "duplicates_suppressed"), 0);  // 30% of events delivered twice
  auto store = exec::ExecutionStore::connect("embedded:" + data());
  expect_summary_matches_store(summary, store, 40);
  // Events processed: each execution's count of applied events, summed.
  int64_t applied = 0;
  exec::ListQuery q;
  q.limit = 1000;
  for (const auto& s : store.list_executions(q).items)
    applied += store.load(s.id)->processed_events;
  EXPECT_EQ(int_of(summary, "events_processed"), applied);
}

TEST_F(DemoTest, ASecondRunContinuesAndFreshStartsOver) {
  ASSERT_EQ(run(demo_args(15)).status, 0);
  Output second = run(demo_args(15));
  ASSERT_EQ(second.status, 0) << second.out << second.err;
  Document summary = Document::from_json(second.out);
  EXPECT_EQ(int_of(summary, "run"), 2);
  {
    auto store = exec::ExecutionStore::connect("embedded:" + data());
    expect_summary_matches_store(summary, store, 30);
  }
  Output fresh = run(demo_args(10) + " --fresh");
  ASSERT_EQ(fresh.status, 0) << fresh.out << fresh.err;
  summary = Document::from_json(fresh.out);
  EXPECT_EQ(int_of(summary, "run"), 1);
  auto store = exec::ExecutionStore::connect("embedded:" + data());
  expect_summary_matches_store(summary, store, 10);
}

TEST_F(DemoTest, PrintsProgressAndAHumanSummary) {
  Output o =
      run("demo exec --data " + data() + " --executions 10 --workers 2 --payment-timeout 0.2");
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("mongostore demo: run 1"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("summary (run 1):"), std::string::npos);
  EXPECT_NE(o.out.find("duplicates suppressed"), std::string::npos);
  EXPECT_NE(o.out.find("conflicts retried"), std::string::npos);
  EXPECT_NE(o.out.find("OK: every order reached a terminal status"), std::string::npos);
}

TEST_F(DemoTest, RunsAgainstMongostoreServe) {
  testing::ServerProcess server({"--dbpath", dir_.sub("served")});
  Output o = run("demo exec --uri " + server.uri() +
                 " --executions 20 --workers 3 --payment-timeout 0.3 --json");
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  Document summary = Document::from_json(o.out);
  EXPECT_TRUE(summary.get("ok").as_bool());
  EXPECT_EQ(int_of(summary, "shipped") + int_of(summary, "cancelled"), 20);
  auto store = exec::ExecutionStore::connect(server.uri());
  expect_summary_matches_store(summary, store, 20);
}

TEST_F(DemoTest, InspectionCommandsShowWhatTheStoreHolds) {
  ASSERT_EQ(run(demo_args(8)).status, 0);
  // Read what the commands should show, then close the store: an embedded data directory
  // has one owner at a time, and each command below opens it.
  std::vector<exec::ExecutionSummary> orders;
  std::optional<exec::Execution> exe;
  {
    auto store = exec::ExecutionStore::connect("embedded:" + data());
    exec::ListQuery roots;
    roots.roots_only = true;
    roots.limit = 100;
    orders = store.list_executions(roots).items;
    ASSERT_EQ(orders.size(), 8u);
    exe = store.load(orders.front().id);
    ASSERT_TRUE(exe);
  }

  // ls: a header, one aligned row per execution, a count line.
  Output ls = run("exec ls --data " + data() + " --roots");
  ASSERT_EQ(ls.status, 0) << ls.err;
  EXPECT_EQ(ls.out.rfind("ID", 0), 0u) << ls.out;
  for (const auto& s : orders) EXPECT_NE(ls.out.find(s.id), std::string::npos);
  EXPECT_NE(ls.out.find("8 executions"), std::string::npos) << ls.out;

  // ls --json with paging: limit 3 pages through all 8 roots.
  std::vector<std::string> ids;
  std::string cursor;
  for (int page = 0; page < 10; ++page) {
    Output p = run("exec ls --data " + data() + " --roots --limit 3 --json" +
                   (cursor.empty() ? "" : " --cursor " + cursor));
    ASSERT_EQ(p.status, 0) << p.err;
    Document d = Document::from_json(p.out);
    for (const auto& item : d.get("items").as_array()) {
      ids.emplace_back(item.value.as_document().get("id").as_string());
    }
    if (d.get("next_cursor").is_null()) break;
    cursor = std::string(d.get("next_cursor").as_string());
  }
  ASSERT_EQ(ids.size(), orders.size());
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], orders[i].id);

  // show: the snapshot's fields and its children.
  const auto& first = orders.front();
  Output show = run("exec show --data " + data() + " " + first.id);
  ASSERT_EQ(show.status, 0) << show.err;
  EXPECT_NE(show.out.find(std::string(exec::status_name(exe->status))), std::string::npos);
  EXPECT_NE(show.out.find("version"), std::string::npos);
  EXPECT_NE(show.out.find(std::to_string(exe->version)), std::string::npos);
  EXPECT_NE(show.out.find("children (" + std::to_string(exe->children.size()) + ")"),
            std::string::npos)
      << show.out;
  for (const auto& [child_id, state] : exe->children) {
    EXPECT_NE(show.out.find(child_id), std::string::npos);
  }
  Output show_json = run("exec show --json --data " + data() + " " + first.id);
  ASSERT_EQ(show_json.status, 0);
  EXPECT_EQ(int_of_path(Document::from_json(show_json.out), "execution.version"), exe->version);

  // trace: one step per applied event, indexes increasing. Not necessarily consecutive: an
  // index is reserved before the commit's CAS, and a commit that loses the CAS (the demo's
  // workers race on shared parents) leaves its index unused, as the seed's allocator does.
  Output trace = run("exec trace --json --data " + data() + " " + first.id);
  ASSERT_EQ(trace.status, 0) << trace.err;
  Document steps = Document::from_json("{\"s\": " + trace.out + "}");
  int64_t previous_index = -1, step_count = 0;
  for (const auto& step : steps.get("s").as_array()) {
    int64_t index = int_of_path(Document::copy_of(step.value.as_document()), "index");
    EXPECT_GT(index, previous_index);
    previous_index = index;
    ++step_count;
  }
  EXPECT_EQ(step_count, exe->processed_events);
  Output trace_table = run("exec trace --data " + data() + " " + first.id);
  EXPECT_NE(trace_table.out.find(std::to_string(exe->processed_events) + " steps"),
            std::string::npos);
}

// A document written in the seed's layout (no next_fire_at, no promoted status): `exec show`
// reads the execution's own timers, so its timer shows (it showed "timers (0)" before).
TEST_F(DemoTest, ShowListsTheTimersOfASeedLayoutExecution) {
  {
    auto client = client::connect("embedded:" + data());
    exec::Execution exe;
    exe.id = "seed-1";
    exe.definition_id = "order";
    exe.status = exec::ExecutionStatus::kRunning;
    exe.version = 2;
    client->database("harel")
        .collection("executions")
        .insert_one(bson::make_document(
            "_id", "seed-1", "definition_id", "order", "version", 2, "data", exe.to_json(),
            "outbox", bson::make_array(), "spawns", bson::make_array(), "processed",
            bson::make_array(), "timers", bson::make_document("AwaitingPayment", 1.7e9), "trace",
            bson::make_array()));
  }
  Output show = run("exec show --json --data " + data() + " seed-1");
  ASSERT_EQ(show.status, 0) << show.err;
  Document d = Document::from_json(show.out);
  ASSERT_EQ(d.get("timers").as_array().count(), 1u) << show.out;
  EXPECT_EQ(d.get("timers").as_array().begin()->value.as_document().get("path").as_string(),
            "AwaitingPayment");
  Output table = run("exec show --data " + data() + " seed-1");
  EXPECT_NE(table.out.find("timers (1)"), std::string::npos) << table.out;
}

TEST_F(DemoTest, BadInputGivesOneLineAndANonZeroExit) {
  Output unknown = run("exec show --data " + data() + " nope");
  EXPECT_NE(unknown.status, 0);  // no data directory at all
  EXPECT_EQ(std::count(unknown.err.begin(), unknown.err.end(), '\n'), 1) << unknown.err;
  ASSERT_EQ(run(demo_args(3)).status, 0);
  Output missing = run("exec show --data " + data() + " no-such-execution");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("no execution 'no-such-execution'"), std::string::npos);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  Output option = run("demo --executions zero");
  EXPECT_EQ(option.status, 2);
  EXPECT_EQ(run("exec ls --bogus").status, 2);
  EXPECT_EQ(run("--help").status, 0);
  Output unreachable = run("exec ls --uri mongodb://127.0.0.1:1/");
  EXPECT_NE(unreachable.status, 0);
  EXPECT_EQ(std::count(unreachable.err.begin(), unreachable.err.end(), '\n'), 1) << unreachable.err;
}

}  // namespace
}  // namespace mongostore::tool
