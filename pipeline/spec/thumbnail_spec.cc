#include "pipeline/spec/thumbnail_spec.h"

#include <charconv>
#include <cmath>

#include "pipeline/core/user_text.h"

namespace tc {
namespace {

Status invalid(std::string field, const std::string& problem) {
  return Status::of_field(Code::kInvalidArgument, std::move(field), problem);
}

Status validate_tile(const ThumbnailSpec& thumbnails) {
  std::string size = std::to_string(thumbnails.width) + "x" + std::to_string(thumbnails.height);
  if (thumbnails.width < 0 || thumbnails.height < 0)
    return invalid("thumbnails.width", "tile size " + size + " has a negative side");
  if (!thumbnails.width && !thumbnails.height)
    return invalid("thumbnails.width", "tile size 0x0: set the width, the height or both");
  // 4:2:0 JPEG: a tile placed at an odd offset would split its chroma samples.
  if (thumbnails.width % 2 || thumbnails.height % 2)
    return invalid("thumbnails.width",
                   "tile size " + size + " must have even sides; 0 keeps the aspect ratio");
  return Status::ok();
}

Status validate_grid(const ThumbnailSpec& thumbnails) {
  for (auto [field, tiles] : {std::pair{"thumbnails.columns", thumbnails.columns},
                              std::pair{"thumbnails.rows", thumbnails.rows}})
    if (tiles < 1 || tiles > kMaxSheetTiles)
      return invalid(
          field, std::to_string(tiles) + " tiles is outside 1.." + std::to_string(kMaxSheetTiles));
  return Status::ok();
}

// A sheet's name must not meet a rendition's directory in the package.
Status validate_rendition_names(const JobSpec& spec) {
  if (!spec.package.on()) return Status::ok();
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    const std::string& name = spec.outputs[i].path;
    if (name == kThumbnailIndex || name.rfind(kSheetPrefix, 0) == 0)
      return invalid("outputs[" + std::to_string(i) + "].path",
                     quote_value(name) + " is a thumbnail file's name in the package");
  }
  return Status::ok();
}

}  // namespace

Status validate_thumbnails(const JobSpec& spec) {
  const ThumbnailSpec& thumbnails = spec.thumbnails;
  if (!thumbnails.on) return Status::ok();
  // !(x > 0) is also true for NaN.
  if (!(thumbnails.interval_s > 0) || !std::isfinite(thumbnails.interval_s))
    return invalid("thumbnails.interval_s", "must be a positive number of seconds");
  if (thumbnails.interval_s > kMaxSpecSeconds)
    return invalid("thumbnails.interval_s",
                   "more than " + std::to_string(int64_t(kMaxSpecSeconds)) + " s");
  TC_RETURN_IF_ERROR(validate_tile(thumbnails));
  TC_RETURN_IF_ERROR(validate_grid(thumbnails));
  return validate_rendition_names(spec);
}

Status parse_thumbnails(std::string_view text, ThumbnailSpec& thumbnails) {
  size_t colon = text.find(':');
  std::string_view interval = text.substr(0, colon);
  double seconds = 0;
  auto [end, error] = std::from_chars(interval.data(), interval.data() + interval.size(), seconds);
  if (error != std::errc() || end != interval.data() + interval.size() || interval.empty())
    return Status(Code::kInvalidArgument,
                  quote_value(text) + " is not INTERVAL[:WxH] (seconds, e.g. 10 or 10:160x0)");
  thumbnails.on = true;
  thumbnails.interval_s = seconds;
  if (colon == std::string_view::npos) return Status::ok();
  return parse_size(text.substr(colon + 1), thumbnails.width, thumbnails.height);
}

std::string sheet_file_name(int number) {
  return std::string(kSheetPrefix) + std::to_string(number) + ".jpg";
}

}  // namespace tc
