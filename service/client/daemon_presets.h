// The daemon's presets (ListPresets: its built-ins and its preset_dir's), so that a team keeps
// its presets on the daemon: `transcode presets --server ADDR` lists them, and `transcode submit
// --preset NAME` expands the daemon's preset of that name where no local one has it (local files
// win: a user may pin or try a preset on their own machine). The expansion stays the CLI's
// (job_args.cc), fed with the daemon's values.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "service/cli/job_args.h"
#include "service/client/connection.h"

namespace tc::client {

// ListPresets' answer as presets, in its order (by name).
grpc::Status daemon_presets(const Connection& connection, std::vector<Preset>& presets);

// `transcode presets --server ADDR`: the daemon's presets, a line each as `transcode presets`.
int daemon_presets_command(const Connection& connection);

// submit's fallback for a name no local preset has: the daemon's preset of that name. An RPC
// failure is kept in `failure` as well as returned, so that submit exits as for any unreachable
// daemon (7) rather than as for a bad option.
cli::PresetFallback daemon_preset_fallback(const Connection& connection,
                                           std::shared_ptr<std::optional<grpc::Status>> failure);

}  // namespace tc::client
