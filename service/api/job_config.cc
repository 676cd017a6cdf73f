#include "service/api/job_config.h"

#include "pipeline/spec/frame_rate.h"

namespace tc {
namespace {

namespace pb = ::transcode::v1;

// An enum of the config by its name; empty keeps the default, as in a JSON job file.
template <typename Enum>
Status enum_from(const std::string& name, Enum& out, const std::string& field,
                 Result<Enum> (*parse)(std::string_view)) {
  if (name.empty()) return Status::ok();
  Result<Enum> value = parse(name);
  if (!value.is_ok())
    return Status::of_field(Code::kInvalidArgument, field, value.status().message());
  out = *value;
  return Status::ok();
}

Result<OutputSpec> output_from_config(const pb::OutputConfig& c, const std::string& field) {
  OutputSpec o;
  o.path = c.path();
  o.container = c.container();
  o.codec = default_codec(o);
  TC_RETURN_IF_ERROR(enum_from(c.codec(), o.codec, field + ".codec", parse_codec));
  o.width = c.width();
  o.height = c.height();
  TC_RETURN_IF_ERROR(enum_from(c.fps(), o.fps, field + ".fps", parse_frame_rate));
  TC_RETURN_IF_ERROR(
      enum_from(c.rate_control(), o.rate_control, field + ".rate_control", parse_rate_control));
  if (c.has_quality()) o.quality = c.quality();
  o.bitrate = c.bitrate();
  o.gop = c.gop();
  if (c.has_b_frames()) o.b_frames = c.b_frames();
  o.preset = c.preset();
  TC_RETURN_IF_ERROR(enum_from(c.audio(), o.audio, field + ".audio", parse_audio));
  if (c.has_audio_bitrate()) o.audio_bitrate = c.audio_bitrate();
  o.audio_channels = c.audio_channels();
  o.audio_rate = c.audio_rate();
  TC_RETURN_IF_ERROR(
      enum_from(c.audio_tracks(), o.audio_tracks, field + ".audio_tracks", parse_audio_tracks));
  TC_RETURN_IF_ERROR(enum_from(c.subtitles(), o.subtitles, field + ".subtitles", parse_subtitles));
  TC_RETURN_IF_ERROR(enum_from(c.hdr(), o.hdr, field + ".hdr", parse_hdr));
  TC_RETURN_IF_ERROR(enum_from(c.loudnorm(), o.loudnorm, field + ".loudnorm", parse_loudnorm));
  return o;
}

void output_to_config(const OutputSpec& o, pb::OutputConfig* c) {
  c->set_path(o.path);
  c->set_container(o.container);
  c->set_codec(std::string(name_of(o.codec)));
  c->set_width(o.width);
  c->set_height(o.height);
  if (o.fps.set()) c->set_fps(frame_rate_text(o.fps));
  c->set_rate_control(std::string(name_of(o.rate_control)));
  c->set_quality(o.quality);
  c->set_bitrate(o.bitrate);
  c->set_gop(o.gop);
  c->set_b_frames(o.b_frames);
  c->set_preset(o.preset);
  c->set_audio(std::string(name_of(o.audio)));
  c->set_audio_bitrate(o.audio_bitrate);
  c->set_audio_channels(o.audio_channels);
  c->set_audio_rate(o.audio_rate);
  c->set_audio_tracks(name_of(o.audio_tracks));
  c->set_subtitles(std::string(name_of(o.subtitles)));
  c->set_hdr(std::string(name_of(o.hdr)));
  c->set_loudnorm(std::string(name_of(o.loudnorm)));
}

Status package_from_config(const pb::JobConfig& config, PackageSpec& package) {
  if (!config.has_package()) return Status::ok();
  const pb::PackageConfig& c = config.package();
  TC_RETURN_IF_ERROR(enum_from(c.kind(), package.kind, "package.kind", parse_package_kind));
  package.dir = c.dir();
  if (c.has_segment_s()) package.segment_s = c.segment_s();
  if (!c.segment_name().empty()) package.segment_name = c.segment_name();
  if (!c.segment_format().empty())
    TC_RETURN_IF_ERROR(enum_from(c.segment_format(), package.segment_format,
                                 "package.segment_format", parse_segment_format));
  if (c.has_stereo_audio()) package.stereo_audio = c.stereo_audio();
  return Status::ok();
}

void thumbnails_from_config(const pb::JobConfig& config, ThumbnailSpec& thumbnails) {
  if (!config.has_thumbnails()) return;
  const pb::ThumbnailsConfig& c = config.thumbnails();
  thumbnails.on = true;
  if (c.has_interval_s()) thumbnails.interval_s = c.interval_s();
  if (c.has_width()) thumbnails.width = c.width();
  if (c.has_height()) thumbnails.height = c.height();
  if (c.has_columns()) thumbnails.columns = c.columns();
  if (c.has_rows()) thumbnails.rows = c.rows();
}

}  // namespace

Result<JobSpec> spec_from_config(const pb::JobConfig& config) {
  JobSpec spec;
  spec.input = config.input();
  spec.start_s = config.start_s();
  spec.duration_s = config.duration_s();
  TC_RETURN_IF_ERROR(enum_from(config.backend(), spec.backend, "backend", parse_backend));
  spec.device = config.device();
  TC_RETURN_IF_ERROR(
      enum_from(config.deinterlace(), spec.deinterlace, "deinterlace", parse_deinterlace));
  TC_RETURN_IF_ERROR(enum_from(config.quality_metrics(), spec.quality_metrics, "quality_metrics",
                               parse_quality_metrics));
  for (int i = 0; i < config.outputs_size(); ++i) {
    TC_ASSIGN_OR_RETURN(
        OutputSpec output,
        output_from_config(config.outputs(i), "outputs[" + std::to_string(i) + "]"));
    spec.outputs.push_back(std::move(output));
  }
  TC_RETURN_IF_ERROR(package_from_config(config, spec.package));
  thumbnails_from_config(config, spec.thumbnails);
  spec.gop_parallel = config.gop_parallel();
  spec.verbose_log = config.verbose_log();
  normalize(spec);
  return spec;
}

void config_from_spec(const JobSpec& spec, pb::JobConfig* config) {
  config->set_input(spec.input);
  config->set_start_s(spec.start_s);
  config->set_duration_s(spec.duration_s);
  config->set_backend(std::string(name_of(spec.backend)));
  config->set_device(spec.device);
  config->set_deinterlace(std::string(name_of(spec.deinterlace)));
  config->set_quality_metrics(name_of(spec.quality_metrics));
  config->set_gop_parallel(spec.gop_parallel);
  config->set_verbose_log(spec.verbose_log);
  for (const OutputSpec& output : spec.outputs) output_to_config(output, config->add_outputs());
  if (spec.thumbnails.on) {
    pb::ThumbnailsConfig* thumbnails = config->mutable_thumbnails();
    thumbnails->set_interval_s(spec.thumbnails.interval_s);
    thumbnails->set_width(spec.thumbnails.width);
    thumbnails->set_height(spec.thumbnails.height);
    thumbnails->set_columns(spec.thumbnails.columns);
    thumbnails->set_rows(spec.thumbnails.rows);
  }
  if (!spec.package.on()) return;
  pb::PackageConfig* package = config->mutable_package();
  package->set_kind(std::string(name_of(spec.package.kind)));
  package->set_dir(spec.package.dir);
  package->set_segment_s(spec.package.segment_s);
  package->set_segment_name(spec.package.segment_name);
  package->set_segment_format(std::string(name_of(spec.package.segment_format)));
  if (!spec.package.stereo_audio) package->set_stereo_audio(false);  // unset means true
}

}  // namespace tc
