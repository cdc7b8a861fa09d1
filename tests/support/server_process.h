// A real `mongostore serve` child process for tests that talk to the server over TCP.
//
//   testing::ServerProcess server;                 // --memory on a free port
//   auto client = client::connect(server.uri());   // "mongodb://127.0.0.1:<port>"
//
// The server picks a free port (--port 0) and prints "listening on HOST:PORT" on stdout; the
// constructor waits for that line (up to 30 s) and fails the test if it never comes. The
// destructor sends SIGTERM and waits, so a server that does not shut down cleanly hangs the
// test instead of hiding the bug.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/test_paths.h"

namespace mongostore::testing {

class ServerProcess {
 public:
  /// `args` are extra options for `mongostore serve` (default: --memory); without a
  /// `--port` of its own the server picks a free one. `command` runs another listening
  /// subcommand that prints the same line (e.g. "optimade").
  explicit ServerProcess(std::vector<std::string> args = {"--memory"},
                         const std::string& command = "serve") {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    char log_template[] = "/tmp/mongostore-serve-log-XXXXXX";
    int log_fd = mkstemp(log_template);
    if (log_fd < 0) throw std::runtime_error("mkstemp failed");
    log_path_ = log_template;
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      dup2(log_fd, STDERR_FILENO);
      close(out[0]);
      close(out[1]);
      std::vector<std::string> argv_strings = {tool_path(), command};
      // A free port unless the caller names one.
      if (std::find(args.begin(), args.end(), "--port") == args.end()) {
        argv_strings.insert(argv_strings.end(), {"--port", "0"});
      }
      argv_strings.insert(argv_strings.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : argv_strings) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(log_fd);
    close(out[1]);
    stdout_ = fdopen(out[0], "r");
    char line[256];
    // fgets blocks until the child prints or exits; the child prints as soon as it listens.
    while (std::fgets(line, sizeof line, stdout_) != nullptr) {
      std::string text(line);
      auto at = text.find("listening on ");
      if (at == std::string::npos) continue;
      auto colon = text.rfind(':');
      port_ = std::stoi(text.substr(colon + 1));
      host_ = text.substr(at + 13, colon - at - 13);
      return;
    }
    throw std::runtime_error("mongostore " + command + " exited before listening: " + log());
  }
  // The server's log (stderr) goes to a file, shown only when the test failed: a passing
  // suite stays readable, a failing one shows what the server saw.
  ~ServerProcess() {
    stop();
    if (::testing::Test::HasFailure()) {
      std::FILE* log = std::fopen(log_path_.c_str(), "r");
      if (log != nullptr) {
        std::fprintf(stderr, "--- mongostore serve log ---\n");
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, log)) > 0) std::fwrite(buf, 1, n, stderr);
        std::fclose(log);
      }
    }
    std::remove(log_path_.c_str());
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  /// What the server wrote to stderr so far.
  std::string log() const {
    std::string out;
    if (std::FILE* f = std::fopen(log_path_.c_str(), "r")) {
      char buf[4096];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
      std::fclose(f);
    }
    return out;
  }
  /// Waits for the server to exit by itself and returns waitpid's status.
  int wait_exit() {
    if (!exit_status_ && pid_ > 0) {
      int status = 0;
      waitpid(pid_, &status, 0);
      exit_status_ = status;
    }
    return exit_status_.value_or(-1);
  }
  /// Whether the server process has exited by itself (reaps it; stop() then returns its
  /// status).
  bool exited() {
    if (pid_ <= 0) return true;
    if (exit_status_) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) exit_status_ = status;
    return exit_status_.has_value();
  }
  /// A MongoDB URI naming this server.
  std::string uri(const std::string& options = "") const {
    return "mongodb://" + host_ + ":" + std::to_string(port_) + "/" +
           (options.empty() ? "" : "?" + options);
  }
  /// Sends SIGTERM and returns the exit status (waitpid's), or -1 if already stopped.
  int stop(int signal = SIGTERM) {
    if (pid_ <= 0) return -1;
    int status = 0;
    if (exit_status_) {
      status = *exit_status_;
    } else {
      kill(pid_, signal);
      waitpid(pid_, &status, 0);
    }
    if (WIFSIGNALED(status)) {
      // libmongoc keeps its counters in /dev/shm/mongoc-<pid> and removes the file at exit; a
      // killed server leaves it behind, and a later process that gets the same pid then finds
      // it taken and prints a warning into its stderr (which breaks one-line CLI errors).
      std::string counters = "/dev/shm/mongoc-" + std::to_string(pid_);
      ::unlink(counters.c_str());
    }
    pid_ = -1;
    if (stdout_) std::fclose(stdout_);
    stdout_ = nullptr;
    return status;
  }

 private:
  pid_t pid_ = -1;
  FILE* stdout_ = nullptr;
  std::string host_ = "127.0.0.1";
  int port_ = 0;
  std::string log_path_;
  std::optional<int> exit_status_;
};

}  // namespace mongostore::testing
