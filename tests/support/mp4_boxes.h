// The few ISO BMFF fields a DASH timeline is checked against, read from the bytes (not through
// FFmpeg, whose mov demuxer re-bases fragment times): the init segment's timescale and edit list,
// a media segment's decode time (tfdt) and its first sample's composition offset.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tc::testing {

struct InitTiming {
  uint32_t timescale = 0;       // the track's (mdhd)
  int64_t edit_media_time = 0;  // the edit list's media_time: the composition time shown at 0
  bool has_edit_list = false;
  bool empty_edit = false;  // an edit with media_time -1 (a delay; not read further)
};

struct FragmentTiming {
  uint64_t base_decode_time = 0;         // tfdt
  int64_t first_composition_offset = 0;  // the first sample's, from trun (0 when absent)
};

// The first track of an init segment (ftyp + moov); nullopt when it has no mdhd.
std::optional<InitTiming> read_init_timing(const std::string& bytes);
// The first track fragment of a media segment (moof); nullopt when it has no tfdt.
std::optional<FragmentTiming> read_fragment_timing(const std::string& bytes);
// Every sample's duration in the first track fragment of a media segment: trun's, else tfhd's
// default; empty when the fragment has no trun.
std::vector<uint32_t> read_sample_durations(const std::string& bytes);
// The channelConfiguration of the first AAC AudioSpecificConfig (ISO 14496-3 1.6.2.1) in an MP4
// file or init segment, read from its esds box: 1-7 for the layouts AAC signals natively, 0 when
// a program config element carries the layout. nullopt when there is no esds.
std::optional<int> read_aac_channel_configuration(const std::string& bytes);

}  // namespace tc::testing
