#include "service/daemon/webhook/webhook_pool.h"

#include "service/daemon/webhook/webhook_url.h"

namespace tc::daemon {

WebhookPool::WebhookPool(PoolOptions options, std::function<void(const Notification&)> send)
    : options_(options), send_(std::move(send)) {
  for (int i = 0; i < options_.threads; ++i) threads_.emplace_back([this] { work(); });
}

WebhookPool::~WebhookPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

bool WebhookPool::add(Notification notice) {
  {
    std::lock_guard lock(mutex_);
    if (waiting_count_ >= options_.max_waiting || !known_.insert(notice.id).second) return false;
    std::string receiver = webhook_receiver(notice.url);
    waiting_[receiver].push_back(std::move(notice));
    ++waiting_count_;
  }
  wake_.notify_one();
  return true;
}

bool WebhookPool::has_room() const {
  std::lock_guard lock(mutex_);
  return waiting_count_ < options_.max_waiting;
}

std::vector<int64_t> WebhookPool::held() const {
  std::lock_guard lock(mutex_);
  return {known_.begin(), known_.end()};
}

void WebhookPool::drop_waiting() {
  std::lock_guard lock(mutex_);
  for (auto& [receiver, queue] : waiting_)
    for (const Notification& notice : queue) known_.erase(notice.id);
  waiting_.clear();
  waiting_count_ = 0;
}

std::deque<Notification>* WebhookPool::ready_locked() {
  for (auto& [receiver, queue] : waiting_)
    if (!queue.empty() && in_flight_[receiver] < options_.per_receiver) return &queue;
  return nullptr;
}

void WebhookPool::work() {
  std::unique_lock lock(mutex_);
  while (true) {
    std::deque<Notification>* queue = nullptr;
    wake_.wait(lock, [&] { return stopping_ || (queue = ready_locked()) != nullptr; });
    if (stopping_) return;
    Notification notice = std::move(queue->front());
    queue->pop_front();
    --waiting_count_;
    std::string receiver = webhook_receiver(notice.url);
    ++in_flight_[receiver];
    lock.unlock();
    send_(notice);  // network and store I/O: no lock held
    lock.lock();
    if (--in_flight_[receiver] == 0) in_flight_.erase(receiver);
    if (waiting_[receiver].empty()) waiting_.erase(receiver);
    known_.erase(notice.id);
    wake_.notify_all();  // this receiver has a free place again
  }
}

}  // namespace tc::daemon
