#include "service/daemon/policy/memory_budget.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tc::daemon {
namespace {

// "/kubepods.slice/pod1/cri-abc" from "0::/kubepods.slice/pod1/cri-abc"; "/" without that line.
std::string own_cgroup(const std::string& proc_root) {
  std::ifstream in(proc_root + "/self/cgroup");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  return "/";
}

std::optional<int64_t> read_memory_max(const std::filesystem::path& dir) {
  std::ifstream in(dir / "memory.max");
  std::string value;
  if (!(in >> value) || value == "max") return std::nullopt;
  try {
    return std::stoll(value);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string mib(int64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

}  // namespace

std::optional<int64_t> cgroup_memory_max(const std::string& cgroup_root,
                                         const std::string& proc_root) {
  std::filesystem::path root = cgroup_root;
  std::filesystem::path dir = root / std::filesystem::path(own_cgroup(proc_root)).relative_path();
  std::optional<int64_t> lowest;
  // From the own cgroup up to the root: an ancestor's limit bounds its descendants too.
  for (;;) {
    std::optional<int64_t> limit = read_memory_max(dir);
    if (limit) lowest = lowest ? std::min(*lowest, *limit) : *limit;
    if (dir == root || !dir.has_relative_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return lowest;
}

Result<std::optional<int>> memory_job_cap(long long worker_memory_mb,
                                          std::optional<int64_t> memory_max) {
  if (!memory_max || worker_memory_mb <= 0) return std::optional<int>();
  int64_t per_worker = static_cast<int64_t>(worker_memory_mb) * 1024 * 1024;
  int64_t fit = *memory_max / per_worker;
  if (fit >= 1) return std::optional<int>(static_cast<int>(std::min<int64_t>(fit, 1 << 20)));
  return Status::of_field(Code::kInvalidArgument, "worker_memory_mb",
                          "worker_memory_mb " + std::to_string(worker_memory_mb) +
                              " MiB exceeds the cgroup's memory.max " + mib(*memory_max) +
                              ": not one job fits; lower worker_memory_mb or raise the limit");
}

}  // namespace tc::daemon
