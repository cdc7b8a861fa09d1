// The MongoDB error code a call fails with, for tests that assert on codes.
#pragma once

#include <cstdint>
#include <functional>

#include "mongostore/error.h"

namespace mongostore::testing {

/// The code of the Error `f` throws; 0 when it returns normally (so a call that was expected
/// to fail shows up as a mismatch, not as a pass).
inline int32_t code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return 0;
}

}  // namespace mongostore::testing
