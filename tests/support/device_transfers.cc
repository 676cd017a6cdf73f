#include "tests/support/device_transfers.h"

#include <cstdlib>
#include <fstream>

namespace tc::testing {

int64_t Transfers::total(const std::string& direction) const {
  int64_t sum = 0;
  for (const auto& [key, count] : frames)
    if (key.rfind(direction + " ", 0) == 0) sum += count;
  return sum;
}

ProcessResult run_counting_transfers(const std::vector<std::string>& argv, const TempDir& scratch,
                                     Transfers* transfers) {
  std::string log = scratch / "transfers.txt";
  // ASan insists on coming first among the preloaded libraries; the counter does not need it.
  const char* asan = std::getenv("ASAN_OPTIONS");
  std::vector<std::string> command{
      "env", std::string("LD_PRELOAD=") + TC_TRANSFER_COUNTER, "TC_TRANSFER_LOG=" + log,
      "ASAN_OPTIONS=" + std::string(asan ? asan : "") + ":verify_asan_link_order=0"};
  command.insert(command.end(), argv.begin(), argv.end());
  ProcessResult result = run_process(command);
  transfers->frames.clear();
  std::ifstream in(log);
  std::string direction, size;
  while (in >> direction >> size) ++transfers->frames[direction + " " + size];
  return result;
}

}  // namespace tc::testing
