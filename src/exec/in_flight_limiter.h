// InFlightLimiter: a counting semaphore for coroutines, built on an Asio channel.
//
// The channel's buffer holds one token per running operation: acquire() sends a token and
// so suspends (holding no thread) while the buffer is full; release() takes one out, which
// hands the freed slot to the longest-waiting sender (the channel completes waiters in FIFO
// order). concurrent_channel is safe to use from any thread.
#pragma once

// A standard library header before Asio's: Asio decides once per translation unit whether
// to allocate with std::aligned_alloc by a macro of libstdc++'s configuration, defined only
// once some standard header is in. A unit that includes Asio first would free with
// operator delete what another unit allocated with aligned_alloc (the same inline
// functions, two definitions), which AddressSanitizer reports as an alloc-dealloc mismatch.
#include <cstddef>

#include <asio.hpp>
#include <asio/experimental/concurrent_channel.hpp>

namespace mongostore::exec {

class InFlightLimiter {
 public:
  template <class Executor>
  InFlightLimiter(const Executor& executor, size_t slots) : tokens_(executor, slots) {}

  /// Waits for a free slot and takes it. The awaiting coroutine resumes on its own executor.
  asio::awaitable<void> acquire() {
    co_await tokens_.async_send(asio::error_code{}, 0, asio::use_awaitable);
  }
  /// Frees a slot taken by acquire().
  void release() {
    tokens_.try_receive([](asio::error_code, int) {});
  }

 private:
  // The token carries an int only because Asio 1.22 cannot instantiate a channel whose
  // signature is void(error_code) alone (its channel_traits specializations are ambiguous).
  asio::experimental::concurrent_channel<void(asio::error_code, int)> tokens_;
};

/// Releases a slot when the operation holding it ends, however it ends.
class InFlightSlot {
 public:
  explicit InFlightSlot(InFlightLimiter& limiter) : limiter_(limiter) {}
  ~InFlightSlot() { limiter_.release(); }
  InFlightSlot(const InFlightSlot&) = delete;
  InFlightSlot& operator=(const InFlightSlot&) = delete;

 private:
  InFlightLimiter& limiter_;
};

}  // namespace mongostore::exec
