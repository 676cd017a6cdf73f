// The daemon's device discovery in a child process (service/daemon/worker/discovery_child.h): what
// the child found comes back whole, and a discovery that hangs, crashes or exits without an answer
// costs the daemon a bounded wait and an error naming what happened, never the daemon itself.
#include "service/daemon/worker/discovery_child.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "pipeline/core/fd.h"

namespace tc::daemon {
namespace {

using std::chrono::milliseconds;

TEST(DiscoveryChild, HandsBackWhatTheChildFound) {
  pid_t daemon = getpid();
  Result<HwInventory> found = discover_in_child(
      [] {
        HwInventory inventory;
        HwDevice device;
        device.path = "/dev/dri/renderD128";
        device.driver = "i915";
        device.vendor = "Intel iHD driver";
        device.decode[AV_CODEC_ID_HEVC] = 10;
        device.encode[AV_CODEC_ID_H264].low_power = true;
        device.can_scale = true;
        inventory.devices.push_back(device);
        inventory.notes.push_back("found by " + std::to_string(getpid()));
        return inventory;
      },
      milliseconds(30000));
  ASSERT_TRUE(found.is_ok()) << found.status().message();
  ASSERT_EQ(found->devices.size(), 1u);
  const HwDevice& device = found->devices[0];
  EXPECT_EQ(device.path, "/dev/dri/renderD128");
  EXPECT_EQ(device.vendor, "Intel iHD driver");
  EXPECT_TRUE(device.decodes(AV_CODEC_ID_HEVC, 10));
  EXPECT_TRUE(device.encode.at(AV_CODEC_ID_H264).low_power);
  EXPECT_TRUE(device.can_scale);
  ASSERT_EQ(found->notes.size(), 1u);
  EXPECT_NE(found->notes[0], "found by " + std::to_string(daemon)) << "it ran in the daemon";
}

// A driver that never returns (a wedged GPU's cuInit or ioctl): stopped at the timeout, and the
// child is gone, not left behind holding the device. The timeout is long enough for the child to
// say who it is first on a loaded machine; the child's hang ends with SIGALRM after 120 s, so a
// timeout that does not work fails the test ("died of signal 14") instead of hanging it.
TEST(DiscoveryChild, AHungDiscoveryIsStoppedAtItsTimeout) {
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  ScopedFd from_child(ends[0]);
  ScopedFd to_parent(ends[1]);
  Result<HwInventory> found = discover_in_child(
      [&to_parent]() -> HwInventory {
        alarm(120);
        pid_t self = getpid();
        write_all(to_parent.get(), std::string_view(reinterpret_cast<char*>(&self), sizeof self));
        for (;;) pause();
      },
      milliseconds(2000));
  to_parent.reset();  // a child that never wrote: read() sees the end, not a wait forever
  ASSERT_FALSE(found.is_ok());
  EXPECT_EQ(found.status().code(), Code::kDevice);
  EXPECT_NE(found.status().message().find("did not finish within 2 s"), std::string::npos)
      << found.status().message();
  pid_t child = 0;
  ASSERT_EQ(read(from_child.get(), &child, sizeof child), ssize_t(sizeof child));
  EXPECT_EQ(kill(child, 0), -1) << "the hung child " << child << " is still there";
  EXPECT_EQ(errno, ESRCH);
}

TEST(DiscoveryChild, ACrashedDiscoveryIsNamedBySignal) {
  Result<HwInventory> found =
      discover_in_child([]() -> HwInventory { std::abort(); }, milliseconds(30000));
  ASSERT_FALSE(found.is_ok());
  EXPECT_EQ(found.status().code(), Code::kDevice);
  EXPECT_NE(found.status().message().find("died of signal 6 (SIGABRT)"), std::string::npos)
      << found.status().message();
}

TEST(DiscoveryChild, AnExitWithoutAnInventoryIsAnError) {
  Result<HwInventory> found =
      discover_in_child([]() -> HwInventory { _exit(3); }, milliseconds(30000));
  ASSERT_FALSE(found.is_ok());
  EXPECT_NE(found.status().message().find("exited with status 3"), std::string::npos)
      << found.status().message();
}

}  // namespace
}  // namespace tc::daemon
