// The video and audio filter graphs of a plan: one input split to a sink per encoding output.
// Counts what the executor and the report need (sinks, uploads, downloads, scalers) while it
// writes the text, so nothing reads the text back.
#pragma once

#include <vector>

#include "pipeline/hw/backends.h"
#include "pipeline/plan/plan.h"

namespace tc {

struct FrameSize {
  int width = 0;
  int height = 0;
  bool operator==(const FrameSize&) const = default;
  bool fits_in(const FrameSize& other) const {
    return width <= other.width && height <= other.height;
  }
  int64_t area() const { return int64_t(width) * height; }
};

// One output that encodes video.
struct VideoBranch {
  size_t output = 0;
  FrameSize size;
  bool download = false;  // its frames come back to memory (a software encoder)
  // The pixel format its encoder takes when frames arrive in another ("" = as they arrive).
  std::string convert_to;
  int held_frames = 0;  // frames its encoder holds from the scaler's fixed pool
  // The software format device frames have after its scaler ("%F" of scale and download).
  std::string device_format;
  std::string device_filters;    // on the device, before the scaler (tonemap_vaapi)
  std::string software_filters;  // in memory, after any download, before convert_to (tone-map)
  // Uploaded again after the software filters, for a device encoder ("" = not).
  std::string reupload_format;
  // Before anything else: which frames the branch takes ("select=..."; "" = every frame).
  std::string select;
  // First after its scaler: the output's frame rate ("fps=25"; "" = the source's). After, so
  // that the outputs scaled from this one's frames keep their own rate.
  std::string rate;
  bool thumbnails = false;  // the thumbnail branch: its sink is "thumbs"
  // A refit graph's (refit_plan.h): scales to fit `size` keeping the display aspect, whatever
  // the source's size; then `after_scale` (the pad, where the scaler runs).
  bool fit = false;
  std::string after_scale;
  // Its frames come down before any scaler, in the format they have on the device
  // (device_format), and are scaled in memory: a VPP that writes no 10 bits (Gen9) would make
  // 8 of a branch that needs 10 in memory. Implies download.
  bool scale_in_memory = false;
};

struct VideoSource {
  FrameSize size;
  bool on_device = false;  // frames are on the device by the time they are scaled
  bool upload = false;     // ... because the graph uploads them first
  int upload_extra_frames = 0;
  std::string upload_format;  // "%F" of the upload: nv12, p010le, yuv420p10le
  // Before the split, for every branch: after the upload when on the device, else before it.
  std::string deinterlace;
  bool deinterlace_on_device = false;
  // After the deinterlacer (fields are rows): turning the frames upright (plan/orientation.h),
  // on the device (after the upload) or in memory (before it). `size` is the turned frames'.
  std::string turn;
  bool turn_on_device = false;
  // On the device, before its deinterlacer and turn: a conversion of the frames' format
  // (DeviceConvertPlan; "" = none). Counted as a scaler.
  std::string device_convert;
  // The size is not known when the graph is written (a refit graph, for frames after a
  // mid-stream change): every branch scales, from the source.
  bool refit = false;
};

// On a device every branch scales from the source (cheap there), in steps of at most the
// backend's scale_max_ratio; in software each output scales from the smallest larger output
// (cascaded), which saves most of a ladder's scaling.
FilterGraphPlan build_video_graph(const BackendDesc& backend, const VideoSource& source,
                                  std::vector<VideoBranch> branches);
// One encoded audio track an audio graph feeds: output `output`'s AudioPlan `audio`, after
// its own filters `tail` (loudnorm, the aformat).
struct AudioBranch {
  size_t output = 0;
  size_t audio = 0;
  std::string tail;
  bool stereo_rendition = false;
};
// Audio: input stream `stream`'s "[ain]" to fltp, split to each branch; its sinks are
// "a<stream>out<output>" ("...s" for a package's stereo rendition), unique across the job's
// audio graphs.
FilterGraphPlan build_audio_graph(const std::vector<AudioBranch>& branches, int stream);

}  // namespace tc
