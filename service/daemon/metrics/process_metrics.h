// The daemon process's own figures under the names every Prometheus client library exports
// (process_cpu_seconds_total, process_resident_memory_bytes, ...), read from /proc at scrape
// time: prometheus-cpp has no process collector.
#pragma once

#include <optional>
#include <string>

namespace tc::daemon {

struct ProcessStats {
  double cpu_seconds = 0;  // user + system
  double resident_bytes = 0;
  double virtual_bytes = 0;
  double open_fds = 0;
  double max_fds = 0;             // the soft RLIMIT_NOFILE
  double start_time_seconds = 0;  // since the Unix epoch
};

// This process's stats; nullopt when /proc cannot be read (then the families are left out).
// `proc` is the /proc mount, a parameter for tests.
std::optional<ProcessStats> read_process_stats(const std::string& proc = "/proc");

}  // namespace tc::daemon
