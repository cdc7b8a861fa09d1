#include "server/operation_registry.h"

#include "mongostore/bson/builder.h"

namespace mongostore::server {
namespace {

// currentOp's `op`: the kind of operation, as mongod names it.
std::string_view op_kind(std::string_view name) {
  if (name == "insert") return "insert";
  if (name == "update") return "update";
  if (name == "delete") return "remove";
  if (name == "find") return "query";
  if (name == "getMore") return "getmore";
  return "command";
}

constexpr size_t kMaxShownCommand = 1024;

}  // namespace

OperationRegistry::Operation::~Operation() {
  std::lock_guard lock(registry_.mutex_);
  registry_.entries_.erase(opid_);
}

OperationRegistry::Operation OperationRegistry::enter(bson::DocumentView command, std::string db,
                                                      std::string name, int64_t connection_id,
                                                      std::string client) {
  std::lock_guard lock(mutex_);
  int64_t opid = next_opid_++;
  entries_.emplace(opid, Entry{command, std::move(db), std::move(name), connection_id,
                               std::move(client), std::chrono::steady_clock::now()});
  return Operation(*this, opid);
}

std::vector<bson::Document> OperationRegistry::describe() const {
  std::vector<bson::Document> out;
  std::lock_guard lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  for (const auto& [opid, op] : entries_) {
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now - op.start).count();
    bson::Value target = op.command.get(op.name);
    std::string ns =
        target.is_string() ? op.db + "." + std::string(target.as_string()) : op.db + ".$cmd";
    bson::DocumentBuilder d;
    d.append("type", "op");
    d.append("host", "mongostore");
    d.append("desc", "conn" + std::to_string(op.connection_id));
    d.append("connectionId", op.connection_id);
    d.append("client", op.client);
    d.append("active", true);
    d.append("opid", opid);
    d.append("secs_running", static_cast<int64_t>(micros / 1000000));
    d.append("microsecs_running", static_cast<int64_t>(micros));
    d.append("op", op_kind(op.name));
    d.append("ns", ns);
    if (op.command.size() <= kMaxShownCommand) {
      d.append("command", op.command);
    } else {
      d.open_document("command")
          .append(op.name, target)
          .append("$truncated", "command larger than 1 KB")
          .close();
    }
    out.push_back(d.finish());
  }
  return out;
}

bool OperationRegistry::running(int64_t opid) const {
  std::lock_guard lock(mutex_);
  return entries_.count(opid) != 0;
}

}  // namespace mongostore::server
