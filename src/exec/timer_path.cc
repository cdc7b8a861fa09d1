#include "exec/timer_path.h"

#include <algorithm>
#include <unordered_map>

#include "exec/utf8.h"
#include "mongostore/error.h"
#include "mongostore/exec/execution_store.h"

namespace mongostore::exec {
namespace {

// Appends `path` with each '.' written as kEncodedDot: the runs between dots whole (every
// commit's timer field is encoded; a byte at a time cost ~20 instructions a byte).
void append_encoded(std::string& out, std::string_view path) {
  for (size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.')) {
    out.append(path.substr(0, dot));
    out += kEncodedDot;
    path.remove_prefix(dot + 1);
  }
  out.append(path);
}

}  // namespace

std::string encode_timer_path(std::string_view path) {
  std::string out;
  out.reserve(path.size() + 8);
  append_encoded(out, path);
  return out;
}

std::string decode_timer_path(std::string_view key) {
  // Most paths hold no dot: copied whole (the sweeps decode every due timer's key). Otherwise
  // the runs between encoded dots are appended whole, into one allocation at most (each
  // encoded dot is two bytes longer than the '.' it becomes).
  size_t dot = key.find(kEncodedDot);
  if (dot == std::string_view::npos) return std::string(key);
  std::string out;
  out.reserve(key.size() - (kEncodedDot.size() - 1));
  do {
    out.append(key.substr(0, dot));
    out += '.';
    key.remove_prefix(dot + kEncodedDot.size());
    dot = key.find(kEncodedDot);
  } while (dot != std::string_view::npos);
  out.append(key);
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

namespace {
// Up to this many distinct paths a linear search is cheaper than hashing.
constexpr size_t kLinearPaths = 8;

// "timers." + the encoded path, in one allocation at most.
std::string timer_field(std::string_view path) {
  std::string out;
  out.reserve(TimerChange::kTimersPrefix.size() + path.size() + 8);
  out += TimerChange::kTimersPrefix;
  append_encoded(out, path);
  return out;
}
}  // namespace

std::vector<TimerChange> net_timer_changes(const std::vector<TimerOp>& ops) {
  std::vector<TimerChange> changes;
  changes.reserve(std::min(ops.size(), kLinearPaths));
  // Built only past kLinearPaths distinct paths: field -> index in `changes`.
  std::unordered_map<std::string, size_t> position;
  for (const TimerOp& op : ops) {
    check_timer_path(op.path);
    std::string field = timer_field(op.path);
    std::optional<double> fire_at;
    if (op.action == TimerOp::Action::kSchedule) fire_at = op.fire_at;
    TimerChange* found = nullptr;
    if (position.empty()) {
      for (TimerChange& c : changes) {
        if (c.field == field) {
          found = &c;
          break;
        }
      }
    } else if (auto it = position.find(field); it != position.end()) {
      found = &changes[it->second];
    }
    if (found) {
      found->fire_at = fire_at;
      continue;
    }
    if (!position.empty()) {
      position.emplace(field, changes.size());
    } else if (changes.size() == kLinearPaths) {
      for (size_t i = 0; i < changes.size(); ++i) position.emplace(changes[i].field, i);
      position.emplace(field, changes.size());
    }
    changes.push_back({std::move(field), fire_at});
  }
  return changes;
}

}  // namespace mongostore::exec
