#include "pipeline/exec/chunked_encoder.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "pipeline/exec/branch_lane.h"
#include "pipeline/exec/frame_memory.h"

namespace tc {

Status encoder_failure(int averror, const AVCodecContext& encoder) {
  return av_status(averror, encoder.hw_frames_ctx ? Code::kDevice : Code::kInternal,
                   "encoding with " + std::string(encoder.codec->name));
}

struct ChunkedEncoder::Chunk {
  av::CodecContextPtr owned;          // a later chunk's encoder (the first's is the caller's)
  AVCodecContext* encoder = nullptr;  // set on the chunk's lane before its first frame
  int frames = 0;                     // given to it so far (on the caller's thread)
  std::mutex mutex;
  std::vector<av::PacketPtr> packets;  // encoded, not yet written
  std::unique_ptr<BranchLane> lane;    // last: stops before the encoder goes

  // On the chunk's lane: sends the frame (nullptr flushes) and keeps what comes out. A device
  // frame for a software encoder comes down here, on the lane (plan/graphs.cc says when): the
  // frames waiting for the chunk stay on the device, and an output's downloads run beside the
  // others' instead of one after another on the graph's thread.
  Status encode(const AVFrame* frame) {
    av::FramePtr in_memory;
    if (frame && frame->hw_frames_ctx && !encoder->hw_frames_ctx) {
      TC_ASSIGN_OR_RETURN(in_memory, frame_in_memory(*frame, "downloading a frame to encode"));
      frame = in_memory.get();
    }
    int err = avcodec_send_frame(encoder, frame);
    if (err < 0 && err != AVERROR_EOF) return encoder_failure(err, *encoder);
    for (;;) {
      av::PacketPtr packet = av::make_packet();
      err = avcodec_receive_packet(encoder, packet.get());
      if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return Status::ok();
      if (err < 0) return encoder_failure(err, *encoder);
      std::lock_guard lock(mutex);
      packets.push_back(std::move(packet));
    }
  }
};

namespace {

// The stream has one set of headers (an MP4's avcC): every chunk's encoder must write the
// first's, which it does when it is opened with the same settings.
Status same_headers(const AVCodecContext& first, const AVCodecContext& other) {
  bool same = first.extradata_size == other.extradata_size &&
              (first.extradata_size == 0 ||
               std::memcmp(first.extradata, other.extradata, first.extradata_size) == 0);
  if (same) return Status::ok();
  return {Code::kInternal,
          std::string(other.codec->name) + ": a chunk's encoder wrote other stream headers"};
}

}  // namespace

int ChunkedEncoder::frames_waiting_at_most(const Settings& settings) {
  return std::max(1, std::max(settings.parallel, 1) * settings.chunk_frames / 2);
}

ChunkedEncoder::ChunkedEncoder(const Settings& settings, AVCodecContext* first, OpenEncoder open)
    : settings_(settings),
      first_(first),
      open_(std::move(open)),
      waiting_(frames_waiting_at_most(settings)) {}

ChunkedEncoder::~ChunkedEncoder() = default;

bool ChunkedEncoder::starts_chunk(const AVFrame& frame) const {
  if (in_flight_.empty()) return true;
  if (settings_.chunk_frames <= 0 || in_flight_.back()->frames < settings_.chunk_frames)
    return false;
  return !settings_.cut_at_marked_keyframes || frame.pict_type == AV_PICTURE_TYPE_I;
}

Status ChunkedEncoder::start_chunk() {
  auto chunk = std::make_unique<Chunk>();
  // Room for every frame of a chunk and its flush: feeding one never waits on it.
  size_t depth = size_t(std::max(settings_.chunk_frames, 1)) * 2 + 2;
  bool threaded = settings_.threaded && settings_.parallel > 1;
  chunk->lane = std::make_unique<BranchLane>(depth, threaded, settings_.name);
  // A stream that is cut has every chunk on an encoder of its own, the first's too: the first
  // encoder is closed only with the stream, and x264 keeps the frames of its lookahead and
  // references until it is closed (some 70 MiB at 720p), which the later chunks do not need.
  // Each chunk's encoder then starts on memory another one freed: its bytes are the serial
  // run's only because x264 is kept off the AVX-512 code that reads memory it never wrote
  // (plan/x264_avx512.h); before that, threaded and serial differed about one run in seven.
  bool cut = settings_.parallel > 1 && settings_.chunk_frames > 0;
  if (chunks_started_++ == 0 && !cut) {
    chunk->encoder = first_;
  } else {
    TC_RETURN_IF_ERROR(chunk->lane->post([this, c = chunk.get()]() -> Status {
      TC_ASSIGN_OR_RETURN(c->owned, open_());
      c->encoder = c->owned.get();
      return same_headers(*first_, *c->encoder);
    }));
  }
  in_flight_.push_back(std::move(chunk));
  return Status::ok();
}

Status ChunkedEncoder::write_ready(const WritePacket& write) {
  if (in_flight_.empty()) return Status::ok();
  std::vector<av::PacketPtr> ready;
  {
    Chunk& oldest = *in_flight_.front();
    std::lock_guard lock(oldest.mutex);
    ready.swap(oldest.packets);
  }
  for (av::PacketPtr& packet : ready) TC_RETURN_IF_ERROR(write(packet.get()));
  return Status::ok();
}

Status ChunkedEncoder::finish_oldest(const WritePacket& write) {
  TC_RETURN_IF_ERROR(in_flight_.front()->lane->drain());
  TC_RETURN_IF_ERROR(write_ready(write));
  in_flight_.pop_front();
  return Status::ok();
}

Status ChunkedEncoder::encode(const AVFrame* frame, const WritePacket& write) {
  auto end_newest = [this] {
    Chunk* newest = in_flight_.back().get();
    return newest->lane->post([newest] { return newest->encode(nullptr); });
  };
  if (!frame) {
    if (!in_flight_.empty()) TC_RETURN_IF_ERROR(end_newest());
    while (!in_flight_.empty()) TC_RETURN_IF_ERROR(finish_oldest(write));
    return Status::ok();
  }
  if (starts_chunk(*frame)) {
    if (!in_flight_.empty()) TC_RETURN_IF_ERROR(end_newest());
    while (in_flight_.size() >= size_t(std::max(settings_.parallel, 1)))
      TC_RETURN_IF_ERROR(finish_oldest(write));
    TC_RETURN_IF_ERROR(start_chunk());
  }
  Chunk* newest = in_flight_.back().get();
  ++newest->frames;
  TC_ASSIGN_OR_RETURN(SharedFrame ref, waiting_.share(*frame));
  TC_RETURN_IF_ERROR(newest->lane->post([newest, ref] { return newest->encode(ref.get()); }));
  return write_ready(write);
}

}  // namespace tc
