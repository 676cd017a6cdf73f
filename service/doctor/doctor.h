// `transcode doctor`: what a GPU node (or a container on one) needs for VA-API transcoding,
// checked one piece at a time, each with what was seen and, when it fails, what to do. A library
// so that the daemon runs the same checks at start-up. Every path it reads is under a root that
// tests replace with a fake tree; the environment and the process's groups are given, not read.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pipeline/hw/devices.h"

namespace tc::doctor {

enum class CheckStatus { kPass, kFail, kSkip };
std::string_view status_name(CheckStatus status);  // "pass", "fail", "skip"

struct Check {
  std::string name;     // "render-node", "va-driver", ...
  std::string subject;  // what it looked at: "/dev/dri/renderD128", "h264"; may be empty
  CheckStatus status = CheckStatus::kSkip;
  std::string seen;  // what was found (for a skip: why it does not apply)
  std::string fix;   // what to do; set for every failure
};

struct Roots {
  std::string dev = "/dev";  // render nodes under dev/dri
  std::string sys = "/sys";
  std::string proc = "/proc";
  std::string debugfs = "/sys/kernel/debug";
};

// Who the checks run as: a node is usable when these may read and write it.
struct Identity {
  uid_t uid = 0;
  std::vector<gid_t> groups;  // the effective group and the supplementary ones
};
Identity this_process();

struct Options {
  Roots roots;
  Identity identity = this_process();
  // The environment the VA driver is chosen from (LIBVA_DRIVER_NAME).
  std::map<std::string, std::string> env;
  // The VA-API devices under dev/dri; discover_devices by default, a hand-made one in tests.
  std::function<HwInventory(const std::string& dri_dir)> discover;
  bool test_transcode = true;  // the one-second transcodes (seconds each; not at daemon start)
  std::string temp_dir = "/tmp";
};

// The environment variables the checks look at, from this process's environment.
std::map<std::string, std::string> process_env();

struct Report {
  std::vector<Check> checks;
  bool no_device = false;  // no render node at all: nothing else could be checked

  bool passed() const;  // every check that applies passed
  int exit_code() const;
};

// Every check, in the order a person would fix them.
Report run_doctor(const Options& options);

// The checks that need no test transcode, on devices already discovered (the daemon's).
Report quick_doctor(const Options& options, const HwInventory& inventory);

std::string format_table(const Report& report);
std::string report_to_json(const Report& report);

// ---- The single checks, for tests and for run_doctor ----

// Whether `identity` may open a node with this owner, group and mode for reading and writing.
bool may_read_write(const Identity& identity, uid_t owner, gid_t group, mode_t mode);

// DRM fdinfo text of an open render node: pass when it has engine counters.
Check fdinfo_from_text(const std::string& node, const std::string& text);

}  // namespace tc::doctor
