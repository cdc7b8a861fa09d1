// MongoDB's unified-format specification tests, one gtest case per spec file: the CRUD files
// embedded and through `mongostore serve`, the transactions files through `mongostore serve`
// (a one-member replica set, with --enableTestCommands for the failCommand fail point).
//
// Each test of a file is passed, failed (ADD_FAILURE with its description and the mismatch)
// or skipped with a reason (see runner.h). The totals and a tally of skip reasons are printed
// at the end; with $MONGOSTORE_SPEC_REPORT set they are also written there as markdown.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "client/remote_client.h"
#include "mongostore/error.h"
#include "spec/runner.h"
#include "spec/serve_target.h"
#include "support/server_process.h"

namespace mongostore::spec {
namespace {

/// How many spec files this binary was instantiated with (0 when the data is missing).
size_t g_file_count = 0;

std::vector<FileResult>& all_results() {
  static std::vector<FileResult> results;
  return results;
}

/// The same files run through `mongostore serve` with the remote (libmongoc) client.
std::vector<FileResult>& all_server_results() {
  static std::vector<FileResult> results;
  return results;
}

/// The transactions files, through `mongostore serve`.
std::vector<FileResult>& all_transactions_results() {
  static std::vector<FileResult> results;
  return results;
}

struct Totals {
  int passed = 0, failed = 0, skipped = 0;
};
Totals totals_of(const std::vector<FileResult>& results) {
  Totals t;
  for (const auto& f : results) {
    t.passed += f.count(Status::kPassed);
    t.failed += f.count(Status::kFailed) + (f.error.empty() ? 0 : 1);
    t.skipped += f.count(Status::kSkipped);
  }
  return t;
}

/// Skip reasons of `r` by how often they occur, most frequent first.
std::vector<std::pair<std::string, int>> tally(const std::vector<const FileResult*>& files) {
  std::map<std::string, int> counts;
  for (const auto* f : files) {
    for (const auto& t : f->tests) {
      if (t.status == Status::kSkipped) ++counts[t.detail];
    }
  }
  std::vector<std::pair<std::string, int>> out(counts.begin(), counts.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

std::string main_skip_reason(const FileResult& f) {
  auto reasons = tally({&f});
  return reasons.empty() ? std::string() : reasons.front().first;
}

std::string escape_cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

/// The transactions files' totals, per file and by skip reason.
void print_transactions_totals() {
  const auto& results = all_transactions_results();
  if (results.empty()) return;
  Totals t = totals_of(results);
  std::cout << "\ntransactions spec tests through mongostore serve: " << t.passed << " passed, "
            << t.failed << " failed, " << t.skipped << " skipped (" << results.size()
            << " files)\n";
  std::vector<const FileResult*> files;
  for (const auto& f : results) {
    files.push_back(&f);
    std::cout << "  " << f.file << ": " << f.count(Status::kPassed) << " passed, "
              << f.count(Status::kFailed) + (f.error.empty() ? 0 : 1) << " failed, "
              << f.count(Status::kSkipped) << " skipped\n";
  }
  std::cout << "transactions skip reasons:\n";
  for (const auto& [reason, n] : tally(files)) std::cout << "  " << n << "  " << reason << "\n";
  std::cout << std::flush;
}

class ReportEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    const auto& results = all_results();
    if (results.empty()) {
      print_transactions_totals();
      return;
    }
    int passed = 0, failed = 0, skipped = 0;
    std::vector<const FileResult*> files;
    for (const auto& f : results) {
      files.push_back(&f);
      passed += f.count(Status::kPassed);
      failed += f.count(Status::kFailed) + (f.error.empty() ? 0 : 1);
      skipped += f.count(Status::kSkipped);
    }
    auto reasons = tally(files);
    std::string totals = "spec tests: " + std::to_string(passed) + " passed, " +
                         std::to_string(failed) + " failed, " + std::to_string(skipped) +
                         " skipped (" + std::to_string(results.size()) + " files)";
    std::string server_totals;
    if (!all_server_results().empty()) {
      Totals t = totals_of(all_server_results());
      server_totals = "through mongostore serve (remote client): " + std::to_string(t.passed) +
                      " passed, " + std::to_string(t.failed) + " failed, " +
                      std::to_string(t.skipped) + " skipped (" +
                      std::to_string(all_server_results().size()) + " files)";
    }
    std::cout << "\n" << totals << "\n" << server_totals << "\nskip reasons:\n";
    for (const auto& [reason, n] : reasons) std::cout << "  " << n << "  " << reason << "\n";
    print_transactions_totals();
    std::cout << std::flush;

    const char* report = std::getenv("MONGOSTORE_SPEC_REPORT");
    if (!report || !*report) return;
    if (results.size() != g_file_count) {
      // ctest runs one file per process: a partial run must not overwrite a full report.
      std::cout << "not writing " << report << ": only " << results.size() << " of " << g_file_count
                << " spec files ran in this process" << std::endl;
      return;
    }
    std::ofstream out(report);
    out << "# MongoDB unified CRUD spec tests\n\n" << totals << "\n\n";
    if (!server_totals.empty()) out << server_totals << "\n\n";
    out << "## Skip reasons\n\n| count | reason |\n|---:|---|\n";
    for (const auto& [reason, n] : reasons)
      out << "| " << n << " | " << escape_cell(reason) << " |\n";
    out << "\n## Files\n\n| file | passed | failed | skipped | main skip reason |\n"
        << "|---|---:|---:|---:|---|\n";
    for (const auto& f : results) {
      out << "| " << f.file << " | " << f.count(Status::kPassed) << " | "
          << f.count(Status::kFailed) + (f.error.empty() ? 0 : 1) << " | "
          << f.count(Status::kSkipped) << " | " << escape_cell(main_skip_reason(f)) << " |\n";
    }
    out << "\n## Known gaps (failing, reported as skipped)\n\n";
    bool gaps = false;
    for (const auto& f : results) {
      for (const auto& t : f.tests) {
        if (t.status == Status::kSkipped && t.detail.starts_with("known gap: ")) {
          out << "- **" << f.file << "** — " << escape_cell(t.description) << ": "
              << escape_cell(t.detail.substr(11)) << "\n";
          gaps = true;
        }
        if (t.stale_known_gap) {
          out << "- **" << f.file << "** — " << escape_cell(t.description)
              << ": passes now; remove it from known_gaps.cc\n";
          gaps = true;
        }
      }
    }
    if (!gaps) out << "None.\n";
    out << "\n## Failures\n\n";
    bool any = false;
    for (const auto& f : results) {
      if (!f.error.empty()) {
        out << "- **" << f.file << "**: " << escape_cell(f.error) << "\n";
        any = true;
      }
      for (const auto& t : f.tests) {
        if (t.status != Status::kFailed) continue;
        out << "- **" << f.file << "** — " << escape_cell(t.description) << ": "
            << escape_cell(t.detail) << "\n";
        any = true;
      }
    }
    if (!any) out << "None.\n";
  }
};

[[maybe_unused]] ::testing::Environment* const kReportEnvironment =
    ::testing::AddGlobalTestEnvironment(new ReportEnvironment);

std::string g_missing_reason;

/// The spec files to run; a single empty entry when the data is absent (the test then skips).
std::vector<std::string> spec_files() {
  std::string dir = specs_dir(&g_missing_reason);
  if (dir.empty()) return {""};
  auto files = list_spec_files(dir + "/crud");
  if (files.empty()) {
    g_missing_reason = "no *.json files in " + dir + "/crud";
    return {""};
  }
  g_file_count = files.size();
  return files;
}

std::string g_transactions_missing_reason;

/// The transactions spec files; a single empty entry when the data is absent.
std::vector<std::string> transactions_files() {
  std::string dir = specs_dir(&g_transactions_missing_reason);
  if (dir.empty()) return {""};
  auto files = list_spec_files(dir + "/transactions");
  if (files.empty()) {
    g_transactions_missing_reason = "no *.json files in " + dir + "/transactions";
    return {""};
  }
  return files;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  if (info.param.empty()) return "SpecsMissing";
  std::string base = info.param.substr(info.param.find_last_of('/') + 1);
  if (base.size() > 5 && base.ends_with(".json")) base.resize(base.size() - 5);
  std::string name;
  for (char c : base) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

// One server per spec file; each test gets the same remote client with every database
// dropped first, so it starts as empty as a fresh embedded client.
ClientFactory server_client_factory(testing::ServerProcess& server) {
  auto client = client::connect(server.uri());
  return [client] {
    for (const std::string& db : client->list_database_names()) client->drop_database(db);
    return client;
  };
}

void report(const FileResult& result);

class SpecFile : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecFile, Run) {
  if (GetParam().empty()) {
    std::cout << g_missing_reason << std::endl;
    GTEST_SKIP() << g_missing_reason;
  }
  FileResult result = run_spec_file(GetParam());
  all_results().push_back(result);
  report(result);
}

class SpecFileThroughServer : public ::testing::TestWithParam<std::string> {};

TEST_P(SpecFileThroughServer, Run) {
  if (GetParam().empty()) GTEST_SKIP() << g_missing_reason;
  testing::ServerProcess server;
  FileResult result = run_spec_file(GetParam(), server_client_factory(server));
  all_server_results().push_back(result);
  report(result);
}

void report(const FileResult& result) {
  if (!result.error.empty()) {
    ADD_FAILURE() << result.file << ": " << result.error;
    return;
  }
  int passed = result.count(Status::kPassed);
  int failed = result.count(Status::kFailed);
  int skipped = result.count(Status::kSkipped);
  std::cout << "[spec] " << result.file << ": " << passed << " passed, " << failed << " failed, "
            << skipped << " skipped\n";
  for (const auto& t : result.tests) {
    if (t.status == Status::kFailed) {
      ADD_FAILURE() << result.file << " — \"" << t.description << "\": " << t.detail;
    } else if (t.status == Status::kSkipped) {
      std::cout << "    skipped \"" << t.description << "\": " << t.detail << "\n";
    }
    if (t.stale_known_gap) {
      std::cout << "    NOTE: \"" << t.description
                << "\" passes but is listed in known_gaps.cc; remove the entry\n";
    }
  }
  std::cout << std::flush;
  if (passed == 0 && failed == 0) {
    GTEST_SKIP() << (skipped == 0 ? std::string("no tests in file") : main_skip_reason(result));
  }
}

// The transactions files: through a serve with fail points, in replica-set topology. Every
// client entity is a remote client of its own whose commands are observed (expectEvents).
// One server for all the files (starting one costs most of a second): each test starts from
// dropped databases, switches its fail points off and ends its sessions.
class TransactionsSpecFileThroughServer : public ::testing::TestWithParam<std::string> {
 public:
  static void SetUpTestSuite() {
    server_ = new testing::ServerProcess({"--memory", "--enableTestCommands"});
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

 protected:
  static testing::ServerProcess* server_;
};
testing::ServerProcess* TransactionsSpecFileThroughServer::server_ = nullptr;

TEST_P(TransactionsSpecFileThroughServer, Run) {
  if (GetParam().empty()) GTEST_SKIP() << g_transactions_missing_reason;
  testing::ServerProcess& server = *server_;
  Target target = serve_target(server);
  FileResult result = run_spec_file(GetParam(), target);
  all_transactions_results().push_back(result);
  report(result);
}

INSTANTIATE_TEST_SUITE_P(Crud, SpecFile, ::testing::ValuesIn(spec_files()), test_name);
INSTANTIATE_TEST_SUITE_P(Crud, SpecFileThroughServer, ::testing::ValuesIn(spec_files()), test_name);
INSTANTIATE_TEST_SUITE_P(Transactions, TransactionsSpecFileThroughServer,
                         ::testing::ValuesIn(transactions_files()), test_name);

}  // namespace
}  // namespace mongostore::spec
