// Running the real `mongostore` binary (testing::tool_path(), support/test_paths.h) from
// a test: its exit status and what it printed on stdout and stderr.
//
//   testing::TempDir dir;
//   testing::ToolOutput o = testing::run_tool(dir, "records layout --data " + dir.sub("data"));
//   EXPECT_EQ(o.status, 0) << o.err;
//
// The output goes through files in the test's TempDir (a pipe could fill while the tool
// still runs). Not thread-safe for one TempDir (the files are reused).
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support/temp_dir.h"
#include "support/test_paths.h"

namespace mongostore::testing {

struct ToolOutput {
  int status = -1;  // the exit status; -1 when the tool did not exit normally
  std::string out, err;
};

/// The whole content of the file at `path` ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs `mongostore ARGS` through the shell, its stdout and stderr captured in `dir`.
inline ToolOutput run_tool(const TempDir& dir, const std::string& args) {
  std::string out = dir.sub("stdout"), err = dir.sub("stderr");
  std::string command = std::string(tool_path()) + " " + args + " >" + out + " 2>" + err;
  int status = std::system(command.c_str());
  return ToolOutput{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

}  // namespace mongostore::testing
