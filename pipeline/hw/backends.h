// Backends are data (as mpv's hwdec table): per backend its device type, hw pixel format, the
// filters that scale and move frames, and its encoder per codec. The planner reads this table;
// nothing else branches on a backend's name.
#pragma once

#include <string_view>

extern "C" {
#include <libavcodec/codec_id.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixfmt.h>
}

#include "pipeline/spec/job_spec.h"

namespace tc {

struct BackendDesc {
  BackendKind kind;
  std::string_view name;
  AVHWDeviceType device_type;     // AV_HWDEVICE_TYPE_NONE for software
  AVPixelFormat hw_format;        // AV_PIX_FMT_NONE for software
  std::string_view scale;         // the scale filter; "%W" and "%H" stand for the target size
  std::string_view upload;        // filters that bring a software frame to the device
  std::string_view download;      // filters that bring a device frame back to memory
  AVPixelFormat download_format;  // the software format `download` yields
  bool decodes_on_device;         // the decoder can output device frames (hwaccel)
};

const BackendDesc& backend_desc(BackendKind kind);

struct CodecEncoders {
  VideoCodec codec;
  AVCodecID id;
  std::string_view software;
  std::string_view vaapi;
  std::string_view cuda;
};

const CodecEncoders& encoders_of(VideoCodec codec);
// The hw encoder of `codec` on `backend`; empty when the backend has none.
std::string_view hw_encoder(BackendKind backend, VideoCodec codec);

}  // namespace tc
