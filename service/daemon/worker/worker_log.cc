#include "service/daemon/worker/worker_log.h"

#include <unistd.h>

#include <cstdarg>
#include <mutex>

extern "C" {
#include <libavutil/log.h>
}

#include "pipeline/core/user_text.h"

namespace tc::daemon {
namespace {

// libav logs from its threads (frame threads, GOP chunks): one gatherer, under a lock.
struct Gatherer {
  std::mutex mutex;
  std::string job_id;
  LogSink sink;
  std::string pending;   // the pieces of a message not ended yet
  int print_prefix = 1;  // av_log_format_line2's state: 1 at the start of a message
};

Gatherer& gatherer() {
  static Gatherer* g = new Gatherer;  // never destroyed: libav may log during exit
  return *g;
}

void write_all(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;  // nothing to be done about a log that cannot be written
    done += static_cast<size_t>(n);
  }
}

void on_libav_log(void* object, int level, const char* format, va_list args) {
  if (level > av_log_get_level()) return;
  Gatherer& g = gatherer();
  std::lock_guard lock(g.mutex);
  char piece[2048];
  av_log_format_line2(object, level, format, args, piece, sizeof piece, &g.print_prefix);
  g.pending += piece;
  if (g.pending.empty() || g.pending.back() != '\n') return;  // more of it to come
  g.pending.pop_back();
  if (level <= AV_LOG_ERROR) write_all(worker_log_line(g.job_id, g.pending));
  if (g.sink) g.sink(job_log_level(level), g.pending);
  g.pending.clear();
}

}  // namespace

std::string worker_log_line(std::string_view job_id, std::string_view message) {
  return "worker: job " + escape_text(job_id, kQuotedValueChars) + ": " + escape_text(message) +
         "\n";
}

void route_libav_log() {
  av_log_set_callback(on_libav_log);
}

void set_log_sink(LogSink sink) {
  Gatherer& g = gatherer();
  std::lock_guard lock(g.mutex);
  g.sink = std::move(sink);
}

LogLevel job_log_level(int av_level) {
  if (av_level <= AV_LOG_ERROR) return LogLevel::kError;
  if (av_level <= AV_LOG_WARNING) return LogLevel::kWarning;
  if (av_level <= AV_LOG_INFO) return LogLevel::kInfo;
  return LogLevel::kDebug;
}

void set_log_job(std::string job_id) {
  Gatherer& g = gatherer();
  std::lock_guard lock(g.mutex);
  g.job_id = std::move(job_id);
}

}  // namespace tc::daemon
