// The threads that send webhooks: a fixed pool, at most `per_receiver` POSTs in flight to one
// receiver (scheme, host and port), so a receiver that answers slowly or not at all holds at
// most that many threads and every other receiver's notices keep going. A job's notices stay in
// order because the store hands out a job's next notice only once the one before is settled
// (outbox.h); the pool itself never holds two notices of one job.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "service/daemon/model/notification.h"

namespace tc::daemon {

struct PoolOptions {
  int threads = 8;
  int per_receiver = 2;
  size_t max_waiting = 1024;  // notices taken and not yet started, beyond which none is taken
};

class WebhookPool {
 public:
  // `send` delivers one notice and settles it in the store; it runs on a pool thread with no
  // lock of the pool held.
  WebhookPool(PoolOptions options, std::function<void(const Notification&)> send);
  ~WebhookPool();  // waits for the POSTs in flight; the waiting ones stay in the store
  WebhookPool(const WebhookPool&) = delete;
  WebhookPool& operator=(const WebhookPool&) = delete;

  // Queues `notice` behind its receiver's; false when it is already queued or in flight here
  // (claimed again after its hold ran out) or the pool is full.
  bool add(Notification notice);
  // Room for more notices.
  bool has_room() const;
  // The notices waiting or in flight here: those whose holds the store must keep.
  std::vector<int64_t> held() const;
  // Forgets the waiting notices (their holds ran out: the store hands them out again); those in
  // flight finish.
  void drop_waiting();

 private:
  void work();
  // A receiver with a waiting notice and a free place, or nullptr; under mutex_.
  std::deque<Notification>* ready_locked();

  const PoolOptions options_;
  const std::function<void(const Notification&)> send_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<std::string, std::deque<Notification>> waiting_;  // by receiver
  std::map<std::string, int> in_flight_;                     // by receiver
  std::set<int64_t> known_;                                  // ids waiting or in flight
  size_t waiting_count_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: started once the rest exists
};

}  // namespace tc::daemon
