// BenchArgs: the `--name VALUE` and `--flag` command lines the benchmarks take, declared once
// per program instead of an if-chain per program.
//
//   Args a;
//   BenchArgs args;
//   args.option("--trials", &a.trials).option("--part", &a.parts).flag("--no-remote", &a.remote,
//   false); if (!args.parse(argc, argv)) return 1;
//
// A numeric value is read with std::stoi / std::stoll (a malformed one throws, ending the
// benchmark). An option without its value prints "<option> needs a value" and exits 1; an
// unknown option prints "unknown option <arg>" and parse returns false. Not thread-safe (a
// main() helper).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

class BenchArgs {
 public:
  BenchArgs& option(std::string name, std::string* target) {
    return add(std::move(name), true, [target](const std::string& v) { *target = v; });
  }
  BenchArgs& option(std::string name, int* target) {
    return add(std::move(name), true, [target](const std::string& v) { *target = std::stoi(v); });
  }
  BenchArgs& option(std::string name, int64_t* target) {
    return add(std::move(name), true, [target](const std::string& v) { *target = std::stoll(v); });
  }
  /// A flag without a value: sets `*target` to `value`.
  BenchArgs& flag(std::string name, bool* target, bool value) {
    return add(std::move(name), false, [target, value](const std::string&) { *target = value; });
  }

  /// Applies argv[1..] in order. False (after printing why) for an unknown option.
  bool parse(int argc, char** argv) const {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      const Option* found = nullptr;
      for (const Option& o : options_) {
        if (o.name == arg) found = &o;
      }
      if (found == nullptr) {
        fmt::print(stderr, "unknown option {}\n", arg);
        return false;
      }
      std::string value;
      if (found->takes_value) {
        if (i + 1 >= argc) {
          fmt::print(stderr, "{} needs a value\n", arg);
          std::exit(1);
        }
        value = argv[++i];
      }
      found->apply(value);
    }
    return true;
  }

 private:
  struct Option {
    std::string name;
    bool takes_value;
    std::function<void(const std::string&)> apply;
  };
  std::vector<Option> options_;

  BenchArgs& add(std::string name, bool takes_value,
                 std::function<void(const std::string&)> apply) {
    options_.push_back({std::move(name), takes_value, std::move(apply)});
    return *this;
  }
};
