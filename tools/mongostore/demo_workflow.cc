#include "demo_workflow.h"

#include <fmt/core.h>

#include "mongostore/bson/builder.h"

namespace mongostore::tool::demo {
namespace {

using bson::make_document;
using exec::ExecutionStatus;

bool is_child(const exec::Execution& exe) {
  return exe.definition_id == kPickDefinition || exe.definition_id == kInvoiceDefinition;
}

std::string active(const exec::Execution& exe) {
  return exe.active_path.value_or("");
}

}  // namespace

std::pair<exec::Execution, exec::CommitBatch> new_order(const std::string& id, int64_t amount,
                                                        bool pays, double now,
                                                        double payment_timeout) {
  exec::Execution exe;
  exe.id = id;
  exe.definition_id = kOrderDefinition;
  exe.status = ExecutionStatus::kRunning;
  exe.active_path = kPaymentTimer;
  exe.context = make_document("amount", amount, "pays", pays);
  exec::CommitBatch batch;
  batch.timers.push_back(exec::TimerOp::schedule(kPaymentTimer, now + payment_timeout));
  if (pays) {
    batch.emits.push_back({id, exec::Event::make("Pay", make_document("amount", amount))});
  }
  return {std::move(exe), std::move(batch)};
}

std::pair<exec::Execution, exec::CommitBatch> new_child(const exec::SpawnEntry& spawn) {
  exec::Execution exe;
  exe.id = spawn.child_id;
  exe.definition_id = spawn.root_path == "Fork.Pick" ? kPickDefinition : kInvoiceDefinition;
  exe.root_path = spawn.root_path;
  exe.parent_id = spawn.parent_id;
  exe.status = ExecutionStatus::kRunning;
  exe.active_path = "Working";
  exe.context = bson::Document::copy_of(spawn.context.view());
  exec::CommitBatch batch;
  batch.emits.push_back({exe.id, exec::Event::make("Work")});
  return {std::move(exe), std::move(batch)};
}

Transition apply_event(exec::Execution& exe, const exec::Event& event) {
  Transition t;
  t.from_path = active(exe);
  t.effect = Effect::kIgnored;
  if (is_child(exe)) {
    if (event.kind == "Work" && exe.status == ExecutionStatus::kRunning) {
      std::string outcome = exe.definition_id == kPickDefinition ? "picked" : "invoiced";
      exe.status = ExecutionStatus::kDone;
      exe.outcome = outcome;
      exe.active_path = "Done";
      t.batch.emits.push_back(
          {exe.parent_id,
           exec::Event::make("Finished", make_document("child_id", exe.id, "outcome", outcome))});
      t.effect = Effect::kAdvanced;
    }
  } else if (exe.status == ExecutionStatus::kRunning && active(exe) == kPaymentTimer) {
    if (event.kind == "Pay") {
      exe.active_path = "Fork";
      exe.context = make_document("amount", exe.context.get("amount"), "pays", true, "paid",
                                  event.data.get("amount"));
      t.batch.timers.push_back(exec::TimerOp::cancel(kPaymentTimer));
      for (const char* region : {"Fork.Pick", "Fork.Invoice"}) {
        std::string child_id = fmt::format("{}:{}:0", exe.id, region);
        exe.children[child_id] = exec::ChildState{region, false, std::nullopt, {}, false, region};
        t.batch.spawns.push_back(
            {child_id, region,
             make_document("order", exe.id, "amount", exe.context.get("amount"))});
      }
      t.effect = Effect::kAdvanced;
    } else if (event.kind == "Timeout" && event.data.get("path").is_string() &&
               event.data.get("path").as_string() == kPaymentTimer) {
      exe.status = ExecutionStatus::kCancelled;
      exe.outcome = "payment-timeout";
      exe.active_path = "Cancelled";
      t.effect = Effect::kTimerFired;
    }
  } else if (exe.status == ExecutionStatus::kRunning && active(exe) == "Fork" &&
             event.kind == "Finished") {
    std::string child_id(event.data.get("child_id").as_string());
    auto it = exe.children.find(child_id);
    if (it != exe.children.end() && !it->second.finished) {
      it->second.finished = true;
      it->second.outcome = std::string(event.data.get("outcome").as_string());
      bool all = true;
      for (const auto& [id, child] : exe.children) all = all && child.finished;
      if (all) {
        exe.status = ExecutionStatus::kDone;
        exe.outcome = "shipped";
        exe.active_path = "Shipped";
      }
      t.effect = Effect::kChildJoined;
    }
  }
  // Every delivered event is recorded once (the dedupe mark), whatever it did.
  ++exe.processed_events;
  t.to_path = active(exe);
  return t;
}

}  // namespace mongostore::tool::demo
