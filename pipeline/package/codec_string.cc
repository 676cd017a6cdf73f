#include "pipeline/package/codec_string.h"

#include <cstdint>
#include <cstdio>
#include <vector>

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace tc::package {
namespace {

using Bytes = std::vector<uint8_t>;

std::string hex2(unsigned value) {
  char text[8];
  std::snprintf(text, sizeof text, "%02x", value & 0xff);
  return text;
}

// The payload of the first Annex B NAL unit whose header matches, emulation-prevention bytes
// (00 00 03) removed; empty when there is none.
Bytes annexb_nal(const uint8_t* data, int size, bool (*wanted)(uint8_t header)) {
  for (int i = 0; i + 3 < size; ++i) {
    if (data[i] != 0 || data[i + 1] != 0 || data[i + 2] != 1 || !wanted(data[i + 3])) continue;
    Bytes nal;
    int zeros = 0;
    for (int j = i + 3; j < size; ++j) {
      if (zeros >= 2 && data[j] == 3) {
        zeros = 0;
        continue;
      }
      if (zeros >= 2 && data[j] <= 1) break;  // the next start code
      zeros = data[j] == 0 ? zeros + 1 : 0;
      nal.push_back(data[j]);
    }
    return nal;
  }
  return {};
}

// avc1.PPCCLL: profile_idc, constraint flags, level_idc (avcC bytes 1-3, or the SPS's).
std::string avc1(const uint8_t* data, int size) {
  const uint8_t* p = nullptr;
  Bytes sps;
  if (size >= 4 && data[0] == 1) {
    p = data + 1;
  } else {
    sps = annexb_nal(data, size, [](uint8_t h) { return (h & 0x1f) == 7; });
    if (sps.size() >= 4) p = sps.data() + 1;
  }
  return p ? "avc1." + hex2(p[0]) + hex2(p[1]) + hex2(p[2]) : "";
}

unsigned reverse_bits(uint32_t value) {
  unsigned reversed = 0;
  for (int i = 0; i < 32; ++i) reversed |= ((value >> i) & 1u) << (31 - i);
  return reversed;
}

// hvc1.[A-C]P.FLAGS.TL.C1.C2...: from the 12 bytes of general_profile_tier_level (hvcC bytes
// 1-12, or the SPS's after its first byte).
std::string hvc1_from_ptl(const uint8_t* ptl) {
  int space = ptl[0] >> 6;
  int tier = (ptl[0] >> 5) & 1;
  int profile = ptl[0] & 0x1f;
  uint32_t compat =
      uint32_t(ptl[1]) << 24 | uint32_t(ptl[2]) << 16 | uint32_t(ptl[3]) << 8 | ptl[4];
  char flags[16];
  std::snprintf(flags, sizeof flags, "%x", reverse_bits(compat));
  std::string text = "hvc1.";
  if (space > 0) text += char('A' + space - 1);
  text +=
      std::to_string(profile) + "." + flags + "." + (tier ? "H" : "L") + std::to_string(ptl[11]);
  int last = 10;  // constraint bytes 5..10; trailing zero bytes are left out
  while (last >= 5 && ptl[last] == 0) --last;
  for (int i = 5; i <= last; ++i) {
    char byte[4];
    std::snprintf(byte, sizeof byte, "%X", ptl[i]);
    text += std::string(".") + byte;
  }
  return text;
}

std::string hvc1(const uint8_t* data, int size) {
  if (size >= 23 && data[0] == 1) return hvc1_from_ptl(data + 1);
  Bytes sps = annexb_nal(data, size, [](uint8_t h) { return ((h >> 1) & 0x3f) == 33; });
  // 2 bytes of NAL header, 1 of ids and sub-layer count, then the 12 of the profile.
  return sps.size() >= 15 ? hvc1_from_ptl(sps.data() + 3) : "";
}

// A bit reader for the AV1 sequence header.
struct Bits {
  const uint8_t* data;
  size_t size;
  size_t at = 0;
  unsigned read(int n) {
    unsigned value = 0;
    for (int i = 0; i < n; ++i, ++at)
      value = value << 1 | (at / 8 < size ? (data[at / 8] >> (7 - at % 8)) & 1 : 0);
    return value;
  }
};

std::string av01_text(unsigned profile, unsigned level, unsigned tier, int depth) {
  char text[32];
  std::snprintf(text, sizeof text, "av01.%u.%02u%c.%02d", profile, level, tier ? 'H' : 'M', depth);
  return text;
}

// av01.P.LLT.DD: from the av1C record, or from a sequence header OBU without timing info.
std::string av01(const uint8_t* data, int size, int depth) {
  if (size >= 4 && (data[0] & 0x80))
    return av01_text(data[1] >> 5, data[1] & 0x1f, data[2] >> 7,
                     (data[2] & 0x40) ? ((data[2] & 0x20) ? 12 : 10) : 8);
  if (size < 3 || ((data[0] >> 3) & 0xf) != 1) return "";
  size_t at = 1 + ((data[0] >> 2) & 1);  // the extension byte
  if (data[0] & 2)                       // a size field: leb128
    while (at < size_t(size) && (data[at++] & 0x80)) {
    }
  Bits bits{data + at, size_t(size) - at};
  unsigned profile = bits.read(3);
  bits.read(1);  // still_picture
  if (bits.read(1)) return av01_text(profile, bits.read(5), 0, depth);
  if (bits.read(1)) return "";  // timing info: not read here
  bits.read(1);                 // initial_display_delay_present (0 without timing info)
  bits.read(5);                 // operating_points_cnt_minus_1
  bits.read(12);                // operating_point_idc[0]
  unsigned level = bits.read(5);
  unsigned tier = level > 7 ? bits.read(1) : 0;
  return av01_text(profile, level, tier, depth);
}

}  // namespace

std::string codec_string(const AVCodecParameters& codec) {
  const uint8_t* data = codec.extradata;
  int size = data ? codec.extradata_size : 0;
  switch (codec.codec_id) {
    case AV_CODEC_ID_H264:
      return avc1(data, size);
    case AV_CODEC_ID_HEVC:
      return hvc1(data, size);
    case AV_CODEC_ID_AV1: {
      const AVPixFmtDescriptor* format =
          av_pix_fmt_desc_get(static_cast<AVPixelFormat>(codec.format));
      return av01(data, size, format ? format->comp[0].depth : 8);
    }
    case AV_CODEC_ID_AAC:
      // The AudioSpecificConfig's first 5 bits: the audio object type (2 = AAC-LC).
      return "mp4a.40." + std::to_string(size > 0 ? data[0] >> 3 : 2);
    default:
      return "";
  }
}

}  // namespace tc::package
