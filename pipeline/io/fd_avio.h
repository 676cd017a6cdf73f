// libav reads and writes through AVIOContexts over fds we opened ourselves (confined_path.h),
// never through a path of its own: an AVIOContext here owns its fd, and nested opens a
// demuxer or muxer makes (AVFormatContext.io_open: hls segments, concat entries, mov external
// references) are refused, except the one the mp4 muxer needs: re-reading its own output for
// the faststart pass, served from the already-open file.
#pragma once

#include <memory>
#include <string>

extern "C" {
#include <libavformat/avformat.h>
}

#include "pipeline/core/fd.h"
#include "pipeline/core/status.h"

namespace tc::io {

// Frees the context, its buffer and the fd behind it (a context made by make_fd_avio only).
struct FdAvioDeleter {
  void operator()(AVIOContext* pb) const;
};
using FdAvioPtr = std::unique_ptr<AVIOContext, FdAvioDeleter>;

enum class AvioMode { kRead, kWrite };
// Positional (pread/pwrite at the context's own offset) for seekable files, so two contexts
// over one file (the muxer writing, its faststart pass reading) never move each other.
Result<FdAvioPtr> make_fd_avio(ScopedFd fd, AvioMode mode);

// Writes what the context holds buffered: 0, or the first write error as an AVERROR.
int flush_fd_avio(AVIOContext* pb);

// What a format context may open beyond its own AVIO. Lives as long as the context (its
// address is the context's opaque).
struct NestedOpens {
  int own_file = -1;    // an output's file: its own URL may be opened again for reading
  std::string refused;  // the first URL refused, for the error message
};
// Installs io_open/io_close2 hooks on `ctx` that apply `policy`.
void confine_nested_opens(AVFormatContext* ctx, NestedOpens* policy);

}  // namespace tc::io
