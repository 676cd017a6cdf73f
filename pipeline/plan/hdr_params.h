// HDR10 static metadata as encoder parameters: the strings libx265 and libsvtav1 (FFmpeg 5.1)
// take it in, since they write it into the bitstream only from their parameters option. Both the
// plan (the container's declared values: plan/hdr_plan.h) and the executor (the first frame's:
// exec/hdr_metadata.h) add them, so they live here, below both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/hw/backends.h"

namespace tc {

// The source's HDR10 static metadata: AVMasteringDisplayMetadata and AVContentLightMetadata.
struct HdrMetadata {
  const uint8_t* mastering = nullptr;  // AVMasteringDisplayMetadata
  const uint8_t* light = nullptr;      // AVContentLightMetadata
  bool empty() const { return !mastering && !light; }
};

// x265's parameters for it: "master-display=G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min):max-cll=C,F";
// empty when there is none.
std::string x265_hdr_params(const HdrMetadata& metadata);
// SVT-AV1's (1.x, which writes them as metadata OBUs): the same display in chromaticity
// coordinates and cd/m2, "mastering-display=G(0.2650,0.6900)...L(1000,0.0001):content-light=C,F".
std::string svtav1_hdr_params(const HdrMetadata& metadata);

// Encoders that write HDR10 metadata into the bitstream only from a parameters option (FFmpeg
// 5.1: libx265's x265-params, libsvtav1's svtav1-params: SwEncoderDesc::hdr_params and
// params_option) get it there, appended to the option where it is set. Whether HDR10 is there
// already is the caller's fact (VideoEncodePlan::hdr_params_declared), never read back from
// the text. kNone: nothing (VP9 has no place for it in the bitstream, hardware encoders read
// the frames' side data, and every output stream gets it: add_hdr_side_data). Returns whether
// it added any.
bool add_hdr_params(HdrParamsSyntax syntax, std::string_view option, const HdrMetadata& metadata,
                    std::vector<std::pair<std::string, std::string>>& options);

}  // namespace tc
