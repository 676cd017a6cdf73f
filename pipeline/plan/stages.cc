#include "pipeline/plan/stages.h"

#include "pipeline/hw/backends.h"
#include "pipeline/plan/quality_plan.h"
#include "pipeline/plan/thumbnail_plan.h"

namespace tc {
namespace {

// "what (note, note)": the non-empty notes, in order, in one parenthesis.
std::string with_notes(const std::string& what, const std::vector<std::string>& notes) {
  std::string joined;
  for (const std::string& note : notes)
    if (!note.empty()) joined += (joined.empty() ? "" : ", ") + note;
  return joined.empty() ? what : what + " (" + joined + ")";
}

// "1 thread", "4 threads".
std::string threads_note(int threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

Stage decode_stage(const Plan& plan) {
  const DecodePlan& decode = plan.decode;
  // A software decoder's threads, once the plan is fitted to the cores (a device decoder's one
  // is not said).
  std::string threads = !decode.hw && decode.threads > 0 ? threads_note(decode.threads) : "";
  return {"decode",
          with_notes(plan.source_codec, {decode.note.empty() ? "software" : decode.note, threads}),
          decode.device};
}

std::string filter_what(const Plan& plan) {
  const FilterGraphPlan& graph = plan.video_graph;
  if (graph.scalers == 0) return "format conversion only";
  return std::string(backend_desc(plan.backend).scale.name) + " x" + std::to_string(graph.scalers);
}

// Decode through the filter graph: once for every output.
void add_source_stages(const Plan& plan, std::vector<Stage>& stages) {
  const DecodePlan& decode = plan.decode;
  if (!decode.needed) return;
  stages.push_back(decode_stage(plan));
  const DeinterlacePlan& deinterlace = plan.deinterlace;
  // bwdif runs before the upload, a device deinterlacer after it.
  bool deinterlace_first = deinterlace.on && deinterlace.device.backend == BackendKind::kSoftware;
  Stage deinterlace_stage{"deinterlace", with_notes(deinterlace.filter_name, {deinterlace.why}),
                          deinterlace.device};
  if (deinterlace_first) stages.push_back(deinterlace_stage);
  const OrientationPlan& turn = plan.orientation;
  Stage turn_stage{"turn upright", with_notes(turn.filter_names, {turn.why}), turn.device};
  if (turn.on() && !turn.on_device) stages.push_back(turn_stage);
  if (decode.upload) stages.push_back({"upload", "hwupload", plan.device});
  const DeviceConvertPlan& convert = plan.device_convert;
  if (convert.on())
    stages.push_back({"convert",
                      with_notes(std::string(backend_desc(plan.backend).scale.name), {convert.why}),
                      convert.device});
  if (deinterlace.on && !deinterlace_first) stages.push_back(deinterlace_stage);
  if (turn.on() && turn.on_device) stages.push_back(turn_stage);
  // The graph's slice threads are said where its filters run in memory (a device's scalers
  // have no slices).
  bool threads = plan.device.backend == BackendKind::kSoftware && plan.video_graph.threads > 0;
  stages.push_back(
      {"filter",
       with_notes(filter_what(plan), {threads ? threads_note(plan.video_graph.threads) : ""}),
       plan.device});
}

// What the encode stage adds to the encoder's name: its planned note, then what fitting the
// plan to the machine decided (GOP-parallel, x264's threads, AVX-512).
std::vector<std::string> encode_notes(const OutputPlan& output) {
  const VideoEncodePlan& video = output.video;
  std::vector<std::string> notes{video.note};
  if (!video.one_encoder_why.empty()) notes.push_back("one encoder: " + video.one_encoder_why);
  if (video.parallel_encoders > 1)
    notes.push_back("GOP-parallel: " + std::to_string(video.parallel_encoders) +
                    " encoders, chunks of " + std::to_string(video.chunk_frames) + " frames");
  if (video.encoder_threads > 0)
    notes.push_back(threads_note(video.encoder_threads) +
                    (video.parallel_encoders == 1 ? "" : " each") + ": its share of the cores");
  if (video.without_avx512)
    notes.push_back("without AVX-512: its mbtree misreads rows " + std::to_string(output.width) +
                    " wide");
  return notes;
}

void add_output_stages(const Plan& plan, size_t k, std::vector<Stage>& stages) {
  const OutputPlan& output = plan.outputs[k];
  std::string label = "out" + std::to_string(k);
  const VideoEncodePlan& video = output.video;
  if (output.video_copy) {
    stages.push_back({"encode " + label, "copy (" + plan.source_codec + ")", {}});
  } else {
    if (video.download) {
      const GraphSink* sink = plan.video_graph.sink_of(k);
      bool by_output = sink && !sink->download_at_output.empty();
      stages.push_back(
          {"download " + label,
           by_output ? "av_hwframe_transfer_data, on the output's thread" : "hwdownload",
           plan.device});
    }
    stages.push_back(
        {"encode " + label, with_notes(video.encoder, encode_notes(output)), video.device});
  }
  std::string mux = plan.package.on()
                        ? segments_text(plan.package.segment_format) + " of " + output.path
                        : output.format;
  stages.push_back({"mux " + label, mux, {}});
}

}  // namespace

std::vector<Stage> render_stages(const Plan& plan) {
  std::vector<Stage> stages{{"demux", plan.source_format, {}}};
  add_source_stages(plan, stages);
  for (size_t k = 0; k < plan.outputs.size(); ++k) add_output_stages(plan, k, stages);
  for (std::vector<Stage> more : {thumbnail_stages(plan), quality_stages(plan)})
    stages.insert(stages.end(), more.begin(), more.end());
  return stages;
}

std::string segments_text(SegmentFormat format) {
  return format == SegmentFormat::kTs ? "mpeg-ts segments" : "fmp4 segments (cmaf)";
}

}  // namespace tc
