// A writer process killed at a random moment: the crash tests' common harness.
//
// run_until_killed forks, runs `child(fd)` in the child (it writes one line per acknowledged
// write to `fd` and never returns), and SIGKILLs it a random 0..max_delay after its first line
// (so the kill lands in the work, not in opening the store), or after `give_up` if no line ever
// comes. It returns everything the child wrote and whether SIGKILL ended it (false: the child
// stopped by itself, which a crash test reports as a failure with the output).
// complete_lines drops a torn last line (the kill can cut a write short).
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace mongostore::testing {

struct KilledWriter {
  std::string output;
  bool killed = false;
};

inline KilledWriter run_until_killed(const std::function<void(int fd)>& child, std::mt19937_64& rng,
                                     std::chrono::milliseconds max_delay,
                                     std::chrono::seconds give_up = std::chrono::seconds(20)) {
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  pid_t pid = ::fork();
  if (pid < 0) std::abort();
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1]);
    _exit(0);
  }
  ::close(fds[1]);
  KilledWriter out;
  auto deadline = std::chrono::steady_clock::now() + give_up;
  bool armed = false;
  char chunk[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 5) <= 0) continue;
    ssize_t got = ::read(fds[0], chunk, sizeof chunk);
    if (got <= 0) break;
    out.output.append(chunk, static_cast<size_t>(got));
    if (!armed) {
      armed = true;
      deadline = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(
                     static_cast<int64_t>(rng() % static_cast<uint64_t>(max_delay.count() + 1)));
    }
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ssize_t got;
  while ((got = ::read(fds[0], chunk, sizeof chunk)) > 0) {
    out.output.append(chunk, static_cast<size_t>(got));
  }
  ::close(fds[0]);
  out.killed = WIFSIGNALED(status);
  return out;
}

inline std::vector<std::string> complete_lines(const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof() && !output.empty() && output.back() != '\n') break;  // torn by the kill
    lines.push_back(line);
  }
  return lines;
}

}  // namespace mongostore::testing
