#include "pipeline/package/keyframe_range.h"

#include <cstring>

namespace tc::package {
namespace {

constexpr size_t kTsPacket = 188;
constexpr uint8_t kTsSync = 0x47;

uint32_t be32(std::string_view bytes, size_t at) {
  auto byte = [&](size_t i) { return uint32_t(static_cast<unsigned char>(bytes[at + i])); };
  return byte(0) << 24 | byte(1) << 16 | byte(2) << 8 | byte(3);
}

// The box of type `type` among the boxes in `bytes`; empty if absent or cut short. Its
// payload follows its 8-byte header (no 64-bit sizes in a moof).
std::string_view child_box(std::string_view bytes, const char* type) {
  size_t at = 0;
  while (at + 8 <= bytes.size()) {
    size_t size = be32(bytes, at);
    if (size < 8 || at + size > bytes.size()) return {};
    if (std::memcmp(bytes.data() + at + 4, type, 4) == 0) return bytes.substr(at, size);
    at += size;
  }
  return {};
}

// ISO/IEC 14496-12 8.8.7 (tfhd) flags and fields before default_sample_size.
constexpr uint32_t kTfhdBaseDataOffset = 0x1, kTfhdDescriptionIndex = 0x2,
                   kTfhdDefaultDuration = 0x8, kTfhdDefaultSize = 0x10;
// 8.8.8 (trun).
constexpr uint32_t kTrunDataOffset = 0x1, kTrunFirstSampleFlags = 0x4, kTrunDuration = 0x100,
                   kTrunSize = 0x200;

// tfhd's default_sample_size, 0 if it has none.
uint32_t default_sample_size(std::string_view tfhd) {
  if (tfhd.size() < 16) return 0;
  uint32_t flags = be32(tfhd, 8) & 0xffffff;
  size_t at = 16;  // header, version and flags, track_ID
  if (flags & kTfhdBaseDataOffset) at += 8;
  if (flags & kTfhdDescriptionIndex) at += 4;
  if (flags & kTfhdDefaultDuration) at += 4;
  return (flags & kTfhdDefaultSize) && at + 4 <= tfhd.size() ? be32(tfhd, at) : 0;
}

}  // namespace

int64_t fmp4_keyframe_length(std::string_view fragment) {
  if (fragment.size() < 8 || std::memcmp(fragment.data() + 4, "moof", 4) != 0) return 0;
  size_t moof_size = be32(fragment, 0);
  if (moof_size < 8 || moof_size > fragment.size()) return 0;
  std::string_view traf = child_box(fragment.substr(8, moof_size - 8), "traf");
  if (traf.empty()) return 0;
  std::string_view boxes = traf.substr(8);
  std::string_view trun = child_box(boxes, "trun");
  if (trun.size() < 16) return 0;
  uint32_t flags = be32(trun, 8) & 0xffffff;
  size_t at = 16;  // header, version and flags, sample_count
  // Without data_offset the data starts right after the moof, past the mdat's header.
  int64_t data_offset = int64_t(moof_size) + 8;
  if (flags & kTrunDataOffset) {
    data_offset = int32_t(be32(trun, at));
    at += 4;
  }
  if (flags & kTrunFirstSampleFlags) at += 4;
  if (flags & kTrunDuration) at += 4;
  uint32_t size = default_sample_size(child_box(boxes, "tfhd"));
  if (flags & kTrunSize) size = at + 4 <= trun.size() ? be32(trun, at) : 0;
  int64_t end = data_offset + size;
  return size > 0 && data_offset >= int64_t(moof_size) && end <= int64_t(fragment.size()) ? end : 0;
}

ByteRange ts_keyframe_range(std::string_view packets) {
  size_t count = packets.size() / kTsPacket;
  if (count == 0) return {};
  auto pid = [&](size_t packet) {
    size_t at = packet * kTsPacket;
    return (static_cast<unsigned char>(packets[at + 1]) & 0x1f) << 8 |
           static_cast<unsigned char>(packets[at + 2]);
  };
  int video = pid(count - 1);
  size_t first = 0;
  while (first < count && (packets[first * kTsPacket] != char(kTsSync) || pid(first) != video))
    ++first;
  return {int64_t(first * kTsPacket), int64_t((count - first) * kTsPacket)};
}

}  // namespace tc::package
