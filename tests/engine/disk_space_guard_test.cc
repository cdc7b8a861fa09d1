// DiskSpaceGuard with a scripted free-space probe: the write that finds less free space than
// the reserve is refused with OutOfDiskSpace, and writes resume once space is back.
#include "engine/disk_space_guard.h"

#include <gtest/gtest.h>

#include <system_error>

#include "mongostore/error.h"

namespace mongostore::engine {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

struct ScriptedDisk {
  uint64_t free_bytes = 0;
  int probes = 0;
  bool fail = false;
  DiskSpaceGuard::FreeSpaceProbe probe() {
    return [this](const std::string& path) {
      EXPECT_EQ(path, "/data");
      ++probes;
      if (fail) throw std::system_error(EIO, std::generic_category(), "statvfs");
      return free_bytes;
    };
  }
};

TEST(DiskSpaceGuard, RefusesWritesBelowTheReserveAndResumesWhenSpaceReturns) {
  ScriptedDisk disk;
  disk.free_bytes = 300 * kMiB;
  DiskSpaceGuard guard("/data", 256 * kMiB, disk.probe());
  EXPECT_NO_THROW(guard.check());
  disk.free_bytes = 200 * kMiB;  // near the line: every write looks
  try {
    guard.check();
    ADD_FAILURE() << "a write below the reserve went through";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), static_cast<int32_t>(ErrorCode::kOutOfDiskSpace));
    EXPECT_EQ(e.code_name(), "OutOfDiskSpace");
    EXPECT_NE(std::string(e.what()).find("200 MB free, below the 256 MB reserve"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(guard.check(), Error);  // still full
  disk.free_bytes = 257 * kMiB;        // space freed
  EXPECT_NO_THROW(guard.check());
}

TEST(DiskSpaceGuard, LooksAtEveryWriteNearTheLine) {
  ScriptedDisk disk;
  disk.free_bytes = 3 * 256 * kMiB;  // within four reserves
  DiskSpaceGuard guard("/data", 256 * kMiB, disk.probe());
  for (int i = 0; i < 5; ++i) guard.check();
  EXPECT_EQ(disk.probes, 5);
}

TEST(DiskSpaceGuard, NoReserveNeverLooks) {
  ScriptedDisk disk;
  DiskSpaceGuard guard("/data", 0, disk.probe());
  guard.check();
  EXPECT_EQ(disk.probes, 0);
}

TEST(DiskSpaceGuard, AProbeThatFailsLetsTheWriteThrough) {
  ScriptedDisk disk;
  disk.fail = true;
  DiskSpaceGuard guard("/data", 256 * kMiB, disk.probe());
  EXPECT_NO_THROW(guard.check());
}

TEST(DiskSpaceGuard, TheRealProbeReadsTheFilesystem) {
  EXPECT_GT(filesystem_free_bytes("/"), 0u);
  EXPECT_THROW(filesystem_free_bytes("/no/such/directory/anywhere"), std::system_error);
}

}  // namespace
}  // namespace mongostore::engine
