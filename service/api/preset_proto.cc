#include "service/api/preset_proto.h"

namespace tc {
namespace {

namespace pb = ::transcode::v1;
using Options = google::protobuf::RepeatedPtrField<pb::PresetOption>;

void options_to_proto(const PresetValues& values, Options* options) {
  for (const auto& [name, value] : values) {
    pb::PresetOption* option = options->Add();
    option->set_name(name);
    option->set_value(value);
  }
}

PresetValues options_from_proto(const Options& options) {
  PresetValues values;
  for (const pb::PresetOption& option : options) values.emplace_back(option.name(), option.value());
  return values;
}

}  // namespace

void preset_to_proto(const Preset& preset, pb::Preset* proto) {
  proto->set_name(preset.name);
  proto->set_version(preset.version);
  proto->set_summary(preset.summary);
  proto->set_origin(preset.origin);
  options_to_proto(preset.job, proto->mutable_job());
  for (const PresetOutput& output : preset.outputs) {
    pb::PresetOutput* rung = proto->add_outputs();
    rung->set_name(output.name);
    options_to_proto(output.options, rung->mutable_options());
  }
}

Preset preset_from_proto(const pb::Preset& proto) {
  Preset preset;
  preset.name = proto.name();
  preset.version = proto.version();
  preset.summary = proto.summary();
  preset.origin = proto.origin();
  preset.job = options_from_proto(proto.job());
  for (const pb::PresetOutput& output : proto.outputs())
    preset.outputs.push_back({output.name(), options_from_proto(output.options())});
  return preset;
}

}  // namespace tc
