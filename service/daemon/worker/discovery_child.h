// The daemon's device discovery, run in a child process. Discovery runs the vendors' code in the
// caller's address space: libcuda (cuInit, an NVENC session per codec), a Vulkan driver, the
// VA-API driver. In the daemon, which runs no media, that code would stay: cuInit cannot be
// undone, so libcuda stayed mapped with a thread of its own; a wedged GPU can hold cuInit or a
// driver's ioctl for minutes, and a driver's crash is a signal. Either would take the daemon with
// it, before it ever served. So the daemon forks a child that discovers, writes the inventory to
// a pipe as JSON (hw/inventory_json.h, the form its workers are handed it in) and exits without
// tearing any driver down; the daemon waits for it a bounded time, then kills it.
#pragma once

#include <chrono>
#include <functional>

#include "pipeline/core/status.h"
#include "pipeline/hw/devices.h"

namespace tc::daemon {

// What `discover` returns, run in a forked child. kDevice says what went wrong instead: the
// child ran past `timeout` (it is killed), died of a signal, or exited without an inventory.
// fork() without exec: call it before the process starts a thread.
Result<HwInventory> discover_in_child(const std::function<HwInventory()>& discover,
                                      std::chrono::milliseconds timeout);

}  // namespace tc::daemon
