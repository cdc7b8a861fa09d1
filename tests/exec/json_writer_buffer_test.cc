// A JsonWriter over a caller's buffer (the commit's per-thread buffers, exec/commit_buffers.h)
// writes exactly what Execution::to_json / Event::to_json return, after the buffer's prefix
// and whatever the buffer held before.
#include <gtest/gtest.h>

#include <string>

#include "exec/json_writer.h"
#include "exec/model_json.h"
#include "mongostore/bson/builder.h"
#include "mongostore/exec/execution.h"

namespace mongostore::exec {
namespace {

using bson::make_array;
using bson::make_document;

Event an_event(size_t payload) {
  Event e;
  e.id = "ev-\"quoted\"-\xC3\xA9";
  e.kind = "Reserve";
  e.created_time = "2025-01-02T03:04:05.678901Z";
  e.data = make_document("note", std::string(payload, 'n'), "qty", 3, "ok", true);
  return e;
}

Execution an_execution(size_t context_bytes) {
  Execution exe;
  exe.id = "exe-1";
  exe.definition_id = "def";
  exe.definition_fqn = "pkg.Def";
  exe.root_path = "Fork.A";
  exe.status = ExecutionStatus::kRunning;
  exe.active_path = "Checkout.Payment";
  exe.history = make_document("Checkout", "Checkout.Cart");
  exe.context = make_document("order_id", 42, "items", make_array("sku-1", 2.5, bson::Null{}),
                              "notes", std::string(context_bytes, 'a'), "tab\there", "x\ny");
  exe.processed_events = 7;
  exe.version = 3;
  exe.priority = 2;
  exe.parent_id = "parent";
  exe.deferred.push_back(an_event(10));
  exe.children["c1"] = ChildState{"Fork.B", true, "done", make_document("r", 1), false, "k"};
  exe.invoke_seq = make_document("A", 2);
  return exe;
}

std::string written(std::string& buffer, size_t start, size_t estimate, const Execution& exe) {
  JsonWriter out(buffer, start, estimate);
  write_execution(out, exe);
  return std::string(out.text());
}

TEST(JsonWriterBuffer, AnExecutionIntoAReusedBufferIsItsToJson) {
  std::string buffer;
  for (size_t context : {2000, 10, 500, 5000}) {
    Execution exe = an_execution(context);
    EXPECT_EQ(written(buffer, 0, json_size_estimate(exe), exe), exe.to_json());
  }
}

TEST(JsonWriterBuffer, AnEstimateTooSmallGrowsTheBuffer) {
  std::string buffer(3, '#');
  Execution exe = an_execution(3000);
  EXPECT_EQ(written(buffer, 0, 1, exe), exe.to_json());
}

TEST(JsonWriterBuffer, TheBuffersPrefixStays) {
  std::string buffer = "prefix|" + std::string(100, '#');
  Execution exe = an_execution(50);
  EXPECT_EQ(written(buffer, 7, 16, exe), "prefix|" + exe.to_json());
}

TEST(JsonWriterBuffer, TheBufferKeepsItsSize) {
  std::string buffer;
  Execution large = an_execution(4000);
  written(buffer, 0, json_size_estimate(large), large);
  const size_t size = buffer.size();
  Execution small = an_execution(1);
  written(buffer, 0, json_size_estimate(small), small);
  EXPECT_EQ(buffer.size(), size);  // no shrink: the next commit zeroes nothing
}

TEST(JsonWriterBuffer, AnEventIntoAReusedBufferIsItsToJson) {
  std::string buffer(5000, '#');
  for (size_t payload : {1000, 0, 3}) {
    Event e = an_event(payload);
    JsonWriter out(buffer, 0, json_size_estimate(e));
    write_event(out, e);
    EXPECT_EQ(out.text(), e.to_json());
  }
}

TEST(JsonWriterBuffer, TakeFromACallersBufferCopiesAndLeavesIt) {
  std::string buffer = "ab";
  JsonWriter out(buffer, 2, 8);
  out.begin_array().integer(1).end_array();
  EXPECT_EQ(out.take(), "ab[1]");
  EXPECT_EQ(buffer.substr(0, 5), "ab[1]");
}

}  // namespace
}  // namespace mongostore::exec
