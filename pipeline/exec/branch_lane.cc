#include "pipeline/exec/branch_lane.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <utility>

namespace tc {
namespace {

using Clock = std::chrono::steady_clock;

thread_local int64_t blocked_ns_here = 0;

int64_t nanoseconds_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

// Waits on `changed` until `ready`, counting the time on the calling thread's account.
template <typename Ready>
void wait_counted(std::condition_variable& changed, std::unique_lock<std::mutex>& lock,
                  Ready ready) {
  if (ready()) return;
  Clock::time_point start = Clock::now();
  changed.wait(lock, ready);
  blocked_ns_here += nanoseconds_since(start);
}

}  // namespace

BranchLane::BranchLane(size_t depth, bool threaded, const std::string& name, int nice)
    : depth_(depth < 1 ? 1 : depth) {
  if (!threaded) return;
  thread_ = std::thread([this, nice] {
    // Linux keeps a nice value per thread (setpriority on the thread id): raising it needs no
    // privilege. A failure leaves the thread as it was, which is only slower.
    if (nice != 0) {
      id_t self = id_t(gettid());
      errno = 0;
      int now = getpriority(PRIO_PROCESS, self);
      if (errno == 0) setpriority(PRIO_PROCESS, self, now + nice);
    }
    run();
  });
  pthread_setname_np(thread_.native_handle(), name.substr(0, 15).c_str());
}

int64_t BranchLane::blocked_ns_of_this_thread() {
  return blocked_ns_here;
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
  wait_counted(changed_, lock, [&] { return queue_.size() < depth_ || !failure_.is_ok(); });
  if (!failure_.is_ok()) return failure_;
  queue_.push_back(std::move(task));
  changed_.notify_all();
  return Status::ok();
}

Status BranchLane::drain() {
  std::unique_lock lock(mutex_);
  wait_counted(changed_, lock,
               [&] { return (queue_.empty() && !running_task_) || !failure_.is_ok(); });
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
    Clock::time_point start = Clock::now();
    int64_t blocked_before = blocked_ns_here;
    Status status = task();
    task = nullptr;  // its frame references go now, not with the next task
    int64_t blocked = blocked_ns_here - blocked_before;
    busy_ns_.fetch_add(nanoseconds_since(start) - blocked, std::memory_order_relaxed);
    blocked_ns_.fetch_add(blocked, std::memory_order_relaxed);
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

namespace {

Result<av::FramePtr> new_ref(const AVFrame& frame) {
  av::FramePtr ref = av::make_frame();
  if (!ref) return Status(Code::kInternal, "out of memory");
  if (int err = av_frame_ref(ref.get(), &frame); err < 0)
    return av_status(err, Code::kInternal, "referencing a frame");
  return ref;
}

}  // namespace

struct FrameBudget::State {
  explicit State(int frames) : frames(frames) {}
  const int frames;
  std::mutex mutex;
  std::condition_variable changed;
  int out = 0;  // frames shared and not yet let go
};

FrameBudget::FrameBudget(int frames) : state_(std::make_shared<State>(frames < 1 ? 1 : frames)) {}

Result<SharedFrame> FrameBudget::share(const AVFrame& frame) {
  TC_ASSIGN_OR_RETURN(av::FramePtr ref, new_ref(frame));
  {
    std::unique_lock lock(state_->mutex);
    wait_counted(state_->changed, lock, [&] { return state_->out < state_->frames; });
    ++state_->out;
  }
  return SharedFrame(ref.release(), [state = state_](AVFrame* counted) {
    av_frame_free(&counted);
    {
      std::lock_guard lock(state->mutex);
      --state->out;
    }
    state->changed.notify_all();
  });
}

}  // namespace tc
