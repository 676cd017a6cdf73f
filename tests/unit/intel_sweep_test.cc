// The sweep of issue 14: every Intel profile x input x output codec x rate control, planned
// without a GPU. Each plan must use only entrypoints and modes the profile has, cross between
// memory and GPU only where the profile lacks a stage, pass only options this FFmpeg build has,
// and give the reason a person would expect when it falls back or refuses. IntelSweep.Table
// prints the outcome per generation (docs/intel-gpus.md's table comes from it).
#include <gtest/gtest.h>
#include <va/va.h>

#include <iostream>
#include <map>
#include <set>
#include <sstream>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/hw/backends.h"
#include "pipeline/hw/intel_profiles.h"
#include "pipeline/plan/plan.h"
#include "tests/unit/fixtures.h"
#include "tests/unit/option_truth.h"

namespace tc {
namespace {

// An input of the sweep and the VA profile libavcodec's hwaccel asks the driver for (written
// here from vaapi_decode.c's map, not taken from the code under test).
struct SweepInput {
  std::string name;
  AVCodecID codec;
  int codec_profile;
  AVPixelFormat format;
  int va_profile;  // VAProfileNone: no VA profile exists for it
  int width = 1920;
  int height = 1080;
};

const std::vector<SweepInput>& inputs() {
  static const std::vector<SweepInput> all{
      {"h264", AV_CODEC_ID_H264, 100, AV_PIX_FMT_YUV420P, VAProfileH264High},
      {"h264-4:2:2", AV_CODEC_ID_H264, 122, AV_PIX_FMT_YUV422P, VAProfileNone},
      {"h264-4:4:4", AV_CODEC_ID_H264, 244, AV_PIX_FMT_YUV444P, VAProfileNone},
      {"hevc", AV_CODEC_ID_HEVC, 1, AV_PIX_FMT_YUV420P, VAProfileHEVCMain},
      {"hevc-10", AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE, VAProfileHEVCMain10},
      {"hevc-4:2:2-10", AV_CODEC_ID_HEVC, 4, AV_PIX_FMT_YUV422P10LE, VAProfileHEVCMain422_10},
      {"hevc-4:4:4", AV_CODEC_ID_HEVC, 4, AV_PIX_FMT_YUV444P, VAProfileHEVCMain444},
      {"vp9", AV_CODEC_ID_VP9, 0, AV_PIX_FMT_YUV420P, VAProfileVP9Profile0},
      {"vp9-10", AV_CODEC_ID_VP9, 2, AV_PIX_FMT_YUV420P10LE, VAProfileVP9Profile2},
      {"vp9-4:4:4", AV_CODEC_ID_VP9, 1, AV_PIX_FMT_YUV444P, VAProfileVP9Profile1},
      {"av1", AV_CODEC_ID_AV1, 0, AV_PIX_FMT_YUV420P, VAProfileAV1Profile0},
      {"av1-10", AV_CODEC_ID_AV1, 0, AV_PIX_FMT_YUV420P10LE, VAProfileAV1Profile0},
      {"mpeg2", AV_CODEC_ID_MPEG2VIDEO, 4, AV_PIX_FMT_YUV420P, VAProfileMPEG2Main},
      {"vc1", AV_CODEC_ID_VC1, 3, AV_PIX_FMT_YUV420P, VAProfileVC1Advanced},
      {"h264-5k", AV_CODEC_ID_H264, 100, AV_PIX_FMT_YUV420P, VAProfileH264High, 5120, 2880},
  };
  return all;
}

constexpr VideoCodec kOutputs[] = {VideoCodec::kH264, VideoCodec::kHevc, VideoCodec::kAv1,
                                   VideoCodec::kVp9};
constexpr RateControl kModes[] = {RateControl::kDefault, RateControl::kQuality, RateControl::kCbr,
                                  RateControl::kVbr};

MediaInfo media_of(const SweepInput& input) {
  MediaInfo info = testing::media(input.codec, input.width, input.height);
  info.video->codec_profile = input.codec_profile;
  info.video->pix_fmt = input.format;
  info.video->bit_depth = av_pix_fmt_desc_get(input.format)->comp[0].depth;
  return info;
}

OutputSpec output_of(VideoCodec codec, RateControl mode) {
  bool mp4 = codec == VideoCodec::kH264 || codec == VideoCodec::kHevc;
  OutputSpec spec = testing::output(mp4 ? "o.mp4" : "o.mkv", 1280, 720, codec);
  spec.rate_control = mode;
  if (mode == RateControl::kCbr || mode == RateControl::kVbr) spec.bitrate = 3'000'000;
  if (mode == RateControl::kQuality) spec.quality = 28;
  return spec;
}

uint32_t mode_bit(RateControl mode) {
  return mode == RateControl::kCbr   ? va_rc::kCbr
         : mode == RateControl::kVbr ? va_rc::kVbr
                                     : va_rc::kCqp;
}

const DecodeProfile* profile_of(const HwDevice& device, int va_profile) {
  for (const DecodeProfile& profile : device.decode_profiles)
    if (profile.va_profile == va_profile) return &profile;
  return nullptr;
}

// A decoder of the codec that outputs the backend's frames: the native decoder's VA-API hwaccel,
// or the codec's *_qsv decoder.
bool decoder_has_device(AVCodecID codec, AVHWDeviceType type) {
  void* iterator = nullptr;
  while (const AVCodec* decoder = av_codec_iterate(&iterator)) {
    if (decoder->id != codec || !av_codec_is_decoder(decoder)) continue;
    for (int i = 0; const AVCodecHWConfig* config = avcodec_get_hw_config(decoder, i); ++i)
      if (config->device_type == type) return true;
  }
  return false;
}

// What the sweep expects of the decode, from the profile's table entry alone.
struct DecodeExpectation {
  bool hw;
  std::string reason;  // a substring of the plan's note when !hw
};

// FFmpeg 5.1's hevcdec.c and vp9.c get_format() offer no VA-API for 4:4:4 (7.1 does).
bool offered_to_vaapi(const SweepInput& input) {
  return LIBAVCODEC_VERSION_MAJOR >= 61 ||
         (input.name != "hevc-4:4:4" && input.name != "vp9-4:4:4");
}

DecodeExpectation expected_decode(const HwDevice& device, const SweepInput& input) {
  int depth = av_pix_fmt_desc_get(input.format)->comp[0].depth;
  if (input.va_profile == VAProfileNone) return {false, "has no VA-API decode profile"};
  const DecodeProfile* profile = profile_of(device, input.va_profile);
  if (!profile) return {false, "no VA profile"};
  if (depth > profile->bit_depth) return {false, "decodes up to"};
  if (input.width > profile->max_width || input.height > profile->max_height)
    return {false, "exceeds"};
  if (device.backend == BackendKind::kVaapi && !offered_to_vaapi(input))
    return {false, "never offers VA-API"};
  if (!decoder_has_device(input.codec, backend_desc(device.backend).device_type))
    return {false, "hw config"};
  return {true, ""};
}

// What the sweep expects of the encode.
enum class EncodeOutcome { kGpu, kSoftware, kRefused };

EncodeOutcome expected_encode(const HwDevice& device, VideoCodec codec, RateControl mode) {
  std::string encoder(backend_desc(device.backend).encoder_for(codec));
  if (!avcodec_find_encoder_by_name(encoder.c_str())) return EncodeOutcome::kSoftware;
  auto found = device.encode.find(codec_id(codec));
  if (found == device.encode.end()) return EncodeOutcome::kSoftware;
  const EncodeEntrypoints& entry = found->second;
  bool offered = (entry.full && (entry.full_rate_control & mode_bit(mode))) ||
                 (entry.low_power && (entry.low_power_rate_control & mode_bit(mode)));
  return offered ? EncodeOutcome::kGpu : EncodeOutcome::kRefused;
}

std::string option(const VideoEncodePlan& plan, const std::string& key) {
  for (const auto& [name, value] : plan.options)
    if (name == key) return value;
  return "";
}

// Per generation, what the sweep found.
struct Tally {
  int combinations = 0;
  int all_gpu = 0;
  int software_decode = 0;
  int software_encode = 0;
  int refused = 0;
  std::set<std::string> decode_fallbacks;  // inputs
  std::set<std::string> encode_fallbacks;  // output codecs
  std::set<std::string> refusals;          // "h264 cbr"
};

// Checks one combination, adds it to the tally; returns a failure description or "".
std::string sweep_one(const HwDevice& device, const SweepInput& input, VideoCodec codec,
                      RateControl mode, Tally& tally) {
  std::string where = device.vendor + " " + input.name + " -> " + std::string(name_of(codec)) +
                      " " + std::string(name_of(mode)) + ": ";
  ++tally.combinations;
  Result<Plan> plan = make_plan(testing::job({output_of(codec, mode)}, device.backend),
                                media_of(input), testing::inventory({device}));
  EncodeOutcome encode = expected_encode(device, codec, mode);
  if (encode == EncodeOutcome::kRefused) {
    ++tally.refused;
    tally.refusals.insert(std::string(name_of(codec)) + " " + std::string(name_of(mode)));
    if (plan.is_ok()) return where + "planned a mode no entrypoint offers";
    if (plan.status().message().find("enable_guc=2") == std::string::npos)
      return where + "refusal does not say what to enable: " + plan.status().message();
    return "";
  }
  if (!plan.is_ok()) return where + "refused: " + plan.status().to_string();
  const VideoEncodePlan& video = plan->outputs[0].video;
  DecodeExpectation decode = expected_decode(device, input);
  if (plan->decode.hw != decode.hw)
    return where + "decode on GPU " + (decode.hw ? "expected" : "unexpected") + ": " +
           plan->decode.note;
  if (!decode.hw && plan->decode.note.find(decode.reason) == std::string::npos)
    return where + "decode note lacks '" + decode.reason + "': " + plan->decode.note;
  bool gpu_encode = encode == EncodeOutcome::kGpu;
  if (video.hw_frames != gpu_encode) return where + "encoder " + video.encoder + " unexpected";
  if (gpu_encode) {
    // The entrypoint the plan chose exists on the profile and offers the job's mode.
    const EncodeEntrypoints& entry = device.encode.at(codec_id(codec));
    bool low_power = option(video, "low_power") == "1";
    bool exists = low_power ? entry.low_power : entry.full;
    uint32_t modes = low_power ? entry.low_power_rate_control : entry.full_rate_control;
    if (!exists || !(modes & mode_bit(mode)))
      return where + "chose an entrypoint without " + std::string(name_of(mode));
  } else if (video.note.empty()) {
    return where + "software encode without a reason";
  }
  // Frames cross exactly where a stage leaves the GPU.
  int expected_crossings = (decode.hw ? 0 : 1) + (gpu_encode ? 0 : 1);
  if (plan->crossings() != expected_crossings)
    return where + "crossings " + std::to_string(plan->crossings()) + ", expected " +
           std::to_string(expected_crossings) + " in " + plan->video_graph.text;
  testing::OptionTruth truth = testing::check_option_truth(*plan);
  if (!truth.missing.empty()) return where + "option not in this build: " + truth.missing[0];
  if (decode.hw && gpu_encode) ++tally.all_gpu;
  if (!decode.hw) {
    ++tally.software_decode;
    tally.decode_fallbacks.insert(input.name);
  }
  if (!gpu_encode) {
    ++tally.software_encode;
    tally.encode_fallbacks.insert(std::string(name_of(codec)));
  }
  return "";
}

// The sweep on VA-API, or on QSV over the same profiles (QSV runs on the VA-API driver).
std::map<std::string, Tally> run_sweep(std::vector<std::string>& failures,
                                       BackendKind backend = BackendKind::kVaapi) {
  std::map<std::string, Tally> tallies;
  for (const IntelProfileSummary& profile : intel_profiles()) {
    Result<HwDevice> device = assume_intel_device(profile.key);
    if (!device.is_ok()) {
      failures.push_back(std::string(profile.key) + ": " + device.status().to_string());
      continue;
    }
    if (backend == BackendKind::kQsv) *device = qsv_device_on(*device);
    Tally& tally = tallies[std::string(profile.key)];
    for (const SweepInput& input : inputs())
      for (VideoCodec codec : kOutputs)
        for (RateControl mode : kModes) {
          std::string failure = sweep_one(*device, input, codec, mode, tally);
          if (!failure.empty()) failures.push_back(failure);
        }
  }
  return tallies;
}

TEST(IntelSweep, EveryProfileInputOutputAndModePlansAsTheProfileAllows) {
  std::vector<std::string> failures;
  std::map<std::string, Tally> tallies = run_sweep(failures);
  EXPECT_TRUE(failures.empty()) << failures.size()
                                << " failures, first: " << (failures.empty() ? "" : failures[0]);
  size_t expected =
      intel_profiles().size() * inputs().size() * std::size(kOutputs) * std::size(kModes);
  int combinations = 0;
  for (const auto& [key, tally] : tallies) combinations += tally.combinations;
  EXPECT_EQ(size_t(combinations), expected);
}

// QSV, planned over the same profiles: the same checks (entrypoints and modes the profile has,
// crossings only where a stage leaves the GPU, options this build has, reasons for fallbacks).
TEST(IntelSweep, QsvPlansAsTheProfileAllows) {
  if (!tc::testing::qsv_built()) GTEST_SKIP() << "this FFmpeg has no h264_qsv";
  std::vector<std::string> failures;
  std::map<std::string, Tally> tallies = run_sweep(failures, BackendKind::kQsv);
  EXPECT_TRUE(failures.empty()) << failures.size()
                                << " failures, first: " << (failures.empty() ? "" : failures[0]);
  int combinations = 0;
  int all_gpu = 0;
  for (const auto& [key, tally] : tallies) {
    combinations += tally.combinations;
    all_gpu += tally.all_gpu;
  }
  EXPECT_EQ(size_t(combinations),
            intel_profiles().size() * inputs().size() * std::size(kOutputs) * std::size(kModes));
  EXPECT_GT(all_gpu, 0);
  std::cout << "qsv sweep: " << combinations << " combinations, " << all_gpu
            << " fully on the GPU\n";
}

// Facts a person would check by hand on the published tables.
TEST(IntelSweep, ExpectedFallbacksByGeneration) {
  std::vector<std::string> failures;
  std::map<std::string, Tally> tallies = run_sweep(failures);
  EXPECT_TRUE(tallies["skl"].decode_fallbacks.count("hevc-10"));  // HEVC 10-bit from KBL
  EXPECT_FALSE(tallies["kbl"].decode_fallbacks.count("hevc-10"));
  EXPECT_TRUE(tallies["dg2"].decode_fallbacks.count("vc1"));  // VC-1 dropped from DG2
  EXPECT_FALSE(tallies["tgl"].decode_fallbacks.count("vc1"));
  EXPECT_TRUE(tallies["icl"].decode_fallbacks.count("av1"));  // AV1 decode from TGL
  for (const auto& [key, tally] : tallies) {
    EXPECT_TRUE(tally.decode_fallbacks.count("h264-4:2:2")) << key;  // no VA profile anywhere
    EXPECT_TRUE(tally.decode_fallbacks.count("h264-5k")) << key;     // 4k H.264 decoders
  }
  EXPECT_TRUE(tallies["ehl"].refusals.count("h264 cbr"));  // VDEnc only, no HuC by default
  // ICL's shader encoder does CBR/VBR for H.264/HEVC; its VP9 encoder is VDEnc, listed by iHD
  // only with HuC (off by default there): VP9 is encoded in software, not refused.
  EXPECT_FALSE(tallies["icl"].refusals.count("h264 cbr"));
  EXPECT_FALSE(tallies["icl"].refusals.count("vp9 vbr"));
  EXPECT_TRUE(tallies["icl"].encode_fallbacks.count("vp9"));
  EXPECT_TRUE(tallies["tgl"].refusals.empty());               // Gen12 loads HuC by default
  EXPECT_TRUE(tallies["lnl"].encode_fallbacks.count("vp9"));  // no VP9 encode on Xe2
}

std::string joined(const std::set<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text.empty() ? "-" : text;
}

// What each generation's row must say, written from intel/media-driver's published support
// tables (README.md, "Decoding/Encoding Features") and FFmpeg's VA-API encoders, not from the
// profiles under test.
struct ExpectedRow {
  std::set<std::string> decoded_in_software;
  std::set<std::string> encoded_in_software;
  std::set<std::string> refused;
};

std::map<std::string, ExpectedRow> expected_rows() {
  // Everywhere: H.264 4:2:2 and 4:4:4 have no VA profile; H.264 decoders stop at 4096 wide.
  // FFmpeg 5.1 offers no VA-API for HEVC and VP9 4:4:4 whatever the GPU has (7.1 does).
  std::set<std::string> h264{"h264-4:2:2", "h264-4:4:4", "h264-5k"};
  if (LIBAVCODEC_VERSION_MAJOR < 61) h264.insert({"hevc-4:4:4", "vp9-4:4:4"});
  auto with = [&](std::set<std::string> more) {
    more.insert(h264.begin(), h264.end());
    return more;
  };
  // AV1 encode: VDEnc from DG2, but FFmpeg has av1_vaapi only from 6.0.
  bool av1_vaapi = avcodec_find_encoder_by_name("av1_vaapi") != nullptr;
  std::set<std::string> no_av1_until_dg2{"av1"};
  std::set<std::string> av1_from_dg2 = av1_vaapi ? std::set<std::string>{} : no_av1_until_dg2;
  std::set<std::string> vp9_and_av1_from_dg2 = av1_from_dg2;
  vp9_and_av1_from_dg2.insert("vp9");  // Xe2 (LNL, BMG) dropped VP9 encode
  const std::set<std::string> av1_decode{"av1", "av1-10"};
  return {
      // BDW: H.264, MPEG-2, VC-1, VP8 decode; H.264 and MPEG-2 encode by shader; no HEVC/VP9.
      {"bdw",
       {with({"av1", "av1-10", "hevc", "hevc-10", "hevc-4:2:2-10", "hevc-4:4:4", "vp9", "vp9-10",
              "vp9-4:4:4"}),
        {"av1", "hevc", "vp9"},
        {}}},
      // BXTx: HEVC 8-bit encode (shader), HEVC 10-bit and VP9 8-bit decode.
      {"bxt",
       {with({"av1", "av1-10", "hevc-4:2:2-10", "hevc-4:4:4", "vp9-10", "vp9-4:4:4"}),
        {"av1", "vp9"},
        {}}},
      // SKL: HEVC 8-bit only, no VP9 or AV1 decode; no VP9 or AV1 encode.
      {"skl",
       {with({"av1", "av1-10", "hevc-10", "hevc-4:2:2-10", "hevc-4:4:4", "vp9", "vp9-10",
              "vp9-4:4:4"}),
        {"av1", "vp9"},
        {}}},
      // KBL: HEVC and VP9 10-bit decode; 4:4:4 from ICL.
      {"kbl",
       {with({"av1", "av1-10", "hevc-4:2:2-10", "hevc-4:4:4", "vp9-4:4:4"}), {"av1", "vp9"}, {}}},
      // ICL, EHL: no VP9 encoder without HuC (off by default there).
      {"icl", {with(av1_decode), {"av1", "vp9"}, {}}},
      // EHL: VDEnc only, and rate control needs HuC, off by default.
      {"ehl", {with(av1_decode), {"av1", "vp9"}, {"h264 cbr", "h264 vbr", "hevc cbr", "hevc vbr"}}},
      // TGL and DG1: AV1 decode; Gen12 loads HuC by default.
      {"tgl", {h264, {"av1"}, {}}},
      {"dg1", {h264, {"av1"}, {}}},
      // DG2 on: VC-1 decode dropped.
      {"dg2", {with({"vc1"}), av1_from_dg2, {}}},
      {"mtl", {with({"vc1"}), av1_from_dg2, {}}},
      {"lnl", {with({"vc1"}), vp9_and_av1_from_dg2, {}}},
      {"bmg", {with({"vc1"}), vp9_and_av1_from_dg2, {}}},
  };
}

// Prints docs/intel-gpus.md's table: `intel_sweep_test --gtest_filter=IntelSweep.Table`, and holds each
// row to the published facts above.
TEST(IntelSweep, Table) {
  std::vector<std::string> failures;
  std::map<std::string, Tally> tallies = run_sweep(failures);
  EXPECT_TRUE(failures.empty()) << failures.size()
                                << " failures, first: " << (failures.empty() ? "" : failures[0]);
  std::map<std::string, ExpectedRow> expected = expected_rows();
  ASSERT_EQ(intel_profiles().size(), expected.size());
  for (const IntelProfileSummary& profile : intel_profiles()) {
    std::string key(profile.key);
    SCOPED_TRACE(key);
    ASSERT_EQ(expected.count(key), 1u);
    const Tally& t = tallies[key];
    EXPECT_EQ(joined(t.decode_fallbacks), joined(expected[key].decoded_in_software));
    EXPECT_EQ(joined(t.encode_fallbacks), joined(expected[key].encoded_in_software));
    EXPECT_EQ(joined(t.refusals), joined(expected[key].refused));
    // 15 inputs x 4 output codecs x 4 rate controls, each planned once.
    EXPECT_EQ(t.combinations, 240);
  }
  std::ostringstream table;
  int total = 0;
  int all_gpu = 0;
  table << "| profile | plans | all on GPU | sw decode | sw encode | refused | inputs decoded in "
           "software | outputs encoded in software | refused (no HuC) |\n"
        << "|---|---|---|---|---|---|---|---|---|\n";
  for (const IntelProfileSummary& profile : intel_profiles()) {
    const Tally& t = tallies[std::string(profile.key)];
    total += t.combinations;
    all_gpu += t.all_gpu;
    table << "| " << profile.key << " | " << t.combinations << " | " << t.all_gpu << " | "
          << t.software_decode << " | " << t.software_encode << " | " << t.refused << " | "
          << joined(t.decode_fallbacks) << " | " << joined(t.encode_fallbacks) << " | "
          << joined(t.refusals) << " |\n";
  }
  table << "\n"
        << total << " combinations, " << all_gpu << " fully on the GPU (FFmpeg " << LIBAVCODEC_IDENT
        << ").\n";
  std::cout << table.str();
  EXPECT_EQ(total, 2880);  // 12 generations x 240
}

}  // namespace
}  // namespace tc
