#include "pipeline/exec/frame_memory.h"

extern "C" {
#include <libavutil/hwcontext.h>
}

namespace tc {

Result<av::FramePtr> frame_in_memory(const AVFrame& frame, const std::string& what) {
  if (!frame.hw_frames_ctx) {
    av::FramePtr copy(av_frame_clone(&frame));
    if (!copy) return Status(Code::kInternal, "out of memory (" + what + ")");
    return copy;
  }
  const auto* frames = reinterpret_cast<const AVHWFramesContext*>(frame.hw_frames_ctx->data);
  av::FramePtr download = av::make_frame();
  download->format = frames->sw_format;
  if (int err = av_hwframe_transfer_data(download.get(), &frame, 0); err < 0)
    return av_status(err, Code::kDevice, what);
  if (int err = av_frame_copy_props(download.get(), &frame); err < 0)
    return av_status(err, Code::kInternal, what);
  return download;
}

}  // namespace tc
