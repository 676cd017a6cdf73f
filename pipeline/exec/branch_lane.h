// One output's work on its own thread: what the demux thread hands an output (filtered frames
// to encode, packets to copy, subtitles, its quality meter's reference frames) runs there in the
// order it was posted, so the output's bitstream is the one a serial run writes, while the
// outputs of a ladder encode and mux side by side. The queue is small and bounded: the demux
// thread waits when an output falls behind, so memory stays bounded, and on a device whose
// pools are fixed the plan counts the queued frames (kBranchQueueFrames in plan.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "pipeline/core/av.h"
#include "pipeline/core/status.h"

namespace tc {

class BranchLane {
 public:
  using Task = std::function<Status()>;
  // `threaded` false runs every task as it is posted, on the caller's thread (the serial
  // executor, kept to compare against). `name` names the thread (`top -H`, and the threads a
  // library starts from it, such as an encoder's, inherit it): at most 15 characters. `nice`
  // is added to the thread's nice value, which the threads it starts inherit too.
  BranchLane(size_t depth, bool threaded, const std::string& name = "tc-lane", int nice = 0);
  BranchLane(const BranchLane&) = delete;
  BranchLane& operator=(const BranchLane&) = delete;
  // Drops what is still queued (a failed or cancelled job) and joins.
  ~BranchLane();

  // Queues `task`, waiting while the queue is full. Returns the lane's first failure instead,
  // once there is one: nothing more runs on a failed lane.
  Status post(Task task);
  // Waits until every posted task has run; the lane's first failure, if any.
  Status drain();

  // Where the lane's thread spent its time, in nanoseconds: running its tasks, less what those
  // tasks spent waiting on a full lane downstream (`busy`), and that waiting (`blocked`). The
  // rest of the wall time the thread had nothing to do. Zero for a lane that is not threaded.
  int64_t busy_ns() const { return busy_ns_.load(std::memory_order_relaxed); }
  int64_t blocked_ns() const { return blocked_ns_.load(std::memory_order_relaxed); }
  // What the calling thread has spent waiting in post() and drain(), on any lane.
  static int64_t blocked_ns_of_this_thread();

 private:
  void run();

  const size_t depth_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Task> queue_;
  bool running_task_ = false;
  bool stopping_ = false;
  Status failure_ = Status::ok();
  std::atomic<int64_t> busy_ns_ = 0;
  std::atomic<int64_t> blocked_ns_ = 0;
  std::thread thread_;  // none when not threaded
};

// The outputs' threads (and so their encoders' threads) run this much nicer than the decode and
// graph threads, which feed every output: when the cores are all busy, the stages on every
// output's path go first. On the H200 a ladder whose encoders took the cores left the graph's
// scaler slices waiting; this took its wall time from 3.38 s to 3.09 s (bench/README.md).
constexpr int kEncoderNice = 5;

// A frame reference that tasks can copy: the lane's tasks are std::functions.
using SharedFrame = std::shared_ptr<AVFrame>;
SharedFrame share_frame(av::FramePtr frame);

// A bound on the frames a feeder has handed to lanes that their tasks still hold. A lane's own
// queue bounds what waits for that lane; this bounds what waits across several, where one lane
// may take many frames while the others work (a chunked encoder's). The feeder waits for room,
// on its blocked account, like post(). A frame counts until its last reference goes, which is
// also when a failed or cancelled lane drops its queue, so a feeder never waits on a dead lane.
class FrameBudget {
 public:
  explicit FrameBudget(int frames);  // at least 1
  // A new reference to `frame`'s data, counted; waits while `frames` are out.
  Result<SharedFrame> share(const AVFrame& frame);

 private:
  struct State;
  std::shared_ptr<State> state_;  // also the frames' deleters': they may outlive the budget
};

}  // namespace tc
