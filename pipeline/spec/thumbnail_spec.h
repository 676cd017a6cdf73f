// A JobSpec's thumbnails: what can be checked before the source is probed (the interval, the
// tile and grid sizes) and the command line's short form "INTERVAL[:WxH]". The tile's size
// against the source's is checked by the plan (thumbnail_plan.h), which knows the source.
#pragma once

#include <string_view>

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

// The most tiles a sheet may hold across or down: a sheet is one JPEG a player downloads whole.
inline constexpr int kMaxSheetTiles = 20;
// The names thumbnails take in their directory (the package's, or the first output's).
inline constexpr std::string_view kThumbnailIndex = "thumbnails.vtt";
inline constexpr std::string_view kSheetPrefix = "sheet_";

// Interval, tile size and grid (kInvalidArgument naming the field "thumbnails.*"). No-op when
// thumbnails are off.
Status validate_thumbnails(const JobSpec& spec);
// "10" or "10:160x0" -> interval 10 s (and a tile of 160 wide); turns thumbnails on.
Status parse_thumbnails(std::string_view text, ThumbnailSpec& thumbnails);
// "sheet_3.jpg" for sheet 3 (numbered from 1).
std::string sheet_file_name(int number);

}  // namespace tc
