#include "service/daemon/jobs/attempt_log.h"

#include <spdlog/spdlog.h>

namespace tc::daemon {

void AttemptLog::add(JobLogLine line) {
  line.attempt = attempt_;
  line.seq = next_seq_++;
  if (line.seq < kLogHeadLines) return head_.push_back(std::move(line));
  tail_.push_back(std::move(line));
  if (tail_.size() > static_cast<size_t>(kLogTailLines)) tail_.pop_front();
}

void AttemptLog::flush(bool now) {
  auto clock = std::chrono::steady_clock::now();
  if (head_.empty() && tail_.empty()) return;
  if (!now && clock - last_flush_ < std::chrono::seconds(1)) return;
  last_flush_ = clock;
  std::vector<JobLogLine> batch = std::move(head_);
  head_.clear();
  batch.insert(batch.end(), std::make_move_iterator(tail_.begin()),
               std::make_move_iterator(tail_.end()));
  tail_.clear();
  Status written = store_.append_log(id_, attempt_, batch);
  if (written.is_ok() || warned_) return;
  warned_ = true;
  spdlog::warn("job {}: lines of its log are lost ({})", id_, written.message());
}

}  // namespace tc::daemon
