// A device inventory as JSON, the form it crosses a process boundary or outlives one in: the
// daemon discovers once and hands its inventory to each worker, and `transcode run` keeps what
// it discovered in a cache (hw/discovery_cache.h). Every field of HwDevice round-trips.
#pragma once

#include <nlohmann/json.hpp>

#include "pipeline/core/status.h"
#include "pipeline/hw/devices.h"

namespace tc {

nlohmann::json inventory_to_json(const HwInventory& inventory);
// kInvalidArgument naming the field when `json` is not an inventory.
Result<HwInventory> inventory_from_json(const nlohmann::json& json);

}  // namespace tc
