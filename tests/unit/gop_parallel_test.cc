// GOP-parallel encoding: which outputs the plan cuts into chunks and with how many encoders
// (plan/gop_parallel.h), and the chunked encoder itself on real libx264 encoders
// (exec/chunked_encoder.h): one stream, the same threaded or not, in GOPs where it was cut.
#include "pipeline/plan/gop_parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/opt.h>
}

#include "pipeline/exec/chunked_encoder.h"
#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::intel_gpu;
using testing::inventory;
using testing::job;
using testing::media;
using testing::output;
using testing::stage;

Plan ladder_plan(unsigned cores, int encoders = 0) {
  JobSpec spec = job({output("a.mp4"), output("b.mp4", 1280, 720), output("c.mp4", 640, 360)});
  Plan plan = testing::value_or_stop(make_plan(spec, media(), inventory({})));
  plan_gop_parallel(plan, {encoders, cores});
  return plan;
}

std::vector<int> encoders_of(const Plan& plan) {
  std::vector<int> encoders;
  for (const OutputPlan& output : plan.outputs) encoders.push_back(output.video.parallel_encoders);
  return encoders;
}

TEST(GopParallelPlan, AutoOnTwoCoresKeepsOneEncoderPerOutput) {
  Plan plan = ladder_plan(2);
  EXPECT_EQ(encoders_of(plan), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(stage(plan, "encode out0")->component, "libx264");
}

// 16 cores: the 1080p output has 64 % of the pixels, 10 cores' worth, two encoders' (one x264
// at 1080p veryfast keeps about 5 busy); 720p and 360p stay whole.
TEST(GopParallelPlan, AutoOnSixteenCoresSplitsTheLargestOutputOfALadder) {
  Plan plan = ladder_plan(16);
  EXPECT_EQ(encoders_of(plan), (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(plan.outputs[0].video.chunk_frames, 60);  // one 2 s GOP at 30 fps
  EXPECT_EQ(stage(plan, "encode out0")->component,
            "libx264 (GOP-parallel: 2 encoders, chunks of 60 frames, 10 threads each: its share "
            "of the cores)");
}

// Where an output is cut, the job's x264 encoders share the cores by pixels, two threads a core
// of their share: 1080p 64 % (20.6 threads, 10 for each of its two encoders), 720p 29 % (9),
// 360p 7 % (2). x264's auto would give them 24, 22 and 11.
TEST(GopParallelPlan, ACutLadderSharesX264sThreadsByPixels) {
  Plan plan = ladder_plan(16);
  std::vector<int> threads;
  for (const OutputPlan& output : plan.outputs) threads.push_back(output.video.encoder_threads);
  EXPECT_EQ(threads, (std::vector<int>{10, 9, 2}));
  EXPECT_EQ(stage(plan, "encode out1")->component, "libx264 (9 threads: its share of the cores)");
  EXPECT_EQ(stage(plan, "encode out2")->component, "libx264 (2 threads: its share of the cores)");
}

// Nothing cut: every encoder keeps x264's auto, as the ffmpeg CLI runs it.
TEST(GopParallelPlan, AnUncutJobKeepsX264sAutoThreads) {
  for (Plan plan : {ladder_plan(2), ladder_plan(16, 1)})
    for (const OutputPlan& output : plan.outputs) EXPECT_EQ(output.video.encoder_threads, 0);
}

TEST(GopParallelPlan, X264ThreadsAreTheShareAtMostTheAutoAtLeastOne) {
  // One output cut in two: the two share what x264 would take alone (1.5 threads a core).
  EXPECT_EQ(x264_threads_per_encoder(16, 1.0, 2), 12);
  EXPECT_EQ(x264_threads_per_encoder(16, 0.5, 1), 16);
  EXPECT_EQ(x264_threads_per_encoder(16, 0.5, 2), 8);
  EXPECT_EQ(x264_threads_per_encoder(2, 0.05, 1), 1);
  EXPECT_EQ(x264_threads_per_encoder(64, 0.25, 2), 16);
}

// A copied or device-encoded output has no x264 threads, and takes no share from the others.
TEST(GopParallelPlan, OnlySoftwareEncodersShareTheCores) {
  OutputSpec copy = output("copy.mkv");
  copy.codec = VideoCodec::kCopy;
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720), copy, output("c.mp4", 640, 360)}),
                                media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  plan_gop_parallel(*plan, {2, 16});
  // 720p has 80 % of the software pixels: min(24, 25.6) / 2 encoders; 360p 20 %: 6.4 / 2.
  EXPECT_EQ(plan->outputs[0].video.encoder_threads, 12);
  EXPECT_EQ(plan->outputs[1].video.encoder_threads, 0);
  EXPECT_EQ(plan->outputs[2].video.encoder_threads, 3);
}

// Auto cuts only a ladder's outputs: a job's only software output keeps one encoder, and x264's
// auto threads, however many cores; asked for, it is cut.
TEST(GopParallelPlan, AutoKeepsAJobsOnlySoftwareOutputWhole) {
  for (unsigned cores : {2u, 16u, 64u}) {
    Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}), media(), inventory({}));
    ASSERT_TRUE(plan.is_ok());
    plan_gop_parallel(*plan, {0, cores});
    EXPECT_EQ(plan->outputs[0].video.parallel_encoders, 1) << cores << " cores";
    EXPECT_EQ(plan->outputs[0].video.encoder_threads, 0) << cores << " cores";
    EXPECT_EQ(stage(*plan, "encode out0")->component, "libx264");
    plan_gop_parallel(*plan, {2, cores});
    EXPECT_EQ(plan->outputs[0].video.parallel_encoders, 2) << cores << " cores";
  }
  // With a copied output beside it, it is still the job's only encoder in software.
  OutputSpec copy = output("copy.mkv");
  copy.codec = VideoCodec::kCopy;
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720), copy}), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok());
  plan_gop_parallel(*plan, {0, 16});
  EXPECT_EQ(encoders_of(*plan), (std::vector<int>{1, 1}));
}

// A ladder's output gets one encoder per 5 cores of its share, at most kMaxAutoEncoders.
TEST(GopParallelPlan, AutoCutsALaddersLargestOutputFromItsShareUpToTheCap) {
  for (auto [cores, expected] :
       std::vector<std::pair<unsigned, int>>{{4, 1}, {8, 1}, {16, 2}, {64, 2}})
    EXPECT_EQ(encoders_of(ladder_plan(cores))[0], expected) << cores << " cores";
  EXPECT_EQ(encoders_of(ladder_plan(64)), (std::vector<int>{2, 2, 1}));
}

TEST(GopParallelPlan, AskedForItSaysWhyAnOutputStaysWhole) {
  OutputSpec bitrate = output("vbr.mp4", 640, 360);
  bitrate.bitrate = 1000000;
  bitrate.rate_control = RateControl::kVbr;
  OutputSpec copy = output("copy.mkv");
  copy.codec = VideoCodec::kCopy;
  OutputSpec hevc = output("hevc.mkv", 640, 360, VideoCodec::kHevc);
  Result<Plan> plan =
      make_plan(job({output("crf.mp4", 640, 360), bitrate, copy, hevc}), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  plan_gop_parallel(*plan, {3, 2});  // asked for: the cores do not matter
  EXPECT_EQ(encoders_of(*plan), (std::vector<int>{3, 1, 1, 1}));
  EXPECT_EQ(stage(*plan, "encode out1")->component,
            "libx264 (one encoder: a bitrate's rate control (and its VBV buffer) spans the whole "
            "stream, 1 thread: its share of the cores)");
  EXPECT_EQ(stage(*plan, "encode out2")->component.find("one encoder"), std::string::npos);
  EXPECT_EQ(stage(*plan, "encode out3")->component,
            "libx265 (one encoder: libx265 is encoded whole (libx264 only))");
}

TEST(GopParallelPlan, ADeviceEncoderIsNeverCut) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kVaapi), media(),
                                inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_TRUE(plan->outputs[0].video.hw_frames);
  plan_gop_parallel(*plan, {4, 64});
  EXPECT_EQ(plan->outputs[0].video.parallel_encoders, 1);
  EXPECT_NE(stage(*plan, "encode out0")->component.find("runs on the device"), std::string::npos);
}

TEST(GopParallelPlan, ChunksAreWholeGopsOfAtLeastTheMinimum) {
  for (auto [gop, frames] :
       std::vector<std::pair<int, int>>{{60, 60}, {12, 48}, {1, 48}, {50, 50}, {30, 60}}) {
    OutputSpec spec = output("a.mp4", 640, 360);
    spec.gop = gop;
    Result<Plan> plan = make_plan(job({spec}), media(), inventory({}));
    ASSERT_TRUE(plan.is_ok());
    plan_gop_parallel(*plan, {2, 2});
    EXPECT_EQ(plan->outputs[0].video.chunk_frames, frames) << "gop " << gop;
    EXPECT_EQ(frames % gop, 0);
  }
}

TEST(GopParallelPlan, OneMeansOff) {
  Plan plan = ladder_plan(64, 1);
  EXPECT_EQ(encoders_of(plan), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(stage(plan, "encode out0")->component, "libx264");
}

// --- The chunked encoder, on libx264 ------------------------------------------------------

// Not 64: at 64x64 Debian 12's x264 (0.164) with its AVX-512 code wrote other bytes from one
// encoder to the next within a process (an AMD EPYC; with asm=0 or up to AVX2 it did not, and at
// 128x128 it does not), which these tests would take for the chunking's fault.
constexpr int kSide = 128;

Result<av::CodecContextPtr> open_x264(int gop = 10, const char* profile = "high") {
  const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
  if (!codec) return Status(Code::kUnsupported, "no libx264");
  av::CodecContextPtr encoder(avcodec_alloc_context3(codec));
  encoder->width = encoder->height = kSide;
  encoder->pix_fmt = AV_PIX_FMT_YUV420P;
  encoder->time_base = {1, 25};
  encoder->framerate = {25, 1};
  encoder->gop_size = gop;
  encoder->thread_count = 2;
  encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  av_opt_set(encoder->priv_data, "preset", "veryfast", 0);
  av_opt_set(encoder->priv_data, "profile", profile, 0);
  if (int err = avcodec_open2(encoder.get(), codec, nullptr); err < 0)
    return av_status(err, Code::kInternal, "opening libx264");
  return encoder;
}

// A moving gradient: frames that differ, so the encoder has work and B-frames.
av::FramePtr frame_at(int n) {
  av::FramePtr frame = av::make_frame();
  frame->format = AV_PIX_FMT_YUV420P;
  frame->width = frame->height = kSide;
  av_frame_get_buffer(frame.get(), 0);
  for (int plane = 0; plane < 3; ++plane) {
    int side = plane ? kSide / 2 : kSide;
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x)
        frame->data[plane][y * frame->linesize[plane] + x] = uint8_t(x * 3 + y + n * 5 + plane);
  }
  frame->pts = n;
  return frame;
}

struct Written {
  int64_t pts, dts;
  bool key;
  std::string bytes;
  bool operator==(const Written&) const = default;
};

Written written(const AVPacket& packet) {
  return {packet.pts, packet.dts, bool(packet.flags & AV_PKT_FLAG_KEY),
          std::string(reinterpret_cast<const char*>(packet.data), size_t(packet.size))};
}

struct Encoded {
  Status status;
  std::vector<Written> packets;
  int64_t chunks = 0;
};

Encoded encode(
    int frames, ChunkedEncoder::Settings settings,
    ChunkedEncoder::OpenEncoder open = [] { return open_x264(); }) {
  Encoded result;
  Result<av::CodecContextPtr> first = open_x264();
  if (!first.is_ok()) {
    result.status = first.status();
    return result;
  }
  ChunkedEncoder encoder(settings, first->get(), open);
  auto keep = [&](AVPacket* packet) {
    result.packets.push_back(written(*packet));
    return Status::ok();
  };
  for (int n = 0; n < frames && result.status.is_ok(); ++n)
    result.status = encoder.encode(frame_at(n).get(), keep);
  if (result.status.is_ok()) result.status = encoder.encode(nullptr, keep);
  result.chunks = encoder.chunks();
  return result;
}

ChunkedEncoder::Settings chunked(int parallel, int chunk_frames, bool threaded) {
  return {parallel, chunk_frames, false, threaded, "tc-test-gop"};
}

TEST(ChunkedEncoder, ChunksMakeOneStreamWithAKeyframeAtEachChunk) {
  Encoded encoded = encode(95, chunked(3, 20, true));
  ASSERT_TRUE(encoded.status.is_ok()) << encoded.status.to_string();
  EXPECT_EQ(encoded.chunks, 5);  // 20, 20, 20, 20, 15 frames
  ASSERT_EQ(encoded.packets.size(), 95u);
  std::set<int64_t> pts, keyframes;
  for (size_t i = 0; i < encoded.packets.size(); ++i) {
    const Written& packet = encoded.packets[i];
    pts.insert(packet.pts);
    if (packet.key) keyframes.insert(packet.pts);
    EXPECT_LE(packet.dts, packet.pts) << i;
    if (i > 0) {
      EXPECT_GT(packet.dts, encoded.packets[i - 1].dts) << "decode order at " << i;
    }
  }
  EXPECT_EQ(pts.size(), 95u);
  EXPECT_EQ(*pts.begin(), 0);
  EXPECT_EQ(*pts.rbegin(), 94);
  // A chunk starts at every 20th frame; x264 (GOP 10) adds its own keyframes within them.
  for (int64_t start : {0, 20, 40, 60, 80}) EXPECT_TRUE(keyframes.count(start)) << start;
}

TEST(ChunkedEncoder, ThreadedChunksWriteTheSerialBitstream) {
  Encoded threaded = encode(95, chunked(3, 20, true));
  Encoded serial = encode(95, chunked(3, 20, false));
  ASSERT_TRUE(threaded.status.is_ok() && serial.status.is_ok());
  EXPECT_EQ(threaded.packets, serial.packets);
  EXPECT_EQ(threaded.chunks, serial.chunks);
}

// A frame whose pixels are counted in `live` until their last reference goes.
av::FramePtr counted_frame_at(int n, std::atomic<int>& live) {
  struct Counted {
    AVBufferRef* pixels;
    std::atomic<int>* live;
  };
  av::FramePtr frame = frame_at(n);
  auto* counted = new Counted{frame->buf[0], &live};
  frame->buf[0] = av_buffer_create(
      counted->pixels->data, counted->pixels->size,
      [](void* opaque, uint8_t*) {
        auto* counted = static_cast<Counted*>(opaque);
        av_buffer_unref(&counted->pixels);
        --*counted->live;
        delete counted;
      },
      counted, 0);
  ++live;
  return frame;
}

TEST(ChunkedEncoder, FramesWaitingForTheEncodersStayWithinTheBound) {
  ChunkedEncoder::Settings settings = chunked(3, 48, true);
  int bound = ChunkedEncoder::frames_waiting_at_most(settings);
  ASSERT_LT(bound, 3 * 48);  // fewer than the chunks in flight would hold unbounded
  Result<av::CodecContextPtr> first = open_x264();
  ASSERT_TRUE(first.is_ok());
  std::atomic<int> live = 0;
  int most_live = 0, packets = 0;
  {
    ChunkedEncoder encoder(settings, first->get(), [] { return open_x264(); });
    auto count = [&](AVPacket*) {
      ++packets;
      return Status::ok();
    };
    for (int n = 0; n < 6 * 48; ++n) {
      ASSERT_TRUE(encoder.encode(counted_frame_at(n, live).get(), count).is_ok());
      most_live = std::max(most_live, live.load());
    }
    ASSERT_TRUE(encoder.encode(nullptr, count).is_ok());
    EXPECT_EQ(encoder.chunks(), 6);
  }
  EXPECT_EQ(packets, 6 * 48);
  EXPECT_LE(most_live, bound);
  EXPECT_EQ(live, 0);  // every frame was let go
}

TEST(ChunkedEncoder, OneEncoderIsAPlainEncoder) {
  Encoded whole = encode(60, chunked(1, 0, true));
  ASSERT_TRUE(whole.status.is_ok());
  EXPECT_EQ(whole.chunks, 1);
  ASSERT_EQ(whole.packets.size(), 60u);
  // What the encoder alone writes, packet for packet.
  Result<av::CodecContextPtr> plain = open_x264();
  ASSERT_TRUE(plain.is_ok());
  std::vector<Written> expected;
  av::PacketPtr packet = av::make_packet();
  for (int n = 0; n <= 60; ++n) {
    av::FramePtr frame = n < 60 ? frame_at(n) : nullptr;
    avcodec_send_frame(plain->get(), frame.get());
    while (avcodec_receive_packet(plain->get(), packet.get()) == 0) {
      expected.push_back(written(*packet));
      av_packet_unref(packet.get());
    }
  }
  EXPECT_EQ(whole.packets, expected);
}

TEST(ChunkedEncoder, AChunkWhoseEncoderFailsFailsTheStream) {
  int opened = 0;
  Encoded failed = encode(200, chunked(2, 20, true), [&opened]() -> Result<av::CodecContextPtr> {
    if (++opened == 3) return Status(Code::kInternal, "no memory for the fourth encoder");
    return open_x264();
  });
  EXPECT_EQ(failed.status.code(), Code::kInternal);
  EXPECT_EQ(failed.status.message(), "no memory for the fourth encoder");
  EXPECT_LT(failed.packets.size(), 200u);  // and the encoder's threads were joined: no hang
}

TEST(ChunkedEncoder, AChunkEncoderWithOtherHeadersIsRefused) {
  Encoded refused = encode(60, chunked(2, 20, true), [] { return open_x264(10, "main"); });
  EXPECT_EQ(refused.status.code(), Code::kInternal);
  EXPECT_NE(refused.status.message().find("other stream headers"), std::string::npos)
      << refused.status.to_string();
}

}  // namespace
}  // namespace tc
