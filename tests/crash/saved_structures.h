// The record crash tests' report of acknowledged saves: the child writes one line per
// structure it saved ("s <sid> <formula> <sites>") and, if a save throws, one "e <what>" line
// before it exits 2; the parent reads the complete lines back into what it must find again.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <exception>
#include <map>
#include <sstream>
#include <string>

#include "crash/killed_writer.h"

namespace mongostore::records::testing {

/// What an acknowledged save stored: the structure's formula and its number of sites.
struct Ack {
  std::string formula;
  int sites = 0;
};

/// The child: reports the acknowledged save of structure `sid` on `fd` (exits 3 when the pipe
/// is gone).
inline void report_saved(int fd, int64_t sid, const std::string& formula, int sites) {
  std::string line =
      "s " + std::to_string(sid) + " " + formula + " " + std::to_string(sites) + "\n";
  if (::write(fd, line.data(), line.size()) < 0) _exit(3);
}

/// The child: reports the save that threw and exits 2 (the parent sees the line in the
/// output of a saver that stopped by itself).
[[noreturn]] inline void report_failure(int fd, const std::exception& e) {
  std::string line = std::string("e ") + e.what() + "\n";
  (void)!::write(fd, line.data(), line.size());
  _exit(2);
}

/// The parent: adds the saves a killed child acknowledged in `output` to `acked` (by sid; a
/// line torn by the kill is not one); a line that is not an acknowledgement fails the test.
inline void read_acks(const std::string& output, std::map<int64_t, Ack>* acked) {
  for (const std::string& line : mongostore::testing::complete_lines(output)) {
    std::istringstream f(line);
    char kind = 0;
    Ack ack;
    int64_t sid = 0;
    f >> kind >> sid >> ack.formula >> ack.sites;
    ASSERT_EQ(kind, 's') << line;
    (*acked)[sid] = ack;
  }
}

}  // namespace mongostore::records::testing
