// HLG as broadcasters and phones write it: the VUI says BT.2020 10-bit (transfer 14), which
// every decoder takes, and an alternative_transfer_characteristics SEI (H.264 / HEVC SEI payload
// 147) prefers ARIB STD-B67 (18), for decoders that know HLG. FFmpeg 5.1 applies the SEI to the
// decoded frames' color_trc but not to the stream's codec parameters (ffprobe's stream says
// bt2020-10, its frames arib-std-b67), so the probe reads it from the first video packet.
#pragma once

#include <optional>

extern "C" {
#include <libavformat/avformat.h>
}

namespace tc {

// The transfer the first packet of `stream`'s SEI prefers, if it has one; reads packets of
// `format` (the probe's) until one of `stream` comes (at most a few hundred).
std::optional<AVColorTransferCharacteristic> preferred_transfer(AVFormatContext& format,
                                                                const AVStream& stream);

}  // namespace tc
