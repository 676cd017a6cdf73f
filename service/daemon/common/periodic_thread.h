// A background thread that runs a task every interval until it is destroyed. The destructor
// wakes it and joins, so a daemon shuts down without waiting out an interval. Declare it last
// in its owner: it must stop before the members its task uses are destroyed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace tc::daemon {

class PeriodicThread {
 public:
  // The first run is one interval from now.
  PeriodicThread(double interval_s, std::function<void()> task);
  ~PeriodicThread();
  PeriodicThread(const PeriodicThread&) = delete;
  PeriodicThread& operator=(const PeriodicThread&) = delete;

 private:
  void loop();

  const std::chrono::duration<double> interval_;
  const std::function<void()> task_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tc::daemon
