// Fuzz target: arbitrary bytes as a worker's input file. The worker's own path (confined open,
// AVIO over our fd, demuxer and stream info: probe()) and then the first video stream decoded
// for a few frames, with libav's caps as OSS-Fuzz's target_dec_fuzzer sets them (bounded
// pixels per frame, one thread, a bounded number of frames and packets).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "pipeline/core/av.h"
#include "pipeline/io/access.h"
#include "pipeline/io/media_input.h"
#include "pipeline/probe/media_info.h"
#include "tests/fuzz/write_bytes.h"

namespace {

constexpr int64_t kMaxPixels = 4096 * 4096;  // target_dec_fuzzer's maxpixels
constexpr int kMaxFrames = 32;
constexpr int kMaxPackets = 256;

// A directory of its own, the one media root, holding the one input file; removed at exit.
class Workspace {
 public:
  Workspace() {
    av_log_set_level(AV_LOG_PANIC);  // corrupt input makes libav chatty; its errors are ours
    dir_ = std::filesystem::temp_directory_path() / "tc-probe-fuzz-XXXXXX";
    if (!::mkdtemp(dir_.data())) std::abort();
    tc::Result<tc::io::Roots> roots = tc::io::Roots::open_media_roots({dir_});
    if (!roots.is_ok()) std::abort();
    access_.roots = std::make_shared<const tc::io::Roots>(std::move(*roots));
  }
  ~Workspace() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  std::string input() const { return dir_ + "/input"; }
  const tc::io::Access& access() const { return access_; }

 private:
  std::string dir_;
  tc::io::Access access_;
};

tc::av::CodecContextPtr open_video_decoder(const AVStream& stream) {
  const AVCodec* codec = avcodec_find_decoder(stream.codecpar->codec_id);
  if (!codec) return nullptr;
  tc::av::CodecContextPtr decoder(avcodec_alloc_context3(codec));
  if (!decoder || avcodec_parameters_to_context(decoder.get(), stream.codecpar) < 0) return nullptr;
  decoder->max_pixels = kMaxPixels;
  decoder->thread_count = 1;
  if (avcodec_open2(decoder.get(), codec, nullptr) < 0) return nullptr;
  return decoder;
}

// Decodes up to kMaxFrames frames of stream `index` from at most kMaxPackets packets.
void decode_some(AVFormatContext* format, int index, AVCodecContext* decoder) {
  tc::av::PacketPtr packet = tc::av::make_packet();
  tc::av::FramePtr frame = tc::av::make_frame();
  int frames = 0;
  for (int packets = 0; packets < kMaxPackets && frames < kMaxFrames; ++packets) {
    int read = av_read_frame(format, packet.get());
    bool ours = read >= 0 && packet->stream_index == index;
    if (read < 0 || ours) avcodec_send_packet(decoder, read < 0 ? nullptr : packet.get());
    av_packet_unref(packet.get());
    while (frames < kMaxFrames && avcodec_receive_frame(decoder, frame.get()) >= 0) {
      ++frames;
      av_frame_unref(frame.get());
    }
    if (read < 0) break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Workspace space;
  const std::string path = space.input();
  tc::fuzz::write_bytes(path, data, size);
  if (!tc::probe(path, space.access()).is_ok()) return 0;
  tc::Result<tc::io::MediaInput> input = tc::io::open_media_input(path, space.access());
  if (!input.is_ok()) return 0;
  AVFormatContext* format = input->format.get();
  int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (index < 0) return 0;
  tc::av::CodecContextPtr decoder = open_video_decoder(*format->streams[index]);
  if (decoder) decode_some(format, index, decoder.get());
  return 0;
}
