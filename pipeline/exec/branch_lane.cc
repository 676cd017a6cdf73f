#include "pipeline/exec/branch_lane.h"

#include <utility>

namespace tc {

BranchLane::BranchLane(size_t depth, bool threaded) : depth_(depth < 1 ? 1 : depth) {
  if (threaded) thread_ = std::thread([this] { run(); });
}

BranchLane::~BranchLane() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();  // their frames are released here, before the output they were for
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status BranchLane::post(Task task) {
  if (!thread_.joinable()) {
    if (!failure_.is_ok()) return failure_;
    failure_ = task();
    return failure_;
  }
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < depth_ || !failure_.is_ok(); });
  if (!failure_.is_ok()) return failure_;
  queue_.push_back(std::move(task));
  changed_.notify_all();
  return Status::ok();
}

Status BranchLane::drain() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return (queue_.empty() && !running_task_) || !failure_.is_ok(); });
  return failure_;
}

void BranchLane::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return !queue_.empty() || stopping_; });
    if (stopping_) return;
    Task task = std::move(queue_.front());
    queue_.pop_front();
    running_task_ = true;
    changed_.notify_all();  // a place in the queue is free
    lock.unlock();
    Status status = task();
    task = nullptr;  // its frame references go now, not with the next task
    lock.lock();
    running_task_ = false;
    if (!status.is_ok() && failure_.is_ok()) {
      failure_ = std::move(status);
      queue_.clear();
    }
    changed_.notify_all();
  }
}

SharedFrame share_frame(av::FramePtr frame) {
  return SharedFrame(frame.release(), av::FrameDeleter());
}

Result<SharedFrame> share_ref(const AVFrame& frame) {
  av::FramePtr copy = av::make_frame();
  if (!copy) return Status(Code::kInternal, "out of memory");
  if (int err = av_frame_ref(copy.get(), &frame); err < 0)
    return av_status(err, Code::kInternal, "referencing a frame");
  return share_frame(std::move(copy));
}

}  // namespace tc
