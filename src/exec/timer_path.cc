#include "exec/timer_path.h"

#include <unordered_map>

#include "exec/utf8.h"
#include "mongostore/error.h"
#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {

std::string encode_timer_path(std::string_view path) {
  std::string out;
  out.reserve(path.size() + 8);
  for (char c : path) {
    if (c == '.') {
      out += kEncodedDot;
    } else {
      out += c;
    }
  }
  return out;
}

std::string decode_timer_path(std::string_view key) {
  // Most paths hold no dot: copied whole (the sweeps decode every due timer's key).
  if (key.find(kEncodedDot) == std::string_view::npos) return std::string(key);
  std::string out;
  out.reserve(key.size());
  while (!key.empty()) {
    if (key.starts_with(kEncodedDot)) {
      out += '.';
      key.remove_prefix(kEncodedDot.size());
    } else {
      out += key.front();
      key.remove_prefix(1);
    }
  }
  return out;
}

void check_timer_path(std::string_view path) {
  auto bad = [&](std::string_view why) {
    throw Error(ErrorCode::kBadValue, "timer path '" + std::string(path) + "' " + std::string(why));
  };
  if (path.empty()) bad("is empty");
  if (path.find('\0') != std::string_view::npos) bad("contains a NUL byte");
  if (!is_valid_utf8(path)) bad("is not valid UTF-8");
  if (path.find(kEncodedDot) != std::string_view::npos) {
    bad("contains U+FF0E, the character that encodes '.' in timer keys");
  }
  if (path.front() == '$') bad("starts with '$'");
}

std::vector<TimerChange> net_timer_changes(const std::vector<TimerOp>& ops) {
  std::vector<TimerChange> changes;
  std::unordered_map<std::string, size_t> position;
  for (const TimerOp& op : ops) {
    check_timer_path(op.path);
    std::string key = encode_timer_path(op.path);
    std::optional<double> fire_at;
    if (op.action == TimerOp::Action::kSchedule) fire_at = op.fire_at;
    auto [it, inserted] = position.emplace(key, changes.size());
    if (inserted) {
      changes.push_back({std::move(key), fire_at});
    } else {
      changes[it->second].fire_at = fire_at;
    }
  }
  return changes;
}

}  // namespace mongostore::exec
