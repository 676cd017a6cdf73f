#include "pipeline/probe/alternative_transfer.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" {
#include <libavutil/pixdesc.h>
}

#include "pipeline/core/av.h"

namespace tc {
namespace {

constexpr int kPacketsRead = 256;
constexpr int kAlternativeTransferSei = 147;  // H.264 D.1.26, H.265 D.2.38
constexpr int kH264Sei = 6;
constexpr int kHevcPrefixSei = 39;

// The RBSP of a NAL unit's payload: emulation prevention bytes (00 00 03) removed.
std::string rbsp(std::string_view nal) {
  std::string out;
  int zeros = 0;
  for (char c : nal) {
    auto byte = static_cast<unsigned char>(c);
    if (zeros >= 2 && byte == 3) {
      zeros = 0;
      continue;
    }
    zeros = byte == 0 ? zeros + 1 : 0;
    out.push_back(c);
  }
  return out;
}

// The SEI messages of an SEI RBSP: the preferred transfer of payload 147, if present.
std::optional<int> sei_preferred_transfer(std::string_view sei) {
  size_t at = 0;
  auto read_value = [&]() -> int {
    int value = 0;
    while (at < sei.size() && static_cast<unsigned char>(sei[at]) == 0xff) {
      value += 255;
      ++at;
    }
    return at < sei.size() ? value + static_cast<unsigned char>(sei[at++]) : -1;
  };
  while (at + 2 <= sei.size()) {
    int type = read_value();
    int size = read_value();
    if (type < 0 || size < 0 || at + size_t(size) > sei.size()) return std::nullopt;
    if (type == kAlternativeTransferSei && size >= 1) return static_cast<unsigned char>(sei[at]);
    at += size_t(size);
  }
  return std::nullopt;
}

std::optional<int> nal_preferred_transfer(std::string_view nal, AVCodecID codec) {
  if (nal.empty()) return std::nullopt;
  auto first = static_cast<unsigned char>(nal[0]);
  if (codec == AV_CODEC_ID_H264 && (first & 0x1f) == kH264Sei)
    return sei_preferred_transfer(rbsp(nal.substr(1)));
  if (codec == AV_CODEC_ID_HEVC && nal.size() > 2 && ((first >> 1) & 0x3f) == kHevcPrefixSei)
    return sei_preferred_transfer(rbsp(nal.substr(2)));
  return std::nullopt;
}

// avcC / hvcC extradata (MP4, Matroska): NAL units prefixed by their length, of this many
// bytes; 0 for Annex B (start codes: MPEG-TS, raw streams).
int length_size(const AVCodecParameters& codec) {
  const uint8_t* extra = codec.extradata;
  if (!extra || codec.extradata_size < 1 || extra[0] != 1) return 0;
  if (codec.codec_id == AV_CODEC_ID_H264 && codec.extradata_size > 4) return (extra[4] & 3) + 1;
  if (codec.codec_id == AV_CODEC_ID_HEVC && codec.extradata_size > 21) return (extra[21] & 3) + 1;
  return 0;
}

std::optional<int> packet_preferred_transfer(std::string_view data,
                                             const AVCodecParameters& codec) {
  int length = length_size(codec);
  size_t at = 0;
  while (at < data.size()) {
    size_t begin = 0, end = 0;
    if (length > 0) {
      if (at + size_t(length) > data.size()) break;
      size_t size = 0;
      for (int i = 0; i < length; ++i) size = size << 8 | static_cast<unsigned char>(data[at + i]);
      begin = at + size_t(length);
      end = std::min(data.size(), begin + size);
    } else {
      size_t code = data.find(std::string_view("\0\0\1", 3), at);
      if (code == std::string_view::npos) break;
      begin = code + 3;
      size_t next = data.find(std::string_view("\0\0\1", 3), begin);
      end = next == std::string_view::npos ? data.size() : next;
    }
    if (auto transfer = nal_preferred_transfer(data.substr(begin, end - begin), codec.codec_id))
      return transfer;
    at = end;
  }
  return std::nullopt;
}

}  // namespace

std::optional<AVColorTransferCharacteristic> preferred_transfer(AVFormatContext& format,
                                                                const AVStream& stream) {
  const AVCodecParameters& codec = *stream.codecpar;
  if (codec.codec_id != AV_CODEC_ID_H264 && codec.codec_id != AV_CODEC_ID_HEVC) return std::nullopt;
  av::PacketPtr packet = av::make_packet();
  if (!packet) return std::nullopt;
  for (int read = 0; read < kPacketsRead && av_read_frame(&format, packet.get()) >= 0; ++read) {
    bool ours = packet->stream_index == stream.index;
    std::optional<int> transfer;
    if (ours)
      transfer = packet_preferred_transfer(
          {reinterpret_cast<const char*>(packet->data), size_t(packet->size)}, codec);
    av_packet_unref(packet.get());
    if (!ours) continue;
    if (transfer && av_color_transfer_name(AVColorTransferCharacteristic(*transfer)) &&
        *transfer != AVCOL_TRC_UNSPECIFIED)
      return AVColorTransferCharacteristic(*transfer);
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace tc
