#include "service/client/daemon_presets.h"

#include "service/api/preset_proto.h"
#include "service/cli/presets_command.h"
#include "service/client/job_view.h"
#include "service/common/exit_codes.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::client {

grpc::Status daemon_presets(const Connection& connection, std::vector<Preset>& presets) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::ListPresetsResponse reply;
  grpc::Status status = pb::Transcoder::NewStub(make_channel(connection))
                            ->ListPresets(&context, pb::ListPresetsRequest(), &reply);
  if (!status.ok()) return status;
  for (const pb::Preset& preset : reply.presets()) presets.push_back(preset_from_proto(preset));
  return status;
}

int daemon_presets_command(const Connection& connection) {
  std::vector<Preset> presets;
  grpc::Status status = daemon_presets(connection, presets);
  if (!status.ok()) return rpc_failure(status);
  cli::print_presets(presets);
  return kExitOk;
}

cli::PresetFallback daemon_preset_fallback(const Connection& connection,
                                           std::shared_ptr<std::optional<grpc::Status>> failure) {
  return [connection, failure](const std::string& name) -> Result<std::optional<Preset>> {
    std::vector<Preset> presets;
    grpc::Status status = daemon_presets(connection, presets);
    if (!status.ok()) {
      *failure = status;
      return Status(Code::kInvalidArgument, "--preset " + name +
                                                ": no local preset of that name, and the "
                                                "daemon's presets could not be read");
    }
    for (Preset& preset : presets)
      if (preset.name == name) return std::optional<Preset>(std::move(preset));
    return std::optional<Preset>();
  };
}

}  // namespace tc::client
