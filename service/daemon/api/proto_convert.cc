#include "service/daemon/api/proto_convert.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/time_util.h>

#include <algorithm>
#include <nlohmann/json.hpp>

extern "C" {
#include <libavcodec/avcodec.h>
}

#include "pipeline/exec/progress_estimate.h"
#include "service/daemon/webhook/webhook_url.h"

namespace tc::daemon {
namespace {

using google::protobuf::util::TimeUtil;

pb::ErrorCode error_code_to_proto(Code code) {
  switch (code) {
    case Code::kOk:
      return pb::ERROR_CODE_UNSPECIFIED;
    case Code::kInvalidArgument:
      return pb::ERROR_CODE_INVALID_ARGUMENT;
    case Code::kInput:
      return pb::ERROR_CODE_INPUT;
    case Code::kUnsupported:
      return pb::ERROR_CODE_UNSUPPORTED;
    case Code::kDevice:
      return pb::ERROR_CODE_DEVICE;
    case Code::kOutput:
      return pb::ERROR_CODE_OUTPUT;
    case Code::kCancelled:
      return pb::ERROR_CODE_CANCELLED;
    case Code::kInternal:
      return pb::ERROR_CODE_INTERNAL;
  }
  return pb::ERROR_CODE_INTERNAL;
}

// The deprecated media_duration_s of Progress and JobResult (job.proto) stays filled, with the
// value of the field that replaced it, for clients that still read it. Only these two touch it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
void set_deprecated_media_duration(double input_duration_s, pb::Progress* out) {
  out->set_media_duration_s(input_duration_s);
}
void set_deprecated_media_duration(double media_processed_s, pb::JobResult* out) {
  out->set_media_duration_s(media_processed_s);
}
#pragma GCC diagnostic pop

void progress_to_proto(const Progress& p, pb::Progress* out) {
  out->set_frames_decoded(p.frames_decoded);
  out->set_frames_encoded(p.frames_encoded);
  out->set_media_time_s(p.media_time_s);
  out->set_input_duration_s(p.input_duration_s);
  set_deprecated_media_duration(p.input_duration_s, out);
  out->set_elapsed_s(p.elapsed_s);
  out->set_fps(p.fps);
  out->set_speed(p.speed);
  if (std::optional<double> percent = progress_percent(p)) out->set_percent(*percent);
  if (std::optional<double> eta = progress_eta_s(p)) out->set_eta_s(*eta);
}

void quality_to_proto(const QualityScore& q, pb::QualityResult* out) {
  out->set_frames(q.frames);
  if (q.psnr_y_db) out->set_psnr_y_db(*q.psnr_y_db);
  if (q.psnr_avg_db) out->set_psnr_avg_db(*q.psnr_avg_db);
  if (q.ssim) out->set_ssim(*q.ssim);
}

void engines_to_proto(const metrics::EngineUsage& usage, pb::EngineUsage* out) {
  out->set_source(usage.source);
  out->set_driver(usage.driver);
  out->set_available(usage.available);
  out->set_unavailable_reason(usage.unavailable_reason);
  for (const metrics::EngineBusy& e : usage.engines) {
    pb::EngineBusy* engine = out->add_engines();
    engine->set_engine(e.engine);
    engine->set_label(e.label);
    engine->set_busy_percent(e.busy_percent);
    engine->set_capacity(e.capacity);
  }
  out->set_memory_total_peak_bytes(usage.memory_total_peak_bytes);
  out->set_memory_resident_peak_bytes(usage.memory_resident_peak_bytes);
  out->set_cpu_cores(usage.cpu_cores);
  out->set_interval_s(usage.interval_s);
  out->set_samples(usage.samples);
}

void package_to_proto(const PackageReport& report, pb::PackageResult* out) {
  out->set_kind(report.kind);
  out->set_dir(report.dir);
  out->set_segment_s(report.segment_s);
  for (const std::string& manifest : report.manifests) out->add_manifests(manifest);
  out->set_keyframes_aligned(report.keyframes_aligned);
  for (const RenditionReport& r : report.renditions) {
    pb::RenditionResult* rendition = out->add_renditions();
    rendition->set_name(r.name);
    rendition->set_type(r.type);
    rendition->set_width(r.width);
    rendition->set_height(r.height);
    rendition->set_codec(r.codec);
    rendition->set_language(r.language);
    rendition->set_peak_bitrate(r.peak_bitrate);
    rendition->set_average_bitrate(r.average_bitrate);
    rendition->set_segments(r.segments);
    rendition->set_duration_s(r.duration_s);
    rendition->set_keyframes_aligned(r.keyframes_aligned);
    rendition->set_cues(r.cues);
  }
}

void thumbnails_to_proto(const ThumbnailReport& report, pb::ThumbnailsResult* out) {
  out->set_index(report.index);
  for (const std::string& sheet : report.sheets) out->add_sheets(sheet);
  out->set_tiles(report.tiles);
  out->set_interval_s(report.interval_s);
  out->set_width(report.width);
  out->set_height(report.height);
  out->set_columns(report.columns);
  out->set_rows(report.rows);
}

void result_to_proto(const JobReport& report, pb::JobResult* out) {
  out->set_input(report.input);
  out->set_backend(report.backend);
  out->set_backend_reason(report.backend_reason);
  for (const Stage& s : report.stages) {
    pb::Stage* stage = out->add_stages();
    stage->set_name(s.name);
    stage->set_what(s.component);
    stage->set_device(s.device.to_string());
    pb::StageDevice* parts = stage->mutable_device_parts();
    parts->set_backend(std::string(name_of(s.device.backend)));
    parts->set_path(s.device.path);
    parts->set_driver(s.device.driver);
  }
  for (const OutputReport& o : report.outputs) {
    pb::OutputResult* output = out->add_outputs();
    output->set_path(o.path);
    output->set_encoder(o.encoder);
    output->set_device(o.device);
    output->set_width(o.width);
    output->set_height(o.height);
    output->set_frames(o.frames);
    output->set_bytes(o.bytes);
    output->set_duration_s(o.duration_s);
    output->set_bitrate(o.bitrate);
    output->set_chunks(o.chunks);
    if (o.quality) quality_to_proto(*o.quality, output->mutable_quality());
  }
  for (const StreamOutcome& s : report.streams) {
    pb::StreamResult* stream = out->add_streams();
    stream->set_output(static_cast<int32_t>(s.output));
    stream->set_input_stream(s.input_stream);
    stream->set_kind(s.kind);
    stream->set_codec(s.codec);
    stream->set_language(s.language);
    stream->set_title(s.title);
    stream->set_kept(s.kept);
    stream->set_action(s.action);
    stream->set_reason(s.reason);
  }
  out->set_frames_decoded(report.frames_decoded);
  out->set_media_processed_s(report.media_duration_s);
  set_deprecated_media_duration(report.media_duration_s, out);
  out->set_setup_s(report.setup_s);
  out->set_wall_s(report.wall_s);
  out->set_cpu_s(report.cpu_s);
  out->set_fps(report.fps);
  out->set_speed(report.speed);
  out->set_first_frame_s(report.first_frame_s);
  if (report.engines) engines_to_proto(*report.engines, out->mutable_engines());
  if (report.package) package_to_proto(*report.package, out->mutable_package());
  if (report.thumbnails) thumbnails_to_proto(*report.thumbnails, out->mutable_thumbnails());
  for (const SourceChangeReport& c : report.source_changes) {
    pb::SourceChange* change = out->add_source_changes();
    change->set_time_s(c.time_s);
    change->set_before(c.from);
    change->set_after(c.to);
  }
  for (const ThreadReport& t : report.threads) {
    pb::ThreadTime* thread = out->add_threads();
    thread->set_name(t.name);
    thread->set_busy_s(t.busy_s);
    thread->set_blocked_s(t.blocked_s);
  }
  // The API's one JSON copy of the report: written here, from the typed report.
  out->set_report_json(nlohmann::json(report).dump());
}

void set_time(int64_t ms, google::protobuf::Timestamp* out) {
  *out = TimeUtil::MillisecondsToTimestamp(ms);
}

void error_to_proto(const Status& error, pb::JobError* out) {
  out->set_code(error_code_to_proto(error.code()));
  out->set_message(error.message());
  out->set_retryable(error.retryable());
}

// "cpu" is cpu_seconds; every other resource an engine class (attempt_usage.h).
void usage_to_proto(const ResourceSeconds& usage, pb::Usage* out) {
  for (const auto& [resource, seconds] : usage)
    if (resource == kCpuResource)
      out->set_cpu_seconds(seconds);
    else
      (*out->mutable_engine_seconds())[resource] = seconds;
}

void attempt_to_proto(const AttemptRecord& attempt, pb::Attempt* out) {
  out->set_number(attempt.number);
  out->set_node(attempt.node);
  out->set_device(attempt.device);
  if (attempt.start_ms) set_time(attempt.start_ms, out->mutable_start_time());
  if (attempt.end_ms) set_time(attempt.end_ms, out->mutable_end_time());
  // AttemptOutcome's values are the proto's, in order (job.proto).
  out->set_outcome(static_cast<pb::AttemptOutcome>(attempt.outcome));
  if (!attempt.error.is_ok()) error_to_proto(attempt.error, out->mutable_error());
  if (!attempt.usage.empty()) usage_to_proto(attempt.usage, out->mutable_usage());
}

std::vector<std::string> codec_names(const std::map<AVCodecID, int>& codecs) {
  std::vector<std::string> names;
  for (const auto& [id, depth] : codecs) names.push_back(avcodec_get_name(id));
  return names;
}

// Device (caps) and NodeDevice (ListNodes) show the load model's figures alike.
template <typename Message>
void set_load(const DeviceLoadView& load, Message* out) {
  out->set_capacity(load.capacity);
  out->set_load_percent(load.load_percent);
  out->set_job_cores(load.job_cores);
  out->set_job_engine_percent(load.job_engine_percent);
}

}  // namespace

pb::JobState state_to_proto(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return pb::JOB_STATE_QUEUED;
    case JobState::kRunning:
      return pb::JOB_STATE_RUNNING;
    case JobState::kSucceeded:
      return pb::JOB_STATE_SUCCEEDED;
    case JobState::kFailed:
      return pb::JOB_STATE_FAILED;
    case JobState::kCancelled:
      return pb::JOB_STATE_CANCELLED;
  }
  return pb::JOB_STATE_UNSPECIFIED;
}

std::optional<JobState> state_from_proto(pb::JobState state) {
  for (JobState s : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded, JobState::kFailed,
                     JobState::kCancelled})
    if (state_to_proto(s) == state) return s;
  return std::nullopt;
}

void job_to_proto(const JobRecord& job, pb::Job* out) {
  out->set_id(job.id);
  config_from_spec(job.spec, out->mutable_config());
  out->set_state(state_to_proto(job.state));
  set_time(job.create_ms, out->mutable_create_time());
  if (job.start_ms) set_time(job.start_ms, out->mutable_start_time());
  if (job.end_ms) set_time(job.end_ms, out->mutable_end_time());
  out->set_attempt(job.attempt);
  out->set_node(job.node);
  out->set_tenant(job.tenant);
  progress_to_proto(job.progress, out->mutable_progress());
  if (job.state == JobState::kRunning)
    engines_to_proto(job.engines, out->mutable_progress()->mutable_engines());
  if (job.state == JobState::kSucceeded && job.report)
    result_to_proto(*job.report, out->mutable_result());
  if (!job.error.is_ok()) error_to_proto(job.error, out->mutable_error());
  for (const AttemptRecord& attempt : job.attempts) attempt_to_proto(attempt, out->add_attempts());
  ResourceSeconds used;  // the job's: its attempts' summed
  for (const AttemptRecord& attempt : job.attempts) add_usage(used, attempt.usage);
  if (!used.empty()) usage_to_proto(used, out->mutable_usage());
  if (job.state == JobState::kQueued && job.not_before_ms > now_ms())
    set_time(job.not_before_ms, out->mutable_not_before_time());
  if (job.state == JobState::kQueued) out->set_waiting_reason(job.waiting_reason);
  for (const auto& [key, value] : job.labels) (*out->mutable_labels())[key] = value;
  out->set_priority(job.priority);
  out->set_device(job.device);
  out->set_request_id(job.request_id);
  out->set_webhook_url(webhook_url_shown(job.webhook_url));
}

void capabilities_to_proto(const HwInventory& inventory, const std::vector<SchedDevice>& devices,
                           pb::Capabilities* out) {
  for (const SchedDevice& d : devices) {
    pb::Device* device = out->add_devices();
    device->set_backend(std::string(name_of(d.backend)));
    device->set_path(d.path);
    device->set_usable(true);
    device->set_slots(d.slots);
    device->set_running(d.running);
    set_load(d.load, device);
    const HwDevice* hw =
        d.backend == BackendKind::kSoftware ? nullptr : inventory.find(d.backend, d.path);
    if (!hw) continue;
    device->set_driver(hw->driver);
    device->set_vendor(hw->vendor);
    device->set_model(hw->model);
    for (const std::string& name : codec_names(hw->decode)) device->add_decode_codecs(name);
    std::map<AVCodecID, int> encoders;
    for (const auto& [id, entry] : hw->encode) encoders[id] = 0;
    for (const std::string& name : codec_names(encoders)) device->add_encode_codecs(name);
    device->set_can_scale(hw->can_scale);
  }
  // Devices discovery found but cannot use, with the reason: what an operator needs to know.
  for (const HwDevice& hw : inventory.devices) {
    if (hw.usable()) continue;
    pb::Device* device = out->add_devices();
    device->set_backend(std::string(name_of(hw.backend)));
    device->set_path(hw.path);
    device->set_driver(hw.driver);
    device->set_vendor(hw.vendor);
    device->set_model(hw.model);
    device->set_usable(false);
    device->set_unusable_reason(hw.unusable_reason);
  }
  std::vector<std::string> backends = {"auto", "software"};
  for (const SchedDevice& d : devices) {
    std::string name(name_of(d.backend));
    if (std::find(backends.begin(), backends.end(), name) == backends.end())
      backends.push_back(name);
  }
  for (const std::string& name : backends) out->add_backends(name);
  for (const std::string& note : inventory.notes) out->add_notes(note);
}

void node_to_proto(const NodeRecord& node, pb::Node* out) {
  out->set_id(node.id);
  for (const NodeDevice& d : node.devices) {
    pb::NodeDevice* device = out->add_devices();
    device->set_name(d.name);
    device->set_backend(d.backend);
    device->set_slots(d.slots);
    device->set_running(d.running);
    set_load(d.load, device);
  }
  for (const std::string& backend : node.backends) out->add_backends(backend);
  out->set_gone(node.gone);
  out->set_free_slots(node.gone ? 0 : node.free_slots());
  for (const std::string& id : node.running_jobs) out->add_running_jobs(id);
  set_time(node.started_ms, out->mutable_start_time());
  set_time(node.heartbeat_ms, out->mutable_heartbeat_time());
}

std::string job_json(const JobRecord& job) {
  pb::Job message;
  job_to_proto(job, &message);
  std::string json;
  // The field names as the proto spells them (snake_case), as `transcode --json` prints a job
  // and a job file is written: one convention for everything a user reads and writes back.
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  // A Job always converts: every field is set from typed values.
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

}  // namespace tc::daemon
