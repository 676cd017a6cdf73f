// The worker's address-space cap and the CUDA job that lifts it (service/daemon/worker/
// address_cap.h). Each case runs in a forked child: the cap is process-wide.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

#include "service/daemon/worker/address_cap.h"

namespace tc::daemon {
namespace {

constexpr size_t kGiB = size_t{1} << 30;

// What CUDA's cuInit does first: reserve a large range of address space, using no memory.
bool can_reserve(size_t bytes) {
  void* range = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) return false;
  munmap(range, bytes);
  return true;
}

// The child's exit code: 0 when `check` held, else the number of the failed step.
int in_child(const std::function<int()>& check) {
  pid_t pid = fork();
  if (pid == 0) _exit(check());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

JobSpec placed_on(BackendKind backend) {
  JobSpec spec;
  spec.backend = backend;
  return spec;
}

TEST(AddressCap, ACudaJobLiftsTheCapThatWouldStopItsDeviceFromStarting) {
  EXPECT_EQ(in_child([] {
              if (!can_reserve(4 * kGiB)) return 1;  // the test machine itself allows it
              cap_address_space(1024);
              if (can_reserve(4 * kGiB)) return 2;  // capped: the reservation fails
              if (!lift_address_cap_for(placed_on(BackendKind::kCuda))) return 3;
              if (!can_reserve(4 * kGiB)) return 4;  // lifted: it succeeds
              return 0;
            }),
            0);
}

TEST(AddressCap, OtherJobsRunUnderTheCap) {
  for (BackendKind backend : {BackendKind::kSoftware, BackendKind::kVaapi, BackendKind::kVulkan,
                              BackendKind::kQsv, BackendKind::kAuto}) {
    EXPECT_EQ(in_child([backend] {
                cap_address_space(1024);
                if (lift_address_cap_for(placed_on(backend))) return 1;
                rlimit as{};
                getrlimit(RLIMIT_AS, &as);
                if (as.rlim_cur != rlim_t{1024} * 1024 * 1024) return 2;
                return can_reserve(4 * kGiB) ? 3 : 0;
              }),
              0)
        << name_of(backend);
  }
}

TEST(AddressCap, NoCapNothingToLift) {
  EXPECT_EQ(in_child([] {
              cap_address_space(0);  // worker_memory_mb 0: no cap, so the worker need not end
              return lift_address_cap_for(placed_on(BackendKind::kCuda)) ? 1 : 0;
            }),
            0);
}

}  // namespace
}  // namespace tc::daemon
