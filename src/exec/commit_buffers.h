// CommitBuffers: the buffers a commit writes its JSON, update and guard into, kept per thread.
//
// Every commit built its update (~2 KB: the snapshot JSON and the pushed entries), its guard,
// the Execution's JSON and each event's as fresh Documents and strings: an allocation, a
// zero fill of the presized buffer and a free each, per commit (issue 29). The engine reads
// them only during the write, so buffers the thread keeps serve every commit: after the
// first, nothing is allocated or zeroed unless a commit is larger than any before it.
//
// Thread safety: each thread has its own buffers. A lease taken while the thread's buffers
// are already leased (a commit inside a commit: nothing does this today) gets fresh buffers
// of its own instead, so two leases never share bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mongostore::exec {

struct CommitBuffers {
  /// A buffer grown past this by one large commit is released when the lease ends, so a
  /// thread keeps at most ~(4 + kKeepEvents) x 64 KiB for the rest of its life. The typical
  /// commit's buffers are a few KB; a commit past 64 KiB pays one allocation, small against
  /// serialising that much.
  static constexpr size_t kKeepBytes = size_t{64} << 10;

  std::vector<uint8_t> update;
  std::vector<uint8_t> guard;
  /// The Execution's JSON, and each emitted Event's (one string per emit, kept across commits).
  std::string data;
  std::vector<std::string> events;
  /// Emits per commit whose event strings are kept (more are released at the lease's end).
  static constexpr size_t kKeepEvents = 16;

  /// The thread's buffers for the lease's lifetime (a nested lease: fresh ones, see above).
  class Lease;
};

class CommitBuffers::Lease {
 public:
  Lease() {
    Slot& s = slot();
    if (!s.leased) {
      s.leased = true;
      slot_ = &s;
      buffers_ = &s.buffers;
    } else {
      nested_ = std::make_unique<CommitBuffers>();
      buffers_ = nested_.get();
    }
  }
  ~Lease() {
    if (slot_ == nullptr) return;
    for (std::vector<uint8_t>* v : {&buffers_->update, &buffers_->guard}) {
      if (v->capacity() > kKeepBytes) std::vector<uint8_t>().swap(*v);
    }
    if (buffers_->events.size() > kKeepEvents) buffers_->events.resize(kKeepEvents);
    release_if_large(buffers_->data);
    for (std::string& json : buffers_->events) release_if_large(json);
    slot_->leased = false;
  }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  CommitBuffers& operator*() const { return *buffers_; }
  CommitBuffers* operator->() const { return buffers_; }
  /// Whether this lease has the thread's own buffers (false: a nested lease).
  bool is_thread_own() const { return slot_ != nullptr; }

 private:
  struct Slot {
    CommitBuffers buffers;
    bool leased = false;
  };
  static void release_if_large(std::string& s) {
    if (s.capacity() > kKeepBytes) std::string().swap(s);
  }
  static Slot& slot() {
    thread_local Slot s;
    return s;
  }

  CommitBuffers* buffers_ = nullptr;
  Slot* slot_ = nullptr;
  std::unique_ptr<CommitBuffers> nested_;
};

}  // namespace mongostore::exec
