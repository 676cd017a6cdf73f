#include "pipeline/plan/hdr_plan.h"

#include "pipeline/hw/backends.h"
#include "pipeline/plan/hdr_params.h"

namespace tc {

void add_declared_hdr_params(const VideoInfo& source, VideoEncodePlan& video) {
  if (!video.format.hdr_metadata || video.hw_frames) return;
  HdrMetadata declared;
  if (source.mastering_display_values)
    declared.mastering = reinterpret_cast<const uint8_t*>(&*source.mastering_display_values);
  if (source.content_light_values)
    declared.light = reinterpret_cast<const uint8_t*>(&*source.content_light_values);
  const SwEncoderDesc& encoder = software_encoder(video.codec);
  video.hdr_params_declared =
      add_hdr_params(encoder.hdr_params, encoder.params_option, declared, video.options);
}

}  // namespace tc
