// RFC 6381 codec strings ("avc1.64001f", "hvc1.1.6.L93.B0", "av01.0.08M.08", "mp4a.40.2") read
// from what the encoder wrote (its extradata: parameter sets, the AV1 sequence header or
// configuration record, the AAC AudioSpecificConfig), for the manifests' CODECS.
#pragma once

#include <string>

extern "C" {
#include <libavcodec/codec_par.h>
}

namespace tc::package {

// Empty when the extradata says nothing we can read (the manifests then leave CODECS out).
std::string codec_string(const AVCodecParameters& codec);

}  // namespace tc::package
