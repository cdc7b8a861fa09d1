// Every command's `--help` is complete: the tool's command tree is walked from `mongostore
// --help` (each "Subcommands:" section), and for every command `--help` exits 0, says what the
// command does, and describes every option and positional it lists.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"
#include "support/tool_run.h"

namespace mongostore::tool {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// CLI11 prints an item's name in a 30-column field and its description after it (on the next
// line, indented by 30, when the name is longer).
constexpr size_t kColumn = 30;

bool described(const std::vector<std::string>& lines, size_t i) {
  const std::string& line = lines[i];
  if (line.size() > kColumn && line[kColumn - 1] == ' ' && line[kColumn] != ' ') return true;
  return i + 1 < lines.size() && lines[i + 1].size() > kColumn &&
         lines[i + 1].compare(0, kColumn, std::string(kColumn, ' ')) == 0;
}

TEST(ToolHelp, EveryCommandDescribesItselfAndEveryOption) {
  testing::TempDir dir;
  std::vector<std::string> pending = {""};
  size_t commands = 0;
  while (!pending.empty()) {
    std::string command = pending.back();
    pending.pop_back();
    testing::ToolOutput o = testing::run_tool(dir, command + " --help");
    ASSERT_EQ(o.status, 0) << command << o.err;
    ++commands;
    std::vector<std::string> lines = lines_of(o.out);
    ASSERT_FALSE(lines.empty()) << command;
    EXPECT_FALSE(lines[0].empty() || lines[0].rfind("Usage:", 0) == 0)
        << "'" << command << "' has no description:\n"
        << o.out;
    std::string section;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      if (!line.empty() && line.back() == ':' && line[0] != ' ') {
        section = line;
        continue;
      }
      if (line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ') continue;
      if (section != "Options:" && section != "Positionals:" && section != "Subcommands:") {
        continue;
      }
      EXPECT_TRUE(described(lines, i))
          << "'" << command << " --help': '" << line << "' has no description";
      if (section == "Subcommands:") {
        pending.push_back(command + " " + line.substr(2, line.find(' ', 2) - 2));
      }
    }
  }
  EXPECT_GE(commands, 20u);  // the tool, its commands and their subcommands
}

}  // namespace
}  // namespace mongostore::tool
