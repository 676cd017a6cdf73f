#include "service/daemon/common/periodic_thread.h"

namespace tc::daemon {

PeriodicThread::PeriodicThread(double interval_s, std::function<void()> task)
    : interval_(interval_s), task_(std::move(task)), thread_([this] { loop(); }) {}

PeriodicThread::~PeriodicThread() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PeriodicThread::loop() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    task_();
    lock.lock();
  }
}

}  // namespace tc::daemon
