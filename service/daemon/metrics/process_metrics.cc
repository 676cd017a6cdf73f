#include "service/daemon/metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace tc::daemon {
namespace {

// The fields of /proc/self/stat after "pid (comm)": comm may hold spaces and parentheses, so
// the split starts after the last ')'. fields[0] is field 3 of proc(5), "state".
std::vector<std::string> stat_fields(const std::string& proc) {
  std::ifstream in(proc + "/self/stat");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> fields;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

// proc(5) numbers its fields from 1; stat_fields starts at field 3.
double field(const std::vector<std::string>& fields, size_t number) {
  return std::stod(fields.at(number - 3));
}

std::optional<double> boot_time_seconds(const std::string& proc) {
  std::ifstream in(proc + "/stat");
  for (std::string key; in >> key;) {
    if (key == "btime") {
      double seconds = 0;
      if (in >> seconds) return seconds;
      return std::nullopt;
    }
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return std::nullopt;
}

double open_fds(const std::string& proc) {
  std::error_code error;
  double count = 0;
  for (std::filesystem::directory_iterator it(proc + "/self/fd", error), end; !error && it != end;
       it.increment(error))
    ++count;
  return count;
}

}  // namespace

std::optional<ProcessStats> read_process_stats(const std::string& proc) {
  std::vector<std::string> fields = stat_fields(proc);
  std::optional<double> boot = boot_time_seconds(proc);
  if (fields.size() < 22 || !boot) return std::nullopt;
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  ProcessStats stats;
  try {
    stats.cpu_seconds = (field(fields, 14) + field(fields, 15)) / ticks;  // utime + stime
    stats.start_time_seconds = *boot + field(fields, 22) / ticks;
    stats.virtual_bytes = field(fields, 23);
    stats.resident_bytes = field(fields, 24) * page;
  } catch (const std::exception&) {  // std::stod on a malformed file
    return std::nullopt;
  }
  stats.open_fds = open_fds(proc);
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) stats.max_fds = static_cast<double>(limit.rlim_cur);
  return stats;
}

}  // namespace tc::daemon
