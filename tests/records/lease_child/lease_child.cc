// The second process of the lease tests (tests/records/lease_processes_test.cc): a
// RecordStore on `mongostore serve`, driven line by line on stdin, answering on stdout.
//
//   records_lease_child URI DATABASE STALE_MS txn|degraded
//
// It opens the store (its own lease owner, identity caches and clock guard, as any process)
// and prints "ready". Then, per command line:
//   save NAME        saves Author{NAME}: "ok <sid>"
//   hold             opens a transaction() scope holding one writer lease, saves an author,
//                    prints "holding", then saves one more author about every 20 ms (each
//                    save renews the lease's heartbeat, as a long transaction does) until
//                    the line "release" comes: the scope commits, "ok <saves>"
//   fsck [force]     RecordStore::fsck (known_types: Author): "ok <generation>"
//   fsck-slow [force]  the same, but the first progress report prints "fsck-running" and
//                    blocks until the line "continue" comes (an fsck that stalls while
//                    holding the fsck lease)
//   quit             exits 0
// A command that throws answers "err <class> <code> <code name> <message>" (class:
// StoreLockedError, LeaseLostError or Error). End of input ends the process normally (a parent
// that died takes its child with it), also in the middle of `hold` (the transaction aborts) or
// `fsck-slow`.
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mongostore/error.h"
#include "mongostore/records/errors.h"
#include "mongostore/records/record_store.h"
#include "records/record_types.h"

namespace {

using namespace mongostore;
using namespace mongostore::records;
using mongostore::records::testing::Author;

// Thrown at end of input: unwinds whatever runs (a transaction aborts, an fsck releases its
// lease) and ends the process normally, so the sanitizers' exit checks run.
struct EndOfInput {};

// Lines from stdin, read with poll so `hold` can keep saving between commands.
class LineReader {
 public:
  // The next line; std::nullopt after `timeout` without one; EndOfInput at end of input.
  std::optional<std::string> next(std::chrono::milliseconds timeout) {
    for (;;) {
      auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      pollfd p{STDIN_FILENO, POLLIN, 0};
      int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
      if (ready == 0) return std::nullopt;
      if (ready < 0) continue;  // EINTR
      char chunk[256];
      ssize_t got = ::read(STDIN_FILENO, chunk, sizeof chunk);
      if (got <= 0) throw EndOfInput{};  // the parent closed it, or is gone
      buffer_.append(chunk, static_cast<size_t>(got));
    }
  }
  std::string next() { return *next(std::chrono::milliseconds(-1)); }

 private:
  std::string buffer_;
};

void say(const std::string& line) {
  std::string out = line + "\n";
  if (::write(STDOUT_FILENO, out.data(), out.size()) < 0) std::_Exit(3);
}

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

// "err <class> <code> <code name> <message>"
std::string failure(const char* kind, const Error& e) {
  return std::string("err ") + kind + " " + std::to_string(e.code()) + " " +
         std::string(e.code_name()) + " " + one_line(e.what());
}

FsckOptions fsck_options(const std::string& args) {
  FsckOptions o;
  o.force = args.find("force") != std::string::npos;
  o.known_types = {schema_of<Author>()};
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s URI DATABASE STALE_MS txn|degraded\n", argv[0]);
    return 2;
  }
  LineReader in;
  try {
    RecordStoreOptions options;
    options.database = argv[2];
    options.lease_stale_after = std::chrono::milliseconds(std::atoll(argv[3]));
    options.transactions =
        std::string(argv[4]) == "txn" ? TransactionMode::kRequire : TransactionMode::kNever;
    options.families = std::vector<EntryFamily>{};  // none: it saves plain records
    options.warn = [](std::string_view) {};         // degraded mode's notice would be noise here
    RecordStore store = RecordStore::connect(argv[1], options);
    say("ready");
    for (;;) {
      std::string line = in.next();
      std::string command = line.substr(0, line.find(' '));
      std::string args = line.size() > command.size() ? line.substr(command.size() + 1) : "";
      try {
        if (command == "save") {
          say("ok " + std::to_string(store.save(Author{args, std::nullopt})));
        } else if (command == "hold") {
          int saves = 0;
          store.transaction([&](RecordStore& s) {
            s.save(Author{"held-" + std::to_string(saves++), std::nullopt});
            say("holding");
            while (in.next(std::chrono::milliseconds(20)) != "release") {
              s.save(Author{"held-" + std::to_string(saves++), std::nullopt});
            }
          });
          say("ok " + std::to_string(saves));
        } else if (command == "fsck" || command == "fsck-slow") {
          FsckOptions o = fsck_options(args);
          bool stalled = false;
          if (command == "fsck-slow") {
            o.progress = [&](const FsckProgress&) {
              if (stalled) return;
              stalled = true;
              say("fsck-running");
              while (in.next() != "continue") {
              }
            };
          }
          say("ok " + std::to_string(store.fsck(o).generation()));
        } else if (command == "quit") {
          return 0;
        } else {
          say("err Usage 0 BadValue unknown command: " + one_line(line));
        }
      } catch (const LeaseLostError& e) {
        say(failure("LeaseLostError", e));
      } catch (const StoreLockedError& e) {
        say(failure("StoreLockedError", e));
      } catch (const Error& e) {
        say(failure("Error", e));
      }
    }
  } catch (const EndOfInput&) {
    return 0;
  } catch (const std::exception& e) {
    say("fatal " + one_line(e.what()));
    return 1;
  }
}
