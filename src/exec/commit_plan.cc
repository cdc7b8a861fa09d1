#include "exec/commit_plan.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "exec/trace_index.h"
#include "mongostore/bson/builder.h"
#include "mongostore/bson/types.h"
#include "mongostore/error.h"

namespace mongostore::exec {

bson::Document stamp_trace_index(bson::DocumentView step, int64_t index) {
  bson::DocumentBuilder b;
  bool stamped = false;
  for (const bson::Element& e : step) {
    if (e.key == "index") {
      if (!stamped) b.append("index", index);
      stamped = true;
    } else {
      b.append(e.key, e.value);
    }
  }
  if (!stamped) b.append("index", index);
  return b.finish();
}

std::optional<double> CommitPlan::earliest_armed_timer() const {
  std::optional<double> earliest;
  for (const TimerChange& t : timers) {
    if (t.fire_at && (!earliest || *t.fire_at < *earliest)) earliest = t.fire_at;
  }
  return earliest;
}

namespace {

// The commit's documents, written straight into one buffer reserved up front. A
// DocumentBuilder per commit cost two allocations to construct, a third on finish, and
// vector inserts and a NUL search per key; the update's shape is fixed here, its keys are
// constants or validated timer fields (check_timer_path: no NUL), so none of that is needed.
// The bytes are those DocumentBuilder writes for the same calls (tests/exec/commit_plan_test.cc).
class CommitWriter {
 public:
  // `size`: the expected size; a larger document grows the buffer.
  explicit CommitWriter(size_t size) : bytes_(&own_), pos_(4) {
    own_.resize(std::max<size_t>(size, 16));
    // The first 4 bytes are the length, patched by finish().
  }
  // Writes into `buffer` from its start, keeping its size: a buffer reused across commits is
  // zeroed only where it grows, and allocates only then.
  CommitWriter(size_t size, std::vector<uint8_t>& buffer) : bytes_(&buffer), pos_(4) {
    if (buffer.size() < std::max<size_t>(size, 16)) buffer.resize(std::max<size_t>(size, 16));
  }

  // Each element is one bounds check (header() reserves the whole of it), then plain stores.
  void append(std::string_view key, std::string_view v) {
    const uint32_t len = static_cast<uint32_t>(v.size() + 1);  // with its NUL
    uint8_t* o = header(bson::BsonType::kString, key, 4 + len);
    std::memcpy(o, &len, 4);
    copy(o + 4, v.data(), v.size());
    o[4 + v.size()] = 0;
    pos_ += 4 + len;
  }
  void append(std::string_view key, int64_t v) { fixed(bson::BsonType::kInt64, key, &v, 8); }
  void append(std::string_view key, double v) { fixed(bson::BsonType::kDouble, key, &v, 8); }
  void append_bool(std::string_view key, bool v) {
    const uint8_t b = v ? 1 : 0;
    fixed(bson::BsonType::kBool, key, &b, 1);
  }
  void append_null(std::string_view key) { header(bson::BsonType::kNull, key, 0); }
  void append(std::string_view key, bson::DocumentView v) {
    fixed(bson::BsonType::kDocument, key, v.data(), v.size());
  }
  void append_or_null(std::string_view key, const std::optional<std::string_view>& v) {
    if (v) {
      append(key, *v);
    } else {
      append_null(key);
    }
  }

  void open_document(std::string_view key) { open(bson::BsonType::kDocument, key); }
  void open_array(std::string_view key) { open(bson::BsonType::kArray, key); }
  void close() {
    put_byte(0);
    Frame& f = frames_[--depth_];
    const uint32_t len = static_cast<uint32_t>(pos_ - f.start);
    std::memcpy(bytes_->data() + f.start, &len, 4);
  }

  /// The key of the next element of the open array: "0", "1", ...
  std::string_view next_index() {
    uint32_t& i = depth_ == 0 ? top_index_ : frames_[depth_ - 1].next_index;
    auto [end, ec] = std::to_chars(index_, index_ + sizeof index_, i++);
    (void)ec;  // 10 chars hold any uint32_t
    return std::string_view(index_, static_cast<size_t>(end - index_));
  }

  bson::Document finish() {
    finish_view();
    own_.resize(pos_);  // shrinks: no copy
    return bson::Document::adopt(std::move(own_));
  }
  // The document in the caller's buffer (the second constructor), valid until it is written
  // again.
  bson::DocumentView finish_view() {
    while (depth_ > 0) close();
    put_byte(0);
    const uint32_t len = static_cast<uint32_t>(pos_);
    std::memcpy(bytes_->data(), &len, 4);
    return bson::DocumentView(bytes_->data(), pos_);
  }

 private:
  struct Frame {
    size_t start = 0;
    uint32_t next_index = 0;
  };
  // The deepest the commit's documents nest: $push.outbox.$each.<n>.
  static constexpr size_t kMaxDepth = 4;

  // Writes the element's type and key, with room for `payload` more bytes after them (the
  // caller writes those and adds them to pos_); returns where the payload goes.
  uint8_t* header(bson::BsonType type, std::string_view key, size_t payload) {
    const size_t n = key.size() + 2;
    if (bytes_->size() - pos_ < n + payload) grow(n + payload);
    uint8_t* const o = bytes_->data() + pos_;
    o[0] = static_cast<uint8_t>(type);
    copy(o + 1, key.data(), key.size());
    o[n - 1] = 0;
    pos_ += n;
    return o + n;
  }
  // An element whose payload is `size` bytes at `p`.
  void fixed(bson::BsonType type, std::string_view key, const void* p, size_t size) {
    copy(header(type, key, size), p, size);
    pos_ += size;
  }
  void open(bson::BsonType type, std::string_view key) {
    // Our own shapes only: a deeper one is a bug here, never input.
    if (depth_ == kMaxDepth) throw Error(ErrorCode::kInternalError, "CommitWriter: too deep");
    uint8_t* o = header(type, key, 4);
    frames_[depth_++] = Frame{pos_, 0};
    std::memset(o, 0, 4);  // the length, patched by close()
    pos_ += 4;
  }
  static void copy(uint8_t* to, const void* from, size_t n) {
    if (n != 0) std::memcpy(to, from, n);  // an empty view may have no data: not for memcpy
  }
  // Plain stores into the buffer sized up front (a vector insert per piece cost more than
  // the copy); growing is the rare case of an estimate too small.
  void put_byte(uint8_t v) {
    if (pos_ == bytes_->size()) grow(1);
    (*bytes_)[pos_++] = v;
  }
  void grow(size_t n) { bytes_->resize(std::max(bytes_->size() * 2, pos_ + n)); }

  std::vector<uint8_t> own_;     // the buffer of finish()'s Document
  std::vector<uint8_t>* bytes_;  // own_ or the caller's; [0, pos_) written
  size_t pos_ = 0;
  Frame frames_[kMaxDepth];
  size_t depth_ = 0;
  uint32_t top_index_ = 0;
  char index_[12];
};

void append_promoted(CommitWriter& w, const CommitPlan& plan) {
  w.append("status", plan.status);
  w.append_or_null("parent_id", plan.parent_id);
}

// The next array element of `w`: the entry's document {seq, target_id, event}.
void push_outbox_item(CommitWriter& w, const CommitPlan::OutboxItem& item) {
  w.open_document(w.next_index());
  w.append("seq", item.seq);
  w.append_or_null("target_id", item.target_id);
  w.append("event", item.event);
  w.close();
}

// An upper bound of the bytes the plan's variable parts take in either document; the
// constant keys and headers fit in the slack.
size_t plan_bytes(const CommitPlan& plan) {
  size_t bytes = plan.data.size() + plan.execution_id.size() + plan.definition_id.size() +
                 plan.status.size() + (plan.parent_id ? plan.parent_id->size() : 0) +
                 (plan.processed_event ? plan.processed_event->size() : 0) + 512;
  for (const CommitPlan::OutboxItem& item : plan.outbox) {
    bytes += item.event.size() + (item.target_id ? item.target_id->size() : 0) + 64;
  }
  for (const bson::Document& d : plan.spawns) bytes += d.view().size() + 16;
  if (plan.trace_step) bytes += plan.trace_step->size() + 32;
  for (const TimerChange& t : plan.timers) bytes += t.field.size() + 16;
  return bytes;
}
}  // namespace

namespace {
void write_update(CommitWriter& w, const CommitPlan& plan) {
  w.open_document("$set");
  w.append("data", plan.data);
  w.append("version", plan.new_version);
  append_promoted(w, plan);
  for (const TimerChange& t : plan.timers) {
    if (t.fire_at) w.append(t.field, *t.fire_at);
  }
  w.close();
  if (!plan.outbox.empty() || !plan.spawns.empty() || plan.trace_step) {
    w.open_document("$push");
    if (!plan.outbox.empty()) {
      w.open_document("outbox");
      w.open_array("$each");
      for (const CommitPlan::OutboxItem& item : plan.outbox) push_outbox_item(w, item);
      w.close();
      w.close();
    }
    if (!plan.spawns.empty()) {
      w.open_document("spawns");
      w.open_array("$each");
      for (const bson::Document& spawn : plan.spawns) w.append(w.next_index(), spawn.view());
      w.close();
      w.close();
    }
    if (plan.trace_step) {
      w.open_document("trace");
      w.open_array("$each");
      w.append(w.next_index(), *plan.trace_step);
      w.close();
      // The ring is trimmed by the same update that appends: no read-modify-write.
      if (plan.trace_max > 0) w.append("$slice", -plan.trace_max);
      w.close();
    }
    w.close();
  }
  if (plan.processed_event) {
    w.open_document("$addToSet");
    w.append("processed", *plan.processed_event);
    w.close();
  }
  if (plan.trace_step && plan.count_trace) {
    w.open_document("$inc");
    w.append(kTraceNext, int64_t{1});
    w.close();
  }
  if (std::optional<double> earliest = plan.earliest_armed_timer()) {
    w.open_document("$min");
    w.append("next_fire_at", *earliest);
    w.close();
  }
  bool any_cancel = false;
  for (const TimerChange& t : plan.timers) any_cancel = any_cancel || !t.fire_at;
  if (any_cancel) {
    w.open_document("$unset");
    for (const TimerChange& t : plan.timers) {
      if (!t.fire_at) w.append(t.field, std::string_view());
    }
    w.close();
  }
}

void write_guard(CommitWriter& w, const CommitPlan& plan, int64_t old_version,
                 bool needs_trace_next) {
  w.append("_id", plan.execution_id);
  w.append("version", old_version);
  if (needs_trace_next) {
    w.open_document(kTraceNext);
    w.append_bool("$exists", true);
    w.close();
  }
}

size_t guard_bytes(const CommitPlan& plan) {
  return plan.execution_id.size() + 96;
}
}  // namespace

bson::Document CommitPlan::update() const {
  // The snapshot and the pushed entries are most of the bytes: one allocation, not a
  // doubling series that copies the ~1.5 KB snapshot again.
  CommitWriter w(plan_bytes(*this));
  write_update(w, *this);
  return w.finish();
}

bson::DocumentView CommitPlan::update_in(std::vector<uint8_t>& buffer) const {
  CommitWriter w(plan_bytes(*this), buffer);
  write_update(w, *this);
  return w.finish_view();
}

bson::Document CommitPlan::guard(int64_t old_version, bool needs_trace_next) const {
  CommitWriter w(guard_bytes(*this));
  write_guard(w, *this, old_version, needs_trace_next);
  return w.finish();
}

bson::DocumentView CommitPlan::guard_in(std::vector<uint8_t>& buffer, int64_t old_version,
                                        bool needs_trace_next) const {
  CommitWriter w(guard_bytes(*this), buffer);
  write_guard(w, *this, old_version, needs_trace_next);
  return w.finish_view();
}

bson::Document CommitPlan::insert() const {
  CommitWriter w(plan_bytes(*this));
  // The fields the sweeps read come first, before the ~1 KB of data and the trace: a sweep's
  // visitor walks the stored document's top-level fields until it has found its own
  // (collect_due, pending_entries). Updates keep this order; documents another writer laid
  // out otherwise are read the same, only walked further.
  w.append("_id", execution_id);
  w.append("definition_id", definition_id);
  w.append("version", new_version);
  // Always a number: +infinity stands for "no timer", so a missing or null bound can only
  // come from another writer, and due_timers finds those through the index's null key.
  w.append("next_fire_at", earliest_armed_timer().value_or(kNoTimer));
  w.open_document("timers");
  for (const TimerChange& t : timers) {
    if (t.fire_at) w.append(t.key(), *t.fire_at);  // a cancel of a timer that never existed
  }
  w.close();
  w.open_array("outbox");
  for (const OutboxItem& item : outbox) push_outbox_item(w, item);
  w.close();
  w.open_array("spawns");
  for (const bson::Document& s : spawns) w.append(w.next_index(), s.view());
  w.close();
  w.append("data", data);
  append_promoted(w, *this);
  w.open_array("trace");
  if (trace_step) w.append(w.next_index(), *trace_step);
  w.close();
  if (count_trace) w.append(kTraceNext, int64_t{trace_step ? 1 : 0});
  w.open_array("processed");
  if (processed_event) w.append(w.next_index(), *processed_event);
  w.close();
  return w.finish();
}

}  // namespace mongostore::exec
