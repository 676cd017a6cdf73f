// Reports as JSON: the shape `transcode run --json` prints and a daemon worker sends.
#include <nlohmann/json.hpp>

#include "pipeline/exec/executor.h"

namespace tc {

using nlohmann::json;

std::string progress_to_json(const Progress& progress) {
  return json{{"frames_decoded", progress.frames_decoded},
              {"frames_encoded", progress.frames_encoded},
              {"media_time_s", progress.media_time_s},
              {"media_duration_s", progress.media_duration_s},
              {"elapsed_s", progress.elapsed_s},
              {"fps", progress.fps},
              {"speed", progress.speed}}
      .dump();
}

std::string report_to_json(const JobReport& report, int indent) {
  json stages = json::array();
  for (const Stage& stage : report.stages)
    stages.push_back(
        {{"name", stage.name}, {"what", stage.what}, {"device", stage.device.to_string()}});
  json outputs = json::array();
  for (const OutputReport& output : report.outputs)
    outputs.push_back({{"path", output.path},
                       {"encoder", output.encoder},
                       {"device", output.device},
                       {"width", output.width},
                       {"height", output.height},
                       {"frames", output.frames},
                       {"bytes", output.bytes},
                       {"duration_s", output.duration_s},
                       {"bitrate", output.bitrate}});
  json root{{"input", report.input},
            {"backend", report.backend},
            {"backend_reason", report.backend_reason},
            {"frames_decoded", report.frames_decoded},
            {"media_duration_s", report.media_duration_s},
            {"setup_s", report.setup_s},
            {"wall_s", report.wall_s},
            {"cpu_s", report.cpu_s},
            {"fps", report.fps},
            {"speed", report.speed},
            {"first_frame_s", report.first_frame_s},
            {"stages", stages},
            {"outputs", outputs}};
  return root.dump(indent);
}

}  // namespace tc
