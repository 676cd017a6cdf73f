#include "pipeline/plan/thumbnail_plan.h"

#include <cmath>
#include <cstdio>

extern "C" {
#include <libavutil/pixdesc.h>
}

#include "pipeline/plan/graph_builder.h"
#include "pipeline/plan/video_format.h"
#include "pipeline/spec/thumbnail_spec.h"

namespace tc {
namespace {

Status invalid(std::string field, const std::string& problem) {
  return Status::of_field(Code::kInvalidArgument, std::move(field), problem);
}

int even(double value) {
  return std::max(2, 2 * int(std::lround(value / 2)));
}

std::string size_text(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

// The tile: a side left 0 follows the source's aspect ratio (made even).
Result<FrameSize> tile_size(const ThumbnailSpec& spec, const VideoInfo& video) {
  double width = spec.width ? spec.width : double(video.width) * spec.height / video.height;
  double height = spec.height ? spec.height : double(video.height) * spec.width / video.width;
  if (!(width <= video.width && height <= video.height))  // also refuses NaN from a 0x0 source
    return invalid("thumbnails.width", "tiles of " +
                                           size_text(int(std::lround(std::min(width, 1e9))),
                                                     int(std::lround(std::min(height, 1e9)))) +
                                           " are larger than the source's " +
                                           size_text(video.width, video.height) +
                                           " (--thumbnail-size)");
  return FrameSize{spec.width ? spec.width : even(width), spec.height ? spec.height : even(height)};
}

// The parent directory of an output path ("." for a bare name).
std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// "2", "0.5": the interval as the select expression reads it.
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

Result<ThumbnailPlan> plan_thumbnails(const JobSpec& spec, const VideoInfo& video, bool on_device,
                                      const StageDevice& gpu) {
  ThumbnailPlan plan;
  const ThumbnailSpec& thumbnails = spec.thumbnails;
  if (!thumbnails.on) return plan;
  TC_ASSIGN_OR_RETURN(FrameSize tile, tile_size(thumbnails, video));
  if (int64_t(tile.width) * thumbnails.columns > kMaxSide ||
      int64_t(tile.height) * thumbnails.rows > kMaxSide)
    return invalid("thumbnails.columns", std::to_string(thumbnails.columns) + "x" +
                                             std::to_string(thumbnails.rows) + " tiles of " +
                                             size_text(tile.width, tile.height) +
                                             " make a sheet wider or taller than " +
                                             std::to_string(kMaxSide) + " pixels");
  plan.on = true;
  plan.interval_s = thumbnails.interval_s;
  plan.width = tile.width;
  plan.height = tile.height;
  plan.columns = thumbnails.columns;
  plan.rows = thumbnails.rows;
  plan.in_package = spec.package.on();
  plan.dir = plan.in_package ? spec.package.dir : directory_of(spec.outputs.at(0).path);
  plan.download = on_device;
  if (on_device) plan.scale_device = gpu;
  return plan;
}

VideoBranch thumbnail_branch(const BackendDesc& backend, const ThumbnailPlan& thumbnails,
                             bool on_device, int source_depth) {
  VideoBranch branch;
  branch.output = SIZE_MAX;  // no output's: sorts after them, and no sink_label(k) finds it
  branch.thumbnails = true;
  branch.size = {thumbnails.width, thumbnails.height};
  branch.download = on_device;
  // JPEG sheets are 8-bit: a scaler that converts gives 8 bits on the device already.
  int depth = backend.scale_converts ? 8 : source_depth;
  if (on_device) branch.device_format = av_get_pix_fmt_name(device_format(backend, depth));
  branch.convert_to = av_get_pix_fmt_name(thumbnails.pix_fmt);
  // The first frame of every interval [k*I, (k+1)*I) of the (trimmed) media time.
  std::string interval = number(thumbnails.interval_s);
  branch.select = "select='isnan(prev_selected_t)+gte(floor(t/" + interval +
                  ")-floor(prev_selected_t/" + interval + "),1)'";
  return branch;
}

std::vector<Stage> thumbnail_stages(const Plan& plan) {
  const ThumbnailPlan& thumbnails = plan.thumbnails;
  std::vector<Stage> stages;
  if (!thumbnails.on) return stages;
  if (thumbnails.download)
    stages.push_back({"download thumbnails", "hwdownload (the chosen frames only)", plan.device});
  stages.push_back({"encode thumbnails",
                    thumbnails.encoder + " sheets of " + std::to_string(thumbnails.columns) + "x" +
                        std::to_string(thumbnails.rows) + " tiles of " +
                        size_text(thumbnails.width, thumbnails.height),
                    {}});
  return stages;
}

std::string describe_thumbnails(const Plan& plan) {
  const ThumbnailPlan& thumbnails = plan.thumbnails;
  if (!thumbnails.on) return "";
  std::string where = thumbnails.in_package ? " (inside the package)" : "";
  return "thumbnails: a " + size_text(thumbnails.width, thumbnails.height) + " tile every " +
         number(thumbnails.interval_s) + " s, chosen and scaled " +
         (thumbnails.download
              ? "on " + thumbnails.scale_device.to_string() + ", only the chosen frames downloaded"
              : std::string("on the cpu")) +
         "; " + std::to_string(thumbnails.columns) + "x" + std::to_string(thumbnails.rows) +
         " tiles a sheet, " + thumbnails.encoder + ", into " + thumbnails.dir + "/" +
         std::string(kThumbnailIndex) + " + " + sheet_file_name(1) + "..." + where + "\n";
}

}  // namespace tc
