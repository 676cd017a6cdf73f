#include "pipeline/plan/hdr_plan.h"

#include "pipeline/plan/hdr_params.h"

namespace tc {

void add_declared_hdr_params(const VideoInfo& source, VideoEncodePlan& video) {
  if (!video.format.hdr_metadata) return;
  HdrMetadata declared;
  if (source.mastering_display_values)
    declared.mastering = reinterpret_cast<const uint8_t*>(&*source.mastering_display_values);
  if (source.content_light_values)
    declared.light = reinterpret_cast<const uint8_t*>(&*source.content_light_values);
  add_hdr_params(video.encoder, declared, video.options);
}

}  // namespace tc
