// Thumbnails beside an output (sheet_N.jpg and thumbnails.vtt) replace only thumbnails this
// program wrote, never a user's files of the same names. Ours are recognised by the index:
// its first block after "WEBVTT" is the NOTE kThumbnailNote; the sheets ours are those such an
// index names. So a directory may take new thumbnails when its thumbnails.vtt is absent or ours
// (a regular file, opened O_NOFOLLOW, at most 16 MiB) and every sheet_<N>.jpg in it is one that
// index names. Anything else is refused, kOutput naming the file, before the job starts and
// again right before the rename.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "pipeline/core/status.h"

namespace tc {

inline constexpr const char* kThumbnailNote = "NOTE written by transcode: thumbnails";

// `dir_fd`: the output directory (any fd of it, O_PATH will do); `dir_shown` its path for
// messages ("." for the working directory). Ok: the sheets an earlier index of ours names.
Result<std::set<std::string>> check_thumbnails_replaceable(int dir_fd,
                                                           const std::string& dir_shown);
// Removes the sheets of an earlier run (`earlier`, as the check gave them) that this run did not
// write again (`written`): nothing is left that the new index does not name. Best effort.
void remove_earlier_sheets(int dir_fd, const std::set<std::string>& earlier,
                           const std::vector<std::string>& written);

}  // namespace tc
