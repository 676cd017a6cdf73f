#include "pipeline/hw/inventory_json.h"

namespace tc {

// nlohmann's own mapping, field by field; AVCodecID keys make maps arrays of [id, value] pairs.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EncodeEntrypoints, full, low_power,
                                                full_rate_control, low_power_rate_control,
                                                max_width, max_height, full_bit_depth,
                                                low_power_bit_depth, full_chroma, low_power_chroma)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(DecodeProfile, va_profile, name, codec, bit_depth,
                                                chroma, max_width, max_height)

namespace {

nlohmann::json device_to_json(const HwDevice& device) {
  nlohmann::json json = {{"backend", std::string(name_of(device.backend))},
                         {"path", device.path},
                         {"driver", device.driver},
                         {"vendor", device.vendor},
                         {"decode", device.decode},
                         {"encode", device.encode},
                         {"encode_unavailable", device.encode_unavailable},
                         {"can_scale", device.can_scale},
                         {"decode_profiles", device.decode_profiles},
                         {"model", device.model},
                         {"generation", device.generation},
                         {"unusable_reason", device.unusable_reason}};
  if (device.ordinal) json["ordinal"] = *device.ordinal;              // absent for DRM nodes
  if (device.can_tonemap) json["can_tonemap"] = *device.can_tonemap;  // absent: not probed
  if (device.vpp_reads_ten_bit) json["vpp_reads_ten_bit"] = *device.vpp_reads_ten_bit;
  if (device.vpp_writes_ten_bit) json["vpp_writes_ten_bit"] = *device.vpp_writes_ten_bit;
  if (device.huc_running) json["huc_running"] = *device.huc_running;  // absent: not known
  if (!device.huc_seen.empty()) json["huc_seen"] = device.huc_seen;
  return json;
}

Result<HwDevice> device_from_json(const nlohmann::json& json) {
  HwDevice device;
  TC_ASSIGN_OR_RETURN(device.backend, parse_backend(json.at("backend").get<std::string>()));
  json.at("path").get_to(device.path);
  json.at("driver").get_to(device.driver);
  json.at("vendor").get_to(device.vendor);
  json.at("decode").get_to(device.decode);
  json.at("encode").get_to(device.encode);
  // absent in a cache entry written before the field existed
  if (json.contains("encode_unavailable"))
    json.at("encode_unavailable").get_to(device.encode_unavailable);
  json.at("can_scale").get_to(device.can_scale);
  json.at("decode_profiles").get_to(device.decode_profiles);
  json.at("model").get_to(device.model);
  if (json.contains("generation")) json.at("generation").get_to(device.generation);
  json.at("unusable_reason").get_to(device.unusable_reason);
  if (json.contains("ordinal")) device.ordinal = json.at("ordinal").get<unsigned>();
  if (json.contains("can_tonemap")) device.can_tonemap = json.at("can_tonemap").get<bool>();
  if (json.contains("vpp_reads_ten_bit"))
    device.vpp_reads_ten_bit = json.at("vpp_reads_ten_bit").get<bool>();
  if (json.contains("vpp_writes_ten_bit"))
    device.vpp_writes_ten_bit = json.at("vpp_writes_ten_bit").get<bool>();
  if (json.contains("huc_running")) device.huc_running = json.at("huc_running").get<bool>();
  if (json.contains("huc_seen")) json.at("huc_seen").get_to(device.huc_seen);
  return device;
}

}  // namespace

nlohmann::json inventory_to_json(const HwInventory& inventory) {
  nlohmann::json devices = nlohmann::json::array();
  for (const HwDevice& device : inventory.devices) devices.push_back(device_to_json(device));
  return {{"devices", devices}, {"notes", inventory.notes}};
}

Result<HwInventory> inventory_from_json(const nlohmann::json& json) {
  try {
    HwInventory inventory;
    for (const nlohmann::json& device : json.at("devices")) {
      TC_ASSIGN_OR_RETURN(HwDevice read, device_from_json(device));
      inventory.devices.push_back(std::move(read));
    }
    json.at("notes").get_to(inventory.notes);
    return inventory;
  } catch (const nlohmann::json::exception& error) {
    return Status(Code::kInvalidArgument, std::string("not a device inventory: ") + error.what());
  }
}

}  // namespace tc
