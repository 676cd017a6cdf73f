// Opening an input for libav, confined: a file is opened below the roots (confined_path.h) and
// read through an AVIOContext over its fd (fd_avio.h); a demuxer may not open anything else,
// and only formats that are one self-contained file are read. A URL input of an allowed
// protocol is opened by libav with protocol_whitelist = exactly those protocols (and their
// transports), so nothing it refers to (an HLS playlist's entries) reaches a file.
#pragma once

#include <memory>
#include <string>

#include "pipeline/core/av.h"
#include "pipeline/core/status.h"
#include "pipeline/io/access.h"
#include "pipeline/io/fd_avio.h"

namespace tc::io {

// What must outlive the input's format context: declared before it wherever both are kept.
struct InputSource {
  std::unique_ptr<NestedOpens> nested;
  FdAvioPtr io;  // null for a URL input
};

struct MediaInput {
  InputSource source;
  av::InputFormatPtr format;  // opened, stream info read
};

// Opens `path` (a file below the roots, or a URL of an allowed protocol) and reads its stream
// info. Errors are kInput and name the path.
Result<MediaInput> open_media_input(const std::string& path, const Access& access,
                                    const AVIOInterruptCB* interrupt = nullptr);

}  // namespace tc::io
