// Device discovery paid once, not per `transcode run`: what discovery found is kept under the
// user's cache directory, keyed by everything its answer depends on (what was asked, the device
// nodes, their kernel drivers and versions, the VA-API, NVIDIA and Vulkan user-space drivers, and
// the FFmpeg and libva versions probing them). A new driver, a new FFmpeg or a device plugged in
// gives a new key, so a stale answer is never read; `--no-cache` skips the cache.
#pragma once

#include <string>
#include <vector>

#include "pipeline/hw/devices.h"

namespace tc {

// What discovery's answer depends on, one "name=value" line each. `root` prefixes every path
// read (/dev, /sys, /proc, /usr, /etc): tests fake a host under it.
std::vector<std::string> discovery_fingerprint(const DiscoveryOptions& options,
                                               const std::string& root = "");
// A short hex digest of the fingerprint: the cache file's name.
std::string fingerprint_key(const std::vector<std::string>& fingerprint);

// $XDG_CACHE_HOME/transcoded, else $HOME/.cache/transcoded; empty when neither is set.
std::string default_cache_dir();

// discover_devices(options) through the cache in `cache_dir` (made if missing). An inventory is
// kept only when it has a usable device: a device that failed to open is asked again next time.
// An unreadable or unwritable cache is skipped, never an error.
HwInventory discover_cached(const DiscoveryOptions& options, const std::string& cache_dir,
                            const std::string& root = "");

}  // namespace tc
