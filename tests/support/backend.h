// The backends every contract suite runs on: the embedded engine in memory, the embedded
// engine on a durable data directory, and the remote (libmongoc) backend talking to a real
// `mongostore serve` child process over TCP.
//
//   class MyContract : public ::testing::TestWithParam<testing::Backend> {
//     void SetUp() override { client_ = backend_.connect(GetParam()); }
//     testing::BackendHolder backend_;
//     std::shared_ptr<client::Client> client_;
//   };
//   INSTANTIATE_TEST_SUITE_P(Backends, MyContract, testing::all_backends(),
//                            testing::backend_test_name);
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "mongostore/client/client.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace mongostore::testing {

enum class Backend { kMemory, kDurable, kRemote };

inline std::string backend_name(Backend backend) {
  switch (backend) {
    case Backend::kMemory:
      return "memory";
    case Backend::kDurable:
      return "durable";
    case Backend::kRemote:
      return "remote";
  }
  return "unknown";
}

/// Every backend a contract suite must pass on.
inline auto all_backends() {
  return ::testing::Values(Backend::kMemory, Backend::kDurable, Backend::kRemote);
}

inline std::string backend_test_name(const ::testing::TestParamInfo<Backend>& info) {
  return backend_name(info.param);
}

/// Owns what a backend needs (a data directory, a server process) for one test.
class BackendHolder {
 public:
  std::shared_ptr<client::Client> connect(Backend backend) {
    switch (backend) {
      case Backend::kMemory:
        return client::connect("embedded:memory");
      case Backend::kDurable:
        return client::connect("embedded:" + dir_.sub("data"));
      case Backend::kRemote:
        server_.emplace();
        return client::connect(server_->uri());
    }
    return nullptr;
  }
  /// The server of a remote backend (e.g. to kill it); empty for embedded backends.
  ServerProcess* server() { return server_ ? &*server_ : nullptr; }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  std::optional<ServerProcess> server_;
};

}  // namespace mongostore::testing
