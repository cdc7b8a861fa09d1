// ServerChild: a `mongostore serve` child process for the benchmarks that go through the wire
// protocol. Header-only: each benchmark is one executable.
#pragma once

#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace mongostore::bench {

/// Starts `tool serve --port 0 <args>` and reads "listening on HOST:PORT" from its stdout
/// (printed because stdout is a pipe). SIGTERM and wait on destruction.
class ServerChild {
 public:
  ServerChild(const std::string& tool, std::vector<std::string> args) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      int null_fd = ::open("/dev/null", O_WRONLY);
      if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
      close(out[0]);
      close(out[1]);
      std::vector<std::string> strings = {tool, "serve", "--port", "0"};
      strings.insert(strings.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& s : strings) argv.push_back(s.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    stdout_ = fdopen(out[0], "r");
    char line[256];
    while (std::fgets(line, sizeof line, stdout_) != nullptr) {
      std::string text(line);
      auto at = text.find("listening on ");
      if (at == std::string::npos) continue;
      auto colon = text.rfind(':');
      port_ = std::stoi(text.substr(colon + 1));
      host_ = text.substr(at + 13, colon - at - 13);
      return;
    }
    throw std::runtime_error("`" + tool + " serve` exited before listening (use --tool PATH)");
  }
  ~ServerChild() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    if (stdout_) std::fclose(stdout_);
  }
  ServerChild(const ServerChild&) = delete;
  ServerChild& operator=(const ServerChild&) = delete;
  std::string uri() const { return fmt::format("mongodb://{}:{}/", host_, port_); }

 private:
  pid_t pid_ = -1;
  FILE* stdout_ = nullptr;
  std::string host_ = "127.0.0.1";
  int port_ = 0;
};

}  // namespace mongostore::bench
