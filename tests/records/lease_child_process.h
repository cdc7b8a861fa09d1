// The parent's side of tests/records/lease_child/lease_child.cc: starts it as a separate OS
// process on a `mongostore serve` URI and talks to it one line at a time (its protocol is
// described there).
//
//   LeaseChild writer(server.uri(), "db", std::chrono::milliseconds(1500), /*txn=*/true);
//   ASSERT_EQ(writer.reply(), "ready");
//   writer.send("save Ada");
//   EXPECT_EQ(writer.reply().rfind("ok ", 0), 0u);
//
// Every wait is bounded and generous (60 s): a reply that never comes fails the test with
// what was asked, instead of hanging it or depending on the machine's speed. The destructor
// closes the child's stdin (it exits at end of input) and reaps it; one that does not exit
// within 30 s is killed, and one that exits with another status than expected (0 unless
// told), e.g. a sanitizer's report, fails the test.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/test_paths.h"

extern char** environ;

namespace mongostore::records::testing {

class LeaseChild {
 public:
  LeaseChild(const std::string& uri, const std::string& database,
             std::chrono::milliseconds stale_after, bool transactions) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    for (int fd : {in[0], in[1], out[0], out[1]}) posix_spawn_file_actions_addclose(&actions, fd);
    std::vector<std::string> args = {mongostore::testing::lease_child_path(), uri, database,
                                     std::to_string(stale_after.count()),
                                     transactions ? "txn" : "degraded"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    to_child_ = in[1];
    from_child_ = out[0];
    if (rc != 0) {
      pid_ = -1;
      throw std::runtime_error("cannot start " + args[0]);
    }
  }
  ~LeaseChild() {
    if (to_child_ >= 0) ::close(to_child_);
    if (pid_ > 0) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      int status = 0;
      pid_t reaped;
      while ((reaped = ::waitpid(pid_, &status, WNOHANG)) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          ADD_FAILURE() << "the lease child " << pid_ << " did not exit at end of input";
          kill();
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      // A sanitizer's report at exit (a leak) shows as another status.
      if (reaped == pid_ && !(WIFEXITED(status) && WEXITSTATUS(status) == exit_status_)) {
        ADD_FAILURE() << "the lease child exited with wait status " << status << ", expected exit "
                      << exit_status_;
      }
    }
    if (from_child_ >= 0) ::close(from_child_);
  }
  LeaseChild(const LeaseChild&) = delete;
  LeaseChild& operator=(const LeaseChild&) = delete;

  pid_t pid() const { return pid_; }
  /// The exit status the destructor expects (default 0).
  void expect_exit_status(int status) { exit_status_ = status; }

  void send(const std::string& line) {
    last_sent_ = line;
    std::string out = line + "\n";
    if (::write(to_child_, out.data(), out.size()) != static_cast<ssize_t>(out.size())) {
      ADD_FAILURE() << "cannot write '" << line << "' to the lease child";
    }
  }

  /// The child's next line; "" (and a test failure) when none comes within `timeout` or the
  /// child exited.
  std::string reply(std::chrono::seconds timeout = std::chrono::seconds(60)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        ADD_FAILURE() << "no reply from the lease child within " << timeout.count()
                      << " s (last command: '" << last_sent_ << "')";
        return "";
      }
      pollfd p{from_child_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[4096];
      ssize_t got = ::read(from_child_, chunk, sizeof chunk);
      if (got <= 0) {
        ADD_FAILURE() << "the lease child exited (last command: '" << last_sent_ << "'; it wrote: '"
                      << buffer_ << "')";
        return "";
      }
      buffer_.append(chunk, static_cast<size_t>(got));
    }
  }

  /// SIGKILL, then reap it: a writer that dies without releasing anything.
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    // libmongoc's counters file of a killed process would warn a later process with its pid.
    std::string counters = "/dev/shm/mongoc-" + std::to_string(pid_);
    ::unlink(counters.c_str());
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
  std::string last_sent_;
  int exit_status_ = 0;
};

}  // namespace mongostore::records::testing
