#include "tests/support/mp4_boxes.h"

#include <algorithm>
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

// An MPEG-4 descriptor (ISO 14496-1 7.2.2.1): a tag, a size of 1-4 bytes of 7 bits each, the
// payload.
struct Descriptor {
  int tag = 0;
  std::string_view payload;
};

std::optional<Descriptor> read_descriptor(std::string_view bytes, size_t at) {
  if (at >= bytes.size()) return std::nullopt;
  Descriptor descriptor{static_cast<unsigned char>(bytes[at++]), {}};
  size_t size = 0;
  for (int i = 0; i < 4 && at < bytes.size(); ++i) {
    auto byte = static_cast<unsigned char>(bytes[at++]);
    size = (size << 7) | (byte & 0x7f);
    if (!(byte & 0x80)) break;
  }
  if (at + size > bytes.size()) return std::nullopt;
  descriptor.payload = bytes.substr(at, size);
  return descriptor;
}

// The DecoderSpecificInfo (an AudioSpecificConfig for AAC) of an esds box's payload.
std::optional<std::string_view> decoder_specific_info(std::string_view esds) {
  std::optional<Descriptor> es = read_descriptor(esds, 4);  // after version and flags
  if (!es || es->tag != 3 || es->payload.size() < 3) return std::nullopt;
  auto flags = static_cast<unsigned char>(es->payload[2]);
  size_t at = 3;              // ES_ID, flags
  if (flags & 0x80) at += 2;  // dependsOn_ES_ID
  if (flags & 0x40 && at < es->payload.size())
    at += 1 + static_cast<unsigned char>(es->payload[at]);  // URL
  if (flags & 0x20) at += 2;                                // OCR_ES_Id
  std::optional<Descriptor> config = read_descriptor(es->payload, at);
  if (!config || config->tag != 4) return std::nullopt;
  std::optional<Descriptor> specific = read_descriptor(config->payload, 13);
  if (!specific || specific->tag != 5) return std::nullopt;
  return specific->payload;
}

}  // namespace

std::optional<int> read_aac_channel_configuration(const std::string& bytes) {
  // Every esds box, wherever its sample entry sits: a box header is the 4-byte size then "esds".
  for (size_t at = bytes.find("esds"); at != std::string::npos; at = bytes.find("esds", at + 1)) {
    if (at < 4) continue;
    uint64_t size = read_be(bytes, at - 4, 4);
    if (size < 8 || at - 4 + size > bytes.size()) continue;
    std::optional<std::string_view> config =
        decoder_specific_info(std::string_view(bytes).substr(at + 4, size - 8));
    if (!config || config->size() < 2) continue;
    // audioObjectType (5 bits), samplingFrequencyIndex (4; 15: a 24-bit frequency follows),
    // channelConfiguration (4).
    uint64_t bits = read_be(*config, 0, 5) << (8 * (5 - std::min<size_t>(5, config->size())));
    int frequency_index = int((bits >> 31) & 0xf);
    int shift = frequency_index == 15 ? 31 - 24 - 4 : 31 - 4;
    return int((bits >> shift) & 0xf);
  }
  return std::nullopt;
}

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

std::vector<uint32_t> read_sample_durations(const std::string& bytes) {
  std::optional<std::string_view> tfhd = find_box(bytes, "moof/traf/tfhd");
  std::optional<std::string_view> trun = find_box(bytes, "moof/traf/trun");
  if (!tfhd || !trun) return {};
  uint32_t tfhd_flags = uint32_t(read_be(*tfhd, 1, 3));
  size_t at = 8;                     // version + flags, track_ID
  if (tfhd_flags & 0x01) at += 8;    // base_data_offset
  if (tfhd_flags & 0x02) at += 4;    // sample_description_index
  uint32_t fallback = tfhd_flags & 0x08 ? uint32_t(read_be(*tfhd, at, 4)) : 0;
  uint32_t flags = uint32_t(read_be(*trun, 1, 3));
  uint64_t count = read_be(*trun, 4, 4);
  at = 8;
  if (flags & 0x001) at += 4;  // data_offset
  if (flags & 0x004) at += 4;  // first_sample_flags
  size_t sample_size = 0;
  for (uint32_t field : {0x100u, 0x200u, 0x400u, 0x800u})
    if (flags & field) sample_size += 4;
  std::vector<uint32_t> durations;
  for (uint64_t i = 0; i < count && at + sample_size <= trun->size(); ++i, at += sample_size)
    durations.push_back(flags & 0x100 ? uint32_t(read_be(*trun, at, 4)) : fallback);
  return durations;
}

}  // namespace tc::testing
