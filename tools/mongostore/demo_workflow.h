// The demo's order-fulfilment workflow: a table of transitions over ExecutionStore
// executions, with no statechart engine behind it.
//
//   order (root)     AwaitingPayment --Pay--> Fork --(both children Finished)--> Shipped (DONE)
//                    AwaitingPayment --Timeout--> Cancelled (CANCELLED, "payment-timeout")
//   order.pick       Working --Work--> Done (emits Finished to the parent)
//   order.invoice    Working --Work--> Done (emits Finished to the parent)
//
// Entering AwaitingPayment arms a durable timer; Pay cancels it in the same commit that forks
// the order into its two children (spawns joined back through Finished events). Every event
// a transition emits goes through the store's outbox.
#pragma once

#include <optional>
#include <string>

#include "mongostore/exec/execution.h"
#include "mongostore/exec/store_types.h"

namespace mongostore::tool::demo {

inline constexpr const char* kOrderDefinition = "order";
inline constexpr const char* kPickDefinition = "order.pick";
inline constexpr const char* kInvoiceDefinition = "order.invoice";
inline constexpr const char* kPaymentTimer = "AwaitingPayment";

/// What applying one event did, for the demo's counters.
enum class Effect {
  kAdvanced,     // the execution moved (or recorded progress)
  kTimerFired,   // a payment timeout cancelled the order
  kChildJoined,  // a child's Finished was joined (the order may have completed)
  kIgnored,      // not meaningful in the current state (a stale timeout): recorded only
};

struct Transition {
  exec::CommitBatch batch;  // processed_event_id and trace are filled by the caller
  Effect effect = Effect::kAdvanced;
  std::string from_path;
  std::string to_path;
};

/// A new order and the batch of its first commit (version 0: the insert path). Paying orders
/// emit their own Pay event (the payment gateway's answer, simulated); the others wait for
/// the payment timer, `payment_timeout` seconds after `now`.
std::pair<exec::Execution, exec::CommitBatch> new_order(const std::string& id, int64_t amount,
                                                        bool pays, double now,
                                                        double payment_timeout);

/// The child execution a spawn asks for, and its first commit (it emits Work to itself).
std::pair<exec::Execution, exec::CommitBatch> new_child(const exec::SpawnEntry& spawn);

/// Applies `event` to `exe` in place (status, active_path, context, children,
/// processed_events) and returns what to commit with it.
Transition apply_event(exec::Execution& exe, const exec::Event& event);

}  // namespace mongostore::tool::demo
