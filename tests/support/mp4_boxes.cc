#include "tests/support/mp4_boxes.h"

#include <string_view>

namespace tc::testing {
namespace {

uint64_t read_be(std::string_view bytes, size_t at, int size) {
  uint64_t value = 0;
  for (int i = 0; i < size && at + i < bytes.size(); ++i)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

// The payload of the first box of `type` on the path below `bytes` ("moov/trak/mdia/mdhd").
std::optional<std::string_view> find_box(std::string_view bytes, std::string_view path) {
  std::string_view type = path.substr(0, path.find('/'));
  for (size_t at = 0; at + 8 <= bytes.size();) {
    uint64_t size = read_be(bytes, at, 4);
    size_t header = 8;
    if (size == 1) {
      size = read_be(bytes, at + 8, 8);
      header = 16;
    } else if (size == 0) {
      size = bytes.size() - at;
    }
    if (size < header || at + size > bytes.size()) return std::nullopt;
    if (bytes.substr(at + 4, 4) == type) {
      std::string_view payload = bytes.substr(at + header, size - header);
      if (type.size() == path.size()) return payload;
      return find_box(payload, path.substr(type.size() + 1));
    }
    at += size;
  }
  return std::nullopt;
}

}  // namespace

std::optional<InitTiming> read_init_timing(const std::string& bytes) {
  std::optional<std::string_view> mdhd = find_box(bytes, "moov/trak/mdia/mdhd");
  if (!mdhd) return std::nullopt;
  InitTiming timing;
  bool v1 = read_be(*mdhd, 0, 1) == 1;
  timing.timescale = uint32_t(read_be(*mdhd, v1 ? 20 : 12, 4));
  std::optional<std::string_view> elst = find_box(bytes, "moov/trak/edts/elst");
  if (!elst) return timing;
  timing.has_edit_list = true;
  bool elst_v1 = read_be(*elst, 0, 1) == 1;
  uint64_t entries = read_be(*elst, 4, 4);
  size_t entry_size = elst_v1 ? 20 : 12;
  for (uint64_t i = 0; i < entries; ++i) {
    size_t at = 8 + i * entry_size;
    int64_t media_time = elst_v1 ? int64_t(read_be(*elst, at + 8, 8))
                                 : int64_t(int32_t(uint32_t(read_be(*elst, at + 4, 4))));
    if (media_time == -1) {
      timing.empty_edit = true;
      continue;
    }
    timing.edit_media_time = media_time;
    break;
  }
  return timing;
}

std::optional<FragmentTiming> read_fragment_timing(const std::string& bytes) {
  std::optional<std::string_view> tfdt = find_box(bytes, "moof/traf/tfdt");
  if (!tfdt) return std::nullopt;
  FragmentTiming timing;
  bool v1 = read_be(*tfdt, 0, 1) == 1;
  timing.base_decode_time = read_be(*tfdt, 4, v1 ? 8 : 4);
  std::optional<std::string_view> trun = find_box(bytes, "moof/traf/trun");
  if (!trun) return timing;
  bool signed_offsets = read_be(*trun, 0, 1) == 1;
  uint32_t flags = uint32_t(read_be(*trun, 1, 3));
  size_t at = 8;                                   // version + flags, sample_count
  if (flags & 0x001) at += 4;                      // data_offset
  if (flags & 0x004) at += 4;                      // first_sample_flags
  for (uint32_t field : {0x100u, 0x200u, 0x400u})  // duration, size, flags
    if (flags & field) at += 4;
  if (flags & 0x800) {
    uint32_t offset = uint32_t(read_be(*trun, at, 4));
    timing.first_composition_offset = signed_offsets ? int64_t(int32_t(offset)) : int64_t(offset);
  }
  return timing;
}

}  // namespace tc::testing
