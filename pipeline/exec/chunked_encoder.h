// An output's video encoder: one, or one per chunk of whole GOPs (plan/gop_parallel.h), each
// chunk's on a lane of its own (branch_lane.h), up to `parallel` chunks encoding at once. The
// packets are handed on in stream order: the oldest chunk's as they come out, a later chunk's
// once every chunk before it has ended. Each chunk's encoder is given exactly the frames a
// serial run gives it, so the bitstream is the same threaded or not. With one encoder (the
// usual case) it is a plain encoder on the caller's thread.
//
// The frames given to the chunks that their encoders have not yet taken are bounded by
// frames_waiting_at_most(): the caller waits for room. Keeping `parallel` encoders busy needs
// about (parallel - 1) / 2 chunks of frames waiting when the frames come faster than the
// encoders take them; half a chunk more absorbs the jitter. Unbounded, the waiting frames grew
// to nearly `parallel` chunks. The rest of what chunks cost in memory is their encoders' own
// (bench/README.md, "GOP-parallel memory").
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "pipeline/core/av.h"
#include "pipeline/core/status.h"
#include "pipeline/exec/branch_lane.h"

namespace tc {

// A hardware encoder's failure is the device's (EIO, a hang or reset, is worth a retry); a
// software encoder's is ours: it was given frames and options it should have taken.
Status encoder_failure(int averror, const AVCodecContext& encoder);

class ChunkedEncoder {
 public:
  struct Settings {
    int parallel = 1;      // chunks encoding at once
    int chunk_frames = 0;  // a chunk ends at the first GOP start at or past this; 0 = never
    bool cut_at_marked_keyframes = false;  // GOPs start at frames marked I only (a package's)
    bool threaded = true;  // false: the chunks encode one after another on the caller's thread
    std::string name;      // the chunks' threads' (15 characters at most)
  };
  using OpenEncoder = std::function<Result<av::CodecContextPtr>()>;
  using WritePacket = std::function<Status(AVPacket*)>;

  // `first` stays the caller's: it encodes a stream that is not cut, and gives the headers that
  // every chunk's encoder must write. `open` opens each chunk's encoder, on the chunk's thread.
  ChunkedEncoder(const Settings& settings, AVCodecContext* first, OpenEncoder open);
  ChunkedEncoder(const ChunkedEncoder&) = delete;
  ChunkedEncoder& operator=(const ChunkedEncoder&) = delete;
  // Drops the chunks not yet written (a failed or cancelled job) and joins their threads.
  ~ChunkedEncoder();

  // Encodes `frame` (nullptr: the end, every chunk finishes); `write` takes the packets that
  // are ready, in stream order, on this thread.
  Status encode(const AVFrame* frame, const WritePacket& write);
  // The chunks started so far: 1 for a stream encoded whole.
  int64_t chunks() const { return chunks_started_; }
  // The most frames given and not yet taken by an encoder, at once.
  static int frames_waiting_at_most(const Settings& settings);

 private:
  struct Chunk;
  bool starts_chunk(const AVFrame& frame) const;
  Status start_chunk();
  Status finish_oldest(const WritePacket& write);
  Status write_ready(const WritePacket& write);

  const Settings settings_;
  AVCodecContext* const first_;
  const OpenEncoder open_;
  int64_t chunks_started_ = 0;
  FrameBudget waiting_;  // before the chunks: their frames count against it until they go
  std::deque<std::unique_ptr<Chunk>> in_flight_;  // oldest first; the newest is being fed
};

}  // namespace tc
